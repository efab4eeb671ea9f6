//! The positions on the current search path, for repetition (千日手) and SNDA's source
//! detection. A fixed open-addressing set: push and pop follow the recursion, so a pop
//! always removes the newest key and linear probing never needs tombstones.

use kanju_engine::Hand;

const BITS: u32 = 15;
const SLOTS: usize = 1 << BITS;

/// The identity of a position inside one search: board key and attacker hand (the
/// defender's hand follows, since pieces are conserved).
#[inline(always)]
pub(crate) fn position_id(board_key: u64, hand: Hand) -> u64 {
    let id = board_key
        ^ (hand.bits() as u64 + 1)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(17);
    id | 1
}

/// Set of position ids on the path, each with its depth.
pub(crate) struct PathSet {
    keys: Box<[u64]>,
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
            depths: vec![0; SLOTS].into_boxed_slice(),
            len: 0,
        }
    }

    #[inline(always)]
    fn home(id: u64) -> usize {
        (id.wrapping_mul(0xff51_afd7_ed55_8ccd) >> (64 - BITS)) as usize
    }

    /// The depth at which `id` is on the path.
    #[inline]
    pub fn depth_of(&self, id: u64) -> Option<u16> {
        let mut i = Self::home(id);
        loop {
            let k = self.keys[i];
            if k == id {
                return Some(self.depths[i]);
            }
            if k == 0 {
                return None;
            }
            i = (i + 1) & (SLOTS - 1);
        }
    }

    /// Adds `id` at `depth`. It must not be present.
    #[inline]
    pub fn push(&mut self, id: u64, depth: u16) {
        debug_assert!(self.len < Self::CAPACITY);
        let mut i = Self::home(id);
        while self.keys[i] != 0 {
            i = (i + 1) & (SLOTS - 1);
        }
        self.keys[i] = id;
        self.depths[i] = depth;
        self.len += 1;
    }

    /// Removes `id`, which must be the newest key.
    #[inline]
    pub fn pop(&mut self, id: u64) {
        let mut i = Self::home(id);
        while self.keys[i] != id {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_pop_in_stack_order() {
        let mut s = PathSet::new();
        // Keys that all share a home slot, to exercise probing.
        let ids: Vec<u64> = (1..200u64).map(|i| i * 2 + 1).collect();
        for (d, &id) in ids.iter().enumerate() {
            s.push(id, d as u16);
        }
        for (d, &id) in ids.iter().enumerate() {
            assert_eq!(s.depth_of(id), Some(d as u16));
        }
        for &id in ids.iter().rev() {
            s.pop(id);
            assert_eq!(s.depth_of(id), None);
        }
        assert_eq!(s.len(), 0);
    }

    #[test]
    fn ids_separate_hands() {
        let a = position_id(5, Hand::EMPTY);
        let b = position_id(5, Hand::EMPTY.add(kanju_engine::PieceKind::Pawn));
        assert_ne!(a, b);
    }
}
