//! Exact main lines against fresh solves of their own positions.
//!
//! A length marked exact is a claim about every position on the line, not only its
//! first: k plies into an exact line of L plies, the position is mated in exactly L - k.
//! So a fresh solve of that position, on a cleared table, must not mark another length
//! exact, nor answer `NoMate`. The check needs no oracle, and catches what brute force
//! cannot: a length too short, and the 駒余り convention's choices, which brute force
//! does not model. Its larger form, through the command line, is
//! `scripts/line_consistency.py`; it found the bugs pinned by the classical-convention
//! and near-mate tests of `mainline_rules.rs`.
//!
//! A return to a position earlier on the line counts as no mate on that line, which a
//! fresh solve cannot know; on these positions that has never made a difference.

#[path = "support/chase.rs"]
mod chase;
#[path = "../../engine/tests/common/mod.rs"]
mod common;

use chase::sparse_chase;
use common::Rng;
use kanju_engine::Position;
use kanju_tsume::{Config, FutileRule, Limits, Outcome, RootMode, Solver, SpareRule};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Sparse chases solved, per set of rules (about one in ten has an exact line).
const ROOTS: usize = 500;

/// Sparse chases on whose lines the script found breaks, each a bug since fixed: under
/// the classical rules the first two printed 6 plies for 12 after 6b6c and 9 for 11 after
/// 4a4d+ 2d2c (see `mainline_rules.rs`' classical-convention tests), the third 6 for 2
/// after L*3h (the near-mate test there), the fourth 13 for 11 (the test there of a drop
/// counted effective on an undecided test), the fifth 7 for 5 after 4 plies (the test
/// there of a defence shown longest on a disproof gone stale), the sixth (a dense open
/// chase) 9 for 7, exact, where after 5a6b 6c5d the position came out 5 for the line's 7
/// (the test there of the root's disproof resting on an undecided test).
const FOUND: [&str; 6] = [
    "9/3R1L2L/7k1/9/9/9/9/9/9 b RP 1",
    "4sR2s/9/9/7k1/5+R3/9/9/9/9 b s 1",
    "6k1B/9/9/9/9/4+B+R3/9/9/9 b Lg 1",
    "5k3/9/5B3/3+R5/4g+r3/3+B5/9/9/9 b g 1",
    "5k3/9/9/7p+R/7+RG/9/9/9/9 b SLp 1",
    "2+R1+Rlg2/9/3kg1N1+B/9/9/9/9/9/9 b GSNs 1",
];

#[test]
fn exact_lines_agree_with_fresh_solves_of_their_positions() {
    let mut rng = Rng::new(7);
    let roots: Vec<Position> = FOUND
        .iter()
        .map(|s| s.to_string())
        .chain((0..ROOTS).map(|_| sparse_chase(&mut rng)))
        .filter_map(|s| Position::from_sfen(&s).ok())
        .collect();
    let limits = Limits {
        nodes: Some(300_000),
        time: Some(Duration::from_secs(30)),
        root: RootMode::DefenderIfInCheck,
        ..Limits::default()
    };
    for (spare_rule, futile_rule) in [
        (SpareRule::Strict, FutileRule::SameLength),
        (SpareRule::Classical, FutileRule::AnyLength),
    ] {
        let mut solver = Solver::new(Config {
            threads: 1,
            hash_mb: 32,
            progress_interval: Duration::ZERO,
            spare_rule,
            futile_rule,
            ..Config::default()
        });
        let mut solve = |pos: &Position| {
            solver.clear();
            solver.solve(pos, &limits, &AtomicBool::new(false), &mut |_| {})
        };
        let (mut lines, mut positions, mut breaks) = (0, 0, Vec::new());
        for root in &roots {
            let s = solve(root);
            let Outcome::Mate(line) = &s.outcome else {
                continue;
            };
            if !s.length_exact {
                continue;
            }
            lines += 1;
            let mut pos = root.clone();
            for (k, &m) in line[..line.len() - 1].iter().enumerate() {
                pos = pos.play(m);
                let left = line.len() - k - 1;
                let t = solve(&pos);
                positions += 1;
                let at = format!("{} after {} plies", root.to_sfen(), k + 1);
                match &t.outcome {
                    Outcome::NoMate => breaks.push(format!("{at}: nomate, not mated in {left}")),
                    Outcome::Mate(rest) if t.length_exact && rest.len() != left => {
                        breaks.push(format!("{at}: exact {}, not {left}", rest.len()))
                    }
                    _ => {}
                }
            }
        }
        assert!(
            breaks.is_empty(),
            "{spare_rule:?}: {} breaks:\n{}",
            breaks.len(),
            breaks.join("\n")
        );
        eprintln!("{spare_rule:?}: {lines} exact lines, {positions} positions on them");
        assert!(
            lines >= 30 && positions >= 150,
            "{lines} lines, {positions} positions"
        );
    }
}
