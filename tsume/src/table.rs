//! The transposition table: a fixed number of clusters, each behind its own lock.
//!
//! All hands of one board land in the same cluster, so one locked scan answers a probe
//! with every dominance relation (proof and disproof pieces, Nagai's pn/dn dominance).
//! Locking per cluster is the finest possible striping: threads only meet when they touch
//! the same board.

use crate::entry::{Entry, INF, SNDA_MOVES};
use kanju_engine::{Hand, Move};
use parking_lot::Mutex;

/// Entries per cluster. Eight 48-byte entries: six cache lines per lock.
pub(crate) const CLUSTER: usize = 8;

#[derive(Clone, Copy)]
pub(crate) struct Cluster {
    pub entries: [Entry; CLUSTER],
}

impl Cluster {
    const EMPTY: Cluster = Cluster {
        entries: [Entry::EMPTY; CLUSTER],
    };
}

/// What a probe learnt about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Probe {
    /// Proof number (0 = proven).
    pub pn: u32,
    /// Disproof number (0 = disproven).
    pub dn: u32,
    /// For a terminal answer, the proof or disproof hand that answered.
    pub hand: Hand,
    /// Mate length of a proof.
    pub len: u16,
    /// Minimal distance stored for the exact position, `u16::MAX` if none.
    pub md: u16,
    /// Effort stored for the exact position.
    pub amount: u32,
    /// True if an entry for exactly this position, or a terminal entry covering it, exists.
    pub found: bool,
    /// Parent pointer of the exact entry (parent key 0 = none).
    pub parent_key: u64,
    /// Parent's hand.
    pub parent_hand: Hand,
    /// Move from the parent.
    pub parent_move: u16,
    /// SNDA moves of the exact entry.
    pub snda: [u16; SNDA_MOVES],
}

impl Probe {
    /// The answer for a position the table knows nothing about.
    pub fn unknown(pn: u32, dn: u32) -> Probe {
        Probe {
            pn,
            dn,
            hand: Hand::EMPTY,
            len: 0,
            md: u16::MAX,
            amount: 0,
            found: false,
            parent_key: 0,
            parent_hand: Hand::EMPTY,
            parent_move: 0,
            snda: [0; SNDA_MOVES],
        }
    }

    fn terminal(e: &Entry) -> Probe {
        Probe {
            pn: e.pn,
            dn: e.dn,
            hand: e.hand,
            len: e.len,
            md: e.md,
            amount: e.amount,
            found: true,
            parent_key: 0,
            parent_hand: Hand::EMPTY,
            parent_move: 0,
            snda: [0; SNDA_MOVES],
        }
    }
}

/// What a search writes back for one position.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Store {
    /// Proof number.
    pub pn: u32,
    /// Disproof number.
    pub dn: u32,
    /// Exact hand for unknown results, proof/disproof hand for terminal ones.
    pub hand: Hand,
    /// Mate length for proofs.
    pub len: u16,
    /// Minimal distance seen.
    pub md: u16,
    /// Effort below the node.
    pub amount: u32,
    /// The parent this visit came from (key 0 = root).
    pub parent_key: u64,
    /// Parent's hand.
    pub parent_hand: Hand,
    /// Move from the parent.
    pub parent_move: Move,
    /// SNDA moves discovered at the node.
    pub snda: [u16; SNDA_MOVES],
}

/// The shared table. Its size is fixed at construction.
pub(crate) struct Table {
    clusters: Box<[Mutex<Cluster>]>,
}

impl Table {
    /// A table of about `mb` MiB (at least one cluster).
    pub fn new(mb: usize) -> Table {
        let bytes = mb.max(1) << 20;
        let n = (bytes / std::mem::size_of::<Mutex<Cluster>>()).max(1);
        let clusters: Vec<Mutex<Cluster>> = (0..n).map(|_| Mutex::new(Cluster::EMPTY)).collect();
        Table {
            clusters: clusters.into_boxed_slice(),
        }
    }

    pub(crate) fn clusters(&self) -> &[Mutex<Cluster>] {
        &self.clusters
    }

    #[inline(always)]
    fn cluster(&self, key: u64) -> &Mutex<Cluster> {
        // Multiply-shift spreads any key over any cluster count without a power of two.
        let i = ((key as u128 * self.clusters.len() as u128) >> 64) as usize;
        &self.clusters[i]
    }

    /// Empties every slot.
    pub fn clear(&self) {
        for c in self.clusters.iter() {
            *c.lock() = Cluster::EMPTY;
        }
    }

    /// What the table knows about board `key` with attacker hand `hand`. `init_pn`/`init_dn`
    /// are the estimates for an unknown position; dominating entries can only raise them.
    pub fn probe(&self, key: u64, hand: Hand, init_pn: u32, init_dn: u32) -> Probe {
        let c = self.cluster(key).lock();
        let mut r = Probe::unknown(init_pn, init_dn);
        let mut bound_pn = 0;
        let mut bound_dn = 0;
        for e in c.entries.iter() {
            if e.key != key {
                continue;
            }
            if e.pn == 0 {
                if hand.dominates(e.hand) {
                    return Probe::terminal(e);
                }
            } else if e.dn == 0 {
                if e.hand.dominates(hand) {
                    return Probe::terminal(e);
                }
            } else if e.hand == hand {
                r.pn = e.pn;
                r.dn = e.dn;
                r.md = e.md;
                r.amount = e.amount;
                r.found = true;
                r.parent_key = e.parent_key;
                r.parent_hand = e.parent_hand;
                r.parent_move = e.parent_move;
                r.snda = e.snda;
            } else if hand.dominates(e.hand) {
                // More attacker pieces here than there: at least as hard to disprove.
                bound_dn = bound_dn.max(e.dn);
            } else if e.hand.dominates(hand) {
                // Fewer attacker pieces here: at least as hard to prove.
                bound_pn = bound_pn.max(e.pn);
            }
        }
        r.pn = r.pn.max(bound_pn);
        r.dn = r.dn.max(bound_dn);
        r
    }

    /// The parent pointer of exactly this unknown position, for the SNDA walk. `None` if the
    /// position is absent, terminal, or has no parent.
    pub fn parent_of(&self, key: u64, hand: Hand) -> Option<(u64, Hand, u16)> {
        let c = self.cluster(key).lock();
        c.entries
            .iter()
            .find(|e| e.key == key && e.hand == hand && !e.is_terminal())
            .filter(|e| e.parent_key != 0)
            .map(|e| (e.parent_key, e.parent_hand, e.parent_move))
    }

    /// Records a result. Terminal results free the entries of the same board they subsume.
    pub fn store(&self, key: u64, s: &Store) {
        let mut c = self.cluster(key).lock();
        let proven = s.pn == 0;
        let disproven = s.dn == 0;
        if proven || disproven {
            for e in c.entries.iter_mut() {
                if e.key != key || (e.hand == s.hand && e.is_terminal() && e.pn == s.pn) {
                    continue;
                }
                let subsumed = if proven {
                    e.hand.dominates(s.hand) && !e.is_disproven()
                } else {
                    s.hand.dominates(e.hand) && !e.is_proven()
                };
                if subsumed {
                    *e = Entry::EMPTY;
                }
            }
        }
        // The slot to write: the same position first, then a free slot, then the cheapest.
        let same = c.entries.iter().position(|e| {
            e.key == key && e.hand == s.hand && (e.pn == 0) == proven && (e.dn == 0) == disproven
        });
        let idx = match same {
            Some(i) => i,
            None => match c.entries.iter().position(|e| e.is_empty()) {
                Some(i) => i,
                None => {
                    let mut best = 0;
                    let mut best_score = u64::MAX;
                    for (i, e) in c.entries.iter().enumerate() {
                        let score = eviction_score(e);
                        if score < best_score {
                            best_score = score;
                            best = i;
                        }
                    }
                    if eviction_score_of(s) < best_score && !(proven || disproven) {
                        // Everything here is worth more than this result: drop it.
                        return;
                    }
                    c.entries[best] = Entry::EMPTY;
                    best
                }
            },
        };
        let e = &mut c.entries[idx];
        let fresh = e.is_empty();
        if fresh || e.parent_key == 0 {
            e.parent_key = s.parent_key;
            e.parent_hand = s.parent_hand;
            e.parent_move = s.parent_move.bits();
        }
        e.key = key;
        e.hand = s.hand;
        e.pn = s.pn;
        e.dn = s.dn;
        e.len = s.len;
        e.md = if fresh { s.md } else { e.md.min(s.md) };
        e.amount = if fresh {
            s.amount
        } else {
            e.amount.max(s.amount)
        };
        for &m in s.snda.iter() {
            if m != 0 {
                e.add_snda(Move::from_bits(m));
            }
        }
    }

    /// Table fill, per mille, estimated from the first clusters.
    pub fn hashfull(&self) -> u32 {
        let n = self.clusters.len().min(1000);
        let mut used = 0usize;
        for c in self.clusters[..n].iter() {
            used += c.lock().entries.iter().filter(|e| !e.is_empty()).count();
        }
        (used * 1000 / (n * CLUSTER)) as u32
    }
}

/// Lower scores are evicted first: cheap subtrees before expensive ones, and proofs last
/// among equals because the main line is rebuilt from them.
#[inline]
fn eviction_score(e: &Entry) -> u64 {
    if e.is_empty() {
        return 0;
    }
    let bonus = if e.pn == 0 { 2 } else { 1 };
    e.amount as u64 * bonus + if e.pn == INF { 0 } else { 1 }
}

#[inline]
fn eviction_score_of(s: &Store) -> u64 {
    let bonus = if s.pn == 0 { 2 } else { 1 };
    s.amount as u64 * bonus + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_engine::PieceKind;

    fn hand(p: u32, g: u32) -> Hand {
        Hand::EMPTY
            .with_count(PieceKind::Pawn, p)
            .unwrap()
            .with_count(PieceKind::Gold, g)
            .unwrap()
    }

    fn store(pn: u32, dn: u32, h: Hand) -> Store {
        Store {
            pn,
            dn,
            hand: h,
            len: 3,
            md: 1,
            amount: 1,
            parent_key: 0,
            parent_hand: Hand::EMPTY,
            parent_move: Move::NONE,
            snda: [0; SNDA_MOVES],
        }
    }

    #[test]
    fn proof_with_fewer_pieces_proves_more() {
        let t = Table::new(1);
        t.store(42, &store(0, INF, hand(1, 0)));
        assert_eq!(t.probe(42, hand(1, 0), 1, 1).pn, 0);
        assert_eq!(t.probe(42, hand(2, 1), 1, 1).pn, 0);
        let p = t.probe(42, hand(0, 1), 1, 1);
        assert!(p.pn != 0 && !p.found);
        // Another board never answers.
        assert!(!t.probe(43, hand(2, 1), 1, 1).found);
    }

    #[test]
    fn disproof_with_more_pieces_disproves_less() {
        let t = Table::new(1);
        t.store(42, &store(INF, 0, hand(2, 1)));
        assert_eq!(t.probe(42, hand(2, 1), 1, 1).dn, 0);
        assert_eq!(t.probe(42, hand(0, 1), 1, 1).dn, 0);
        assert_eq!(t.probe(42, hand(1, 0), 1, 1).dn, 0);
        assert_ne!(t.probe(42, hand(3, 0), 1, 1).dn, 0);
    }

    #[test]
    fn unknown_entries_give_tightest_bounds() {
        let t = Table::new(1);
        t.store(42, &store(10, 20, hand(1, 1)));
        // Exact hit.
        let p = t.probe(42, hand(1, 1), 1, 1);
        assert!(p.found);
        assert_eq!((p.pn, p.dn), (10, 20));
        // More pieces: dn at least 20, pn not bounded.
        let p = t.probe(42, hand(2, 1), 1, 1);
        assert!(!p.found);
        assert_eq!((p.pn, p.dn), (1, 20));
        // Fewer pieces: pn at least 10.
        let p = t.probe(42, hand(0, 1), 1, 1);
        assert_eq!((p.pn, p.dn), (10, 1));
    }

    #[test]
    fn terminal_results_free_what_they_subsume() {
        let t = Table::new(1);
        t.store(42, &store(10, 20, hand(2, 1)));
        t.store(42, &store(5, 5, hand(0, 0)));
        t.store(42, &store(0, INF, hand(1, 0)));
        let c = t.cluster(42).lock();
        let live: Vec<&Entry> = c.entries.iter().filter(|e| e.key == 42).collect();
        assert_eq!(
            live.len(),
            2,
            "the unknown entry with P+G is now proven by the proof"
        );
        assert!(live
            .iter()
            .any(|e| e.hand == hand(0, 0) && !e.is_terminal()));
    }

    #[test]
    fn full_cluster_evicts_the_cheapest() {
        let t = Table::new(1);
        for i in 0..CLUSTER as u32 {
            let mut s = store(3, 3, hand(i, 0));
            s.amount = 100 + i;
            t.store(7, &s);
        }
        let mut s = store(3, 3, hand(0, 1));
        s.amount = 1000;
        t.store(7, &s);
        assert!(t.probe(7, hand(0, 1), 1, 1).found);
        assert!(
            !t.probe(7, hand(0, 0), 1, 1).found,
            "amount 100 was the cheapest"
        );
        assert!(t.probe(7, hand(1, 0), 1, 1).found);
    }
}
