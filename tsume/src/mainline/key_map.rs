//! A hash map from Zobrist keys for the bounded search's tables: open addressing with
//! linear probing in flat arrays. A lookup then costs one cache miss, and a node can
//! prefetch its children's slots before it reads them. The standard `HashMap` offers no
//! address to prefetch, and its lookups (control bytes, then the entry, then for the
//! proofs a vector) took about a third of the bounded search's time.
//!
//! A big map is split into shards by the key's hash, each an array of its own. An array
//! doubles while it is at most half full, up to the slots its share of the memory budget
//! holds; past that the owner must free entries in it (its garbage collection) before it
//! is three quarters full. Doubling one array of 16 M slots took 400 ms (and collecting
//! garbage in one of 2 M took 38 ms), pauses in which the search checks neither its
//! deadline nor its stop flag; shards of at most [`SHARD_SLOTS`] take about 20 ms each,
//! one at a time.
//!
//! The shard count need not be a power of two, so that a budget of any size is used
//! nearly whole: a power-of-two map left up to half of it idle (at a `USI_Hash` of 3000
//! MiB each map took 256 of its 375 MiB). The hash times the count picks the shard in its
//! high word and the slot in the top bits of its low word; for a power-of-two count those
//! are the hash's top bits and the bits after them, as before.

/// Marks an empty slot.
const EMPTY: u64 = 0;
/// Stands in for the key 0, which marks empty slots. A real key equal to it shares its
/// entries, as two positions do when their Zobrist keys collide.
const ZERO_KEY: u64 = 0x5851_f42d_4c95_7f2d;
/// Slots of a new shard.
const INITIAL_SLOTS: usize = 1 << 10;
/// The most slots a shard grows to where the budget allows more shards.
const SHARD_SLOTS: usize = 1 << 20;
/// The most shards a map has.
const MAX_SHARDS: usize = 64;

/// The key's hash, which picks a shard and then a slot (see [`KeyMap::shard_of`]).
#[inline(always)]
fn fibonacci(key: u64) -> u64 {
    key.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

#[derive(Clone, Default)]
struct Slot<V> {
    key: u64,
    val: V,
}

/// One open-addressing array of a [`KeyMap`]: the unit its owner collects garbage in,
/// so that no collection scans more than one shard.
pub(crate) struct Shard<V> {
    slots: Vec<Slot<V>>,
    /// The map's shard count, whose product with the hash picks the slot in its low word.
    shards: u64,
    len: usize,
    max_slots: usize,
}

impl<V: Default> Shard<V> {
    /// A shard that grows up to `max_slots`, a power of two.
    fn new(max_slots: usize, shards: usize) -> Shard<V> {
        Shard {
            slots: Self::empty_slots(INITIAL_SLOTS.min(max_slots)),
            shards: shards as u64,
            len: 0,
            max_slots,
        }
    }

    /// Entries the shard holds at its full size while at most five eighths full: where
    /// its owner should make room in it.
    pub fn capacity(&self) -> usize {
        self.max_slots / 8 * 5
    }

    /// Entries in the shard.
    pub fn len(&self) -> usize {
        self.len
    }

    fn empty_slots(n: usize) -> Vec<Slot<V>> {
        let mut v = Vec::with_capacity(n);
        v.resize_with(n, Slot::default);
        v
    }

    fn stored_key(key: u64) -> u64 {
        if key == EMPTY {
            ZERO_KEY
        } else {
            key
        }
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        // Fibonacci hashing: the top bits of the product, whatever bits the key varies in.
        // Times the shard count, the hash's high word picked the shard, and its low word
        // is where in that shard's part of the range the hash falls: the slot is its top
        // bits.
        let bits = self.slots.len().trailing_zeros();
        (fibonacci(key).wrapping_mul(self.shards) >> (64 - bits)) as usize
    }

    fn find(&self, key: u64) -> Option<usize> {
        let key = Self::stored_key(key);
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            match self.slots[i].key {
                k if k == key => return Some(i),
                EMPTY => return None,
                _ => i = (i + 1) & mask,
            }
        }
    }

    #[inline(always)]
    fn prefetch(&self, key: u64) {
        crate::memory::prefetch(&self.slots[self.home(Self::stored_key(key))]);
    }

    fn get(&self, key: u64) -> Option<&V> {
        self.find(key).map(|i| &self.slots[i].val)
    }

    fn get_mut(&mut self, key: u64) -> Option<&mut V> {
        self.find(key).map(|i| &mut self.slots[i].val)
    }

    fn get_or_insert_with(&mut self, key: u64, make: impl FnOnce() -> V) -> &mut V {
        if let Some(i) = self.find(key) {
            return &mut self.slots[i].val;
        }
        let full = (self.len + 1) * 2 > self.slots.len() && self.slots.len() < self.max_slots;
        // Past three quarters even at the full size: grow past the budget rather than let
        // the probes run long (the owner is meant to collect garbage before this).
        if full || (self.len + 1) * 4 > self.slots.len() * 3 {
            self.resize(self.slots.len() * 2);
        }
        let i = self.place(Self::stored_key(key), make());
        &mut self.slots[i].val
    }

    /// Puts an entry known to be absent into a slot with room for it.
    fn place(&mut self, key: u64, val: V) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        while self.slots[i].key != EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = Slot { key, val };
        self.len += 1;
        i
    }

    fn resize(&mut self, n: usize) {
        let old = std::mem::replace(&mut self.slots, Self::empty_slots(n));
        self.len = 0;
        for s in old.into_iter().filter(|s| s.key != EMPTY) {
            self.place(s.key, s.val);
        }
    }

    /// Removes `key`'s entry. The entries after it in its run move back so that no
    /// lookup stops early at the hole (backward-shift deletion).
    fn remove(&mut self, key: u64) -> Option<V> {
        let i = self.find(key)?;
        Some(self.remove_at(i))
    }

    /// Removes the entry in slot `hole`, shifting the rest of its run back.
    fn remove_at(&mut self, mut hole: usize) -> V {
        let v = std::mem::take(&mut self.slots[hole].val);
        self.slots[hole].key = EMPTY;
        self.len -= 1;
        let mask = self.slots.len() - 1;
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let k = self.slots[j].key;
            if k == EMPTY {
                return v;
            }
            // The entry at j may fill the hole unless its home lies cyclically in
            // (hole, j]: then a lookup starting there never passes the hole.
            let home = self.home(k);
            let stays = if hole <= j {
                hole < home && home <= j
            } else {
                hole < home || home <= j
            };
            if !stays {
                self.slots[hole] = std::mem::take(&mut self.slots[j]);
                self.slots[j].key = EMPTY;
                hole = j;
            }
        }
    }

    /// Keeps the entries for which `keep` is true, in place: building a new array took a
    /// second at 16 M slots, a pause the search's deadline checks do not see.
    ///
    /// The scan starts after an empty slot, so no run wraps past its start, and a
    /// removal shifts back only entries of the run being scanned, which are not yet seen:
    /// the slot is looked at again, and every entry once.
    pub fn retain(&mut self, mut keep: impl FnMut(&mut V) -> bool) {
        let n = self.slots.len();
        let Some(empty) = self.slots.iter().position(|s| s.key == EMPTY) else {
            return;
        };
        let mut step = 1;
        while step <= n {
            let i = (empty + step) & (n - 1);
            if self.slots[i].key != EMPTY && !keep(&mut self.slots[i].val) {
                self.remove_at(i);
            } else {
                step += 1;
            }
        }
    }

    /// Empties the shard, keeping its array.
    pub fn clear(&mut self) {
        for s in &mut self.slots {
            *s = Slot::default();
        }
        self.len = 0;
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.slots.iter().filter(|s| s.key != EMPTY).map(|s| &s.val)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.slots
            .iter_mut()
            .filter(|s| s.key != EMPTY)
            .map(|s| &mut s.val)
    }
}

/// Open-addressing map from `u64` keys to `V`, in shards.
pub(crate) struct KeyMap<V> {
    shards: Vec<Shard<V>>,
}

impl<V: Default> Default for KeyMap<V> {
    /// One array, with no budget.
    fn default() -> Self {
        KeyMap {
            shards: vec![Shard::new(1 << (usize::BITS - 2), 1)],
        }
    }
}

impl<V: Default> KeyMap<V> {
    /// A map whose arrays never take more than `bytes` once grown (at least the initial
    /// size).
    pub fn with_budget(bytes: usize) -> KeyMap<V> {
        let fit = (bytes / std::mem::size_of::<Slot<V>>()).max(INITIAL_SLOTS);
        // Small maps keep one array: shards of a few thousand slots would fill unevenly,
        // and one would pass three quarters while the map is at five eighths.
        let (shards, per_shard) = if fit < 2 * SHARD_SLOTS {
            let slots = if fit.is_power_of_two() {
                fit
            } else {
                fit.next_power_of_two() / 2
            };
            (1, slots)
        } else {
            // Shards of `SHARD_SLOTS`, or of the least power of two that keeps them to
            // `MAX_SHARDS`; then as many as the budget holds, which leaves less than one
            // shard of it unused.
            let per_shard = fit
                .div_ceil(MAX_SHARDS)
                .next_power_of_two()
                .max(SHARD_SLOTS);
            (fit / per_shard, per_shard)
        };
        KeyMap {
            shards: (0..shards).map(|_| Shard::new(per_shard, shards)).collect(),
        }
    }

    /// Which shard holds `key`, from 0 to [`Self::shard_count`] less one.
    #[inline(always)]
    pub fn shard_of(&self, key: u64) -> usize {
        // The high word of the hash times the count: the hash as a fraction of one, times
        // the count (Lemire's multiply-shift range reduction), with no division.
        let h = fibonacci(Shard::<V>::stored_key(key)) as u128;
        ((h * self.shards.len() as u128) >> 64) as usize
    }

    /// The shard that holds `key`.
    #[inline(always)]
    pub fn shard(&self, key: u64) -> &Shard<V> {
        &self.shards[self.shard_of(key)]
    }

    /// The shard that holds `key`, to collect garbage in.
    #[inline(always)]
    pub fn shard_mut(&mut self, key: u64) -> &mut Shard<V> {
        let i = self.shard_of(key);
        &mut self.shards[i]
    }

    /// Entries the map holds at its full size while at most five eighths full.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.shards.iter().map(Shard::capacity).sum()
    }

    /// What [`Shard::capacity`] is for each shard.
    pub fn shard_capacity(&self) -> usize {
        self.shards[0].capacity()
    }

    /// How many shards the map has.
    pub fn shard_count(&self) -> usize {
        self.shards.len()
    }

    /// Bytes the map's arrays take once grown to their full size.
    pub fn max_bytes(&self) -> usize {
        let slots: usize = self.shards.iter().map(|s| s.max_slots).sum();
        slots * std::mem::size_of::<Slot<V>>()
    }

    /// Bytes the map's arrays take now.
    pub fn bytes(&self) -> usize {
        let slots: usize = self.shards.iter().map(|s| s.slots.len()).sum();
        slots * std::mem::size_of::<Slot<V>>()
    }

    /// Entries in the map.
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.len).sum()
    }

    /// Hints the CPU to load `key`'s home slot ahead of a lookup.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        self.shard(key).prefetch(key);
    }

    pub fn get(&self, key: u64) -> Option<&V> {
        self.shard(key).get(key)
    }

    pub fn get_mut(&mut self, key: u64) -> Option<&mut V> {
        self.shard_mut(key).get_mut(key)
    }

    /// The entry of `key`, inserted as `make()` if absent.
    pub fn get_or_insert_with(&mut self, key: u64, make: impl FnOnce() -> V) -> &mut V {
        self.shard_mut(key).get_or_insert_with(key, make)
    }

    /// Removes `key`'s entry.
    pub fn remove(&mut self, key: u64) -> Option<V> {
        self.shard_mut(key).remove(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Random inserts, updates and removals agree with a `HashMap`, through several
    /// doublings of each of four shards, or of three. A small array half full has long
    /// runs, so removals shift entries back, some of them around the array's end.
    #[test]
    fn agrees_with_a_hash_map() {
        agrees_with_a_hash_map_in(4);
        agrees_with_a_hash_map_in(3);
    }

    fn agrees_with_a_hash_map_in(shards: usize) {
        let slot = std::mem::size_of::<Slot<u32>>();
        let mut map: KeyMap<u32> = KeyMap::with_budget(slot * shards * SHARD_SLOTS + slot);
        assert_eq!(map.shards.len(), shards);
        let mut reference = HashMap::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for step in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // 3000 distinct keys, 0 among them, varying only in their high bits.
            let key = (x % 3000) << 44;
            match x >> 62 {
                0 => {
                    assert_eq!(map.remove(key), reference.remove(&key));
                }
                _ => {
                    *map.get_or_insert_with(key, || 0) += step;
                    *reference.entry(key).or_insert(0) += step;
                }
            }
            assert_eq!(map.len(), reference.len());
        }
        for (k, v) in &reference {
            assert_eq!(map.get(*k), Some(v));
        }
        // Every shard took its share and doubled.
        assert!(map.shards.iter().all(|s| s.slots.len() > INITIAL_SLOTS));
        let values: usize = map.shards.iter().map(|s| s.values().count()).sum();
        assert_eq!(values, reference.len());
        // Each entry is offered once, though removals shift others back.
        let mut offered = 0;
        let before = map.len();
        for s in &mut map.shards {
            s.retain(|v| {
                offered += 1;
                *v % 2 == 0
            });
        }
        assert_eq!(offered, before);
        reference.retain(|_, v| *v % 2 == 0);
        assert_eq!(map.len(), reference.len());
        for k in 0..3000u64 {
            let key = k << 44;
            assert_eq!(map.get(key), reference.get(&key));
        }
        // Clearing one shard leaves the others.
        let (total, in_shard) = (map.len(), map.shard(0).len());
        assert!(in_shard > 0 && in_shard < total);
        map.shard_mut(0).clear();
        assert_eq!((map.len(), map.get(0)), (total - in_shard, None));
        map.shards.iter_mut().for_each(Shard::clear);
        assert_eq!(map.len(), 0);
    }

    /// A budget between powers of two is taken in shards of [`SHARD_SLOTS`], as many as
    /// it holds, or in at most [`MAX_SHARDS`] of a larger power of two; every shard gets
    /// a fair part of the keys.
    #[test]
    fn a_budget_between_powers_of_two_is_used() {
        let slot = std::mem::size_of::<Slot<u64>>();
        let map: KeyMap<u64> = KeyMap::with_budget(slot * SHARD_SLOTS * 23 / 2);
        assert_eq!(
            (map.shard_count(), map.max_bytes()),
            (11, slot * SHARD_SLOTS * 11)
        );
        let map: KeyMap<u64> = KeyMap::with_budget(slot * SHARD_SLOTS * 100);
        assert_eq!(
            (map.shard_count(), map.max_bytes()),
            (50, slot * SHARD_SLOTS * 100)
        );
        let mut count = [0u32; 11];
        let map: KeyMap<u64> = KeyMap::with_budget(slot * SHARD_SLOTS * 11);
        for k in 0..110_000u64 {
            count[map.shard_of(k)] += 1;
        }
        assert!(
            count.iter().all(|&c| (9_500..10_500).contains(&c)),
            "{count:?}"
        );
    }

    /// The array stops doubling at its budget and reports five eighths of it as the
    /// capacity its owner must keep to.
    #[test]
    fn the_budget_caps_the_array() {
        let slot = std::mem::size_of::<Slot<u64>>();
        let mut map: KeyMap<u64> = KeyMap::with_budget(slot * 4096 + slot);
        assert_eq!(map.capacity(), 2560);
        for k in 1..=2560u64 {
            *map.get_or_insert_with(k.wrapping_mul(0x9e37_79b9), || 0) = k;
        }
        assert_eq!(map.shards.len(), 1);
        assert_eq!(map.shards[0].slots.len(), 4096);
        assert_eq!(map.get(77u64.wrapping_mul(0x9e37_79b9)), Some(&77));
    }
}
