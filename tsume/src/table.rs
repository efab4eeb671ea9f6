//! The transposition table: a fixed number of clusters behind striped locks (a lock covers
//! every cluster whose index is equal modulo [`STRIPES`]).
//!
//! All hands of one board land in the same cluster, so one locked scan answers a probe
//! with every dominance relation (proof and disproof pieces, Nagai's pn/dn dominance).
//! Threads only wait for each other when they touch clusters of one stripe at once.
//!
//! A probe first reads the cluster's keys without the lock, and most probes end there: the
//! children a search looks up are mostly new, and a board no slot holds is unknown whatever
//! the hands. Taking the lock for those too cost two threads about 6 % of their node rate
//! on Zuko 8: sixty-four one-byte locks share a cache line, so each thread kept pulling
//! lock lines from the other's core (one thread alone showed no difference). The keys are
//! atomics so that the unlocked read is sound; entries are only touched under the lock.
//!
//! Before the cluster, a probe asks the table's [`Presence`] filter, a bit per board in
//! an array at most a sixty-fourth of the table's size, whether the board was ever
//! stored; most new children stop there and cost no access to the table at all (see
//! `presence`).
//!
//! The table outlives a search: a front end keeps it from one `go` to the next. Every slot
//! is tagged with the search that last wrote it, so that a later search can tell its own
//! work from what an earlier one left. Proofs and disproofs hold for any search and are
//! still answered from; but an old entry is the first to go when room is needed, and an old
//! open entry's minimal distance and parent pointer, which were measured from another root,
//! are forgotten. Without this, a table filled by one problem starved the next: its
//! entries, cheap next to the old ones, were dropped on store and freed by every
//! collection (Muso 6 after Microcosmos at 256 MiB: not proven in 14 M nodes, against
//! 1.6 M on an empty table).

use crate::entry::{within, Entry, ANY_LENGTH, SNDA_MOVES};
use crate::memory::Block;
use crate::presence::Presence;
use kanju_engine::{Hand, Move};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// Entries per cluster.
pub(crate) const CLUSTER: usize = 8;

/// Board keys in the first cache line, entries after: a probe touches one line to find
/// which entries are its board's. All zero is an empty cluster.
#[repr(C, align(64))]
pub(crate) struct Cluster {
    /// Per slot, the board key's low 56 bits under the generation of the search that last
    /// wrote the slot (see [`tag`]); 0 = empty. Written only under the stripe lock.
    keys: [AtomicU64; CLUSTER],
    /// The entries.
    pub entries: [Entry; CLUSTER],
}

/// The part of a board key a slot keeps. The cluster index comes from the key's top bits
/// (multiply-shift), so two keys that differ only in the top byte never share a cluster
/// once there are 256 clusters or more, and the top byte is free for the generation.
pub(crate) const BOARD_BITS: u64 = (1 << 56) - 1;

/// The smallest table: with fewer clusters the top byte would be needed to tell boards apart.
const MIN_CLUSTERS: usize = 256;

/// A slot's key: `key`'s board bits under generation `generation` (never 0, so a used slot
/// is never 0).
#[inline(always)]
fn tag(key: u64, generation: u8) -> u64 {
    key & BOARD_BITS | (generation as u64) << 56
}

/// True if `slot` holds board `key` (in any generation).
#[inline(always)]
fn holds(slot: u64, key: u64) -> bool {
    slot != 0 && (slot ^ key) & BOARD_BITS == 0
}

/// The generation of a used slot.
#[inline(always)]
fn generation_of(slot: u64) -> u8 {
    (slot >> 56) as u8
}

impl ClusterGuard<'_> {
    /// Slot `i`'s key (0 = empty).
    #[inline(always)]
    pub(crate) fn key(&self, i: usize) -> u64 {
        self.keys[i].load(Ordering::Relaxed)
    }

    /// Sets slot `i`'s key (0 frees the slot).
    #[inline(always)]
    pub(crate) fn set_key(&mut self, i: usize, key: u64) {
        self.keys[i].store(key, Ordering::Relaxed);
    }

    /// Makes slot `i` the current search's, since this search uses it. An earlier search
    /// measured its minimal distance and parent from another root: they are forgotten. Its
    /// numbers, hand, length and SNDA moves belong to the position and stay.
    #[inline(always)]
    fn renew(&mut self, i: usize, generation: u8) {
        let k = self.key(i);
        if generation_of(k) != generation {
            self.set_key(i, tag(k, generation));
            let e = &mut self.entries[i];
            e.md = u16::MAX;
            e.parent_key = 0;
            e.parent_hand = Hand::EMPTY;
            e.parent_move = 0;
        }
    }
}

/// Whether a disproof of reach `a` rules out at least what one of reach `b` does (see
/// [`crate::entry::within`]).
fn reaches_as_far(a: u16, b: u16) -> bool {
    a == ANY_LENGTH || (b != ANY_LENGTH && a >= b)
}

/// Lock stripes: a lock covers every cluster with its index modulo this. Many more
/// stripes than threads, so threads rarely wait, and few enough to stay in cache.
const STRIPES: usize = 1 << 14;

/// Clusters a caller of [`Table::rebuild_filter_step`] scans at a time: about 2 ms of
/// work, so that a thread doing it between other duties (the search's watcher, which
/// watches limits every few milliseconds; the brinkmate search, between its tsume
/// searches) stays prompt. A full 4 GiB table is scanned in about 6 s of such slices.
pub(crate) const FILTER_REBUILD_SLICE: usize = 8192;

/// What a probe learnt about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Probe {
    /// Proof number (0 = proven).
    pub pn: u32,
    /// Disproof number (0 = disproven).
    pub dn: u32,
    /// For a terminal answer, the proof or disproof hand that answered.
    pub hand: Hand,
    /// Mate length of a proof; a disproof's reach (see [`crate::entry::within`]).
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

    /// The answer a terminal entry gives: its numbers, hand, length, distance and effort,
    /// without the parent pointer and SNDA moves that an open entry passes on.
    fn terminal(e: &Entry) -> Probe {
        Probe {
            hand: e.hand,
            len: e.len,
            md: e.md,
            amount: e.amount,
            found: true,
            ..Probe::unknown(e.pn, e.dn)
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
    /// Mate length for proofs; reach for disproofs (see [`crate::entry::within`]).
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
    presence: Presence,
    block: Block,
    len: usize,
    locks: Box<[Mutex<()>]>,
    /// The current search's generation, 1 to 255.
    generation: AtomicU8,
    /// The filter's rebuild, while one is under way: the next cluster to scan, and the
    /// boards noted so far. One caller scans at a time.
    rebuild: Mutex<Rebuild>,
}

/// Where a rebuild of the filter stands (see [`Table::start_filter_rebuild`]).
#[derive(Default)]
struct Rebuild {
    next: usize,
    boards: usize,
    started: Option<std::time::Instant>,
}

/// One cluster while its stripe lock is held: its keys, which other threads may read
/// meanwhile, and its entries, which no other thread touches.
pub(crate) struct ClusterGuard<'a> {
    _lock: parking_lot::MutexGuard<'a, ()>,
    keys: &'a [AtomicU64; CLUSTER],
    /// The entries, slot by slot.
    pub entries: &'a mut [Entry; CLUSTER],
}

impl Table {
    /// A table of about `mb` MiB (at least [`MIN_CLUSTERS`] clusters), and its filter
    /// beside it ([`Table::filter_bytes`]).
    pub fn new(mb: usize) -> Table {
        let bytes = mb.max(1) << 20;
        let presence = Presence::for_table(bytes);
        let len = (bytes / std::mem::size_of::<Cluster>()).max(MIN_CLUSTERS);
        let block = Block::zeroed(len * std::mem::size_of::<Cluster>());
        let locks: Vec<Mutex<()>> = (0..STRIPES.min(len.next_power_of_two()))
            .map(|_| Mutex::new(()))
            .collect();
        Table {
            presence,
            block,
            len,
            locks: locks.into_boxed_slice(),
            generation: AtomicU8::new(1),
            rebuild: Mutex::new(Rebuild::default()),
        }
    }

    /// The memory the filter of a table of `mb` MiB takes beside it.
    pub fn filter_bytes(mb: usize) -> usize {
        Presence::bytes_for_table(mb.max(1) << 20)
    }

    /// Starts a new search: what the table holds from now on is an earlier search's.
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed);
        self.generation
            .store(if g == u8::MAX { 1 } else { g + 1 }, Ordering::Relaxed);
    }

    /// The current search's generation.
    #[inline(always)]
    pub(crate) fn generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed)
    }

    /// True if `slot` (a used one) was last written by an earlier search.
    #[inline(always)]
    pub(crate) fn is_old(&self, slot: u64) -> bool {
        generation_of(slot) != self.generation()
    }

    /// Number of clusters.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn index(&self, key: u64) -> usize {
        // Multiply-shift spreads any key over any cluster count without a power of two.
        ((key as u128 * self.len as u128) >> 64) as usize
    }

    /// Locks cluster `i`.
    #[inline(always)]
    pub(crate) fn lock_index(&self, i: usize) -> ClusterGuard<'_> {
        let lock = self.locks[i & (self.locks.len() - 1)].lock();
        let cluster = self.cluster_ptr(i);
        // SAFETY: i < len, so the cluster lies inside the block. The keys are atomics, which
        // other threads may read at any time; the entries are only ever reached through a
        // guard, and the stripe lock held here makes this guard the only one for cluster i.
        unsafe {
            ClusterGuard {
                _lock: lock,
                keys: &*std::ptr::addr_of!((*cluster).keys),
                entries: &mut *std::ptr::addr_of_mut!((*cluster).entries),
            }
        }
    }

    #[inline(always)]
    fn cluster_ptr(&self, i: usize) -> *mut Cluster {
        debug_assert!(i < self.len);
        // SAFETY: i < len, inside the block.
        unsafe { (self.block.as_ptr() as *mut Cluster).add(i) }
    }

    /// True if some slot of cluster `ci` (`key`'s) may hold its board, read without the lock. A
    /// board that no slot holds has no entry under any hand, so a probe can stop there. A
    /// slot written meanwhile by another thread is missed, as it would be by a probe a moment
    /// earlier.
    #[inline(always)]
    fn may_hold(&self, ci: usize, key: u64) -> bool {
        // SAFETY: the pointer is inside the block, and the keys are only accessed atomically.
        let keys = unsafe { &*std::ptr::addr_of!((*self.cluster_ptr(ci)).keys) };
        keys.iter().any(|k| holds(k.load(Ordering::Relaxed), key))
    }

    #[inline(always)]
    fn cluster(&self, key: u64) -> ClusterGuard<'_> {
        self.lock_index(self.index(key))
    }

    /// Hints the CPU to fetch what [`Self::prefetch`] reads to decide whether to fetch
    /// `key`'s cluster: call it for a node's children, then `prefetch` for each.
    #[inline(always)]
    pub fn prefetch_presence(&self, key: u64) {
        self.presence.prefetch(key);
    }

    /// Hints the CPU to fetch `key`'s cluster keys ahead of a probe, if the table may hold
    /// the board at all.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        if self.presence.may_hold(key) {
            self.prefetch_cluster(key);
        }
    }

    /// Hints the CPU to fetch `key`'s cluster keys, whatever the filter says, and its
    /// bits in the filter: for a new position about to be searched and stored.
    #[inline(always)]
    pub fn prefetch_cluster(&self, key: u64) {
        self.presence.prefetch_note(key);
        crate::memory::prefetch(self.cluster_ptr(self.index(key)));
    }

    /// Empties every slot.
    pub fn clear(&mut self) {
        self.presence.clear();
        self.block.clear();
        *self.rebuild.get_mut() = Rebuild::default();
    }

    /// What the table knows about board `key` with attacker hand `hand`. `init_pn`/`init_dn`
    /// are the estimates for an unknown position; dominating entries can only raise them.
    /// `left` is the plies a mate may take from the position (`u16::MAX` without a length
    /// limit): a proof answers only if its mate fits in them, a disproof only if it rules
    /// out every mate that short (see [`crate::entry::within`]).
    pub fn probe(&self, key: u64, hand: Hand, init_pn: u32, init_dn: u32, left: u16) -> Probe {
        let mut r = Probe::unknown(init_pn, init_dn);
        if !self.presence.may_hold(key) {
            return r;
        }
        let ci = self.index(key);
        if !self.may_hold(ci, key) {
            return r;
        }
        let mut c = self.lock_index(ci);
        let generation = self.generation();
        let mut bound_pn = 0;
        let mut bound_dn = 0;
        let mut proof: Option<usize> = None;
        for i in 0..CLUSTER {
            if !holds(c.key(i), key) {
                continue;
            }
            let e = &c.entries[i];
            if e.pn == 0 {
                // Several proofs may cover the position: answer with the shortest mate, so
                // that lengths only ever shrink and the main line's lengths stay ordered.
                if e.len <= left
                    && hand.dominates(e.hand)
                    && proof.is_none_or(|p| e.len < c.entries[p].len)
                {
                    proof = Some(i);
                }
            } else if e.dn == 0 {
                if e.hand.dominates(hand) && reaches_as_far(e.len, within(left)) {
                    c.renew(i, generation);
                    return Probe::terminal(&c.entries[i]);
                }
            } else if e.hand == hand {
                c.renew(i, generation);
                let e = &c.entries[i];
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
        if let Some(i) = proof {
            c.renew(i, generation);
            return Probe::terminal(&c.entries[i]);
        }
        r.pn = r.pn.max(bound_pn);
        r.dn = r.dn.max(bound_dn);
        r
    }

    /// The parent pointer of exactly this unknown position, for the SNDA walk. `None` if the
    /// position is absent, terminal, or has no parent.
    pub fn parent_of(&self, key: u64, hand: Hand) -> Option<(u64, Hand, u16)> {
        if !self.presence.may_hold(key) {
            return None;
        }
        let ci = self.index(key);
        if !self.may_hold(ci, key) {
            return None;
        }
        let c = self.lock_index(ci);
        (0..CLUSTER)
            .find(|&i| {
                holds(c.key(i), key)
                    && !self.is_old(c.key(i))
                    && c.entries[i].hand == hand
                    && !c.entries[i].is_terminal()
            })
            .map(|i| &c.entries[i])
            .filter(|e| e.parent_key != 0)
            .map(|e| (e.parent_key, e.parent_hand, e.parent_move))
    }

    /// Records a result. Terminal results free the entries of the same board they subsume.
    pub fn store(&self, key: u64, s: &Store) {
        let mut c = self.cluster(key);
        if !(0..CLUSTER).any(|i| holds(c.key(i), key)) {
            // A board the cluster holds under some hand is in the filter already. Before
            // the slot is written: a probe that finds it must pass the filter.
            self.presence.note(key);
        }
        let generation = self.generation();
        let proven = s.pn == 0;
        let disproven = s.dn == 0;
        if proven || disproven {
            for i in 0..CLUSTER {
                let e = &c.entries[i];
                if !holds(c.key(i), key) || (e.hand == s.hand && e.is_terminal() && e.pn == s.pn) {
                    continue;
                }
                let subsumed = if proven {
                    // A more specific proof stays if it knows a shorter mate.
                    e.hand.dominates(s.hand)
                        && !e.is_disproven()
                        && !(e.is_proven() && e.len < s.len)
                } else {
                    // A disproof under a length limit leaves those that reach further, and
                    // the numbers of positions it does not answer for with more plies left.
                    s.hand.dominates(e.hand)
                        && !e.is_proven()
                        && if e.is_disproven() {
                            reaches_as_far(s.len, e.len)
                        } else {
                            s.len == ANY_LENGTH
                        }
                };
                if subsumed {
                    c.set_key(i, 0);
                }
            }
        }
        // The slot to write: the same position first, then a free slot, then the cheapest.
        let same = (0..CLUSTER).find(|&i| {
            let e = &c.entries[i];
            holds(c.key(i), key)
                && e.hand == s.hand
                && (e.pn == 0) == proven
                && (e.dn == 0) == disproven
        });
        if let Some(i) = same {
            let e = &c.entries[i];
            if disproven && !reaches_as_far(s.len, e.len) {
                return;
            }
        }
        let (idx, fresh) = match same {
            Some(i) => {
                c.renew(i, generation);
                (i, false)
            }
            None => match (0..CLUSTER).find(|&i| c.key(i) == 0) {
                Some(i) => (i, true),
                None => {
                    let mut best = 0;
                    let mut best_score = u64::MAX;
                    for (i, e) in c.entries.iter().enumerate() {
                        // An earlier search's entry goes first.
                        let score = if generation_of(c.key(i)) == generation {
                            eviction_score(e)
                        } else {
                            0
                        };
                        if score < best_score {
                            best_score = score;
                            best = i;
                        }
                    }
                    if eviction_score_of(s) < best_score && !(proven || disproven) {
                        // Everything here is worth more than this result: drop it.
                        return;
                    }
                    (best, true)
                }
            },
        };
        c.set_key(idx, tag(key, generation));
        let e = &mut c.entries[idx];
        if fresh || e.parent_key == 0 {
            e.parent_key = s.parent_key;
            e.parent_hand = s.parent_hand;
            e.parent_move = s.parent_move.bits();
        }
        if fresh {
            e.snda = [0; SNDA_MOVES];
        }
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

    /// Before a search: if the filter has filled up and no longer answers (a front end
    /// keeps its table over many problems, and evicted boards leave their bits set),
    /// starts building it again from the boards the table holds. The scan itself is left
    /// to [`Table::rebuild_filter_step`], a slice at a time beside the search; until it
    /// ends, probes read the table as if there were no filter. Returns whether a rebuild
    /// began. None does when the table holds more boards than the filter tells apart:
    /// that one would retire again at once.
    pub fn start_filter_rebuild(&mut self) -> bool {
        if !self.presence.is_blind() {
            return false;
        }
        let used = self.hashfull() as u64 * (self.len * CLUSTER) as u64 / 1000;
        if used > self.presence.capacity() {
            return false;
        }
        self.presence.begin_rebuild();
        *self.rebuild.get_mut() = Rebuild {
            next: 0,
            boards: 0,
            started: Some(std::time::Instant::now()),
        };
        true
    }

    /// Scans up to `clusters` more clusters for the filter's rebuild, if one is under way
    /// and no other thread is scanning; the filter answers again once the last cluster is
    /// scanned. Returns true while the rebuild goes on.
    pub fn rebuild_filter_step(&self, clusters: usize) -> bool {
        if !self.presence.is_building() {
            return false;
        }
        let Some(mut r) = self.rebuild.try_lock() else {
            return true;
        };
        let end = (r.next + clusters).min(self.len);
        for ci in r.next..end {
            let c = self.lock_index(ci);
            for i in 0..CLUSTER {
                let k = c.key(i);
                // A board's slots are all in one cluster: note it once. The filter reads
                // only bits the slot keeps (see `presence`).
                if k != 0 && !(0..i).any(|j| holds(c.key(j), k)) {
                    self.presence.note(k);
                    r.boards += 1;
                }
            }
        }
        r.next = end;
        if end < self.len {
            return true;
        }
        self.presence.end_rebuild();
        log::info!(
            "presence filter rebuilt from the table: {} boards, {:.3} s",
            r.boards,
            r.started.map_or(0.0, |t| t.elapsed().as_secs_f64())
        );
        false
    }

    /// Table fill, per mille, estimated from the first clusters.
    pub fn hashfull(&self) -> u32 {
        let n = self.len.min(1000);
        let mut used = 0usize;
        for i in 0..n {
            let c = self.lock_index(i);
            used += (0..CLUSTER).filter(|&j| c.key(j) != 0).count();
        }
        (used * 1000 / (n * CLUSTER)) as u32
    }
}

/// Lower scores are evicted first: cheap subtrees before expensive ones. Proofs and
/// disproofs weigh more than open estimates of the same effort: they are facts, other
/// nodes' results rest on them, and the main line is rebuilt from the proofs.
#[inline]
fn eviction_score(e: &Entry) -> u64 {
    weight(e.pn, e.dn, e.amount)
}

#[inline]
fn eviction_score_of(s: &Store) -> u64 {
    weight(s.pn, s.dn, s.amount)
}

#[inline]
fn weight(pn: u32, dn: u32, amount: u32) -> u64 {
    let a = amount as u64 + 1;
    if pn == 0 {
        a * 8
    } else if dn == 0 {
        a * 4
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::INF;
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
            len: if dn == 0 { ANY_LENGTH } else { 3 },
            md: 1,
            amount: 1,
            parent_key: 0,
            parent_hand: Hand::EMPTY,
            parent_move: Move::NONE,
            snda: [0; SNDA_MOVES],
        }
    }

    /// Whether the filter passes every board the table holds, read off the clusters
    /// themselves, not through a probe (which asks the filter first).
    fn every_held_board_passes(t: &Table) -> bool {
        (0..t.len).all(|ci| {
            let c = t.lock_index(ci);
            (0..CLUSTER).all(|i| c.key(i) == 0 || t.presence.may_hold(c.key(i)))
        })
    }

    /// A filter that filled up and stopped answering is built again from the boards the
    /// table holds, a slice at a time beside the search: meanwhile it answers nothing,
    /// boards stored meanwhile count as well, and afterwards every board the table holds
    /// passes and most boards it never held do not.
    #[test]
    fn a_blind_filter_is_rebuilt_from_the_table() {
        let mut t = Table::new(1);
        let key = |i: u64| (i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        assert!(!t.start_filter_rebuild(), "a fresh filter answers");
        let mut i = 0;
        while !t.presence.is_blind() {
            t.store(key(i), &store(5, 5, hand(0, 0)));
            i += 1;
        }
        assert!(t.start_filter_rebuild());
        assert!(!t.start_filter_rebuild(), "one rebuild at a time");
        assert!(t.rebuild_filter_step(t.len / 2));
        let absent = key(i + 50_000);
        assert!(t.presence.may_hold(absent), "no answer while rebuilding");
        // Stored while the scan is half way: into clusters it has passed and not.
        for j in i + 1_000..i + 1_400 {
            t.store(key(j), &store(5, 5, hand(0, 0)));
        }
        while t.rebuild_filter_step(100) {}
        assert!(!t.presence.is_blind() && !t.presence.is_building());
        assert!(every_held_board_passes(&t));
        assert!((i + 1_000..i + 1_400).any(|j| t.probe(key(j), hand(0, 0), 1, 1, u16::MAX).found));
        let never = (i + 20_000..i + 30_000)
            .filter(|&j| t.presence.may_hold(key(j)))
            .count();
        assert!(never < 5_000, "{never} of 10 000 absent boards passed");
    }

    /// Clearing the table ends a rebuild under way: an empty table's filter answers.
    #[test]
    fn clearing_ends_a_rebuild() {
        let mut t = Table::new(1);
        let mut i = 0u64;
        while !t.presence.is_blind() {
            t.store(
                i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1,
                &store(5, 5, hand(0, 0)),
            );
            i += 1;
        }
        assert!(t.start_filter_rebuild());
        t.clear();
        assert!(!t.presence.is_building() && !t.presence.is_blind());
        assert!(!t.rebuild_filter_step(t.len));
        assert!(!t.presence.may_hold(42 << 8));
    }

    #[test]
    fn proof_with_fewer_pieces_proves_more() {
        let t = Table::new(1);
        t.store(42, &store(0, INF, hand(1, 0)));
        assert_eq!(t.probe(42, hand(1, 0), 1, 1, u16::MAX).pn, 0);
        assert_eq!(t.probe(42, hand(2, 1), 1, 1, u16::MAX).pn, 0);
        let p = t.probe(42, hand(0, 1), 1, 1, u16::MAX);
        assert!(p.pn != 0 && !p.found);
        // Another board never answers.
        assert!(!t.probe(43, hand(2, 1), 1, 1, u16::MAX).found);
    }

    #[test]
    fn disproof_with_more_pieces_disproves_less() {
        let t = Table::new(1);
        t.store(42, &store(INF, 0, hand(2, 1)));
        assert_eq!(t.probe(42, hand(2, 1), 1, 1, u16::MAX).dn, 0);
        assert_eq!(t.probe(42, hand(0, 1), 1, 1, u16::MAX).dn, 0);
        assert_eq!(t.probe(42, hand(1, 0), 1, 1, u16::MAX).dn, 0);
        assert_ne!(t.probe(42, hand(3, 0), 1, 1, u16::MAX).dn, 0);
    }

    /// A probe answers with what holds for the plies a mate may take from the position:
    /// a disproof found under a length limit ("no mate within n") only where no more are
    /// left, a proof only where its mate fits. A disproof never gives way to one that
    /// reaches less far, and an exact entry's numbers answer where neither holds.
    #[test]
    fn a_probe_answers_with_what_holds_for_the_plies_left() {
        let t = Table::new(1);
        let within = |n| Store {
            len: crate::entry::within(n),
            ..store(INF, 0, hand(2, 1))
        };
        t.store(42, &store(7, 9, hand(1, 1)));
        t.store(42, &within(4));
        assert_eq!(t.probe(42, hand(1, 1), 1, 1, 4).dn, 0);
        // With more plies left the exact entry's numbers answer.
        let p = t.probe(42, hand(1, 1), 1, 1, 5);
        assert_eq!((p.pn, p.dn), (7, 9));
        assert_ne!(t.probe(42, hand(1, 1), 1, 1, u16::MAX).dn, 0);
        // A narrower one does not replace it; a wider one does.
        t.store(42, &within(2));
        assert_eq!(t.probe(42, hand(1, 1), 1, 1, 4).dn, 0);
        t.store(42, &within(6));
        assert_eq!(t.probe(42, hand(1, 1), 1, 1, 6).dn, 0);
        // A proof of a mate in 9 with fewer pieces answers where 9 plies are left.
        t.store(
            42,
            &Store {
                len: 9,
                ..store(0, INF, hand(1, 0))
            },
        );
        let p = t.probe(42, hand(1, 1), 1, 1, 9);
        assert_eq!((p.pn, p.len), (0, 9));
        assert_ne!(t.probe(42, hand(1, 1), 1, 1, 8).pn, 0);
        // A disproof at any length is not replaced by one under a limit.
        t.store(43, &store(INF, 0, hand(2, 1)));
        t.store(43, &within(8));
        assert_eq!(t.probe(43, hand(2, 1), 1, 1, u16::MAX).dn, 0);
    }

    #[test]
    fn unknown_entries_give_tightest_bounds() {
        let t = Table::new(1);
        t.store(42, &store(10, 20, hand(1, 1)));
        // Exact hit.
        let p = t.probe(42, hand(1, 1), 1, 1, u16::MAX);
        assert!(p.found);
        assert_eq!((p.pn, p.dn), (10, 20));
        // More pieces: dn at least 20, pn not bounded.
        let p = t.probe(42, hand(2, 1), 1, 1, u16::MAX);
        assert!(!p.found);
        assert_eq!((p.pn, p.dn), (1, 20));
        // Fewer pieces: pn at least 10.
        let p = t.probe(42, hand(0, 1), 1, 1, u16::MAX);
        assert_eq!((p.pn, p.dn), (10, 1));
    }

    #[test]
    fn terminal_results_free_what_they_subsume() {
        let t = Table::new(1);
        t.store(42, &store(10, 20, hand(2, 1)));
        t.store(42, &store(5, 5, hand(0, 0)));
        t.store(42, &store(0, INF, hand(1, 0)));
        let c = t.cluster(42);
        let live: Vec<&Entry> = (0..CLUSTER)
            .filter(|&i| holds(c.key(i), 42))
            .map(|i| &c.entries[i])
            .collect();
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
        assert!(t.probe(7, hand(0, 1), 1, 1, u16::MAX).found);
        assert!(
            !t.probe(7, hand(0, 0), 1, 1, u16::MAX).found,
            "amount 100 was the cheapest"
        );
        assert!(t.probe(7, hand(1, 0), 1, 1, u16::MAX).found);
    }

    /// A table full of an earlier search's work still takes the new search's entries, and
    /// forgets the old root's distances and parent pointers while keeping its proofs.
    #[test]
    fn earlier_searches_make_room() {
        let t = Table::new(1);
        for i in 0..CLUSTER as u32 {
            let mut s = store(3, 3, hand(i, 0));
            s.amount = 1_000_000;
            s.parent_key = 99;
            t.store(7, &s);
        }
        let other = 1u64 << 62;
        t.store(other, &store(0, INF, hand(0, 0)));
        t.new_search();
        t.store(7, &store(3, 3, hand(0, 1)));
        assert!(
            t.probe(7, hand(0, 1), 1, 1, u16::MAX).found,
            "a cheap new entry displaces an old one"
        );
        let p = t.probe(7, hand(1, 0), 1, 1, u16::MAX);
        assert!(p.found && p.pn == 3 && p.amount == 1_000_000);
        assert_eq!(
            (p.md, p.parent_key),
            (u16::MAX, 0),
            "another root's distance and parent"
        );
        assert_eq!(
            t.probe(other, hand(1, 0), 1, 1, u16::MAX).pn,
            0,
            "proofs hold in any search"
        );

        // Collection frees the old entries before the new search's, however cheap.
        let t = Table::new(1);
        for k in 1..2000u64 {
            let mut s = store(3, 3, hand(0, 0));
            s.amount = 1_000_000;
            t.store(k.wrapping_mul(0x9e37_79b9_7f4a_7c15), &s);
        }
        t.new_search();
        for k in 2000..2500u64 {
            t.store(
                k.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                &store(3, 3, hand(0, 0)),
            );
        }
        t.collect(0.5, &[], || false);
        for k in 2000..2500u64 {
            assert!(
                t.probe(
                    k.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                    hand(0, 0),
                    1,
                    1,
                    u16::MAX
                )
                .found
            );
        }
        assert!(
            !t.probe(0x9e37_79b9_7f4a_7c15, hand(0, 0), 1, 1, u16::MAX)
                .found
        );
    }

    /// Keys that differ only in the byte the generation takes never share a cluster.
    #[test]
    fn the_generation_byte_never_tells_boards_apart() {
        let t = Table::new(1);
        let a = 0x0012_3456_789a_bcdeu64;
        let b = a | 0xff << 56;
        assert_ne!(t.index(a), t.index(b));
        t.store(a, &store(0, INF, hand(0, 0)));
        assert!(!t.probe(b, hand(0, 0), 1, 1, u16::MAX).found);
    }

    /// Probes read a cluster's keys without its lock while other threads write it. Two
    /// threads store into a small table, one only proofs and the other only disproofs, on
    /// boards that share clusters, and both probe all the boards: a probe must never take
    /// one board's result for another's, nor see a torn entry (a proof with a dn below INF).
    #[test]
    fn probes_without_the_lock_see_only_whole_results() {
        let t = Table::new(1);
        let clusters = t.len() as u64;
        // Board b and its result: even boards are proven, odd ones disproven. Keys are
        // spread so that the boards fall over a few clusters and compete for slots.
        let key = |b: u64| ((b % 16) * (u64::MAX / clusters) + (b / 16) * 0x1357) | 1;
        std::thread::scope(|scope| {
            for side in 0..2u64 {
                let t = &t;
                scope.spawn(move || {
                    for round in 0..200_000u64 {
                        let b = (round * 7 + side) % 64 / 2 * 2 + side;
                        let (pn, dn) = if side == 0 { (0, INF) } else { (INF, 0) };
                        t.store(key(b), &store(pn, dn, hand(0, 0)));
                        let other = (round * 13) % 64;
                        let p = t.probe(key(other), hand(0, 0), 5, 5, u16::MAX);
                        if p.pn == 0 {
                            assert!(other % 2 == 0 && p.dn == INF, "board {other}: {p:?}");
                        }
                        if p.dn == 0 {
                            assert!(other % 2 == 1 && p.pn == INF, "board {other}: {p:?}");
                        }
                    }
                });
            }
        });
        // Every board stored last is still answered (a cluster holds eight slots; 64 boards
        // in 16 clusters is four per cluster).
        for b in 0..64 {
            let p = t.probe(key(b), hand(0, 0), 5, 5, u16::MAX);
            assert!(p.found, "board {b}");
            assert_eq!(p.pn == 0, b % 2 == 0, "board {b}");
        }
    }
}
