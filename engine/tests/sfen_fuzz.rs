//! The SFEN parser and the USI move parser against hostile input, and validation with
//! precise errors.
//!
//! The fuzz part feeds `Position::from_sfen` and `Position::parse_usi_move` with mutated real
//! SFENs, random bytes, random token soups, huge counts, unicode and missing fields. Neither
//! may panic. Whatever `from_sfen` accepts must be a position the rules allow (checked here
//! independently, with rsshogi deciding checks) and must round-trip through `to_sfen`.
//! Whatever `parse_usi_move` accepts must be a legal move. A failing case prints its seed.
//! `KANJU_FUZZ_CASES` changes the number of cases (default 100 000).

mod common;

use common::{rs, Rng};
use kanju_engine::{
    Color, GenMode, MoveError, MoveList, PieceKind, Position, PositionError, Square,
};
use std::panic::{catch_unwind, AssertUnwindSafe};

const ALPHABET: &[char] = &[
    '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '+', '-', '/', ' ', ' ', '*', 'b', 'w', 'P',
    'L', 'N', 'S', 'G', 'B', 'R', 'K', 'p', 'l', 'n', 's', 'g', 'r', 'k', 'x', '\t', '\n', '\0',
    'a', 'i', 'j', '歩', '玉', 'Ｐ', '９', '\u{301}', '\u{FEFF}', '🀄', '\u{7f}',
];

const TOKENS: &[&str] = &[
    "sfen",
    "startpos",
    "b",
    "w",
    "B",
    "W",
    "-",
    "--",
    "1",
    "0",
    "-1",
    "+1",
    "9",
    "10",
    "99",
    "18P",
    "19P",
    "99P",
    "99p",
    "4294967296P",
    "18446744073709551617p",
    "00P",
    "0P",
    "1P",
    "P1",
    "2",
    "+P",
    "K",
    "k",
    "2R2B4G4S4N4L18P",
    "2r2b4g4s4n4l18p",
    "RBGSNLPrbgsnlp",
    "9/9/9/9/9/9/9/9/9",
    "4k4/9/9/9/9/9/9/9/4K4",
    "lnsgkgsnl",
    "1r5b1",
    "ppppppppp",
    "9",
    "PPPPPPPPP",
    "1B5R1",
    "LNSGKGSNL",
    "+",
    "++",
    "+k",
    "+g",
    "///",
    "",
    " ",
    "\u{3000}",
    "歩",
    "moves",
    "7g7f",
    "99999999999999999999999",
    "1e9",
    "NaN",
];

fn seeds() -> Vec<String> {
    let mut v = common::tsume_seeds();
    v.push(kanju_engine::STARTPOS_SFEN.to_owned());
    v.push("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1".to_owned());
    v.push("R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1".to_owned());
    v
}

fn mutate(rng: &mut Rng, s: &str) -> String {
    let mut c: Vec<char> = s.chars().collect();
    for _ in 0..1 + rng.below(4) {
        let len = c.len();
        match rng.below(9) {
            0 if len > 0 => {
                c.remove(rng.below(len));
            }
            1 => c.insert(rng.below(len + 1), *rng.pick(ALPHABET)),
            2 if len > 0 => c[rng.below(len)] = *rng.pick(ALPHABET),
            3 if len > 1 => c.swap(rng.below(len), rng.below(len)),
            4 => c.truncate(rng.below(len + 1)),
            5 if len > 2 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(8)).min(len);
                let seg: Vec<char> = c[a..b].to_vec();
                let at = rng.below(len + 1);
                c.splice(at..at, seg);
            }
            6 => {
                // Replace or add a hand count with something large.
                let t = *rng.pick(&["99", "18", "19", "4294967297", "0", "00", "1"]);
                let at = rng.below(len + 1);
                c.splice(at..at, t.chars());
            }
            7 => {
                // Drop a whole field.
                let s: String = c.iter().collect();
                let mut f: Vec<&str> = s.split(' ').collect();
                if f.len() > 1 {
                    f.remove(rng.below(f.len()));
                }
                c = f.join(" ").chars().collect();
            }
            _ => {
                let s: String = c.iter().collect();
                let from = ["/", " ", "+", "k", "K"][rng.below(5)];
                let to: &str = TOKENS[rng.below(TOKENS.len())];
                c = s.replacen(from, to, 1).chars().collect();
            }
        }
    }
    c.into_iter().collect()
}

/// A mutation that keeps the SFEN well-formed: swap two board letters, flip a piece's
/// color, toggle a promotion, flip the side to move, or change a hand count. Most results
/// are legal positions or fail validation for a specific rule.
fn light_mutate(rng: &mut Rng, s: &str) -> String {
    let mut c: Vec<char> = s.chars().collect();
    let board_end = c.iter().position(|&ch| ch == ' ').unwrap_or(c.len());
    let letters: Vec<usize> = (0..board_end)
        .filter(|&i| c[i].is_ascii_alphabetic())
        .collect();
    for _ in 0..1 + rng.below(2) {
        match rng.below(5) {
            0 if letters.len() > 1 => {
                let (a, b) = (*rng.pick(&letters), *rng.pick(&letters));
                c.swap(a, b);
            }
            1 if !letters.is_empty() => {
                let i = *rng.pick(&letters);
                c[i] = if c[i].is_ascii_uppercase() {
                    c[i].to_ascii_lowercase()
                } else {
                    c[i].to_ascii_uppercase()
                };
            }
            2 if !letters.is_empty() => {
                let i = *rng.pick(&letters);
                if i > 0 && c[i - 1] == '+' {
                    c.remove(i - 1);
                } else {
                    c.insert(i, '+');
                }
                return c.into_iter().collect();
            }
            3 => {
                if let Some(i) = c.iter().position(|&ch| ch == ' ') {
                    if i + 1 < c.len() {
                        c[i + 1] = if c[i + 1] == 'b' { 'w' } else { 'b' };
                    }
                }
            }
            _ => {
                let t: String = c.iter().collect();
                let mut f: Vec<String> = t.split(' ').map(str::to_owned).collect();
                if f.len() >= 3 {
                    let piece = *rng.pick(&[
                        'P', 'p', 'L', 'l', 'N', 'n', 'S', 's', 'G', 'g', 'B', 'b', 'R', 'r',
                    ]);
                    let n = *rng.pick(&[1usize, 2, 3, 9, 17, 18, 19, 99]);
                    let add = if n == 1 {
                        piece.to_string()
                    } else {
                        format!("{n}{piece}")
                    };
                    f[2] = if f[2] == "-" {
                        add
                    } else {
                        format!("{}{add}", f[2])
                    };
                }
                c = f.join(" ").chars().collect();
            }
        }
    }
    c.into_iter().collect()
}

fn random_input(rng: &mut Rng, seeds: &[String]) -> String {
    match rng.below(7) {
        0 | 1 => {
            let s = rng.pick(seeds).clone();
            mutate(rng, &s)
        }
        2 | 6 => {
            let s = rng.pick(seeds).clone();
            light_mutate(rng, &s)
        }
        3 => {
            let n = rng.below(120);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        }
        4 => {
            let n = 1 + rng.below(6);
            (0..n)
                .map(|_| *rng.pick(TOKENS))
                .collect::<Vec<_>>()
                .join(if rng.chance(80) { " " } else { "" })
        }
        _ => {
            // Structurally plausible: nine random ranks, a side, hands, a number.
            let ranks: Vec<String> = (0..9)
                .map(|_| {
                    let n = rng.below(6);
                    (0..n)
                        .map(|_| *rng.pick(ALPHABET))
                        .filter(|c| !c.is_whitespace())
                        .collect()
                })
                .collect();
            format!(
                "{} {} {} {}",
                ranks.join("/"),
                rng.pick(TOKENS),
                rng.pick(TOKENS),
                rng.pick(TOKENS)
            )
        }
    }
}

/// Independent rule check of an accepted position (everything `from_sfen` must enforce).
fn rule_violation(p: &Position, sfen_out: &str) -> Option<String> {
    let mut kings = [0, 0];
    let mut counts = [0u32; 7];
    for sq in Square::all() {
        let Some(pc) = p.piece_on(sq) else { continue };
        let c = pc.color();
        let k = pc.kind();
        if k == PieceKind::King {
            kings[c.index()] += 1;
            continue;
        }
        counts[k.unpromote().index()] += 1;
        let rel = sq.relative_rank(c);
        if (matches!(k, PieceKind::Pawn | PieceKind::Lance) && rel == 1)
            || (k == PieceKind::Knight && rel <= 2)
        {
            return Some(format!("dead piece on {sq}"));
        }
        if k == PieceKind::Pawn {
            let same_file = Square::all()
                .filter(|s| s.file() == sq.file())
                .filter(|&s| p.piece_on(s) == Some(pc))
                .count();
            if same_file > 1 {
                return Some(format!("nifu on file {}", sq.file()));
            }
        }
    }
    for c in Color::ALL {
        for k in PieceKind::HAND {
            counts[k.index()] += p.hand(c).count(k);
        }
    }
    for (i, &(_, supply)) in common::SUPPLY.iter().enumerate() {
        if counts[i] > supply {
            return Some(format!("{} pieces of kind {i}", counts[i]));
        }
    }
    if kings[0] > 1 || kings[1] > 1 || kings == [0, 0] {
        return Some(format!("kings {kings:?}"));
    }
    let r = rs::parse(sfen_out)?;
    if rs::opponent_in_check(&r) {
        return Some("the side not to move is in check".into());
    }
    None
}

fn check_input(input: &str, rng: &mut Rng, kinds: &mut [usize; 7]) -> Result<bool, String> {
    let parsed = catch_unwind(|| Position::from_sfen(input))
        .map_err(|_| "from_sfen panicked".to_string())?;
    let pos = match parsed {
        Ok(p) => p,
        Err(e) => {
            kinds[variant(&e)] += 1;
            return Ok(false);
        }
    };
    let out = catch_unwind(AssertUnwindSafe(|| pos.to_sfen()))
        .map_err(|_| "to_sfen panicked".to_string())?;
    if let Some(v) = rule_violation(&pos, &out) {
        return Err(format!(
            "accepted a position that breaks the rules ({v}); to_sfen: {out}"
        ));
    }
    let again =
        Position::from_sfen(&out).map_err(|e| format!("to_sfen output {out} rejected: {e:?}"))?;
    if again.to_sfen() != out || again.key() != pos.key() {
        return Err(format!("round trip changed {out} into {}", again.to_sfen()));
    }
    // Random USI strings against the accepted position.
    let mut legal = MoveList::new();
    catch_unwind(AssertUnwindSafe(|| {
        pos.legal_moves_with(GenMode::All, &mut legal)
    }))
    .map_err(|_| "legal_moves_with panicked on an accepted position".to_string())?;
    for _ in 0..4 {
        let s = random_usi(rng, &legal);
        let res = catch_unwind(AssertUnwindSafe(|| pos.parse_usi_move(&s)))
            .map_err(|_| format!("parse_usi_move({s:?}) panicked"))?;
        match res {
            Ok(m) if !legal.contains(m) => {
                return Err(format!("parse_usi_move({s:?}) = {m}, not legal"))
            }
            Ok(m) if m.to_usi() != s => return Err(format!("parse_usi_move({s:?}) = {m}")),
            _ => {}
        }
    }
    Ok(true)
}

fn variant(e: &PositionError) -> usize {
    match e {
        PositionError::Malformed(_) => 0,
        PositionError::TwoKings(_) => 1,
        PositionError::MissingKing(_) => 2,
        PositionError::Nifu(..) => 3,
        PositionError::DeadPiece(_) => 4,
        PositionError::OpponentInCheck(_) => 5,
        PositionError::TooManyPieces(_) => 6,
    }
}

fn random_usi(rng: &mut Rng, legal: &MoveList) -> String {
    match rng.below(5) {
        0 if !legal.is_empty() => rng.pick(legal.as_slice()).to_usi(),
        1 if !legal.is_empty() => {
            let u = rng.pick(legal.as_slice()).to_usi();
            mutate(rng, &u)
        }
        2 => {
            let f = |rng: &mut Rng| {
                format!(
                    "{}{}",
                    1 + rng.below(9),
                    (b'a' + rng.below(9) as u8) as char
                )
            };
            let p = if rng.chance(50) { "+" } else { "" };
            format!("{}{}{p}", f(rng), f(rng))
        }
        3 => format!(
            "{}*{}{}",
            rng.pick(&["P", "L", "N", "S", "G", "B", "R", "K", "p", "+P", "X"]),
            1 + rng.below(10),
            (b'a' + rng.below(10) as u8) as char
        ),
        _ => {
            let n = rng.below(8);
            (0..n).map(|_| *rng.pick(ALPHABET)).collect()
        }
    }
}

#[test]
fn fuzz_sfen_and_usi_parsers_never_panic() {
    rs::init();
    let seeds = seeds();
    let cases: usize = std::env::var("KANJU_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let mut failures = Vec::new();
    let mut accepted = 0;
    let mut kinds = [0usize; 7];
    // The default panic hook would print every caught panic; keep the log readable.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for i in 0..cases {
        let seed = 0xF022_0000 + i as u64;
        let mut rng = Rng::new(seed);
        let input = random_input(&mut rng, &seeds);
        match check_input(&input, &mut rng, &mut kinds) {
            Ok(true) => accepted += 1,
            Ok(false) => {}
            Err(what) => {
                if failures.len() < 30 {
                    failures.push(format!("seed {seed:#x}: input {input:?}: {what}"));
                }
            }
        }
    }
    std::panic::set_hook(hook);
    eprintln!("fuzz: {cases} inputs, {accepted} accepted, rejections by variant {kinds:?}");
    assert!(
        failures.is_empty(),
        "{} fuzz failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The mutations are mild enough that a fair share still parses: the acceptance path is
    // exercised, not only the error path.
    assert!(
        accepted * 20 >= cases,
        "only {accepted} of {cases} inputs parsed"
    );
}

#[test]
fn usi_parser_never_panics_on_garbage() {
    let positions = [
        Position::startpos(),
        Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1").unwrap(),
    ];
    let mut rng = Rng::new(42);
    for _ in 0..20_000 {
        let n = rng.below(10);
        let s: String = (0..n).map(|_| *rng.pick(ALPHABET)).collect();
        for p in &positions {
            let r = catch_unwind(AssertUnwindSafe(|| p.parse_usi_move(&s)));
            let r = r.unwrap_or_else(|_| panic!("parse_usi_move({s:?}) panicked"));
            if let Ok(m) = r {
                assert!(p.is_legal(m), "parse_usi_move({s:?}) accepted illegal {m}");
            }
        }
    }
    let p = Position::startpos();
    for s in [
        "", "7g", "7g7f7", "7g7f++", "7g7f ", " 7g7f", "7G7F", "0a1a", "7j7f", "K*5e", "p*5e",
        "P*", "*5e", "7g7f+", "歩*5e",
    ] {
        let r = p.parse_usi_move(s);
        assert!(r.is_err(), "{s:?} accepted as {r:?}");
    }
    assert!(
        matches!(p.parse_usi_move("7g7f+"), Err(MoveError::Illegal(_))),
        "7g7f+ is well-formed but illegal"
    );
    assert!(matches!(
        p.parse_usi_move("7g7f7"),
        Err(MoveError::Syntax(_))
    ));
}

// ---------------------------------------------------------------------------------------
// Validation: each bad position is rejected with the error that names what is wrong.
// ---------------------------------------------------------------------------------------

fn err(s: &str) -> PositionError {
    match Position::from_sfen(s) {
        Ok(p) => panic!("{s} was accepted as {}", p.to_sfen()),
        Err(e) => e,
    }
}

fn sq(file: u8, rank: u8) -> Square {
    Square::new(file, rank).unwrap()
}

#[test]
fn two_kings() {
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/3K1K3 b - 1"),
        PositionError::TwoKings(Color::Black)
    );
    assert_eq!(
        err("k7k/9/9/9/9/9/9/9/4K4 b - 1"),
        PositionError::TwoKings(Color::White)
    );
    // Tsume shape: the defender has two kings, the attacker none.
    assert_eq!(
        err("k7k/9/9/9/9/9/9/9/9 b R 1"),
        PositionError::TwoKings(Color::White)
    );
}

#[test]
fn missing_kings() {
    assert!(matches!(
        err("9/9/9/9/9/9/9/9/9 b - 1"),
        PositionError::MissingKing(_)
    ));
    assert!(matches!(
        err("9/9/9/9/9/9/9/9/9 w 2R2B4G4S4N4L18P 1"),
        PositionError::MissingKing(_)
    ));
    assert!(matches!(
        err("4g4/9/9/9/9/9/9/9/4G4 b - 1"),
        PositionError::MissingKing(_)
    ));
    // One king is enough: the tsume setting, with either side to move.
    assert!(Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1").is_ok());
    assert!(Position::from_sfen("4k4/9/9/9/9/9/9/9/9 w G2r2b3g4s4n4l18p 1").is_ok());
    assert!(Position::from_sfen("9/9/9/9/9/9/4p4/9/4K4 w 2R2BG4S4N4L3g17p 1").is_ok());
}

#[test]
fn nifu() {
    assert_eq!(
        err("4k4/9/9/9/4P4/4P4/9/9/4K4 b - 1"),
        PositionError::Nifu(Color::Black, 5)
    );
    assert_eq!(
        err("4k3p/8p/9/9/9/9/9/9/4K4 b - 1"),
        PositionError::Nifu(Color::White, 1)
    );
    assert_eq!(
        err("4k4/9/9/9/9/9/P8/P8/4K4 w - 1"),
        PositionError::Nifu(Color::Black, 9)
    );
    // A tokin is not a pawn; pawns of both sides may share a file.
    assert!(Position::from_sfen("4k4/9/9/9/4+P4/4P4/9/9/4K4 b - 1").is_ok());
    assert!(Position::from_sfen("4k4/9/9/4p4/9/4P4/9/9/4K4 b - 1").is_ok());
}

#[test]
fn dead_pieces() {
    use PositionError::DeadPiece;
    // Black: pawn or lance on rank a, knight on ranks a-b.
    assert_eq!(err("P3k4/9/9/9/9/9/9/9/4K4 b - 1"), DeadPiece(sq(9, 1)));
    assert_eq!(err("4k3L/9/9/9/9/9/9/9/4K4 b - 1"), DeadPiece(sq(1, 1)));
    assert_eq!(err("4k1N2/9/9/9/9/9/9/9/4K4 b - 1"), DeadPiece(sq(3, 1)));
    assert_eq!(err("4k4/7N1/9/9/9/9/9/9/4K4 b - 1"), DeadPiece(sq(2, 2)));
    // White: the mirror ranks.
    assert_eq!(err("4k4/9/9/9/9/9/9/9/p3K4 b - 1"), DeadPiece(sq(9, 9)));
    assert_eq!(err("4k4/9/9/9/9/9/9/9/4K3l b - 1"), DeadPiece(sq(1, 9)));
    assert_eq!(err("4k4/9/9/9/9/9/9/9/3nK4 b - 1"), DeadPiece(sq(6, 9)));
    assert_eq!(err("4k4/9/9/9/9/9/9/1n7/4K4 b - 1"), DeadPiece(sq(8, 8)));
    // Still alive: a knight on its 3rd rank, a lance on its 2nd, promoted pieces anywhere,
    // and the other side's pieces on those ranks.
    for ok in [
        "4k4/9/N8/9/9/9/9/9/4K4 b - 1",
        "4k4/L8/9/9/9/9/9/9/4K4 b - 1",
        "+P+L+N1k4/9/9/9/9/9/9/9/4K4 b - 1",
        "4k4/9/9/9/9/9/9/9/+p+l+n1K4 b - 1",
        "p3k3n/9/9/9/9/9/9/9/P3K3N w - 1",
    ] {
        assert!(
            Position::from_sfen(ok).is_ok(),
            "{ok} rejected: {:?}",
            Position::from_sfen(ok).err()
        );
    }
}

#[test]
fn side_not_to_move_in_check() {
    use PositionError::OpponentInCheck;
    assert_eq!(
        err("4k4/4R4/9/9/9/9/9/9/4K4 b - 1"),
        OpponentInCheck(Color::White)
    );
    assert_eq!(
        err("4k4/9/9/9/9/9/9/4r4/4K4 w - 1"),
        OpponentInCheck(Color::Black)
    );
    // By a slider from afar, a knight, a promoted piece, and with no attacker king at all.
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/4L4 b - 1"),
        OpponentInCheck(Color::White)
    );
    assert_eq!(
        err("4k4/9/3N5/9/9/9/9/9/4K4 b - 1"),
        OpponentInCheck(Color::White)
    );
    assert_eq!(
        err("B8/9/9/9/4k4/9/9/9/9 b - 1"),
        OpponentInCheck(Color::White)
    );
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/4K+b3 w - 1"),
        OpponentInCheck(Color::Black)
    );
    // The side to move may be in check (even doubly); a blocked slider gives no check.
    assert!(Position::from_sfen("4k4/4R4/9/9/9/9/9/9/4K4 w - 1").is_ok());
    assert!(Position::from_sfen("4k4/9/4p4/9/9/9/9/9/4L4 b - 1").is_ok());
    let double = Position::from_sfen("4k4/9/3N5/9/9/9/9/9/4L4 w - 1").unwrap();
    assert_eq!(double.checkers().count(), 2);
}

#[test]
fn impossible_piece_counts() {
    use PositionError::TooManyPieces;
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/4K4 b 19P 1"),
        TooManyPieces(PieceKind::Pawn)
    );
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/4K4 b 10P9p 1"),
        TooManyPieces(PieceKind::Pawn)
    );
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/4K4 b 3R 1"),
        TooManyPieces(PieceKind::Rook)
    );
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/4K4 b 2Rr 1"),
        TooManyPieces(PieceKind::Rook)
    );
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/4K4 b 3G2g 1"),
        TooManyPieces(PieceKind::Gold)
    );
    // Promoted pieces count as their unpromoted kind, on the board and against the hands.
    assert_eq!(
        err("4k4/9/9/9/1+B2+b4/9/9/9/4K4 b B 1"),
        TooManyPieces(PieceKind::Bishop)
    );
    assert_eq!(
        err("+l+l+l1k4/9/9/9/9/9/9/9/4K4 b 2L 1"),
        TooManyPieces(PieceKind::Lance)
    );
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/4K4 b 99P 1"),
        TooManyPieces(PieceKind::Pawn)
    );
    // Huge counts are errors, not overflows.
    for s in [
        "4k4/9/9/9/9/9/9/9/4K4 b 4294967296P 1",
        "4k4/9/9/9/9/9/9/9/4K4 b 18446744073709551617p 1",
        "4k4/9/9/9/9/9/9/9/4K4 b 99999999999999999999999999999999R 1",
    ] {
        assert!(
            matches!(err(s), TooManyPieces(_) | PositionError::Malformed(_)),
            "{s}: {:?}",
            err(s)
        );
    }
    // Exactly the full set is fine; the hands hold everything that is not on the board.
    assert!(Position::from_sfen("4k4/9/9/9/9/9/9/9/9 b 2R2B4G4S4N4L18P 1").is_ok());
    assert!(Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 9P9p 1").is_ok());
}

#[test]
fn malformed_sfens() {
    for s in [
        "",
        "   ",
        "sfen",
        "sfen ",
        "startpos moves 7g7f",
        "4k4/9/9/9/9/9/9/9 b - 1",
        "4k4/9/9/9/9/9/9/9/9/9 b - 1",
        "4k5/9/9/9/9/9/9/9/4K4 b - 1",
        "4k3/9/9/9/9/9/9/9/4K4 b - 1",
        "4k4/9/9/9/9/9/9/9/4K4x b - 1",
        "4k4/9/9/9/9/9/9/9/4K3X b - 1",
        "4k4/9/9/9/9/9/9/9/3+K4 b - 1",
        "4k4/9/9/9/9/9/9/9/3+G4 b - 1",
        "4k4/9/9/9/9/9/9/9/3++P4 b - 1",
        "4k4/9/9/9/9/9/9/9/4K3+ b - 1",
        "4k4/9/9/9/9/9/9/9/4K04 b - 1",
        "4k4/9/9/9/9/9/9/9/4K4 x - 1",
        "4k4/9/9/9/9/9/9/9/4K4 B - 1",
        "4k4/9/9/9/9/9/9/9/4K4",
        "4k4/9/9/9/9/9/9/9/4K4 b K 1",
        "4k4/9/9/9/9/9/9/9/4K4 b +P 1",
        "4k4/9/9/9/9/9/9/9/4K4 b P2 1",
        "4k4/9/9/9/9/9/9/9/4K4 b 2 1",
        "4k4/9/9/9/9/9/9/9/4K4 b X 1",
        "4k4/9/9/9/9/9/9/9/4K4 b - 0",
        "4k4/9/9/9/9/9/9/9/4K4 b - -3",
        "4k4/9/9/9/9/9/9/9/4K4 b - one",
        "4k4/9/9/9/9/9/9/9/4K4 b - 1 extra",
        "4k4/9/9/9/9/9/9/9/4K4 b - 1 moves 5i4h",
        "４k4/9/9/9/9/9/9/9/4K4 b - 1",
        "4k4/9/9/9/9/9/9/9/4歩4 b - 1",
        "4k4/9/9/9/9/9/9/9/4K4 b 歩 1",
    ] {
        assert!(
            matches!(Position::from_sfen(s), Err(PositionError::Malformed(_))),
            "{s:?} gave {:?}",
            Position::from_sfen(s).map(|p| p.to_sfen())
        );
    }
}

#[test]
fn accepted_spellings() {
    let full = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    for s in [
        "startpos",
        " startpos ",
        full,
        &format!("sfen {full}"),
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -",
    ] {
        let p = Position::from_sfen(s).unwrap_or_else(|e| panic!("{s:?}: {e:?}"));
        assert_eq!(
            common::sfen_core(&p.to_sfen()),
            common::sfen_core(full),
            "{s:?}"
        );
    }
    // Counted hands, every promoted piece, and the move number survive a round trip.
    for s in [
        "+R+B+S+N+L+P3/9/9/9/9/9/9/9/K7k b 17P2g 7",
        "K8/9/9/9/9/9/9/9/k+r+b+s+n+l+p2 w 2G17p 120",
        "4k4/9/9/9/9/9/9/9/9 b 2R2B4G4S4N4L18P 1",
        "4k4/9/9/9/9/9/9/9/9 w 2r2b4g4s4n4l18p 1",
    ] {
        assert_eq!(Position::from_sfen(s).unwrap().to_sfen(), s);
    }
}
