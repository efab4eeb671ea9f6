//! Limits, the stop flag and threads.

mod support;

use kanju_engine::Position;
use kanju_tsume::{
    Config, FutileRule, Limits, Outcome, RootMode, Solver, SpareRule, UnknownReason,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use support::jsonl;

fn problem(name: &str) -> Position {
    let problems = jsonl::read(&jsonl::problems_dir().join("tsume_edo_zukou_musou.jsonl"));
    let p = problems.iter().find(|p| p.name == name).expect("problem");
    Position::from_sfen(&p.sfen).unwrap()
}

fn config(threads: usize) -> Config {
    Config {
        threads,
        hash_mb: 32,
        progress_interval: Duration::from_millis(50),
        generate_all_moves: true,
        ..Config::default()
    }
}

/// Replays `line` from `pos`, asserting a mating line's shape: every move legal, every
/// attacker move a check, an odd number of plies, and the defender in check at the end.
/// Returns the end.
fn replay_checks(pos: &Position, line: &[kanju_engine::Move]) -> Position {
    let end = line.iter().enumerate().fold(pos.clone(), |p, (i, &m)| {
        assert!(p.is_legal(m), "ply {i}: {m:?}");
        assert!(i % 2 == 1 || p.gives_check(m), "ply {i}: {m:?} is no check");
        p.play(m)
    });
    assert!(line.len() % 2 == 1 && end.in_check(), "{line:?}");
    end
}

#[test]
fn two_threads_prove_the_same_problem() {
    let pos = problem("zukou-002");
    let mut s = Solver::new(config(2));
    let limits = Limits {
        time: Some(Duration::from_secs(60)),
        ..Limits::default()
    };
    let sol = s.solve(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
    assert!(matches!(sol.outcome, Outcome::Mate(_)), "{:?}", sol.outcome);
}

/// One thread's search repeats exactly under a seed, and another seed is another search
/// with the same answer: Zuko 23 takes 0.42 M nodes under seed 0 and three times as many
/// under seed 1 (256 MiB), and both prove it. The node counts would be equal if the seed
/// were ignored, and differ from run to run if it broke the repetition.
#[test]
fn a_seed_gives_another_search_that_repeats_exactly() {
    let pos = problem("zukou-023");
    let proof = |seed: u64| {
        let mut s = Solver::new(Config {
            hash_mb: 256,
            main_line: false,
            seed,
            ..Config::default()
        });
        let sol = s.solve(
            &pos,
            &Limits::default(),
            &AtomicBool::new(false),
            &mut |_| {},
        );
        let Outcome::Mate(line) = &sol.outcome else {
            panic!("seed {seed}: {:?}", sol.outcome)
        };
        replay_checks(&pos, line);
        sol.nodes
    };
    let (zero, one) = (proof(0), proof(1));
    assert_eq!(proof(1), one);
    assert_ne!(zero, one);
}

#[test]
fn node_limit_and_stop_flag_give_unknown() {
    // Shogi Zuko #1 takes far more than 2000 nodes.
    let pos = problem("zukou-001");
    let mut s = Solver::new(config(1));
    let limits = Limits {
        nodes: Some(2000),
        root: RootMode::Attacker,
        ..Limits::default()
    };
    let sol = s.solve(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
    assert_eq!(sol.outcome, Outcome::Unknown(UnknownReason::Nodes));

    // A stop raised from the progress callback is honoured.
    s.clear();
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let mut reports = 0;
    let sol = s.solve(&pos, &Limits::default(), &stop, &mut |p| {
        reports += 1;
        assert!(p.hashfull <= 1000);
        stop.store(true, Ordering::Relaxed);
    });
    assert_eq!(sol.outcome, Outcome::Unknown(UnknownReason::Stopped));
    assert!(reports >= 1);
    assert!(start.elapsed() < Duration::from_secs(30));
}

/// A node limit covers the whole solve, the main line included: a playing engine that
/// gives no time limit must get its answer. Zuko 77 is proven in a few thousand nodes,
/// but showing its 19 plies exact takes about 2 M; the main line used to take them all.
#[test]
fn a_node_limit_holds_for_the_main_line_too() {
    let pos = problem("zukou-077");
    let limit = 200_000;
    let mut s = Solver::new(config(2));
    let limits = Limits {
        nodes: Some(limit),
        ..Limits::default()
    };
    let sol = s.solve(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
    let Outcome::Mate(line) = &sol.outcome else {
        panic!("{:?}", sol.outcome)
    };
    // Zuko 77 ends in mate proper, so no futile drop is left at the end.
    let end = replay_checks(&pos, line);
    assert!(!end.has_legal_move());
    assert!(
        !sol.length_exact,
        "19 plies shown exact in {} nodes",
        sol.nodes
    );
    // What the main line did prove bounds the length from above, and Zuko 77 is 19.
    assert!(
        sol.length_bound.is_some_and(|b| b >= 19),
        "{:?}",
        sol.length_bound
    );
    // The searches poll their limits every few hundred nodes, each thread on its own.
    assert!(
        (limit..limit + 10_000).contains(&sol.nodes),
        "{} nodes for a limit of {limit}",
        sol.nodes
    );

    // With room for the exactness proof the length is shown exact, within the limit.
    s.clear();
    let limits = Limits {
        nodes: Some(6_000_000),
        ..Limits::default()
    };
    let sol = s.solve(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
    assert!(
        sol.length_exact,
        "{:?} after {} nodes",
        sol.outcome, sol.nodes
    );
    assert_eq!(sol.length_bound, Some(19));
    assert!(sol.nodes < 6_000_000 + 10_000, "{} nodes", sol.nodes);
}

/// A stop that comes after the proof, while the main line is still being worked out, keeps
/// the proof: the answer is the verified mate in hand, not `Unknown`. A GUI user who
/// presses stop during the long exactness search must still get the mate. Zuko 77 is
/// proven in a few thousand nodes and its main line takes about 2 M more, so the stop
/// raised at the first report of a mate lands in the main line.
#[test]
fn a_stop_during_the_main_line_returns_the_mate_in_hand() {
    let pos = problem("zukou-077");
    let mut s = Solver::new(config(1));
    let stop = AtomicBool::new(false);
    let mut reported: Option<Vec<kanju_engine::Move>> = None;
    let sol = s.solve(&pos, &Limits::default(), &stop, &mut |p| {
        if p.mate_len.is_some() && reported.is_none() {
            reported = Some(p.pv.clone());
            stop.store(true, Ordering::Relaxed);
        }
    });
    let Outcome::Mate(line) = &sol.outcome else {
        panic!("{:?}", sol.outcome)
    };
    assert!(reported.is_some(), "no mate was reported before the answer");
    let end = replay_checks(&pos, line);
    // Mate, up to drops that the solver's own verifier found futile.
    let mut replies = kanju_engine::MoveList::new();
    end.legal_moves_with(kanju_engine::GenMode::All, &mut replies);
    assert!(replies.as_slice().iter().all(|m| m.is_drop()), "{line:?}");
    // Stopped long before the exactness proof could be done.
    assert!(!sol.length_exact);
    assert!(sol.nodes < 1_000_000, "{} nodes", sol.nodes);
}

/// Progress goes on through the main line, which takes most of the time on many problems:
/// Zuko 77 is proven in milliseconds and shown exact after seconds. Every report after the
/// proof carries the verified mate, and its node count grows to the solution's.
#[test]
fn progress_is_reported_while_the_main_line_is_searched() {
    let pos = problem("zukou-077");
    let mut s = Solver::new(config(1));
    let mut reports = Vec::new();
    let sol = s.solve(
        &pos,
        &Limits::default(),
        &AtomicBool::new(false),
        &mut |p| {
            if p.mate_len.is_some() {
                assert!(!p.pv.is_empty());
                reports.push(p.nodes);
            }
        },
    );
    assert!(sol.length_exact, "{:?}", sol.outcome);
    assert!(reports.len() >= 5, "{reports:?}");
    assert!(reports.windows(2).all(|w| w[0] <= w[1]), "{reports:?}");
    assert_eq!(reports.last(), Some(&sol.nodes));
}

/// A verified main line is reported as soon as the main line has it, before the cook
/// search that follows: a front end that must answer early answers with it, not with the
/// df-pn proof's line. Muso 31 under the classical rules: the proof's line is 31 plies,
/// the main line 17, and its cooks take millions of nodes more.
///
/// One thread and a node limit, not a time limit, so that the search is the same on
/// every machine: on a slow one a minute ran out before the line reached 17 plies. The
/// limit leaves the main line room (about 4.5 M nodes with this table; 7.9 M with the
/// cooks) and cuts the cooks.
#[test]
fn the_main_line_is_reported_before_the_cooks_are_searched() {
    let pos = problem("musou-031");
    let mut s = Solver::new(Config {
        spare_rule: SpareRule::Classical,
        futile_rule: FutileRule::AnyLength,
        hash_mb: 256,
        ..config(1)
    });
    let limits = Limits {
        nodes: Some(6_000_000),
        ..Limits::default()
    };
    let mut reports = Vec::new();
    let sol = s.solve(&pos, &limits, &AtomicBool::new(false), &mut |p| {
        if p.mate_len.is_some() {
            reports.push((p.nodes, p.pv.clone()));
        }
    });
    let Outcome::Mate(line) = &sol.outcome else {
        panic!("{:?}", sol.outcome)
    };
    assert_eq!(line.len(), 17);
    assert_ne!(reports[0].1.len(), 17, "the proof's line");
    assert!(
        reports.iter().any(|(n, pv)| pv == line && *n < sol.nodes),
        "{:?}",
        reports
            .iter()
            .map(|(n, pv)| (n, pv.len()))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_position_without_defender_king_is_not_applicable() {
    let pos = Position::from_sfen("9/9/9/9/4K4/9/9/9/9 b - 1").unwrap();
    let mut s = Solver::new(config(1));
    let sol = s.solve(
        &pos,
        &Limits::default(),
        &AtomicBool::new(false),
        &mut |_| {},
    );
    assert_eq!(sol.outcome, Outcome::Unknown(UnknownReason::NotApplicable));
}

/// A mate longer than `max_mate_len` is not proven: antma-tsume3-2 mates in 3 and no
/// sooner, so with the limit at 1 the answer is the length limit, not the mate in 3. The
/// mate in one tested on a defender node's new children must respect the limit too: a
/// 1-ply limit makes the root's checks the last attacker moves allowed.
#[test]
fn a_mate_past_the_length_limit_is_not_returned() {
    let pos = Position::from_sfen("3sks3/9/4S4/9/9/8B/9/9/9 b S 1").unwrap();
    for (limit, mate) in [(1, false), (2, false), (3, true), (5, true)] {
        let mut s = Solver::new(config(1));
        let limits = Limits {
            max_mate_len: Some(limit),
            root: RootMode::Attacker,
            ..Limits::default()
        };
        let sol = s.solve(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
        match sol.outcome {
            Outcome::Mate(pv) if mate => assert!(pv.len() <= limit as usize, "{pv:?}"),
            Outcome::Unknown(UnknownReason::LengthLimit) if !mate => {}
            other => panic!("limit {limit}: {other:?}"),
        }
    }
}

/// A position the search proves with plies to spare can come back deeper in the tree,
/// where fewer are left: its proof must not count there. antma-tsume7-4 mates in 7 and no
/// sooner (brute force, every reply counted), yet with the limit at 5 the search took a
/// table proof found higher up for a deeper transposition, and the answer was the mate
/// in 7 (`tsume/tests/differential.rs` found it).
#[test]
fn a_proof_from_higher_up_does_not_count_past_the_length_limit() {
    let pos = Position::from_sfen("ln7/1k7/1pp1S4/p8/9/9/9/9/9 b RBGNrb3g3s2n3l15p 1").unwrap();
    for (limit, mate) in [(5, false), (7, true)] {
        let mut s = Solver::new(config(1));
        let limits = Limits {
            max_mate_len: Some(limit),
            ..Limits::default()
        };
        let sol = s.solve(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
        match sol.outcome {
            Outcome::Mate(pv) if mate => assert_eq!(pv.len(), 7, "{pv:?}"),
            Outcome::Unknown(UnknownReason::LengthLimit) if !mate => {}
            other => panic!("limit {limit}: {other:?}"),
        }
    }
}

/// "No mate within n" is kept in the table as a disproof of that reach, so other paths
/// that reach the same position with no more plies left use it. Here (the defender of
/// antma-tsume1-1 to move after a pawn move, mating in 7) ruling out a mate within 5
/// took 3.3 M nodes when each such disproof held for its own path only, and 136 k since;
/// 2 930 since an attacker node with one ply left is settled by the mate in one alone.
#[test]
fn no_mate_within_the_limit_is_shared_between_paths() {
    let pos = Position::from_sfen("k8/8p/PK7/9/9/9/9/9/9 w 2r2b4g4s4n4l16p 4").unwrap();
    let mut s = Solver::new(config(1));
    let limits = Limits {
        max_mate_len: Some(5),
        nodes: Some(1_000_000),
        ..Limits::default()
    };
    let sol = s.solve(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
    assert_eq!(sol.outcome, Outcome::Unknown(UnknownReason::LengthLimit));
    assert!(sol.nodes < 20_000, "{} nodes", sol.nodes);
    // The same table, asked without the limit: the disproofs of limited reach must not
    // pass for disproofs, and the mate in 7 is found.
    let sol = s.solve(
        &pos,
        &Limits::default(),
        &AtomicBool::new(false),
        &mut |_| {},
    );
    match sol.outcome {
        Outcome::Mate(pv) => assert_eq!(pv.len(), 7, "{pv:?}"),
        other => panic!("{other:?}"),
    }
}

/// An attacker node with one ply left is mated within the limit by a mate in one or not
/// at all, so the search settles it with that test and does not visit its checks. With a
/// full hand each such node has dozens of checks: antma-tsume1-1's mate in 7, White
/// attacking after a handed-over pawn (`tsume/tests/differential.rs` at
/// `KANJU_DIFF_SCALE=8`), took 159 016 nodes under a 7-ply limit, and 1 553 under a 9-ply
/// one; 17 774 since. Past the node limit below the answer would be `Unknown(Nodes)`.
#[test]
fn the_last_ply_under_a_length_limit_is_the_mate_in_one() {
    let pos = Position::from_sfen("k8/9/P8/1K7/9/9/9/9/9 w 2r2b4g4s4n4l17p 2").unwrap();
    let mut s = Solver::new(config(1));
    let limits = Limits {
        max_mate_len: Some(7),
        nodes: Some(60_000),
        ..Limits::default()
    };
    let sol = s.solve(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
    match &sol.outcome {
        Outcome::Mate(pv) => {
            assert_eq!(pv.len(), 7, "{pv:?}");
            replay_checks(&pos, pv);
        }
        other => panic!("{other:?}"),
    }
    // Five plies are too few: every check is refuted within the limit, and the answer says
    // so rather than claiming no mate.
    let limits = Limits {
        max_mate_len: Some(5),
        ..limits
    };
    let sol = s.solve(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
    assert_eq!(sol.outcome, Outcome::Unknown(UnknownReason::LengthLimit));
}
