//! The positions on the current search path, for repetition (千日手) and SNDA's source
//! detection. A fixed open-addressing set keyed by board: push and pop follow the
//! recursion, so a pop always removes the newest entry and linear probing never needs
//! tombstones.
//!
//! Besides exact repetition the path answers the dominated repetition (劣等局面): the same
//! board, same side to move, with the attacker holding no more of any piece than at an
//! ancestor. Such a position cannot lie on a shortest mate: whatever mates it mates the
//! ancestor too (fewer defender pieces in hand only take interpositions away), and a mate
//! from the ancestor through it would be longer than the one played from it directly. So
//! the search treats it as lost for the attacker on this path, like a repetition; sacrifice
//! loops that hand the defender one piece per turn are cut after one turn instead of being
//! searched for every subset of the attacker's hand.

use kanju_engine::Hand;

const BITS: u32 = 15;
const SLOTS: usize = 1 << BITS;

/// Board keys, attacker hands and depths of the positions on the path.
pub(crate) struct PathSet {
    keys: Box<[u64]>,
    hands: Box<[Hand]>,
    depths: Box<[u16]>,
    len: usize,
}

impl PathSet {
    /// The most positions a path may hold; deeper paths are cut by the search.
    pub const CAPACITY: usize = SLOTS / 2;

    /// An empty set.
    pub fn new() -> PathSet {
        PathSet {
            keys: vec![0; SLOTS].into_boxed_slice(),
            hands: vec![Hand::EMPTY; SLOTS].into_boxed_slice(),
            depths: vec![0; SLOTS].into_boxed_slice(),
            len: 0,
        }
    }

    /// A set with no slots, holding nothing: a placeholder that allocates nothing.
    pub fn empty() -> PathSet {
        PathSet {
            keys: Box::new([]),
            hands: Box::new([]),
            depths: Box::new([]),
            len: 0,
        }
    }

    #[inline(always)]
    fn home(key: u64) -> usize {
        (key.wrapping_mul(0xff51_afd7_ed55_8ccd) >> (64 - BITS)) as usize
    }

    /// The depths of the path's positions with board `key`, with their hands. Board keys
    /// are never 0 (the table's keys are made non-zero), so 0 marks an empty slot.
    #[inline(always)]
    fn same_board(&self, key: u64) -> impl Iterator<Item = (Hand, u16)> + '_ {
        let mut i = Self::home(key);
        std::iter::from_fn(move || loop {
            let k = self.keys[i];
            if k == 0 {
                return None;
            }
            let at = i;
            i = (i + 1) & (SLOTS - 1);
            if k == key {
                return Some((self.hands[at], self.depths[at]));
            }
        })
    }

    /// The depth at which exactly this position (board and attacker hand) is on the path.
    #[inline]
    pub fn depth_of(&self, key: u64, hand: Hand) -> Option<u16> {
        self.same_board(key)
            .find(|&(h, _)| h == hand)
            .map(|(_, d)| d)
    }

    /// The deepest position on the path with board `key` whose attacker hand dominates
    /// `hand`: an exact or a dominated repetition. The deepest, because the dependency on
    /// the path closes soonest there.
    #[inline]
    pub fn repetition(&self, key: u64, hand: Hand) -> Option<u16> {
        self.same_board(key)
            .filter(|&(h, _)| h.dominates(hand))
            .map(|(_, d)| d)
            .max()
    }

    /// Adds the position at `depth`. It must not be present.
    #[inline]
    pub fn push(&mut self, key: u64, hand: Hand, depth: u16) {
        debug_assert!(key != 0 && self.len < Self::CAPACITY);
        let mut i = Self::home(key);
        while self.keys[i] != 0 {
            i = (i + 1) & (SLOTS - 1);
        }
        self.keys[i] = key;
        self.hands[i] = hand;
        self.depths[i] = depth;
        self.len += 1;
    }

    /// Removes the position, which must be the newest one.
    #[inline]
    pub fn pop(&mut self, key: u64, hand: Hand) {
        let mut i = Self::home(key);
        while self.keys[i] != key || self.hands[i] != hand {
            debug_assert!(self.keys[i] != 0);
            i = (i + 1) & (SLOTS - 1);
        }
        self.keys[i] = 0;
        self.len -= 1;
    }

    /// Number of positions on the path.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the path holds no position.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_engine::PieceKind;

    #[test]
    fn push_pop_in_stack_order() {
        let mut s = PathSet::new();
        // Keys that all share a home slot, to exercise probing.
        let ids: Vec<u64> = (1..200u64).map(|i| i * 2 + 1).collect();
        for (d, &id) in ids.iter().enumerate() {
            s.push(id, Hand::EMPTY, d as u16);
        }
        for (d, &id) in ids.iter().enumerate() {
            assert_eq!(s.depth_of(id, Hand::EMPTY), Some(d as u16));
        }
        for &id in ids.iter().rev() {
            s.pop(id, Hand::EMPTY);
            assert_eq!(s.depth_of(id, Hand::EMPTY), None);
        }
        assert_eq!(s.len(), 0);
    }

    #[test]
    fn hands_separate_positions_of_one_board() {
        let pawn = Hand::EMPTY.add(PieceKind::Pawn);
        let mut s = PathSet::new();
        s.push(5, pawn, 3);
        assert_eq!(s.depth_of(5, pawn), Some(3));
        assert_eq!(s.depth_of(5, Hand::EMPTY), None);
        s.push(5, Hand::EMPTY, 7);
        assert_eq!(s.depth_of(5, Hand::EMPTY), Some(7));
        s.pop(5, Hand::EMPTY);
        assert_eq!(s.depth_of(5, pawn), Some(3));
    }

    /// The same board with the attacker holding less than at an ancestor repeats it; with
    /// more, or with different pieces, it does not.
    #[test]
    fn dominated_repetition() {
        let pawn = Hand::EMPTY.add(PieceKind::Pawn);
        let gold = Hand::EMPTY.add(PieceKind::Gold);
        let both = pawn.add(PieceKind::Gold);
        let mut s = PathSet::new();
        s.push(9, both, 2);
        s.push(9, gold, 6);
        assert_eq!(s.repetition(9, both), Some(2));
        assert_eq!(s.repetition(9, pawn), Some(2));
        assert_eq!(s.repetition(9, gold), Some(6), "the deepest ancestor");
        assert_eq!(s.repetition(9, Hand::EMPTY), Some(6));
        assert_eq!(s.repetition(9, both.add(PieceKind::Pawn)), None);
        assert_eq!(s.repetition(11, Hand::EMPTY), None);
    }
}
