//! Which boards the table may hold, in a few megabytes that a probe reads before the table.
//!
//! About four probes in five are of a board the table has never held: a search looks up
//! every child of every node it expands, and most children are new. Each of those probes
//! read a cluster of the table, a random cache line in gigabytes, and on this project's
//! machines that wait was the largest single cost of a node. A bit per board key, set
//! when the board is stored and cleared only with the table, answers most of them from a
//! far smaller array: a clear bit proves that no entry for the board exists under any hand,
//! a set bit only that one may (a Bloom filter with one hash).
//!
//! Bits are never cleared when entries are evicted or subsumed, so the filter holds every
//! board the table holds and the search finds exactly the entries it found without it.
//!
//! Two levels, both written by every store, and one read by a probe. The first, of at
//! most [`SMALL_BITS`] bits, stays in the processor's caches and answers for searches of
//! up to a few million boards: a typical problem, and the many short searches of a main
//! line. Once an eighth of its bits are set it retires, and the second, a sixty-fourth of
//! the table (up to [`LARGE_BITS`]), answers for the longer searches. Reading both for
//! every probe made short searches slower: the second level's extra miss cost what the
//! first saved. A last level more than half full passes nearly every board, so it stops
//! answering too, until the table is cleared or the filter is rebuilt.
//!
//! A front end keeps its table from one `go` to the next, and bits of boards long evicted
//! stay set, so over a session of many problems the last level fills and retires too. The
//! filter is then rebuilt from the boards the table holds now (`Table::start_filter_rebuild`).
//! A scan of a full 4 GiB table takes about 3 s, too long to make a `go` wait for (its
//! time limit and a `stop` would wait too), so the scan runs beside the search, a slice
//! at a time ([`Presence::begin_rebuild`]). Until it ends the filter answers nothing, and
//! every probe reads the table, as with no filter at all.

use crate::memory::Block;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Bits of the first level: 4 MiB.
const SMALL_BITS: usize = 1 << 25;
/// The most bits of the second level: 32 MiB.
const LARGE_BITS: usize = 1 << 28;
/// The fewest bits a level has.
const MIN_BITS: usize = 1 << 15;
/// The filter takes at most this share of the table's memory.
const TABLE_SHARE: usize = 64;
/// A first level followed by a larger one retires once an eighth of its bits are set,
/// when an eighth of the absent boards pass it; the larger one takes over. The last level
/// retires at half its bits.
const RETIRE_EARLY: u64 = 8;
const RETIRE_LAST: u64 = 2;
/// Set bits are counted for one board key in this many (see [`Level::note`]), chosen by
/// the key's bits from this one up: above those that pick a word and a bit.
const SAMPLE: u64 = 16;
const SAMPLE_SHIFT: u32 = 40;

/// One array of bits.
struct Level {
    block: Block,
    /// Words in the array, less one (a power of two).
    mask: usize,
    /// Bits set by boards of the sample.
    sampled: AtomicU64,
    /// The level retires once more than this many bits are set.
    retire_at: u64,
    /// Retired: the level no longer answers.
    saturated: AtomicBool,
}

impl Level {
    /// A level of `bits` bits that retires once `1 / retire_share` of them are set.
    fn new(bits: usize, retire_share: u64) -> Level {
        Level {
            block: Block::zeroed(bits / 8),
            mask: bits / 64 - 1,
            sampled: AtomicU64::new(0),
            retire_at: bits as u64 / retire_share,
            saturated: AtomicBool::new(false),
        }
    }

    fn bits(&self) -> usize {
        (self.mask + 1) * 64
    }

    /// The word and the bit of board `key`. The low bits of the key pick them; the table's
    /// cluster comes from its high bits, so the two are independent.
    #[inline(always)]
    fn word(&self, key: u64) -> (&AtomicU64, u64) {
        let w = (key >> 6) as usize & self.mask;
        // SAFETY: w <= mask, and the block holds mask + 1 words, only ever accessed as
        // atomics.
        let word = unsafe { &*(self.block.as_ptr() as *const AtomicU64).add(w) };
        (word, 1 << (key & 63))
    }

    #[inline(always)]
    fn answers(&self) -> bool {
        !self.saturated.load(Ordering::Relaxed)
    }

    #[inline(always)]
    fn is_set(&self, key: u64) -> bool {
        let (w, m) = self.word(key);
        w.load(Ordering::Relaxed) & m != 0
    }

    /// Sets the bit of board `key`. How many bits are set is judged from the boards whose
    /// key falls in a sixteenth, so that threads storing at once seldom write the same
    /// counter. A retired level is not read again until it is cleared, so it is not
    /// written either.
    #[inline(always)]
    fn note(&self, key: u64) {
        if !self.answers() {
            return;
        }
        let (w, m) = self.word(key);
        if w.load(Ordering::Relaxed) & m != 0 {
            return;
        }
        let before = w.fetch_or(m, Ordering::Relaxed);
        if before & m == 0 && (key >> SAMPLE_SHIFT).is_multiple_of(SAMPLE) {
            let set = (self.sampled.fetch_add(1, Ordering::Relaxed) + 1) * SAMPLE;
            if set > self.retire_at && !self.saturated.swap(true, Ordering::Relaxed) {
                log::debug!("presence filter: a level of {} bits retired", self.bits());
            }
        }
    }

    #[inline(always)]
    fn prefetch(&self, key: u64) {
        crate::memory::prefetch(self.word(key).0);
    }

    fn clear(&mut self) {
        self.block.clear();
        self.sampled.store(0, Ordering::Relaxed);
        self.saturated.store(false, Ordering::Relaxed);
    }
}

/// The bits of each level for a table of `table_bytes` bytes.
fn level_bits(table_bytes: usize) -> impl Iterator<Item = usize> {
    let share = (table_bytes / TABLE_SHARE).max(MIN_BITS / 8);
    // The largest power of two of bits within the share.
    let large = (1usize << (usize::BITS - 1 - (share * 8).leading_zeros())).min(LARGE_BITS);
    std::iter::once(large.min(SMALL_BITS)).chain((large > SMALL_BITS).then_some(large))
}

/// The filter of one table.
pub(crate) struct Presence {
    /// The level read first.
    small: Level,
    /// The level read once the first retires, for a table large enough to have one.
    large: Option<Level>,
    /// A rebuild is under way: the levels take notes but answer nothing until it ends.
    building: AtomicBool,
}

impl Presence {
    /// The filter for a table of `table_bytes` bytes.
    pub fn for_table(table_bytes: usize) -> Presence {
        let mut bits = level_bits(table_bytes);
        let small = bits.next().expect("a first level");
        match bits.next() {
            Some(large) => Presence {
                small: Level::new(small, RETIRE_EARLY),
                large: Some(Level::new(large, RETIRE_LAST)),
                building: AtomicBool::new(false),
            },
            None => Presence {
                small: Level::new(small, RETIRE_LAST),
                large: None,
                building: AtomicBool::new(false),
            },
        }
    }

    /// The memory the filter of a table of `table_bytes` bytes takes.
    pub fn bytes_for_table(table_bytes: usize) -> usize {
        level_bits(table_bytes).map(|b| b / 8).sum()
    }

    /// False only if the table holds no entry for board `key` under any hand. Only the
    /// first level still answering is read: one access, in the smallest array that can
    /// tell.
    #[inline(always)]
    pub fn may_hold(&self, key: u64) -> bool {
        self.answering().is_none_or(|l| l.is_set(key))
    }

    #[inline(always)]
    fn answering(&self) -> Option<&Level> {
        // Acquire, paired with `end_rebuild`: a probe that sees the rebuild ended sees
        // every bit the scan set.
        if self.building.load(Ordering::Acquire) {
            None
        } else if self.small.answers() {
            Some(&self.small)
        } else {
            self.large.as_ref().filter(|l| l.answers())
        }
    }

    /// Records that the table is about to hold board `key`. Call it before the entry is
    /// written, so that a probe that finds the entry would also have passed the filter.
    #[inline(always)]
    pub fn note(&self, key: u64) {
        self.small.note(key);
        if let Some(l) = &self.large {
            l.note(key);
        }
    }

    /// Starts loading the bit [`Self::may_hold`] reads for board `key`.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        if let Some(l) = self.answering() {
            l.prefetch(key);
        }
    }

    /// Starts loading the bits [`Self::note`] sets for board `key`: the larger level's,
    /// in a large array, would otherwise be a cache miss on every new board's store.
    #[inline(always)]
    pub fn prefetch_note(&self, key: u64) {
        self.small.prefetch(key);
        if let Some(l) = &self.large {
            l.prefetch(key);
        }
    }

    /// True once no level answers and no rebuild is under way: every board passes, and
    /// the filter spares no probe.
    pub fn is_blind(&self) -> bool {
        !self.is_building() && self.answering().is_none()
    }

    /// True while a rebuild is under way.
    #[inline]
    pub fn is_building(&self) -> bool {
        self.building.load(Ordering::Relaxed)
    }

    /// Forgets every board, for an emptied table.
    pub fn clear(&mut self) {
        self.small.clear();
        if let Some(l) = &mut self.large {
            l.clear();
        }
        *self.building.get_mut() = false;
    }

    /// Forgets every board and starts a rebuild: from now on every store is noted again,
    /// and the caller notes each board the table holds (the levels are written, never
    /// read, meanwhile). Once every board held when it began has been noted, and
    /// [`Self::end_rebuild`] called, the filter holds every board the table holds, as
    /// when it is kept from the start: a board stored during the rebuild was noted by its
    /// store or found by the scan.
    pub fn begin_rebuild(&mut self) {
        self.clear();
        *self.building.get_mut() = true;
    }

    /// About how many boards the last level tells apart before it retires (half its bits
    /// set, at about 0.69 boards a bit): a rebuild from a table holding more would
    /// retire it again at once.
    pub fn capacity(&self) -> u64 {
        let last = self.large.as_ref().unwrap_or(&self.small);
        last.bits() as u64 * 3 / 5
    }

    /// Ends a rebuild: the filter answers again.
    pub fn end_rebuild(&self) {
        self.building.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys spread like Zobrist keys.
    fn key(i: u64) -> u64 {
        (i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i << 29)
    }

    impl Presence {
        fn bytes_of(&self) -> usize {
            self.levels().map(|l| l.bits() / 8).sum()
        }

        fn levels(&self) -> impl Iterator<Item = &Level> {
            std::iter::once(&self.small).chain(self.large.as_ref())
        }
    }

    #[test]
    fn a_noted_board_always_passes_and_most_others_do_not() {
        let p = Presence::for_table(64 << 20);
        assert!(p.large.is_none());
        assert_eq!(Presence::bytes_of(&p), 1 << 20);
        for i in 0..100_000 {
            p.note(key(i));
        }
        assert!((0..100_000).all(|i| p.may_hold(key(i))));
        // 100 000 boards in 8 M bits: about 1.2 % of other boards pass.
        let passed = (100_000..200_000).filter(|&i| p.may_hold(key(i))).count();
        assert!(passed < 2_500, "{passed} of 100 000 absent boards passed");
    }

    #[test]
    fn sizes_follow_the_table_within_their_bounds() {
        assert_eq!(Presence::bytes_for_table(0), MIN_BITS / 8);
        assert_eq!(Presence::bytes_for_table(1 << 20), 16 << 10);
        assert_eq!(Presence::bytes_for_table(256 << 20), 4 << 20);
        let p = Presence::for_table(1 << 30);
        assert!(p.large.is_some());
        assert_eq!(Presence::bytes_of(&p), (4 << 20) + (16 << 20));
        assert_eq!(Presence::bytes_for_table(64 << 30), (4 << 20) + (32 << 20));
    }

    /// Once the first level retires, the second tells apart boards the first confused; it
    /// holds every board noted before as well as after.
    #[test]
    fn the_second_level_takes_over_from_the_first() {
        let p = Presence::for_table(1 << 30);
        let a = 0x1234_5678_9abc_def0u64;
        let b = a ^ (SMALL_BITS as u64); // the same bit of the first level, not the second
        p.note(a);
        assert!(p.may_hold(b), "the first level confuses them");
        let bits = p.small.bits() as u64;
        let mut i = 0;
        while p.small.answers() {
            p.note(key(i));
            i += 1;
        }
        // An eighth of the bits set, judged from a sixteenth of the keys.
        assert!(
            i > bits / 16 && i < bits / 4,
            "retired after {i} boards in {bits} bits"
        );
        assert!(p.large.as_ref().unwrap().answers());
        assert!(!p.may_hold(b));
        assert!(p.may_hold(a));
        assert!((0..i).step_by(97).all(|j| p.may_hold(key(j))));
    }

    #[test]
    fn a_level_past_half_full_passes_everything_until_cleared() {
        let mut p = Presence::for_table(1 << 20);
        let bits = p.small.bits() as u64;
        let mut i = 0;
        while p.small.answers() {
            p.note(key(i));
            i += 1;
            assert!(i < bits * 4, "never saturated");
        }
        // Saturation comes at about half the bits set, judged from a sixteenth of the keys.
        assert!(
            i > bits / 4 && i < bits * 2,
            "saturated after {i} boards in {bits} bits"
        );
        assert!((0..1000).all(|j| p.may_hold(key(bits * 8 + j))));
        p.clear();
        assert!(!p.may_hold(key(0)));
    }

    /// The filter reads only key bits that the table's slots keep, so that it can be
    /// rebuilt from them: the word and bit, and the sample's bits.
    #[test]
    fn the_filter_reads_only_bits_the_table_keeps() {
        let word_bits = LARGE_BITS.trailing_zeros();
        assert!(word_bits <= SAMPLE_SHIFT, "{word_bits}");
        assert!(SAMPLE_SHIFT + SAMPLE.trailing_zeros() <= crate::table::BOARD_BITS.count_ones());
    }

    #[test]
    fn threads_noting_at_once_lose_no_board() {
        let p = Presence::for_table(64 << 20);
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let p = &p;
                s.spawn(move || {
                    for i in 0..50_000 {
                        p.note(key(i * 4 + t));
                    }
                });
            }
        });
        assert!((0..200_000).all(|i| p.may_hold(key(i))));
    }
}
