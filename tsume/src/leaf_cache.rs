//! The estimates of leaves, remembered between visits of their parent.
//!
//! Df-pn expands a node afresh on every visit, and a child that has never been searched
//! has no table entry. So each visit recomputes the df-pn+ estimate of every such child:
//! the defender's evasions after a check, or a mate-in-one test after an evasion, which
//! together take about two fifths of the search's time. On five long Edo problems about a
//! quarter of these leaves were estimated before. Storing the estimates in the table
//! instead would fill it with nodes never searched; a small per-thread cache keeps them
//! until they are overwritten.
//!
//! An estimate depends on the position alone, and a key with the attacker's hand names
//! the whole position (the search's salt fixes the piece set), so a thread's cache stays
//! valid from one search to the next and is never cleared.

use kanju_engine::Hand;

/// Slots in a thread's cache: 131 072 of 8 bytes, 1 MiB.
const SLOTS: usize = 1 << SLOT_BITS;
const SLOT_BITS: u32 = 17;

/// A slot is one word: the leaf's tag above these bits, its value in them. Half the size
/// of a tag and a value side by side, so twice the leaves in the same megabyte: on Zuko 8
/// (one thread, 22.4 M nodes either way) 1 % fewer checks estimated and 1.5 % less time,
/// 29.0 and 29.2 s against 29.6 and 29.6 s. The tag bits a slot drops, and those its
/// index already fixes, leave 31 bits to tell leaves apart; a false match costs a wrong
/// estimate or a mate in one not tried at expansion, which the search then finds as a
/// child proven by its reply count, never a wrong result.
const VALUE_BITS: u32 = 16;
const VALUE_MASK: u64 = (1 << VALUE_BITS) - 1;

/// What a slot says about its leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Leaf {
    /// A defender node: its proof-number estimate from the evasions (never 0: a mate is
    /// not cached).
    Evasions(u32),
    /// An attacker node with no mate in one.
    NoMate1,
}

/// A direct-mapped cache from a leaf's (board key, attacker's hand) to its estimate.
pub(crate) struct LeafCache {
    slots: Vec<u64>,
}

/// The value stored for [`Leaf::NoMate1`]; evasion estimates are at least 1 (and at most
/// the value field's largest, which no estimate reaches).
const NO_MATE1: u32 = 0;

impl LeafCache {
    /// An empty cache.
    pub fn new() -> LeafCache {
        LeafCache {
            slots: vec![0; SLOTS],
        }
    }

    /// A cache that allocates nothing and remembers nothing.
    pub fn empty() -> LeafCache {
        LeafCache { slots: Vec::new() }
    }

    /// The tag of a leaf: its key with the hand mixed in. Keys are never 0, and a tag of 0
    /// marks an empty slot; a leaf whose tag is 0 is never cached.
    #[inline(always)]
    fn tag(key: u64, hand: Hand) -> u64 {
        key ^ (hand.bits() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    #[inline(always)]
    fn slot(&self, tag: u64) -> usize {
        (tag >> 32) as usize & (self.slots.len() - 1)
    }

    /// Starts loading the leaf's slot: a lookup that misses the processor's caches would
    /// cost about as much as the estimate it saves.
    #[inline(always)]
    pub fn prefetch(&self, key: u64, hand: Hand) {
        if !self.slots.is_empty() {
            crate::memory::prefetch(&self.slots[self.slot(Self::tag(key, hand))]);
        }
    }

    /// What the cache holds for the leaf, if anything.
    #[inline]
    pub fn get(&self, key: u64, hand: Hand) -> Option<Leaf> {
        if self.slots.is_empty() {
            return None;
        }
        let tag = Self::tag(key, hand);
        let s = self.slots[self.slot(tag)];
        let v = (s & VALUE_MASK) as u32;
        ((s ^ tag) & !VALUE_MASK == 0 && tag & !VALUE_MASK != 0).then_some(if v == NO_MATE1 {
            Leaf::NoMate1
        } else {
            Leaf::Evasions(v)
        })
    }

    /// Remembers the leaf's estimate, replacing whatever shared its slot.
    #[inline]
    pub fn put(&mut self, key: u64, hand: Hand, leaf: Leaf) {
        if self.slots.is_empty() {
            return;
        }
        let tag = Self::tag(key, hand);
        let v = match leaf {
            Leaf::Evasions(pn) => pn.clamp(1, VALUE_MASK as u32),
            Leaf::NoMate1 => NO_MATE1,
        };
        let i = self.slot(tag);
        self.slots[i] = tag & !VALUE_MASK | v as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_engine::PieceKind;

    #[test]
    fn remembers_by_key_and_hand() {
        let mut c = LeafCache::new();
        let h = Hand::EMPTY.add(PieceKind::Gold);
        // Keys are Zobrist hashes: their high bits pick the slot.
        let (k1, k2) = (0x1234_5678_9abc_def0, 0x0fed_cba9_8765_4321);
        assert_eq!(c.get(k1, h), None);
        c.put(k1, h, Leaf::Evasions(3));
        c.put(k2, h, Leaf::NoMate1);
        assert_eq!(c.get(k1, h), Some(Leaf::Evasions(3)));
        assert_eq!(c.get(k2, h), Some(Leaf::NoMate1));
        // The same board with another hand is another leaf.
        assert_eq!(c.get(k1, Hand::EMPTY), None);
    }

    #[test]
    fn a_slot_holds_its_last_leaf() {
        let mut c = LeafCache::new();
        // Two keys that differ only above the slot bits share a slot.
        let (a, b) = (5u64 << 32, (5u64 << 32) | (1 << 60));
        c.put(a, Hand::EMPTY, Leaf::Evasions(2));
        c.put(b, Hand::EMPTY, Leaf::Evasions(4));
        assert_eq!(c.get(a, Hand::EMPTY), None);
        assert_eq!(c.get(b, Hand::EMPTY), Some(Leaf::Evasions(4)));
    }

    /// The value shares the slot's word with the tag: a large estimate neither spills into
    /// the tag nor wraps to "no mate in one".
    #[test]
    fn values_stay_in_their_bits() {
        let mut c = LeafCache::new();
        let k = 0x1234_5678_9abc_def0;
        c.put(k, Hand::EMPTY, Leaf::Evasions(1 << 20));
        assert_eq!(
            c.get(k, Hand::EMPTY),
            Some(Leaf::Evasions(VALUE_MASK as u32))
        );
        c.put(k, Hand::EMPTY, Leaf::Evasions(1));
        assert_eq!(c.get(k, Hand::EMPTY), Some(Leaf::Evasions(1)));
    }

    #[test]
    fn an_empty_cache_remembers_nothing() {
        let mut c = LeafCache::empty();
        c.put(1, Hand::EMPTY, Leaf::NoMate1);
        assert_eq!(c.get(1, Hand::EMPTY), None);
    }
}
