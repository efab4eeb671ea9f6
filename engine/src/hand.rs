//! Pieces in hand, packed in a `u32` so that domination is one subtraction.
//!
//! Each kind has a field wide enough for its maximum count plus one guard bit
//! above it. `a - b` borrows into a guard bit exactly when some count of `b`
//! exceeds `a`'s, so "`a` has at least `b`'s pieces" is `(a - b) & GUARDS == 0`.
//! Proof and disproof pieces (証明駒・反証駒) in the solver rely on this.

use crate::types::PieceKind;
use std::fmt;

/// The pieces one side holds.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Hand(u32);

// Field shifts for P, L, N, S, G, B, R; widths 5, 3, 3, 3, 3, 2, 2 bits.
const SHIFT: [u32; 7] = [0, 6, 10, 14, 18, 22, 25];
const WIDTH: [u32; 7] = [5, 3, 3, 3, 3, 2, 2];
const MAX: [u32; 7] = [18, 4, 4, 4, 4, 2, 2];
const GUARDS: u32 = {
    let mut g = 0;
    let mut i = 0;
    while i < 7 {
        g |= 1 << (SHIFT[i] + WIDTH[i]);
        i += 1;
    }
    g
};

impl Hand {
    /// No pieces.
    pub const EMPTY: Hand = Hand(0);

    /// The raw packed value (for tables and hashing).
    #[inline(always)]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Rebuilds a hand from [`Hand::bits`]; `None` if the value is not a valid hand.
    pub fn from_bits(bits: u32) -> Option<Hand> {
        let h = Hand(bits);
        let valid_fields = (0..7).all(|i| (bits >> SHIFT[i]) & ((1 << WIDTH[i]) - 1) <= MAX[i]);
        let known_bits = (0..7).fold(0, |m, i| m | (((1u32 << WIDTH[i]) - 1) << SHIFT[i]));
        (valid_fields && bits & !known_bits == 0).then_some(h)
    }

    /// The hand with every piece of the game: what both sides hold at most together.
    pub const fn full() -> Hand {
        let mut bits = 0;
        let mut i = 0;
        while i < 7 {
            bits |= MAX[i] << SHIFT[i];
            i += 1;
        }
        Hand(bits)
    }

    #[inline(always)]
    const fn field(kind: PieceKind) -> usize {
        kind.unpromote() as usize
    }

    /// How many pieces of `kind` (its unpromoted form) are held. A king is never held.
    #[inline(always)]
    pub const fn count(self, kind: PieceKind) -> u32 {
        let i = Hand::field(kind);
        if i >= 7 {
            return 0;
        }
        (self.0 >> SHIFT[i]) & ((1 << WIDTH[i]) - 1)
    }

    /// True if at least one piece of `kind` is held.
    #[inline(always)]
    pub const fn has(self, kind: PieceKind) -> bool {
        self.count(kind) != 0
    }

    /// True if no piece is held.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// One more piece of `kind` (unpromoted first). The count must stay within the game's supply.
    #[inline(always)]
    pub const fn add(self, kind: PieceKind) -> Hand {
        let i = Hand::field(kind);
        debug_assert!(i < 7);
        Hand(self.0 + (1 << SHIFT[i]))
    }

    /// One fewer piece of `kind`. At least one must be held.
    #[inline(always)]
    pub const fn remove(self, kind: PieceKind) -> Hand {
        let i = Hand::field(kind);
        debug_assert!(i < 7);
        Hand(self.0 - (1 << SHIFT[i]))
    }

    /// This hand with exactly `n` pieces of `kind`, or `None` if `n` exceeds the game's supply.
    pub fn with_count(self, kind: PieceKind, n: u32) -> Option<Hand> {
        let i = Hand::field(kind);
        if i >= 7 || n > MAX[i] {
            return None;
        }
        let mask = ((1 << WIDTH[i]) - 1) << SHIFT[i];
        Some(Hand((self.0 & !mask) | (n << SHIFT[i])))
    }

    /// True if this hand holds at least as many pieces of every kind as `other`.
    #[inline(always)]
    pub const fn dominates(self, other: Hand) -> bool {
        self.0.wrapping_sub(other.0) & GUARDS == 0
    }

    /// Per kind, the smaller count of the two hands.
    pub fn min(self, other: Hand) -> Hand {
        let mut h = Hand::EMPTY;
        for k in PieceKind::HAND {
            h = h
                .with_count(k, self.count(k).min(other.count(k)))
                .unwrap_or(h);
        }
        h
    }

    /// Per kind, the larger count of the two hands.
    pub fn max(self, other: Hand) -> Hand {
        let mut h = Hand::EMPTY;
        for k in PieceKind::HAND {
            h = h
                .with_count(k, self.count(k).max(other.count(k)))
                .unwrap_or(h);
        }
        h
    }

    /// Total number of pieces held.
    pub fn total(self) -> u32 {
        PieceKind::HAND.iter().map(|&k| self.count(k)).sum()
    }

    /// Kinds with at least one piece, cheapest first.
    pub fn kinds(self) -> impl Iterator<Item = PieceKind> {
        PieceKind::HAND.into_iter().filter(move |&k| self.has(k))
    }
}

impl fmt::Debug for Hand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return write!(f, "-");
        }
        for k in PieceKind::HAND.iter().rev() {
            match self.count(*k) {
                0 => {}
                1 => write!(f, "{}", k.sfen_letter())?,
                n => write!(f, "{}{}", n, k.sfen_letter())?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_round_trip() {
        let mut h = Hand::EMPTY;
        for _ in 0..18 {
            h = h.add(PieceKind::Pawn);
        }
        h = h.add(PieceKind::Rook).add(PieceKind::Dragon);
        assert_eq!(h.count(PieceKind::Pawn), 18);
        assert_eq!(h.count(PieceKind::Rook), 2);
        assert_eq!(h.count(PieceKind::Gold), 0);
        assert_eq!(h.remove(PieceKind::Rook).count(PieceKind::Rook), 1);
        assert_eq!(Hand::from_bits(h.bits()), Some(h));
        assert_eq!(Hand::full().total(), 38);
    }

    #[test]
    fn domination_is_per_kind() {
        let a = Hand::EMPTY
            .add(PieceKind::Gold)
            .add(PieceKind::Pawn)
            .add(PieceKind::Pawn);
        let b = Hand::EMPTY.add(PieceKind::Gold).add(PieceKind::Pawn);
        let c = Hand::EMPTY.add(PieceKind::Silver);
        assert!(a.dominates(b));
        assert!(!b.dominates(a));
        assert!(a.dominates(Hand::EMPTY));
        assert!(!a.dominates(c));
        assert!(!c.dominates(a));
        assert!(Hand::full().dominates(a));
        // Exhaustive over small hands: dominance agrees with the per-kind definition.
        let hands: Vec<Hand> = (0..3)
            .flat_map(|p| (0..3).map(move |g| (p, g)))
            .flat_map(|(p, g)| (0..2).map(move |r| (p, g, r)))
            .map(|(p, g, r)| {
                Hand::EMPTY
                    .with_count(PieceKind::Pawn, p)
                    .and_then(|h| h.with_count(PieceKind::Gold, g))
                    .and_then(|h| h.with_count(PieceKind::Rook, r))
                    .unwrap()
            })
            .collect();
        for &x in &hands {
            for &y in &hands {
                let expect = PieceKind::HAND.iter().all(|&k| x.count(k) >= y.count(k));
                assert_eq!(x.dominates(y), expect, "{x:?} vs {y:?}");
            }
        }
    }
}
