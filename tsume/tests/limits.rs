//! Limits, the stop flag and threads.

mod support;

use kanju_engine::Position;
use kanju_tsume::{Config, Limits, Outcome, RootMode, Solver, UnknownReason};
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
