//! Perft against the reference counts in `tests/data/perft.txt`.
//!
//! Each line of the data file is one case (`SFEN ; depth ; nodes [; all|std]`). Cases whose
//! node count is at most the budget run by default; the budget is 25 000 000 leaf nodes
//! (startpos depth 5 included, a few seconds on CI) and can be changed with the environment
//! variable `KANJU_PERFT_BUDGET`. `cargo test -p kanju-engine --test perft -- --ignored`
//! runs every line whatever its size.
//!
//! On a mismatch the test prints a per-move "divide" of Kanju against rsshogi, so the
//! first differing subtree (and the move that reaches it) is named.

mod common;

use common::rs;
use kanju_engine::{perft, GenMode, MoveList, Position};

#[derive(Debug)]
struct Case {
    line_no: usize,
    sfen: String,
    depth: u32,
    nodes: u64,
    mode: GenMode,
}

fn cases() -> Vec<Case> {
    let path = common::data_path("perft.txt");
    let text = std::fs::read_to_string(&path).expect("perft.txt");
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split(';').map(str::trim).collect();
        assert!(
            f.len() == 3 || f.len() == 4,
            "perft.txt:{}: expected 3 or 4 fields",
            i + 1
        );
        let mode = match f.get(3).copied().unwrap_or("all") {
            "all" => GenMode::All,
            "std" => GenMode::Standard,
            other => panic!("perft.txt:{}: unknown mode {other:?}", i + 1),
        };
        out.push(Case {
            line_no: i + 1,
            sfen: f[0].to_owned(),
            depth: f[1]
                .parse()
                .unwrap_or_else(|_| panic!("perft.txt:{}: depth", i + 1)),
            nodes: f[2]
                .parse()
                .unwrap_or_else(|_| panic!("perft.txt:{}: nodes", i + 1)),
            mode,
        });
    }
    assert!(
        out.len() >= 40,
        "perft.txt looks truncated: {} cases",
        out.len()
    );
    out
}

/// Perft in the given mode, bulk-counting the last ply, by copy-make.
fn perft_mode(pos: &Position, depth: u32, mode: GenMode) -> u64 {
    let mut list = MoveList::new();
    pos.legal_moves_with(mode, &mut list);
    match depth {
        0 => 1,
        1 => list.len() as u64,
        _ => list
            .iter()
            .map(|&m| perft_mode(&pos.play(m), depth - 1, mode))
            .sum(),
    }
}

/// Perft that makes every leaf move in place with `do_move` (no bulk counting).
fn perft_do_move(pos: &Position, depth: u32, mode: GenMode) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    pos.legal_moves_with(mode, &mut list);
    let mut n = 0;
    for &m in list.iter() {
        let mut child = pos.clone();
        child.do_move(m);
        n += perft_do_move(&child, depth - 1, mode);
    }
    n
}

fn rs_perft(p: &mut rs::RPos, depth: u32, all: bool) -> u64 {
    let moves = rs::legal(p, all);
    if depth <= 1 {
        return if depth == 0 { 1 } else { moves.len() as u64 };
    }
    let mut n = 0;
    for m in moves {
        let m32 = p.move32_from_move(m);
        p.apply_move32(m32);
        n += rs_perft(p, depth - 1, all);
        p.undo_move32(m32).expect("undo");
    }
    n
}

/// Walks down the first differing subtree against rsshogi and describes the divergence.
fn explain_mismatch(sfen: &str, depth: u32, mode: GenMode) -> String {
    rs::init();
    let all = mode == GenMode::All;
    let mut sfen = if sfen == "startpos" {
        kanju_engine::STARTPOS_SFEN.to_owned()
    } else {
        sfen.to_owned()
    };
    let mut path = Vec::new();
    let mut depth = depth;
    loop {
        let k = Position::from_sfen(&sfen).expect("parses");
        let Some(mut r) = rs::parse(&sfen) else {
            return format!("rsshogi cannot parse {sfen}");
        };
        let mut list = MoveList::new();
        k.legal_moves_with(mode, &mut list);
        let mut kmoves: Vec<String> = list.iter().map(|m| m.to_usi()).collect();
        kmoves.sort();
        let rmoves = rs::usi(&rs::legal(&r, all));
        if kmoves != rmoves || depth <= 1 {
            let only_k: Vec<_> = kmoves.iter().filter(|m| !rmoves.contains(m)).collect();
            let only_r: Vec<_> = rmoves.iter().filter(|m| !kmoves.contains(m)).collect();
            return format!(
                "after {path:?} (sfen {sfen}): Kanju-only moves {only_k:?}, rsshogi-only moves {only_r:?}"
            );
        }
        let mut next = None;
        for &m in list.iter() {
            let child = k.play(m);
            let kn = perft_mode(&child, depth - 1, mode);
            rs::play_usi(&mut r, &m.to_usi());
            let rn = rs_perft(&mut r, depth - 1, all);
            r = rs::parse(&sfen).expect("reparse");
            if kn != rn {
                next = Some((m.to_usi(), child.to_sfen()));
                break;
            }
        }
        match next {
            Some((m, s)) => {
                path.push(m);
                sfen = s;
                depth -= 1;
            }
            None => return format!("after {path:?}: every subtree agrees with rsshogi"),
        }
    }
}

fn budget() -> u64 {
    std::env::var("KANJU_PERFT_BUDGET")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(25_000_000)
}

fn run(cases: &[Case]) {
    let mut failures = Vec::new();
    for c in cases {
        let pos = match Position::from_sfen(&c.sfen) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!(
                    "perft.txt:{}: {} rejected: {e:?}",
                    c.line_no, c.sfen
                ));
                continue;
            }
        };
        let got = perft_mode(&pos, c.depth, c.mode);
        if got != c.nodes {
            failures.push(format!(
                "perft.txt:{}: {} depth {} {:?}: got {got}, expected {}\n    {}",
                c.line_no,
                c.sfen,
                c.depth,
                c.mode,
                c.nodes,
                explain_mismatch(&c.sfen, c.depth, c.mode)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} perft failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn perft_reference_within_budget() {
    let budget = budget();
    let selected: Vec<Case> = cases().into_iter().filter(|c| c.nodes <= budget).collect();
    assert!(selected.len() >= 40, "budget {budget} leaves too few cases");
    run(&selected);
}

#[test]
#[ignore = "runs every perft line, including the 53M-node max_legal_moves depth 3"]
fn perft_reference_all_lines() {
    run(&cases());
}

/// The contract: the library's `perft` (what `kanju perft` prints) gives the
/// published counts, which count non-promotions (see the header of perft.txt).
#[test]
fn library_perft_gives_published_counts() {
    let start = Position::startpos();
    let published = [30u64, 900, 25_470, 719_731];
    let got: Vec<u64> = (1..=4).map(|d| perft(&start, d)).collect();
    assert_eq!(got, published, "kanju_engine::perft(startpos, 1..=4)");
    let tactical = Position::from_sfen(
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    )
    .unwrap();
    assert_eq!(
        perft(&tactical, 3),
        4_809_015,
        "kanju_engine::perft(tactical, 3)"
    );
}

#[test]
#[ignore = "startpos depth 5 with the library perft (about a second in release)"]
fn library_perft_startpos_depth5() {
    assert_eq!(perft(&Position::startpos(), 5), 19_861_490);
}

/// Leaf-by-leaf `do_move` gives the same counts as bulk counting with `play`.
#[test]
fn do_move_perft_matches_bulk_counting() {
    for c in cases()
        .iter()
        .filter(|c| c.depth <= 2 && c.nodes <= 200_000)
    {
        let pos = Position::from_sfen(&c.sfen).unwrap();
        assert_eq!(
            perft_do_move(&pos, c.depth, c.mode),
            c.nodes,
            "perft.txt:{}",
            c.line_no
        );
    }
}

/// `startpos`, with and without the `sfen ` prefix, is the same position.
#[test]
fn startpos_spellings_agree() {
    let a = Position::from_sfen("startpos").unwrap();
    let b = Position::from_sfen(kanju_engine::STARTPOS_SFEN).unwrap();
    let c = Position::from_sfen(&format!("sfen {}", kanju_engine::STARTPOS_SFEN)).unwrap();
    assert_eq!(a.key(), b.key());
    assert_eq!(b.key(), c.key());
    assert_eq!(
        common::sfen_core(&a.to_sfen()),
        common::sfen_core(kanju_engine::STARTPOS_SFEN)
    );
}
