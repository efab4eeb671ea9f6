//! An 81-square set in the low bits of a `u128`, file-major like [`Square`].

use crate::types::{Color, Square};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares. Bit `i` is the square with index `i`; bits 81..128 are always zero.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub(crate) u128);

const ALL_BITS: u128 = (1u128 << 81) - 1;

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 81 squares.
    pub const ALL: Bitboard = Bitboard(ALL_BITS);

    /// The set holding just `sq`.
    #[inline(always)]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1u128 << sq.index())
    }

    /// The raw bits.
    #[inline(always)]
    pub const fn bits(self) -> u128 {
        self.0
    }

    /// True if no square is set.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True if some square is set.
    #[inline(always)]
    pub const fn is_nonempty(self) -> bool {
        self.0 != 0
    }

    /// True if `sq` is in the set.
    #[inline(always)]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    /// Number of squares in the set.
    #[inline(always)]
    pub const fn count(self) -> u32 {
        (self.0 as u64).count_ones() + ((self.0 >> 64) as u64).count_ones()
    }

    /// True if more than one square is set.
    #[inline(always)]
    pub const fn has_more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest-index square, if any.
    #[inline(always)]
    pub fn lsb(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_unchecked(lsb_index(self.0)))
        }
    }

    /// The highest-index square, if any.
    #[inline(always)]
    pub fn msb(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_unchecked(
                127 - self.0.leading_zeros() as usize,
            ))
        }
    }

    /// The only square of a one-square set. The set must not be empty.
    #[inline(always)]
    pub fn single(self) -> Square {
        debug_assert!(self.0 != 0);
        Square::from_index_unchecked(lsb_index(self.0))
    }

    /// Removes and returns the lowest square.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<Square> {
        let sq = self.lsb()?;
        self.0 &= self.0 - 1;
        Some(sq)
    }

    /// `self` without the squares of `other`.
    #[inline(always)]
    pub const fn and_not(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 & !other.0)
    }

    /// True if the two sets share a square.
    #[inline(always)]
    pub const fn intersects(self, other: Bitboard) -> bool {
        self.0 & other.0 != 0
    }

    /// The nine squares of a file (1–9).
    #[inline(always)]
    pub const fn file_mask(file: u8) -> Bitboard {
        Bitboard(0x1ffu128 << ((file as u32 - 1) * 9))
    }

    /// The nine squares of a rank (1–9).
    pub const fn rank_mask(rank: u8) -> Bitboard {
        let mut bits = 0u128;
        let mut f = 0;
        while f < 9 {
            bits |= 1u128 << (f * 9 + rank as u32 - 1);
            f += 1;
        }
        Bitboard(bits)
    }

    /// Ranks `from..=to` (1–9).
    pub const fn ranks(from: u8, to: u8) -> Bitboard {
        let mut bits = 0u128;
        let mut r = from;
        while r <= to {
            bits |= Bitboard::rank_mask(r).0;
            r += 1;
        }
        Bitboard(bits)
    }

    /// The promotion zone of `color`: the three far ranks.
    #[inline(always)]
    pub const fn promotion_zone(color: Color) -> Bitboard {
        match color {
            Color::Black => PROMOTION_ZONE[0],
            Color::White => PROMOTION_ZONE[1],
        }
    }

    /// Iterates the squares, lowest index first.
    #[inline(always)]
    pub fn iter(self) -> BitboardIter {
        BitboardIter(self.0)
    }
}

const PROMOTION_ZONE: [Bitboard; 2] = [Bitboard::ranks(1, 3), Bitboard::ranks(7, 9)];

#[inline(always)]
fn lsb_index(bits: u128) -> usize {
    // Splitting keeps this at one tzcnt on x86-64; u128::trailing_zeros also branches.
    let lo = bits as u64;
    if lo != 0 {
        lo.trailing_zeros() as usize
    } else {
        64 + ((bits >> 64) as u64).trailing_zeros() as usize
    }
}

/// Iterator over the squares of a [`Bitboard`].
pub struct BitboardIter(u128);

impl Iterator for BitboardIter {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = Square::from_index_unchecked(lsb_index(self.0));
        self.0 &= self.0 - 1;
        Some(sq)
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = BitboardIter;
    fn into_iter(self) -> BitboardIter {
        self.iter()
    }
}

macro_rules! bit_ops {
    ($t:ident, $f:ident, $ta:ident, $fa:ident, $op:tt) => {
        impl $t for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $ta for Bitboard {
            #[inline(always)]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bit_ops!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_ops!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_ops!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & ALL_BITS)
    }
}

impl std::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f)?;
        for rank in 1..=9 {
            for file in (1..=9).rev() {
                let sq = Square::new(file, rank).unwrap();
                write!(f, "{}", if self.contains(sq) { 'x' } else { '.' })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iteration_and_counts() {
        let mut bb = Bitboard::EMPTY;
        for i in [0usize, 8, 63, 64, 80] {
            bb |= Bitboard::from_square(Square::from_index(i).unwrap());
        }
        assert_eq!(bb.count(), 5);
        let v: Vec<usize> = bb.iter().map(|s| s.index()).collect();
        assert_eq!(v, vec![0, 8, 63, 64, 80]);
        assert_eq!(bb.msb().unwrap().index(), 80);
        assert_eq!(bb.lsb().unwrap().index(), 0);
        assert!(bb.has_more_than_one());
        assert_eq!((!Bitboard::EMPTY).count(), 81);
    }

    #[test]
    fn masks() {
        assert_eq!(Bitboard::file_mask(5).count(), 9);
        assert_eq!(Bitboard::rank_mask(3).count(), 9);
        assert_eq!(Bitboard::promotion_zone(Color::Black).count(), 27);
        for sq in Bitboard::promotion_zone(Color::White) {
            assert!(sq.rank() >= 7);
        }
    }
}
