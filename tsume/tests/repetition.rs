//! Repetition and loops: GHI safety and TCA termination, on real positions.
//!
//! A result that depends on the path (a disproof because the attacker's checks ran into a
//! position already on the path) must never be stored as a general disproof. The tests
//! solve positions on a line after the table has been filled by a search from the root,
//! and compare with a fresh table: a poisoned entry would turn a mate into a no-mate.

mod support;

use kanju_engine::{GenMode, MoveList, Position};
use kanju_tsume::{Config, Limits, Outcome, RootMode, Solver};
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use support::jsonl;

fn solver() -> Solver {
    Solver::new(Config {
        threads: 1,
        hash_mb: 32,
        progress_interval: Duration::ZERO,
        generate_all_moves: true,
        ..Config::default()
    })
}

fn solve(s: &mut Solver, pos: &Position) -> Outcome {
    let limits = Limits {
        time: Some(Duration::from_secs(60)),
        nodes: Some(5_000_000),
        max_mate_len: None,
        root: RootMode::DefenderIfInCheck,
    };
    s.solve(pos, &limits, &AtomicBool::new(false), &mut |_| {})
        .outcome
}

fn is_mate(o: &Outcome) -> bool {
    matches!(o, Outcome::Mate(_))
}

/// A rook alone can check forever but never mate: every line of checks ends in a
/// repetition. The answer is NoMate, and positions inside the cycles get the same answer
/// from the filled table as from a fresh one.
#[test]
fn perpetual_checks_are_no_mate_and_leave_no_poison() {
    let root = Position::from_sfen("7k1/9/7P1/9/9/9/9/9/8R b r2b4g4s4n4l17p 1").unwrap();
    let mut shared = solver();
    assert_eq!(solve(&mut shared, &root), Outcome::NoMate);
    let mut checks = MoveList::new();
    root.checks(GenMode::All, &mut checks);
    assert!(!checks.is_empty());
    for &m in checks.as_slice() {
        let child = root.play(m);
        let mut replies = MoveList::new();
        child.evasions(GenMode::All, &mut replies);
        for &r in replies.as_slice().iter().take(4) {
            let grandchild = child.play(r);
            let with_table = solve(&mut shared, &grandchild);
            let fresh = solve(&mut solver(), &grandchild);
            assert_eq!(
                is_mate(&with_table),
                is_mate(&fresh),
                "{m} {r}: {with_table:?} vs {fresh:?}"
            );
        }
    }
}

/// Along the published line of a problem with king walks (TCA has to break loops to get
/// through it), every attacker position is a mate, whether solved after the root filled
/// the table with path-dependent results or from an empty table.
#[test]
fn mates_along_a_line_survive_a_filled_table() {
    let problems = jsonl::read(&jsonl::problems_dir().join("tsume_edo_zukou_musou.jsonl"));
    let p = problems
        .iter()
        .find(|p| p.name == "zukou-011")
        .expect("zukou-011");
    let root = Position::from_sfen(&p.sfen).unwrap();
    let mut shared = solver();
    assert!(is_mate(&solve(&mut shared, &root)));
    let mut pos = root.clone();
    for (i, usi) in p.solution.as_ref().unwrap().iter().enumerate() {
        if i % 2 == 0 && i % 6 == 0 {
            assert!(
                is_mate(&solve(&mut shared, &pos)),
                "ply {i}: shared table lost the mate"
            );
            assert!(
                is_mate(&solve(&mut solver(), &pos)),
                "ply {i}: fresh table found no mate"
            );
        }
        let m = pos.parse_usi_move(usi).unwrap();
        pos = pos.play(m);
    }
}
