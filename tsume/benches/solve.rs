//! The solver's speed on real problems: proofs on one thread, one thread against two, and
//! whole answers with the composer's main line.
//!
//! A custom harness (`harness = false`), as in the engine's benchmarks: each figure wanted
//! is a median over a few runs, and the thread comparison interleaves its runs so that
//! both settings see the same machine state. The problems are written in here, so the
//! benchmark needs nothing beside the crate.
//!
//! ```text
//! cargo bench -p kanju-tsume --bench solve                      # every group
//! cargo bench -p kanju-tsume --bench solve -- proof             # groups or problems whose
//! cargo bench -p kanju-tsume --bench solve -- threads zuko-23   #   name holds a filter
//! KANJU_BENCH_RUNS=5 cargo bench -p kanju-tsume --bench solve   # more repetitions
//! ```
//!
//! - **proof**: the first verified mate (or the disproof), one thread, 256 MiB, the table
//!   cleared before every run. On one thread the search is deterministic, so the nodes
//!   must come out the same in every run: a change that keeps them and cuts the time is a
//!   pure speed gain, and one that moves them changed the search.
//! - **threads**: the same with one and with two threads, runs alternating, 1 GiB. Two
//!   threads' nodes vary from run to run; the speed-up is the ratio of the medians.
//! - **answer**: the whole solve a GUI waits for, main line included, under the classical
//!   collections' rules (Classical, AnyLength), one thread, 1 GiB: the length printed,
//!   whether it was shown exact, and the time.
//! - **brinkmate**: `Solver::brinkmate` on positions of `shared/problems/hisshi/`, one
//!   thread, 256 MiB: the nodes (the same in every run) and the time.
//!
//! Every result is also printed as one `BENCH group/problem key=value …` line for scripts.
//! A run whose outcome is not the problem's known one, or an answer whose length is not
//! the published one, stops the benchmark: a fast wrong answer is not a speed.

// The engine's bench and test helpers (medians, run counts), shared rather than copied.
#[path = "../../engine/tests/common/mod.rs"]
mod common;

use common::{median, runs};
use kanju_engine::Position;
use kanju_tsume::{
    BrinkmateLimits, BrinkmateOutcome, BrinkmateSolution, Config, FutileRule, Limits, Outcome,
    Solution, Solver, SpareRule,
};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A problem and what it must give.
struct Problem {
    name: &'static str,
    sfen: &'static str,
    /// Plies of the published main line; `None` for a position with no mate.
    mate: Option<usize>,
}

/// Proofs that take one thread about 0.4 to 5 s. One is a disproof: Shogi Muso 37 as
/// recorded, whose published line mates only because its defences are not the best
/// (`disputed-nomate` in the problem file).
const PROOFS: &[Problem] = &[
    Problem {
        name: "zuko-23",
        sfen: "4g4/1Slg1+P3/+rs1kp4/1L2s4/p+R1s5/2N6/9/9/9 b 2BN2g2n2l15p 1",
        mate: Some(23),
    },
    Problem {
        name: "zuko-91",
        sfen: "1k1ps4/s2R5/+b8/NNP6/3N5/1rL4n1/9/7P1/7+p+B b P4g2s3l13p 1",
        mate: Some(27),
    },
    Problem {
        name: "zuko-98",
        sfen: "8k/9/9/9/9/9/9/9/9 b R2GSr2b2g3s4n4l18p 1",
        mate: Some(31),
    },
    Problem {
        name: "zuko-99",
        sfen: "k1+P4n1/2L+P2sL1/r4+P+P1P/+BpP+Pl1+Rg1/NP1S+PP+p1g/2L+p1g+P1+P/Ps1G1+P1N1/1sN1P4/B8 b - 1",
        mate: Some(117),
    },
    Problem {
        name: "zuko-100",
        sfen: "g3p3+r/3lPG3/1s4ppp/1l1B4P/L2b1kPl1/3+p3+R+p/3+p2+s1S/+NP+p1gS3/1g+p2P3 b 4P3n 1",
        mate: Some(611),
    },
    Problem {
        name: "muso-6",
        sfen: "s6+P1/g1B2kS2/1p1N1B3/1P7/4N4/1S7/9/5+r3/6+R2 b L2P3gs2n3l13p 1",
        mate: Some(43),
    },
    Problem {
        name: "muso-30",
        sfen: "2B1n1R2/7Gp/4+N4/6rk1/4sNl2/9/2+p2NsG1/5+B3/1s1P3s1 b 2g3l15p 1",
        mate: Some(119),
    },
    Problem {
        name: "muso-67",
        sfen: "9/2+r6/4B4/9/1P1sp4/n1l6/3P2+R2/+B2k1G3/1L1+pP4 b 2N2P3g3sn2l11p 1",
        mate: Some(33),
    },
    Problem {
        name: "muso-37",
        sfen: "nl+Pg+r4/1P2b4/Pk1r5/p1LpL4/g8/N1PG+b4/9/9/9 b G2N3P4sl9p 1",
        mate: None,
    },
];

/// Whole answers that take one thread a few seconds, most of it the main line; each is a
/// problem whose published length a strong solver confirmed (`confirmed` in the file).
const ANSWERS: &[Problem] = &[
    Problem {
        name: "zuko-19",
        sfen: "2+b6/P1l+R5/pk7/N1P6/1S7/2p6/1R7/9/9 b 3Pb4g3s3n3l11p 1",
        mate: Some(21),
    },
    Problem {
        name: "zuko-40",
        sfen: "9/9/9/3S1l3/3lG1p+B1/2G2k3/4b1l2/4L2+r1/3R5 b N3P2g3s3n14p 1",
        mate: Some(21),
    },
    Problem {
        name: "zuko-77",
        sfen: "9/9/9/2+R6/3+p5/1+p1lb4/3rk1S2/2+B1g4/2P1gsS2 b 2GNs3n3l15p 1",
        mate: Some(19),
    },
    Problem {
        name: "muso-35",
        sfen: "4p4/n1s+B5/sR1n5/k8/3P5/2s+p5/sNP6/9/9 b RB4gn4l14p 1",
        mate: Some(17),
    },
];

/// A brinkmate position and what it must give.
struct Brink {
    name: &'static str,
    sfen: &'static str,
    /// The plies searched.
    plies: u32,
    /// The brinkmate's length; `None` for a position proven to have none.
    line: Option<usize>,
}

/// Brinkmate searches of 0.1 to 1 s (the hisshi file's names).
const BRINKS: &[Brink] = &[
    Brink {
        name: "osl-1tesuki2",
        sfen: "8k/9/7g1/7P1/9/9/PPPP5/RLG6/KGRG5 b 4S2b4n3l13p 1",
        plies: 5,
        line: Some(1),
    },
    Brink {
        name: "proverb1",
        sfen: "2R2g1nl/3+P1sk2/5p1p1/6p1p/5P1P1/9/9/9/9 b G 1",
        plies: 3,
        line: Some(3),
    },
    Brink {
        name: "proverb2",
        sfen: "5R1nl/4g2k1/4pp1g1/6pPp/5Ps2/8P/9/9/8L b 2g 1",
        plies: 3,
        line: Some(3),
    },
    Brink {
        name: "osl-2tesuki1",
        sfen: "lnsgkgsnl/1r5+B1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL b B 1",
        plies: 3,
        line: None,
    },
];

fn geometric_mean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

/// One solve on a cleared table, checked against the problem's known outcome.
fn solve(solver: &mut Solver, p: &Problem) -> Solution {
    let pos = Position::from_sfen(p.sfen).expect("a benchmark problem is a valid position");
    solver.clear();
    let stop = AtomicBool::new(false);
    let limits = Limits {
        time: Some(Duration::from_secs(120)),
        ..Limits::default()
    };
    let sol = solver.solve(&pos, &limits, &stop, &mut |_| {});
    let ok = match (&sol.outcome, p.mate) {
        (Outcome::Mate(line), Some(_)) => !line.is_empty(),
        (Outcome::NoMate, None) => true,
        _ => false,
    };
    assert!(
        ok,
        "{}: {:?} where the problem says {:?}",
        p.name, sol.outcome, p.mate
    );
    sol
}

fn config(threads: usize, hash_mb: usize, main_line: bool) -> Config {
    Config {
        threads,
        hash_mb,
        progress_interval: Duration::ZERO,
        main_line,
        spare_rule: SpareRule::Classical,
        futile_rule: FutileRule::AnyLength,
        ..Config::default()
    }
}

fn proof(filters: &[String]) {
    let mut solver = Solver::new(config(1, 256, false));
    let mut rates = Vec::new();
    for p in PROOFS.iter().filter(|p| wanted(filters, "proof", p.name)) {
        let sols: Vec<Solution> = (0..runs(3)).map(|_| solve(&mut solver, p)).collect();
        let nodes = sols[0].nodes;
        let same = sols.iter().all(|s| s.nodes == nodes);
        let secs = median(sols.iter().map(|s| s.elapsed.as_secs_f64()).collect());
        let nps = nodes as f64 / secs;
        rates.push(nps);
        println!(
            "proof   {:<10} {:>10} nodes {:>8.3} s {:>9.0} nodes/s{}",
            p.name,
            nodes,
            secs,
            nps,
            if same {
                ""
            } else {
                "  (nodes differ between runs!)"
            }
        );
        println!(
            "BENCH proof/{} nodes={nodes} seconds={secs:.4} nps={nps:.0} same_nodes={same}",
            p.name
        );
    }
    if !rates.is_empty() {
        let m = median(rates);
        println!("proof   median nodes/s over the problems: {m:.0}");
        println!("BENCH proof/median nps={m:.0}");
    }
}

fn threads(filters: &[String]) {
    let mut one = Solver::new(config(1, 1024, false));
    let mut two = Solver::new(config(2, 1024, false));
    let mut speedups = Vec::new();
    for p in PROOFS.iter().filter(|p| wanted(filters, "threads", p.name)) {
        let (mut t1, mut t2) = (Vec::new(), Vec::new());
        for i in 0..runs(3) {
            // Alternate which goes first so neither always meets a warmer machine.
            for two_first in [i % 2 == 1, i % 2 == 0] {
                if two_first {
                    t2.push(solve(&mut two, p).elapsed.as_secs_f64());
                } else {
                    t1.push(solve(&mut one, p).elapsed.as_secs_f64());
                }
            }
        }
        let (m1, m2) = (median(t1), median(t2.clone()));
        let speedup = m1 / m2;
        speedups.push(speedup);
        let spread: Vec<String> = t2.iter().map(|t| format!("{t:.2}")).collect();
        println!(
            "threads {:<10} 1 thread {:>8.3} s, 2 threads {:>8.3} s ({}), {:.2}x",
            p.name,
            m1,
            m2,
            spread.join(", "),
            speedup
        );
        println!(
            "BENCH threads/{} one={m1:.4} two={m2:.4} speedup={speedup:.3}",
            p.name
        );
    }
    if !speedups.is_empty() {
        let (m, g) = (median(speedups.clone()), geometric_mean(&speedups));
        println!("threads speed-up over the problems: median {m:.2}x, geometric mean {g:.2}x");
        println!("BENCH threads/all median={m:.3} geomean={g:.3}");
    }
}

fn answer(filters: &[String]) {
    let mut solver = Solver::new(config(1, 1024, true));
    for p in ANSWERS.iter().filter(|p| wanted(filters, "answer", p.name)) {
        let sols: Vec<Solution> = (0..runs(3)).map(|_| solve(&mut solver, p)).collect();
        let secs = median(sols.iter().map(|s| s.elapsed.as_secs_f64()).collect());
        let proof = median(
            sols.iter()
                .map(|s| s.decided_after.unwrap_or_default().as_secs_f64())
                .collect(),
        );
        let s = &sols[0];
        let plies = match &s.outcome {
            Outcome::Mate(line) => line.len(),
            _ => 0,
        };
        let published = p.mate.unwrap_or(0);
        assert_eq!(
            plies, published,
            "{}: the main line is not the published one",
            p.name
        );
        println!(
            "answer  {:<10} {:>4} plies (published {}){} {:>8.3} s, proof {:.3} s",
            p.name,
            plies,
            published,
            if s.length_exact { ", exact" } else { "" },
            secs,
            proof
        );
        println!(
            "BENCH answer/{} plies={plies} published={published} exact={} seconds={secs:.4} proof={proof:.4}",
            p.name, s.length_exact
        );
    }
}

/// One brinkmate search on a cleared table, checked against the position's known answer.
fn brinkmate(solver: &mut Solver, b: &Brink) -> BrinkmateSolution {
    let pos = Position::from_sfen(b.sfen).expect("a benchmark position is valid");
    solver.clear();
    let limits = BrinkmateLimits {
        time: Some(Duration::from_secs(120)),
        nodes: None,
        max_plies: b.plies,
    };
    let found = solver.brinkmate(&pos, &limits, &AtomicBool::new(false));
    let ok = match (&found.outcome, b.line) {
        (BrinkmateOutcome::Brinkmate(line), Some(n)) => line.len() == n,
        (BrinkmateOutcome::NoBrinkmate, None) => true,
        _ => false,
    };
    assert!(
        ok,
        "{}: {:?} where {:?} is known",
        b.name, found.outcome, b.line
    );
    found
}

fn brinkmates(filters: &[String]) {
    let mut solver = Solver::new(config(1, 256, false));
    for b in BRINKS
        .iter()
        .filter(|b| wanted(filters, "brinkmate", b.name))
    {
        let found: Vec<BrinkmateSolution> =
            (0..runs(3)).map(|_| brinkmate(&mut solver, b)).collect();
        let nodes = found[0].nodes;
        let same = found.iter().all(|f| f.nodes == nodes);
        let secs = median(found.iter().map(|f| f.elapsed.as_secs_f64()).collect());
        println!(
            "brinkmate {:<12} {} plies {:>10} nodes {:>8.3} s{}",
            b.name,
            b.plies,
            nodes,
            secs,
            if same {
                ""
            } else {
                "  (nodes differ between runs!)"
            }
        );
        println!(
            "BENCH brinkmate/{} nodes={nodes} seconds={secs:.4} same_nodes={same}",
            b.name
        );
    }
}

/// The groups, by name.
const GROUPS: [&str; 4] = ["proof", "threads", "answer", "brinkmate"];

/// Whether problem `p` runs in `group`: filters that name a group pick groups, the others
/// pick problems by part of their name, and no filter of a kind means all of that kind.
fn wanted(filters: &[String], group: &str, name: &str) -> bool {
    let (groups, names): (Vec<&String>, Vec<&String>) =
        filters.iter().partition(|f| GROUPS.contains(&f.as_str()));
    (groups.is_empty() || groups.iter().any(|g| g.as_str() == group))
        && (names.is_empty() || names.iter().any(|n| name.contains(n.as_str())))
}

fn main() {
    // `cargo bench` passes `--bench`; everything else is a filter.
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    proof(&filters);
    threads(&filters);
    answer(&filters);
    brinkmates(&filters);
}
