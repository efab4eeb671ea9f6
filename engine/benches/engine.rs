//! Kanju against rsshogi, measured in the same run on the same positions.
//!
//! A custom harness (`harness = false`) rather than criterion: every benchmark here is a
//! pair (Kanju, rsshogi) whose runs are interleaved so that both see the same machine state,
//! and the figure wanted is a median per position or per call, printed side by side. That is
//! a few dozen lines with `std::time::Instant` and needs no extra dependency to build on CI.
//!
//! ```text
//! cargo bench -p kanju-engine --bench engine                 # everything
//! cargo bench -p kanju-engine --bench engine -- checks mate  # only names containing a filter
//! KANJU_BENCH_RUNS=5 cargo bench -p kanju-engine --bench engine   # fewer repetitions
//! ```
//!
//! Every result line is also printed as `BENCH <name> kanju=<v> rsshogi=<v> unit=<u>` for
//! `scripts/bench_engine.sh`.

#[path = "../tests/common/mod.rs"]
mod common;

use common::{median, rs, runs, Rng};
use kanju_engine::{Color, GenMode, Move, MoveList, Position};
use rsshogi::board::MoveList as RMoveList;
use std::hint::black_box;
use std::time::Instant;

const TACTICAL: &str = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";

/// Times `k` and `r` alternately, `n` times each after one warm-up, and returns the medians
/// in seconds.
fn pair(n: usize, mut k: impl FnMut(), mut r: impl FnMut()) -> (f64, f64) {
    k();
    r();
    let (mut kt, mut rt) = (Vec::new(), Vec::new());
    for i in 0..n {
        // Alternate which goes first so neither always runs on a warmer cache.
        let order = if i % 2 == 0 { [0, 1] } else { [1, 0] };
        for which in order {
            let t = Instant::now();
            if which == 0 {
                k();
                kt.push(t.elapsed().as_secs_f64());
            } else {
                r();
                rt.push(t.elapsed().as_secs_f64());
            }
        }
    }
    (median(kt), median(rt))
}

fn report(name: &str, kanju: f64, rsshogi: f64, unit: &str, note: &str) {
    let ratio = rsshogi / kanju;
    println!(
        "{name:<34} Kanju {kanju:>12.1} {unit:<9} rsshogi {rsshogi:>12.1} {unit:<9} rsshogi/Kanju {ratio:>5.2}x  {note}"
    );
    println!(
        "BENCH {} kanju={kanju:.1} rsshogi={rsshogi:.1} unit={unit}",
        name.replace(' ', "_")
    );
}

// ---------------------------------------------------------------------------------------
// Position sets
// ---------------------------------------------------------------------------------------

struct Sets {
    /// Side to move not in check, opponent has a king: where checks are generated.
    quiet: Vec<String>,
    /// Side to move in check.
    in_check: Vec<String>,
}

/// Tsume problems (attacker to move, no attacker king) and positions reached from them and
/// from game positions by seeded random playouts biased towards checks.
fn position_sets() -> Sets {
    let mut starts = common::tsume_seeds();
    starts.push(kanju_engine::STARTPOS_SFEN.to_owned());
    starts.push(TACTICAL.to_owned());
    let mut quiet = Vec::new();
    let mut in_check = Vec::new();
    let mut rng = Rng::new(2024);
    for (i, s) in starts.iter().enumerate() {
        let Ok(mut pos) = Position::from_sfen(s) else {
            continue;
        };
        let plies = if i >= starts.len() - 2 { 60 } else { 8 };
        for _ in 0..plies {
            let sfen = pos.to_sfen();
            if pos.in_check() {
                in_check.push(sfen);
            } else if pos.king_square(pos.side_to_move().flip()).is_some() {
                quiet.push(sfen);
            }
            let mut l = MoveList::new();
            if rng.chance(60) {
                pos.checks(GenMode::All, &mut l);
            }
            if l.is_empty() {
                pos.legal_moves_with(GenMode::All, &mut l);
            }
            if l.is_empty() {
                break;
            }
            pos = pos.play(*rng.pick(l.as_slice()));
        }
    }
    Sets { quiet, in_check }
}

fn parse_both(sfens: &[String]) -> (Vec<Position>, Vec<rs::RPos>) {
    let k = sfens
        .iter()
        .map(|s| Position::from_sfen(s).expect("kanju parses"))
        .collect();
    let r = sfens
        .iter()
        .map(|s| rs::parse(s).expect("rsshogi parses"))
        .collect();
    (k, r)
}

// ---------------------------------------------------------------------------------------
// Benchmarks
// ---------------------------------------------------------------------------------------

fn bench_perft(name: &str, sfen: &str, depth: u32, n: usize) {
    let k = Position::from_sfen(sfen).unwrap();
    let mut r = rs::parse(sfen).unwrap();
    let kn = kanju_engine::perft(&k, depth);
    let rn = rsshogi::board::perft::compute_perft(&mut r, depth as u8);
    assert_eq!(kn, rn, "{name}: node counts differ");
    let (kt, rt) = pair(
        n,
        || {
            black_box(kanju_engine::perft(black_box(&k), depth));
        },
        || {
            black_box(rsshogi::board::perft::compute_perft(
                black_box(&mut r),
                depth as u8,
            ));
        },
    );
    report(
        name,
        kt * 1e3,
        rt * 1e3,
        "ms",
        &format!(
            "{kn} nodes; Kanju {:.1} Mnps, rsshogi {:.1} Mnps",
            kn as f64 / kt / 1e6,
            rn as f64 / rt / 1e6
        ),
    );
}

/// Perft that makes every leaf move too (no bulk counting at the last ply): Kanju by
/// copy-make, rsshogi by apply + undo. Both reuse one move buffer per depth.
fn kanju_perft_full(p: &Position, depth: u32, bufs: &mut [MoveList]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (l, rest) = bufs.split_first_mut().unwrap();
    l.clear();
    p.legal_moves_with(GenMode::All, l);
    let mut n = 0;
    for &m in l.iter() {
        n += kanju_perft_full(&p.play(m), depth - 1, rest);
    }
    n
}

fn rs_perft_full(p: &mut rs::RPos, depth: u32, bufs: &mut [rsshogi::board::Move32List]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (l, rest) = bufs.split_first_mut().unwrap();
    l.clear();
    rsshogi::movegen::generate_legal_all_move32(p, l);
    let mut n = 0;
    for &m in l.iter() {
        p.apply_move32(m);
        n += rs_perft_full(p, depth - 1, rest);
        p.undo_move32(m).unwrap();
    }
    n
}

fn bench_perft_full(name: &str, sfen: &str, depth: u32, n: usize) {
    let k = Position::from_sfen(sfen).unwrap();
    let mut r = rs::parse(sfen).unwrap();
    let mut kb: Vec<MoveList> = (0..depth).map(|_| MoveList::new()).collect();
    let mut rb: Vec<rsshogi::board::Move32List> = (0..depth)
        .map(|_| rsshogi::board::Move32List::new())
        .collect();
    let kn = kanju_perft_full(&k, depth, &mut kb);
    let rn = rs_perft_full(&mut r, depth, &mut rb);
    assert_eq!(kn, rn, "{name}: node counts differ");
    let (kt, rt) = pair(
        n,
        || {
            black_box(kanju_perft_full(black_box(&k), depth, &mut kb));
        },
        || {
            black_box(rs_perft_full(black_box(&mut r), depth, &mut rb));
        },
    );
    report(
        name,
        kt * 1e3,
        rt * 1e3,
        "ms",
        &format!(
            "{kn} nodes, every leaf made; Kanju {:.1} Mnps, rsshogi {:.1} Mnps",
            kn as f64 / kt / 1e6,
            rn as f64 / rt / 1e6
        ),
    );
}

fn bench_checks(sets: &Sets, n: usize) {
    let (kp, rp) = parse_both(&sets.quiet);
    let count = kp.len() as f64;
    let mut kl = MoveList::new();
    let mut rl = RMoveList::new();
    let total: usize = kp
        .iter()
        .map(|p| {
            kl.clear();
            p.checks(GenMode::Standard, &mut kl);
            kl.len()
        })
        .sum();
    let note = format!(
        "{} positions, {:.1} checks each",
        kp.len(),
        total as f64 / count
    );
    // Kanju's generator yields legal moves only; rsshogi's `generate_checks` is pseudo-legal,
    // so it is timed both bare and with the legality filter that makes the outputs equal.
    let (kt, rt) = pair(
        n,
        || {
            for p in &kp {
                kl.clear();
                p.checks(GenMode::Standard, &mut kl);
                black_box(kl.len());
            }
        },
        || {
            for p in &rp {
                rl.clear();
                rsshogi::movegen::generate_checks(p, &mut rl);
                let legal = rl.iter().filter(|&&m| p.is_legal_move(m)).count();
                black_box(legal);
            }
        },
    );
    report(
        "checks/standard (legal)",
        kt / count * 1e9,
        rt / count * 1e9,
        "ns/pos",
        &note,
    );
    let (kt, rt) = pair(
        n,
        || {
            for p in &kp {
                kl.clear();
                p.checks(GenMode::Standard, &mut kl);
                black_box(kl.len());
            }
        },
        || {
            for p in &rp {
                rl.clear();
                rsshogi::movegen::generate_checks(p, &mut rl);
                black_box(rl.len());
            }
        },
    );
    report(
        "checks/standard vs rsshogi pseudo",
        kt / count * 1e9,
        rt / count * 1e9,
        "ns/pos",
        "rsshogi unfiltered",
    );
    let mut rl32 = rsshogi::board::Move32List::new();
    let (kt, rt) = pair(
        n,
        || {
            for p in &kp {
                kl.clear();
                p.checks(GenMode::All, &mut kl);
                black_box(kl.len());
            }
        },
        || {
            for p in &rp {
                rl32.clear();
                rsshogi::movegen::generate_checks_all_move32(p, &mut rl32);
                let legal = rl32.iter().filter(|&&m| p.is_legal_move32(m)).count();
                black_box(legal);
            }
        },
    );
    report(
        "checks/all (legal)",
        kt / count * 1e9,
        rt / count * 1e9,
        "ns/pos",
        "non-promotions included",
    );
}

fn bench_evasions(sets: &Sets, n: usize) {
    let (kp, rp) = parse_both(&sets.in_check);
    let count = kp.len() as f64;
    let mut kl = MoveList::new();
    let mut rl = RMoveList::new();
    // rsshogi's fastest legal path in check is its generic `Legal` / `LegalAll` generator
    // (same set as `generate_legal_evasions*`, which filters through a second buffer and
    // measured 10-20x slower here, so comparing against it would flatter Kanju).
    for (mode, name) in [
        (GenMode::Standard, "evasions/standard (legal)"),
        (GenMode::All, "evasions/all (legal)"),
    ] {
        let (kt, rt) = pair(
            n,
            || {
                for p in &kp {
                    kl.clear();
                    p.evasions(mode, &mut kl);
                    black_box(kl.len());
                }
            },
            || {
                for p in &rp {
                    if mode == GenMode::Standard {
                        rsshogi::movegen::generate_moves::<rsshogi::movegen::Legal>(p, &mut rl);
                    } else {
                        rsshogi::movegen::generate_moves::<rsshogi::movegen::LegalAll>(p, &mut rl);
                    }
                    black_box(rl.len());
                }
            },
        );
        report(
            name,
            kt / count * 1e9,
            rt / count * 1e9,
            "ns/pos",
            &format!("{} positions in check", kp.len()),
        );
    }
}

fn bench_mate1(sets: &Sets, n: usize) {
    // Attacker-to-move positions: the quiet set plus the tsume problems themselves.
    let (kp, rp) = parse_both(&sets.quiet);
    let count = kp.len() as f64;
    let kfound = kp.iter().filter(|p| p.mate_in_1().is_some()).count();
    let rfound = rp
        .iter()
        .filter(|p| rsshogi::mate::solve_mate_in_one(p).is_some())
        .count();
    assert_eq!(
        kfound, rfound,
        "mate-in-1: Kanju and rsshogi disagree on how many positions have one"
    );
    let note = format!("{} positions, {kfound} with a mate in 1", kp.len());
    let (kt, rt) = pair(
        n,
        || {
            for p in &kp {
                black_box(p.mate_in_1());
            }
        },
        || {
            for p in &rp {
                black_box(rsshogi::mate::solve_mate_in_one(p));
            }
        },
    );
    report(
        "mate_in_1",
        kt / count * 1e9,
        rt / count * 1e9,
        "ns/call",
        &note,
    );
    // Only the positions that have a mate, and only those without one.
    for (label, want) in [("mate_in_1/found", true), ("mate_in_1/none", false)] {
        let idx: Vec<usize> = (0..kp.len())
            .filter(|&i| kp[i].mate_in_1().is_some() == want)
            .collect();
        if idx.is_empty() {
            continue;
        }
        let c = idx.len() as f64;
        let (kt, rt) = pair(
            n,
            || {
                for &i in &idx {
                    black_box(kp[i].mate_in_1());
                }
            },
            || {
                for &i in &idx {
                    black_box(rsshogi::mate::solve_mate_in_one(&rp[i]));
                }
            },
        );
        report(
            label,
            kt / c * 1e9,
            rt / c * 1e9,
            "ns/call",
            &format!("{} positions", idx.len()),
        );
    }
}

fn bench_legal(sets: &Sets, n: usize) {
    let mut all = sets.quiet.clone();
    all.extend(sets.in_check.iter().cloned());
    let (kp, rp) = parse_both(&all);
    let count = kp.len() as f64;
    let mut kl = MoveList::new();
    let mut rl = RMoveList::new();
    let (kt, rt) = pair(
        n,
        || {
            for p in &kp {
                kl.clear();
                p.legal_moves_with(GenMode::All, &mut kl);
                black_box(kl.len());
            }
        },
        || {
            for p in &rp {
                rsshogi::movegen::generate_legal_all(p, &mut rl);
                black_box(rl.len());
            }
        },
    );
    report(
        "legal/all",
        kt / count * 1e9,
        rt / count * 1e9,
        "ns/pos",
        &format!("{} positions", kp.len()),
    );
    let moves: Vec<(usize, Move)> = kp
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            let mut l = MoveList::new();
            p.legal_moves_with(GenMode::All, &mut l);
            l.as_slice()
                .iter()
                .map(move |&m| (i, m))
                .collect::<Vec<_>>()
        })
        .collect();
    let rmoves: Vec<(usize, rsshogi::types::Move32)> = moves
        .iter()
        .map(|&(i, m)| {
            let rm = rsshogi::types::Move::from_usi(&m.to_usi()).unwrap();
            (i, rp[i].move32_from_move(rm))
        })
        .collect();
    let mut rpm: Vec<rs::RPos> = rp.clone();
    let c = moves.len() as f64;
    let (kt, rt) = pair(
        n,
        || {
            for &(i, m) in &moves {
                black_box(kp[i].play(m).side_to_move() == Color::Black);
            }
        },
        || {
            for &(i, m) in &rmoves {
                let p = &mut rpm[i];
                p.apply_move32(m);
                p.undo_move32(m).unwrap();
            }
        },
    );
    report(
        "make (copy-make vs apply+undo)",
        kt / c * 1e9,
        rt / c * 1e9,
        "ns/move",
        &format!("{} moves", moves.len()),
    );
}

fn main() {
    rs::init();
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let on = |name: &str| {
        filters.is_empty()
            || filters
                .iter()
                .any(|f| name.contains(f.as_str()) || f.contains(name))
    };
    println!(
        "Kanju vs rsshogi 1.7.3, medians of interleaved runs (lower is better for both columns)"
    );
    if on("perft") {
        bench_perft("perft/startpos d5", kanju_engine::STARTPOS_SFEN, 5, runs(5));
        bench_perft("perft/tactical d3", TACTICAL, 3, runs(9));
        bench_perft_full(
            "perft-full/startpos d5",
            kanju_engine::STARTPOS_SFEN,
            5,
            runs(5),
        );
        bench_perft_full("perft-full/tactical d3", TACTICAL, 3, runs(5));
    }
    if on("checks") || on("evasions") || on("mate") || on("legal") || on("make") {
        let sets = position_sets();
        println!(
            "position sets: {} not in check, {} in check",
            sets.quiet.len(),
            sets.in_check.len()
        );
        if on("checks") {
            bench_checks(&sets, runs(31));
        }
        if on("evasions") {
            bench_evasions(&sets, runs(31));
        }
        if on("mate") {
            bench_mate1(&sets, runs(15));
        }
        if on("legal") || on("make") {
            bench_legal(&sets, runs(15));
        }
    }
}
