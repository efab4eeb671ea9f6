//! Helpers shared by the engine's integration tests and benchmarks: a small seeded PRNG,
//! the test data files, a generator of random (valid-by-construction) positions, and an
//! rsshogi adapter that speaks USI strings so the two engines can be compared as sets.
//!
//! Each test binary uses a different subset, hence the `dead_code` allowance.
#![allow(dead_code)]

use std::path::PathBuf;

/// SplitMix64: tiny, fast, good enough to drive playouts and fuzzing reproducibly.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        (self.below(100) as u32) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The median of `v` (the upper one of an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs per benchmark: `KANJU_BENCH_RUNS`, or `default`.
pub fn runs(default: usize) -> usize {
    std::env::var("KANJU_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
        .max(1)
}

/// `engine/tests/data/<name>`.
pub fn data_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
        .join(name)
}

/// Non-empty, non-comment lines of a data file, trimmed.
pub fn data_lines(name: &str) -> Vec<String> {
    let path = data_path(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// The tsume problems shipped in `tests/data/tsume_seeds.txt` (SFENs, attacker to move).
pub fn tsume_seeds() -> Vec<String> {
    data_lines("tsume_seeds.txt")
}

/// The first three SFEN fields (board, side, hands): the move number is not compared.
pub fn sfen_core(s: &str) -> String {
    let s = s.trim();
    let s = s.strip_prefix("sfen ").unwrap_or(s);
    s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

// ---------------------------------------------------------------------------------------
// Random positions
// ---------------------------------------------------------------------------------------

/// What kind of random position to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Only the defender has a king (the usual tsume setting).
    Tsume,
    /// Both sides have a king.
    BothKings,
}

/// Unpromoted kind letters (Black case) with the game's supply, kings excluded.
pub const SUPPLY: [(char, u32); 7] = [
    ('P', 18),
    ('L', 4),
    ('N', 4),
    ('S', 4),
    ('G', 4),
    ('B', 2),
    ('R', 2),
];

/// A board under construction: `cells[file-1][rank-1]` holds an SFEN piece token.
#[derive(Clone, Debug)]
pub struct Sketch {
    pub cells: [[Option<String>; 9]; 9],
    /// Hand counts in SUPPLY order, per color (0 = Black).
    pub hands: [[u32; 7]; 2],
    pub black_to_move: bool,
}

impl Sketch {
    pub fn empty() -> Sketch {
        Sketch {
            cells: Default::default(),
            hands: [[0; 7]; 2],
            black_to_move: true,
        }
    }

    pub fn is_empty_at(&self, file: usize, rank: usize) -> bool {
        self.cells[file - 1][rank - 1].is_none()
    }

    pub fn set(&mut self, file: usize, rank: usize, token: &str) {
        self.cells[file - 1][rank - 1] = Some(token.to_owned());
    }

    /// True if `black` already has an unpromoted pawn on `file`.
    pub fn has_pawn(&self, black: bool, file: usize) -> bool {
        let p = if black { "P" } else { "p" };
        self.cells[file - 1].iter().any(|c| c.as_deref() == Some(p))
    }

    pub fn to_sfen(&self) -> String {
        let mut s = String::new();
        for rank in 1..=9 {
            let mut empty = 0;
            for file in (1..=9).rev() {
                match &self.cells[file - 1][rank - 1] {
                    None => empty += 1,
                    Some(t) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        s.push_str(t);
                    }
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            if rank < 9 {
                s.push('/');
            }
        }
        s.push_str(if self.black_to_move { " b " } else { " w " });
        // Standard hand order: R B G S N L P, Black first.
        let order = [6usize, 5, 4, 3, 2, 1, 0];
        let mut hand = String::new();
        for (color, hand_counts) in self.hands.iter().enumerate() {
            for &i in &order {
                let n = hand_counts[i];
                if n == 0 {
                    continue;
                }
                if n > 1 {
                    hand.push_str(&n.to_string());
                }
                let c = SUPPLY[i].0;
                hand.push(if color == 0 {
                    c
                } else {
                    c.to_ascii_lowercase()
                });
            }
        }
        if hand.is_empty() {
            hand.push('-');
        }
        s.push_str(&hand);
        s.push_str(" 1");
        s
    }
}

/// Builds a random position that is legal by construction except possibly for one
/// condition the caller must check: the side not to move may be in check.
///
/// `board_percent` is the chance that each of the 38 non-king pieces goes on the board;
/// the others go to a hand (or, in tsume shape, occasionally stay out of play);
/// `promo_percent` the chance a promotable piece on the board is promoted.
pub fn random_sketch(
    rng: &mut Rng,
    shape: Shape,
    board_percent: u32,
    promo_percent: u32,
) -> Sketch {
    let mut sk = Sketch::empty();
    let defender_black = rng.chance(50);
    let dk = (1 + rng.below(9), 1 + rng.below(9));
    sk.set(dk.0, dk.1, if defender_black { "K" } else { "k" });
    if shape == Shape::BothKings {
        loop {
            let ak = (1 + rng.below(9), 1 + rng.below(9));
            let far =
                (ak.0 as i32 - dk.0 as i32).abs() > 1 || (ak.1 as i32 - dk.1 as i32).abs() > 1;
            if far {
                sk.set(ak.0, ak.1, if defender_black { "k" } else { "K" });
                break;
            }
        }
    }
    for (i, &(letter, supply)) in SUPPLY.iter().enumerate() {
        for _ in 0..supply {
            // In tsume shape, pieces cluster around the defender's king so that checks,
            // mates and interpositions are common.
            if rng.chance(board_percent) {
                let black = rng.chance(50);
                let mut placed = false;
                for _ in 0..20 {
                    let (file, rank) = if shape == Shape::Tsume && rng.chance(60) {
                        let f = dk.0 as i32 + rng.below(7) as i32 - 3;
                        let r = dk.1 as i32 + rng.below(7) as i32 - 3;
                        if !(1..=9).contains(&f) || !(1..=9).contains(&r) {
                            continue;
                        }
                        (f as usize, r as usize)
                    } else {
                        (1 + rng.below(9), 1 + rng.below(9))
                    };
                    if !sk.is_empty_at(file, rank) {
                        continue;
                    }
                    // Rank as seen by the piece's owner: 1 = farthest.
                    let rel = if black { rank } else { 10 - rank };
                    let promotable = letter != 'G';
                    let mut promote = promotable && rng.chance(promo_percent);
                    let dead = match letter {
                        'P' | 'L' => rel == 1,
                        'N' => rel <= 2,
                        _ => false,
                    };
                    if dead {
                        promote = true;
                    }
                    if letter == 'P' && !promote && sk.has_pawn(black, file) {
                        promote = true;
                    }
                    let c = if black {
                        letter
                    } else {
                        letter.to_ascii_lowercase()
                    };
                    let token = if promote {
                        format!("+{c}")
                    } else {
                        c.to_string()
                    };
                    sk.set(file, rank, &token);
                    placed = true;
                    break;
                }
                if placed {
                    continue;
                }
            }
            if shape == Shape::Tsume && rng.chance(5) {
                continue; // out of play: fewer pieces than the game has is legal
            }
            let to_black = rng.chance(50);
            sk.hands[if to_black { 0 } else { 1 }][i] += 1;
        }
    }
    sk.black_to_move = rng.chance(50);
    sk
}

// ---------------------------------------------------------------------------------------
// rsshogi adapter
// ---------------------------------------------------------------------------------------

pub mod rs {
    use rsshogi::board::{self, MoveList, Position};
    use rsshogi::movegen::{generate_moves, Legal, LegalAll};
    use rsshogi::types::{Color, Move};

    #[allow(unused_imports)]
    pub use rsshogi::board::Position as RPos;

    pub fn init() {
        board::init();
    }

    /// Parses with rsshogi and initialises its state stack; `None` if rsshogi refuses it.
    pub fn parse(sfen: &str) -> Option<Position> {
        let s = sfen.trim();
        let s = s.strip_prefix("sfen ").unwrap_or(s);
        let mut p = Position::from_sfen(s).ok()?;
        p.init_stack();
        Some(p)
    }

    pub fn color(black: bool) -> Color {
        if black {
            Color::BLACK
        } else {
            Color::WHITE
        }
    }

    pub fn black_to_move(p: &Position) -> bool {
        p.turn() == Color::BLACK
    }

    pub fn has_king(p: &Position, black: bool) -> bool {
        !p.king_square(color(black)).is_none()
    }

    /// True if the side not to move has a king that the side to move attacks.
    pub fn opponent_in_check(p: &Position) -> bool {
        let them = p.turn().flip();
        let k = p.king_square(them);
        !k.is_none() && p.is_attacked_by(k, p.turn())
    }

    pub fn sfen(p: &Position) -> String {
        p.to_sfen(None)
    }

    /// Legal moves, standard (`all == false`) or with every non-promotion (`all == true`).
    pub fn legal(p: &Position, all: bool) -> Vec<Move> {
        let mut l = MoveList::new();
        if all {
            generate_moves::<LegalAll>(p, &mut l);
        } else {
            generate_moves::<Legal>(p, &mut l);
        }
        l.iter().copied().collect()
    }

    pub fn usi(moves: &[Move]) -> Vec<String> {
        let mut v: Vec<String> = moves.iter().map(|m| m.to_usi()).collect();
        v.sort();
        v
    }

    pub fn gives_check(p: &Position, m: Move) -> bool {
        p.gives_check_move(m)
    }

    pub fn in_check(p: &Position) -> bool {
        p.is_in_check()
    }

    /// Plays `m` on a copy and reports whether the side to move there is checkmated.
    pub fn mates(p: &mut Position, m: Move) -> bool {
        let m32 = p.move32_from_move(m);
        p.apply_move32(m32);
        let mated = p.is_in_check() && p.is_mated();
        p.undo_move32(m32).expect("undo");
        mated
    }

    /// Brute force: every legal move (non-promotions included) that leaves the opponent mated.
    pub fn mating_moves(p: &Position) -> Vec<String> {
        let mut work = p.clone();
        let mut v: Vec<String> = legal(p, true)
            .into_iter()
            .filter(|&m| p.gives_check_move(m) && mates(&mut work, m))
            .map(|m| m.to_usi())
            .collect();
        v.sort();
        v
    }

    pub fn solver_mate(p: &Position) -> Option<String> {
        rsshogi::mate::solve_mate_in_one(p).map(|m| m.to_usi())
    }

    pub fn play_usi(p: &mut Position, usi: &str) {
        let m = Move::from_usi(usi).expect("usi");
        p.apply_move(m);
    }

    /// Square indices (Kanju numbering = rsshogi's raw numbering) of a bitboard.
    pub fn squares(bb: rsshogi::board::Bitboard) -> Vec<usize> {
        let mut v: Vec<usize> = bb.iter().map(|s| s.to_index()).collect();
        v.sort_unstable();
        v
    }

    pub fn checkers(p: &Position) -> Vec<usize> {
        squares(p.checkers())
    }

    pub fn pinned(p: &Position, black: bool) -> Vec<usize> {
        squares(p.pinned_pieces(color(black)))
    }

    pub fn attackers(p: &Position, black: bool, sq: usize) -> Vec<usize> {
        squares(p.attackers_to_color_current(color(black), rsshogi::types::Square::from_index(sq)))
    }
}
