//! Attack tables, built by `const fn` at compile time.
//!
//! Why `const fn` rather than `build.rs`: the tables are small (a few hundred KiB), the
//! generator is the same Rust that is unit-tested here, and nothing needs to be shared
//! with the binary's own `build.rs`. Sliding attacks use the classical ray method: the
//! ray from the square, cut at its first blocker, found with one `tzcnt`/`lzcnt` on the
//! half of the `u128` that holds it. That is portable and needs no BMI2 or AVX-512.

use crate::bitboard::Bitboard;
use crate::types::{Color, Piece, PieceKind, Square};

/// The eight directions as (file delta, rank delta). Rank delta −1 is "up" for Black.
/// Opposite directions are paired as `d` and `d ^ 1`.
const DIRS: [(i8, i8); 8] = [
    (0, -1),
    (0, 1),
    (1, 0),
    (-1, 0),
    (1, -1),
    (-1, 1),
    (1, 1),
    (-1, -1),
];
const UP: usize = 0;
const DOWN: usize = 1;
/// Directions whose square index increases along the ray (first blocker = lowest bit).
const fn is_positive(d: usize) -> bool {
    let (df, dr) = DIRS[d];
    df as i32 * 9 + dr as i32 > 0
}

const fn offset(sq: usize, df: i8, dr: i8) -> Option<usize> {
    let f = (sq / 9) as i8 + df;
    let r = (sq % 9) as i8 + dr;
    if f >= 0 && f < 9 && r >= 0 && r < 9 {
        Some(f as usize * 9 + r as usize)
    } else {
        None
    }
}

const fn build_rays() -> [[u128; 81]; 8] {
    let mut t = [[0u128; 81]; 8];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < 81 {
            let mut cur = sq;
            let mut bits = 0u128;
            while let Some(n) = offset(cur, DIRS[d].0, DIRS[d].1) {
                bits |= 1u128 << n;
                cur = n;
            }
            t[d][sq] = bits;
            sq += 1;
        }
        d += 1;
    }
    t
}

static RAYS: [[u128; 81]; 8] = build_rays();

/// Step deltas as seen by Black; White's are mirrored in rank.
const fn step_deltas(kind: PieceKind) -> &'static [(i8, i8)] {
    match kind {
        PieceKind::Pawn => &[(0, -1)],
        PieceKind::Knight => &[(1, -2), (-1, -2)],
        PieceKind::Silver => &[(0, -1), (1, -1), (-1, -1), (1, 1), (-1, 1)],
        PieceKind::Gold
        | PieceKind::ProPawn
        | PieceKind::ProLance
        | PieceKind::ProKnight
        | PieceKind::ProSilver => &[(0, -1), (1, -1), (-1, -1), (1, 0), (-1, 0), (0, 1)],
        PieceKind::King => &[
            (0, -1),
            (1, -1),
            (-1, -1),
            (1, 0),
            (-1, 0),
            (0, 1),
            (1, 1),
            (-1, 1),
        ],
        PieceKind::Horse => &[(0, -1), (0, 1), (1, 0), (-1, 0)],
        PieceKind::Dragon => &[(1, -1), (1, 1), (-1, -1), (-1, 1)],
        _ => &[],
    }
}

const fn build_steps() -> [[[u128; 81]; 14]; 2] {
    let mut t = [[[0u128; 81]; 14]; 2];
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 14 {
            let deltas = step_deltas(PieceKind::ALL[k]);
            let mut sq = 0;
            while sq < 81 {
                let mut bits = 0u128;
                let mut i = 0;
                while i < deltas.len() {
                    let (df, dr) = deltas[i];
                    let dr = if c == 0 { dr } else { -dr };
                    let df = if c == 0 { df } else { -df };
                    if let Some(n) = offset(sq, df, dr) {
                        bits |= 1u128 << n;
                    }
                    i += 1;
                }
                t[c][k][sq] = bits;
                sq += 1;
            }
            k += 1;
        }
        c += 1;
    }
    t
}

/// Non-sliding attacks per color, kind, square. Lance, bishop and rook are zero; horse and
/// dragon hold only their one-step extras.
static STEPS: [[[u128; 81]; 14]; 2] = build_steps();

/// Squares from which a stepping piece of `color` and kind (pawn, knight, silver, gold
/// mover) can give check to a king on a square in one move, promoting or not.
/// Indexed `[color][class][king square]`, class 0–3 = pawn, knight, silver, gold.
const fn build_check_candidates() -> [[[u128; 81]; 4]; 2] {
    let steps = build_steps();
    let kinds = [
        PieceKind::Pawn,
        PieceKind::Knight,
        PieceKind::Silver,
        PieceKind::Gold,
    ];
    let mut t = [[[0u128; 81]; 4]; 2];
    let mut c = 0;
    while c < 2 {
        let them = 1 - c;
        let mut class = 0;
        while class < 4 {
            let k = kinds[class] as usize;
            // A pawn, knight or silver may also promote and check as a gold.
            let checking_kinds: [usize; 2] = [k, PieceKind::Gold as usize];
            let mut ek = 0;
            while ek < 81 {
                let mut from_bits = 0u128;
                let mut i = 0;
                while i < 2 {
                    // Squares from which a piece of kind checking_kinds[i] attacks ek.
                    let checks = steps[them][checking_kinds[i]][ek];
                    let mut sq = 0;
                    while sq < 81 {
                        if checks >> sq & 1 != 0 {
                            // Squares from which our unpromoted piece moves to sq.
                            from_bits |= steps[them][k][sq];
                        }
                        sq += 1;
                    }
                    i += 1;
                }
                t[c][class][ek] = from_bits;
                ek += 1;
            }
            class += 1;
        }
        c += 1;
    }
    t
}

static CHECK_CANDIDATES: [[[u128; 81]; 4]; 2] = build_check_candidates();

/// Where a stepping piece of `color` must stand to check a king on `king` in one move.
/// `kind` is a pawn, knight, silver or gold mover (gold and the promoted minors).
#[inline(always)]
pub(crate) fn check_candidates(color: Color, kind: PieceKind, king: Square) -> Bitboard {
    let class = match kind {
        PieceKind::Pawn => 0,
        PieceKind::Knight => 1,
        PieceKind::Silver => 2,
        _ => 3,
    };
    Bitboard(CHECK_CANDIDATES[color.index()][class][king.index()])
}

const fn build_between() -> [[u128; 81]; 81] {
    let mut t = [[0u128; 81]; 81];
    let mut a = 0;
    while a < 81 {
        let mut d = 0;
        while d < 8 {
            let mut cur = a;
            let mut bits = 0u128;
            while let Some(n) = offset(cur, DIRS[d].0, DIRS[d].1) {
                t[a][n] = bits;
                bits |= 1u128 << n;
                cur = n;
            }
            d += 1;
        }
        a += 1;
    }
    t
}

const fn build_lines() -> [[u128; 81]; 81] {
    let rays = build_rays();
    let mut t = [[0u128; 81]; 81];
    let mut a = 0;
    while a < 81 {
        let mut d = 0;
        while d < 8 {
            // The full line through `a` in direction d and its opposite (d ^ 1).
            let line = rays[d][a] | rays[d ^ 1][a] | 1u128 << a;
            let mut b = 0;
            while b < 81 {
                if rays[d][a] >> b & 1 != 0 {
                    t[a][b] = line;
                }
                b += 1;
            }
            d += 1;
        }
        a += 1;
    }
    t
}

/// The squares within two files and three ranks of a square: wherever a stepping piece
/// (a knight's jump is the longest step) could attack one of that square's neighbours.
const fn build_step_reach() -> [u128; 81] {
    let mut t = [0u128; 81];
    let mut sq = 0;
    while sq < 81 {
        let mut df = -2;
        while df <= 2 {
            let mut dr = -3;
            while dr <= 3 {
                if let Some(n) = offset(sq, df, dr) {
                    t[sq] |= 1u128 << n;
                }
                dr += 1;
            }
            df += 1;
        }
        sq += 1;
    }
    t
}

static STEP_REACH: [u128; 81] = build_step_reach();

/// Where a stepping piece could stand to attack a neighbour of `sq` (see `build_step_reach`).
#[inline(always)]
pub(crate) fn step_reach(sq: Square) -> Bitboard {
    Bitboard(STEP_REACH[sq.index()])
}

/// The union of the rays `dirs` from each square: a slider's attacks on an empty board.
const fn build_pseudo(dirs: &[usize]) -> [u128; 81] {
    let mut t = [0u128; 81];
    let mut sq = 0;
    while sq < 81 {
        let mut i = 0;
        while i < dirs.len() {
            t[sq] |= RAYS[dirs[i]][sq];
            i += 1;
        }
        sq += 1;
    }
    t
}

static BISHOP_PSEUDO: [u128; 81] = build_pseudo(&[4, 5, 6, 7]);
static ROOK_PSEUDO: [u128; 81] = build_pseudo(&[0, 1, 2, 3]);
static ALIGNED: [u128; 81] = build_pseudo(&[0, 1, 2, 3, 4, 5, 6, 7]);

/// The squares on a rank, file or diagonal through `sq`, `sq` left out: where vacating
/// `sq` may uncover a slider's attack.
#[inline(always)]
pub(crate) fn aligned(sq: Square) -> Bitboard {
    Bitboard(ALIGNED[sq.index()])
}

static BETWEEN: [[u128; 81]; 81] = build_between();
static LINES: [[u128; 81]; 81] = build_lines();

/// The squares strictly between `a` and `b` if they share a rank, file or diagonal; else empty.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN[a.index()][b.index()])
}

/// The whole line through `a` and `b` (both included) if they are aligned; else empty.
#[inline(always)]
pub fn line_through(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES[a.index()][b.index()])
}

#[inline(always)]
fn ray(d: usize, sq: Square, occ: Bitboard) -> u128 {
    let r = RAYS[d][sq.index()];
    let blockers = r & occ.0;
    if blockers == 0 {
        return r;
    }
    let b = if is_positive(d) {
        Bitboard(blockers).single()
    } else {
        Square::from_index_unchecked(127 - blockers.leading_zeros() as usize)
    };
    r ^ RAYS[d][b.index()]
}

/// Lance attacks of `color` from `sq`.
#[inline(always)]
pub(crate) fn lance_attacks(color: Color, sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard(ray(if color == Color::Black { UP } else { DOWN }, sq, occ))
}

/// Bishop attacks from `sq`.
#[inline(always)]
pub(crate) fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard(ray(4, sq, occ) | ray(5, sq, occ) | ray(6, sq, occ) | ray(7, sq, occ))
}

/// Rook attacks from `sq`.
#[inline(always)]
pub(crate) fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard(ray(0, sq, occ) | ray(1, sq, occ) | ray(2, sq, occ) | ray(3, sq, occ))
}

/// Bishop attacks on an empty board (for pin and discovered-check candidates).
#[inline(always)]
pub(crate) fn bishop_pseudo(sq: Square) -> Bitboard {
    Bitboard(BISHOP_PSEUDO[sq.index()])
}

/// Rook attacks on an empty board.
#[inline(always)]
pub(crate) fn rook_pseudo(sq: Square) -> Bitboard {
    Bitboard(ROOK_PSEUDO[sq.index()])
}

/// Lance attacks on an empty board.
#[inline(always)]
pub(crate) fn lance_pseudo(color: Color, sq: Square) -> Bitboard {
    Bitboard(RAYS[if color == Color::Black { UP } else { DOWN }][sq.index()])
}

/// The squares a piece of `kind` and `color` on `sq` attacks by stepping: all of a
/// non-sliding piece's attacks, and the step part of a horse or dragon.
#[inline(always)]
pub(crate) fn steps(color: Color, kind: PieceKind, sq: Square) -> Bitboard {
    Bitboard(STEPS[color.index()][kind.index()][sq.index()])
}

/// Whether `piece` on `sq` attacks `target`, given the occupancy. Cheaper than testing
/// `attacks_from`: a slider needs only the squares between, not its whole rays.
#[inline(always)]
pub(crate) fn attacks_square(piece: Piece, sq: Square, target: Square, occ: Bitboard) -> bool {
    let c = piece.color();
    let k = piece.kind();
    let line = match k {
        PieceKind::Lance => lance_pseudo(c, sq),
        PieceKind::Bishop | PieceKind::Horse => bishop_pseudo(sq),
        PieceKind::Rook | PieceKind::Dragon => rook_pseudo(sq),
        _ => Bitboard::EMPTY,
    };
    steps(c, k, sq).contains(target)
        || (line.contains(target) && (between(sq, target) & occ).is_empty())
}

/// The squares `piece` on `sq` attacks, given the occupancy.
#[inline(always)]
pub fn attacks_from(piece: Piece, sq: Square, occ: Bitboard) -> Bitboard {
    let c = piece.color();
    match piece.kind() {
        PieceKind::Lance => lance_attacks(c, sq, occ),
        PieceKind::Bishop => bishop_attacks(sq, occ),
        PieceKind::Rook => rook_attacks(sq, occ),
        PieceKind::Horse => bishop_attacks(sq, occ) | steps(c, PieceKind::Horse, sq),
        PieceKind::Dragon => rook_attacks(sq, occ) | steps(c, PieceKind::Dragon, sq),
        k => steps(c, k, sq),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::from_usi(s).unwrap()
    }

    /// Slow reference: walk each direction square by square.
    fn slow_slider(sq0: Square, occ: Bitboard, dirs: &[usize]) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for &d in dirs {
            let mut cur = sq0.index();
            while let Some(n) = offset(cur, DIRS[d].0, DIRS[d].1) {
                out |= Bitboard::from_square(Square::from_index(n).unwrap());
                if occ.contains(Square::from_index(n).unwrap()) {
                    break;
                }
                cur = n;
            }
        }
        out
    }

    /// `count` pseudo-random occupancies of about a quarter of the board (xorshift).
    fn occupancies(count: usize) -> impl Iterator<Item = Bitboard> {
        let mut x: u64 = 0x9e3779b97f4a7c15;
        (0..count).map(move |_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let y = x.wrapping_mul(0x2545f4914f6cdd1d);
            Bitboard(((x as u128) << 64 | y as u128) & (x as u128 | (y as u128) << 17))
                & Bitboard::ALL
        })
    }

    #[test]
    fn sliders_match_slow_walk() {
        for occ in occupancies(2000) {
            for s in Square::all() {
                assert_eq!(rook_attacks(s, occ), slow_slider(s, occ, &[0, 1, 2, 3]));
                assert_eq!(bishop_attacks(s, occ), slow_slider(s, occ, &[4, 5, 6, 7]));
                assert_eq!(
                    lance_attacks(Color::Black, s, occ),
                    slow_slider(s, occ, &[0])
                );
                assert_eq!(
                    lance_attacks(Color::White, s, occ),
                    slow_slider(s, occ, &[1])
                );
            }
        }
    }

    #[test]
    fn one_attacked_square_agrees_with_the_whole_attack_set() {
        for occ in occupancies(40) {
            for color in [Color::Black, Color::White] {
                for kind in PieceKind::ALL {
                    let piece = Piece::new(color, kind);
                    for from in Square::all() {
                        let attacks = attacks_from(piece, from, occ);
                        for target in Square::all() {
                            assert_eq!(
                                attacks_square(piece, from, target, occ),
                                attacks.contains(target),
                                "{piece:?} on {from} against {target}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn step_tables() {
        use PieceKind::*;
        assert_eq!(steps(Color::Black, Gold, sq("5e")).count(), 6);
        assert!(steps(Color::Black, Gold, sq("5e")).contains(sq("5d")));
        assert!(!steps(Color::Black, Gold, sq("5e")).contains(sq("4f")));
        let t: Vec<String> = steps(Color::White, Knight, sq("5e"))
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(t, vec!["4g", "6g"]);
        assert_eq!(steps(Color::Black, Pawn, sq("5a")), Bitboard::EMPTY);
    }

    #[test]
    fn between_and_lines() {
        assert_eq!(between(sq("1a"), sq("1e")).count(), 3);
        assert_eq!(between(sq("1a"), sq("5e")).count(), 3);
        assert_eq!(between(sq("1a"), sq("2c")), Bitboard::EMPTY);
        assert_eq!(line_through(sq("5e"), sq("5a")).count(), 9);
        assert_eq!(line_through(sq("1a"), sq("9i")).count(), 9);
        assert_eq!(line_through(sq("1a"), sq("2c")), Bitboard::EMPTY);
        // Lines run both ways from the pair, whichever way round they are given.
        for (a, b, n) in [
            ("4d", "3c"),
            ("3c", "4d"),
            ("5e", "6d"),
            ("5e", "4e"),
            ("5e", "5f"),
        ]
        .map(|(a, b)| (a, b, 9))
        {
            let l = line_through(sq(a), sq(b));
            assert_eq!(l, line_through(sq(b), sq(a)));
            assert!(l.contains(sq(a)) && l.contains(sq(b)));
            assert!(l.count() >= 7 && l.count() <= n, "{a}-{b}: {l:?}");
        }
        assert!(line_through(sq("4d"), sq("3c")).contains(sq("6f")));
        assert!(line_through(sq("4d"), sq("3c")).contains(sq("2b")));
        for d in 0..8 {
            assert_eq!(
                (DIRS[d].0 + DIRS[d ^ 1].0, DIRS[d].1 + DIRS[d ^ 1].1),
                (0, 0)
            );
        }
    }
}
