//! One transposition-table entry and the proof-number constants it lives by.
//!
//! An entry describes one position: the board (key) plus the attacker's hand. For a proof
//! the hand is the proof hand (証明駒) and the entry speaks for every hand that dominates
//! it; for a disproof the hand is the disproof hand (反証駒) and it speaks for every hand it
//! dominates. For an unknown position the hand is the exact hand.

use kanju_engine::{Hand, Move};

/// Infinity for proof and disproof numbers: a proven node has `dn == INF`, a disproven one
/// `pn == INF`.
pub(crate) const INF: u32 = u32::MAX;
/// The largest finite proof or disproof number. Sums saturate here, so a sum of unknown
/// children is never mistaken for a terminal value.
pub(crate) const PN_MAX: u32 = INF - 1;

/// The reach of a disproof that holds whatever the mate's length: no mate at all.
pub(crate) const ANY_LENGTH: u16 = 0;

/// The reach of a disproof found under a mate length limit: no mate within `plies` plies
/// of the node. Such a disproof holds on any path that leaves the node no more plies than
/// that, so it is stored like any other and answers other paths, where keeping it only
/// for its own path made "no mate within n" cost thousands of times the nodes (3.3 M
/// against the main line's 6 k on one small position).
#[inline]
pub(crate) const fn within(plies: u16) -> u16 {
    plies.saturating_add(1)
}

/// The limit of a disproof's reach one ply further from the mate: a parent that is
/// disproven through a child disproven within `n` plies is disproven within `n + 1`.
#[inline]
pub(crate) const fn one_ply_up(reach: u16) -> u16 {
    if reach == ANY_LENGTH {
        ANY_LENGTH
    } else {
        reach.saturating_add(1)
    }
}

/// How many moves an entry remembers as leading to a shared descendant (SNDA).
pub(crate) const SNDA_MOVES: usize = 3;

/// A stored node, without its board key (the cluster keeps keys together so a probe
/// reads one cache line to find its entries). 40 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Parent's board key, or 0: the single parent pointer SNDA walks (Nagai's method).
    pub parent_key: u64,
    /// Attacker's hand: exact, or the proof / disproof hand for terminal entries.
    pub hand: Hand,
    /// Parent's attacker hand (exact).
    pub parent_hand: Hand,
    /// Proof number.
    pub pn: u32,
    /// Disproof number.
    pub dn: u32,
    /// Effort spent below this node (nodes, saturating): what garbage collection ranks by.
    pub amount: u32,
    /// The move from the parent to this node.
    pub parent_move: u16,
    /// Minimal distance from the root at which the node was seen (TCA's md).
    pub md: u16,
    /// For proofs: the length in plies of the mate the proof found. Lets the main line
    /// prefer short attacks and long defences, and is where exact-length work builds on.
    /// For disproofs: their reach, [`ANY_LENGTH`] or a [`within`] limit.
    pub len: u16,
    /// Moves at this node that lead to a common descendant (SNDA). 0 = unused.
    pub snda: [u16; SNDA_MOVES],
}

impl Entry {
    /// An empty slot's contents.
    #[cfg(test)]
    pub const EMPTY: Entry = Entry {
        parent_key: 0,
        hand: Hand::EMPTY,
        parent_hand: Hand::EMPTY,
        pn: 0,
        dn: 0,
        amount: 0,
        parent_move: 0,
        md: u16::MAX,
        len: 0,
        snda: [0; SNDA_MOVES],
    };

    /// True for a proof.
    #[inline(always)]
    pub fn is_proven(&self) -> bool {
        self.pn == 0
    }

    /// True for a disproof.
    #[inline(always)]
    pub fn is_disproven(&self) -> bool {
        self.dn == 0
    }

    /// True for a proof or a disproof.
    #[inline(always)]
    pub fn is_terminal(&self) -> bool {
        self.pn == 0 || self.dn == 0
    }

    /// Adds `m` to the SNDA move set if it has room and lacks it.
    pub fn add_snda(&mut self, m: Move) {
        let b = m.bits();
        if b == 0 || self.snda.contains(&b) {
            return;
        }
        if let Some(slot) = self.snda.iter_mut().find(|s| **s == 0) {
            *slot = b;
        }
    }
}

/// Table keys are never 0, because 0 marks an empty slot.
#[inline(always)]
pub(crate) fn nonzero_key(key: u64) -> u64 {
    if key == 0 {
        0x9e37_79b9_7f4a_7c15
    } else {
        key
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_engine::{PieceKind, Square};

    #[test]
    fn entry_is_compact() {
        assert_eq!(std::mem::size_of::<Entry>(), 40);
    }

    #[test]
    fn snda_set_keeps_distinct_moves_up_to_capacity() {
        let mut e = Entry::EMPTY;
        let sq = |i| Square::from_index(i).unwrap();
        let moves: Vec<Move> = (0..5).map(|i| Move::drop(PieceKind::Gold, sq(i))).collect();
        e.add_snda(moves[0]);
        e.add_snda(moves[0]);
        e.add_snda(moves[1]);
        assert_eq!(e.snda.iter().filter(|&&s| s != 0).count(), 2);
        for &m in &moves {
            e.add_snda(m);
        }
        assert_eq!(e.snda, [moves[0].bits(), moves[1].bits(), moves[2].bits()]);
    }
}
