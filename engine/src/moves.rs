//! Moves, packed in 16 bits so the solver's table can store them cheaply.

use crate::types::{PieceKind, Square};
use std::fmt;
use std::mem::MaybeUninit;

/// A board move or a drop.
///
/// Layout: bits 0–6 the destination; bits 7–13 the origin square, or `81 + kind`
/// for a drop; bit 14 set for a promotion. `Move::NONE` (0) is never a legal move,
/// because origin and destination would coincide.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Move(u16);

const PROMOTE: u16 = 1 << 14;

impl Move {
    /// A sentinel that is no move.
    pub const NONE: Move = Move(0);

    /// A board move from `from` to `to`, promoting if `promote`.
    #[inline(always)]
    pub const fn normal(from: Square, to: Square, promote: bool) -> Move {
        Move(to.index() as u16 | (from.index() as u16) << 7 | if promote { PROMOTE } else { 0 })
    }

    /// A drop of `kind` (an unpromoted hand kind) on `to`.
    #[inline(always)]
    pub const fn drop(kind: PieceKind, to: Square) -> Move {
        Move(to.index() as u16 | (81 + kind as u16) << 7)
    }

    /// The destination.
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::from_index_unchecked((self.0 & 127) as usize)
    }

    /// The origin square, or `None` for a drop.
    #[inline(always)]
    pub const fn from(self) -> Option<Square> {
        let f = (self.0 >> 7) & 127;
        if f < 81 {
            Some(Square::from_index_unchecked(f as usize))
        } else {
            None
        }
    }

    /// True for a drop.
    #[inline(always)]
    pub const fn is_drop(self) -> bool {
        (self.0 >> 7) & 127 >= 81
    }

    /// The dropped kind, for a drop.
    #[inline(always)]
    pub const fn drop_kind(self) -> Option<PieceKind> {
        let f = ((self.0 >> 7) & 127) as usize;
        if f >= 81 {
            PieceKind::from_index(f - 81)
        } else {
            None
        }
    }

    /// True for a promoting board move.
    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0 & PROMOTE != 0
    }

    /// The raw 16 bits.
    #[inline(always)]
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// Rebuilds a move from [`Move::bits`]. The result still has to be checked for legality.
    #[inline(always)]
    pub const fn from_bits(bits: u16) -> Move {
        Move(bits)
    }

    /// The move in USI notation (`7g7f`, `2b3c+`, `P*5e`).
    pub fn to_usi(self) -> String {
        self.to_string()
    }

    /// Parses USI notation without checking it against a position; see `Position::parse_usi_move`.
    pub fn from_usi(s: &str) -> Option<Move> {
        let b = s.as_bytes();
        if b.len() == 4 && b[1] == b'*' {
            let kind = PieceKind::from_sfen_letter(b[0] as char)?;
            if kind == PieceKind::King || !(b[0] as char).is_ascii_uppercase() {
                return None;
            }
            return Some(Move::drop(kind, Square::from_usi(&s[2..4])?));
        }
        if b.len() != 4 && b.len() != 5 {
            return None;
        }
        if !s.is_ascii() {
            return None;
        }
        let from = Square::from_usi(&s[0..2])?;
        let to = Square::from_usi(&s[2..4])?;
        let promote = match b.get(4) {
            None => false,
            Some(b'+') => true,
            Some(_) => return None,
        };
        if from == to {
            return None;
        }
        Some(Move::normal(from, to, promote))
    }

    /// Converts to `shogi_core`'s move.
    pub fn to_core(self) -> shogi_core::Move {
        match self.from() {
            Some(from) => shogi_core::Move::Normal {
                from: from.to_core(),
                to: self.to().to_core(),
                promote: self.is_promotion(),
            },
            None => shogi_core::Move::Drop {
                piece: shogi_core::Piece::new(
                    self.drop_kind().expect("drop").to_core(),
                    shogi_core::Color::Black,
                ),
                to: self.to().to_core(),
            },
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.from(), self.drop_kind()) {
            (Some(from), _) => {
                write!(
                    f,
                    "{}{}{}",
                    from,
                    self.to(),
                    if self.is_promotion() { "+" } else { "" }
                )
            }
            (None, Some(k)) => write!(f, "{}*{}", k.sfen_letter(), self.to()),
            (None, None) => write!(f, "none"),
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A fixed-capacity move list; no position has more than 593 legal moves.
///
/// The buffer is left uninitialised: lists are created at every search node, and zeroing
/// 2 KiB each time showed up in the mate-in-1 profile.
pub struct MoveList {
    moves: [MaybeUninit<Move>; MoveList::CAPACITY],
    len: usize,
}

impl Clone for MoveList {
    fn clone(&self) -> MoveList {
        let mut l = MoveList::new();
        for &m in self.as_slice() {
            l.push(m);
        }
        l
    }
}

impl MoveList {
    /// Room for every legal move of any position, with the non-promotions of "all" mode.
    pub const CAPACITY: usize = 1024;

    /// An empty list.
    #[inline(always)]
    pub fn new() -> MoveList {
        // SAFETY: an array of `MaybeUninit` needs no initialisation.
        let moves = unsafe {
            MaybeUninit::<[MaybeUninit<Move>; MoveList::CAPACITY]>::uninit().assume_init()
        };
        MoveList { moves, len: 0 }
    }

    /// Appends a move.
    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        debug_assert!(self.len < Self::CAPACITY);
        // The capacity bound is a theorem about shogi, so this never drops a move in practice.
        if self.len < Self::CAPACITY {
            self.moves[self.len] = MaybeUninit::new(m);
            self.len += 1;
        }
    }

    /// Empties the list.
    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Number of moves.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves as a slice.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        // SAFETY: the first `len` elements were written by `push` and `Move` is `Copy`.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len) }
    }

    /// The moves as a mutable slice (for ordering).
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        // SAFETY: as in `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<Move>(), self.len) }
    }

    /// Keeps the moves for which `f` is true.
    #[inline]
    pub fn retain(&mut self, mut f: impl FnMut(Move) -> bool) {
        let mut j = 0;
        for i in 0..self.len {
            let m = self.as_slice()[i];
            if f(m) {
                self.moves[j] = MaybeUninit::new(m);
                j += 1;
            }
        }
        self.len = j;
    }

    /// True if `m` is in the list.
    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usi_round_trip() {
        for s in ["7g7f", "2b3c+", "P*5e", "R*1a", "9i1a"] {
            assert_eq!(Move::from_usi(s).unwrap().to_usi(), s);
        }
        for s in ["", "7g7g", "K*5e", "p*5e", "7g7f=", "0a1a", "7g", "P*5j"] {
            assert_eq!(Move::from_usi(s), None, "{s}");
        }
        let m = Move::from_usi("P*5e").unwrap();
        assert!(m.is_drop());
        assert_eq!(m.drop_kind(), Some(PieceKind::Pawn));
        assert_eq!(Move::from_bits(m.bits()), m);
    }
}
