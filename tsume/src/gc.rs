//! Garbage collection in the spirit of Nagai's SmallTreeGC: when the table is nearly full,
//! free the entries whose subtrees were cheapest to search, since they are the cheapest
//! to search again. Entries the caller names (the proof of the current main line) stay.

use crate::table::{Table, BOARD_BITS, CLUSTER};

/// Clusters between two questions to `give_up` (see [`Table::collect`]): about 0.1 ms
/// of work.
const GIVE_UP_EVERY: usize = 4096;

impl Table {
    /// Frees about `fraction` of the used entries, earlier searches' first, then the
    /// cheapest, keeping those whose board is in `keep` (board keys). Returns the number
    /// freed.
    ///
    /// The pass ends early once `give_up` says so. A pass over the whole table takes
    /// about 200 ms at 4 GiB, and a thread inside one answers no `stop`. A stop must
    /// be answered within 100 ms, and a search that has stopped needs no room. So
    /// `give_up` is asked every [`GIVE_UP_EVERY`] clusters. A partial pass is a
    /// smaller collection, nothing worse.
    pub(crate) fn collect(&self, fraction: f64, keep: &[u64], give_up: impl Fn() -> bool) -> usize {
        // Slots keep only a key's board bits.
        let mut keep: Vec<u64> = keep.iter().map(|&k| k & BOARD_BITS).collect();
        keep.sort_unstable();
        let kept = |slot: u64| keep.binary_search(&(slot & BOARD_BITS)).is_ok();
        let threshold = self.amount_quantile(fraction);
        let mut freed = 0;
        for ci in 0..self.len() {
            if ci % GIVE_UP_EVERY == 0 && give_up() {
                break;
            }
            let mut c = self.lock_index(ci);
            for i in 0..CLUSTER {
                let k = c.key(i);
                if k == 0 {
                    continue;
                }
                let cheap = self.is_old(k) || c.entries[i].amount <= threshold;
                if cheap && !kept(k) {
                    c.set_key(i, 0);
                    freed += 1;
                }
            }
        }
        freed
    }

    /// The effort below which about `fraction` of the used entries lie, from a sample.
    /// Earlier searches' entries count as no effort: they go first.
    fn amount_quantile(&self, fraction: f64) -> u32 {
        let step = (self.len() / 4096).max(1);
        let mut sample = Vec::with_capacity(4096 * 8);
        for ci in (0..self.len()).step_by(step) {
            let c = self.lock_index(ci);
            sample.extend((0..CLUSTER).filter(|&i| c.key(i) != 0).map(|i| {
                if self.is_old(c.key(i)) {
                    0
                } else {
                    c.entries[i].amount
                }
            }));
        }
        if sample.is_empty() {
            return 0;
        }
        sample.sort_unstable();
        let i = ((sample.len() as f64 * fraction) as usize).min(sample.len() - 1);
        sample[i]
    }
}

#[cfg(test)]
mod tests {
    use crate::entry::{INF, SNDA_MOVES};
    use crate::table::{Store, Table};
    use kanju_engine::{Hand, Move};

    fn store(t: &Table, key: u64, pn: u32, dn: u32, amount: u32) {
        t.store(
            key,
            &Store {
                pn,
                dn,
                hand: Hand::EMPTY,
                len: 1,
                md: 1,
                amount,
                parent_key: 0,
                parent_hand: Hand::EMPTY,
                parent_move: Move::NONE,
                snda: [0; SNDA_MOVES],
            },
        );
    }

    /// GC frees the cheap bulk of the table but keeps the proof of the main line, even
    /// though every one of its entries is as cheap as the garbage around it.
    #[test]
    fn gc_keeps_the_proof_line() {
        let t = Table::new(1);
        let line: Vec<u64> = (1..21u64)
            .map(|i| i.wrapping_mul(0xd6e8_feb8_6659_fd93) | 1)
            .collect();
        for (i, &k) in line.iter().enumerate() {
            store(&t, k, 0, INF, 1 + (i as u32 % 2));
        }
        // Junk: many cheap unknown entries and a few expensive ones.
        for i in 0..5000u64 {
            let k = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            store(
                &t,
                k,
                5,
                5,
                if i % 10 == 0 {
                    1000
                } else {
                    1 + (i % 3) as u32
                },
            );
        }
        for &k in &line {
            assert_eq!(
                t.probe(k, Hand::EMPTY, 1, 1, u16::MAX).pn,
                0,
                "stored {k:x}"
            );
        }
        let before = t.hashfull();
        let freed = t.collect(0.5, &line, || false);
        assert!(freed > 0);
        assert!(t.hashfull() < before);
        for &k in &line {
            assert_eq!(
                t.probe(k, Hand::EMPTY, 1, 1, u16::MAX).pn,
                0,
                "proof line entry {k:x} survived"
            );
        }
        // The expensive junk survives too.
        let k = 0u64.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        assert!(t.probe(k, Hand::EMPTY, 1, 1, u16::MAX).found);
    }

    /// A collection told to give up at once frees nothing: the watcher asks it to when a
    /// stop arrives, and the stop is then answered without waiting for the whole pass.
    #[test]
    fn a_collection_gives_up_when_asked() {
        let t = Table::new(1);
        for i in 0..5000u64 {
            store(&t, i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1, 5, 5, 1);
        }
        let before = t.hashfull();
        assert_eq!(t.collect(0.5, &[], || true), 0);
        assert_eq!(t.hashfull(), before);
        assert!(t.collect(0.5, &[], || false) > 0);
    }
}
