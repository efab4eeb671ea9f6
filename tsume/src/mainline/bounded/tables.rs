//! The bounded search's tables: `known`, the proofs and disproofs by board and attacker's
//! hand, read under hand dominance, and `work`, the open nodes' numbers by node, each
//! with its own garbage collection.

use super::expand::Kid;
use super::{Bounded, Kind, Node, Val, NEVER};
use crate::mainline::known::KnownSet;
use crate::mainline::solver::Hint;
use kanju_engine::{GenMode, Hand, Move, MoveList, Position};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Keys are Zobrist hashes already; hashing them again only costs time.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys")
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = k;
    }
}

pub(super) type Map<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// What the tables know a node by: its question and its position's board and attacker's
/// hand (pieces are conserved, so the two fix the defender's hand).
#[derive(Clone, Copy)]
pub(super) struct Spot {
    pub(super) kind: Kind,
    pub(super) n: i32,
    pub(super) board_key: u64,
    pub(super) hand: Hand,
}

/// An open node's numbers in `work`, with the nodes searched under it so far: when the
/// table is full the cheapest half goes (small trees first, as in Nagai's SmallTreeGC),
/// and the big subtrees a long search has built stay.
#[derive(Clone, Copy, Default)]
pub(super) struct Work {
    pub(super) val: Val,
    pub(super) effort: u32,
}

/// Sets a futility test's work key apart from the other questions asked of its position.
const INTERPOSE_SALT: u64 = 0x2545_f491_4f6c_dd1d;

/// A 64-bit mix of `x` (splitmix64's finaliser). Keys built from small numbers need it:
/// plain multiples of them cancel when XORed (see `work_keys_tell_hands_and_bounds_apart`).
fn scramble(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Bounded<'_> {
    /// What `known` says of `pos` under hand dominance: the shortest proven length (NEVER
    /// if none) and the largest disproven bound (-1 if none), in one probe.
    pub(super) fn known_bounds(&self, pos: &Position) -> (i32, i32) {
        let (p, d) = self.known_vals(pos);
        (p.len, d.len)
    }

    /// [`Self::known_bounds`] with the proof and disproof pieces behind them.
    pub(super) fn known_vals(&self, pos: &Position) -> (Val, Val) {
        self.known_vals_at(pos.board_key(), pos.hand(self.attacker))
    }

    /// [`Self::known_vals`] of the board `board_key` with the attacker holding `hand`.
    pub(super) fn known_vals_at(&self, board_key: u64, hand: Hand) -> (Val, Val) {
        let mut p = Val::proven(NEVER, hand);
        let mut d = Val::disproven(-1, hand);
        let own = self.known.get(board_key);
        let base = self.base.and_then(|b| b.known.get(board_key));
        let own = own.map_or(&[][..], KnownSet::as_slice);
        let base = base.map_or(&[][..], KnownSet::as_slice);
        for k in own.iter().chain(base) {
            if k.proven < p.len && hand.dominates(k.hand) {
                p = Val::proven(k.proven, k.hand);
            }
            if k.disproven > d.len && k.hand.dominates(hand) {
                d = Val::disproven(k.disproven, k.hand);
            }
        }
        (p, d)
    }

    /// The shortest proven length of `pos` (or of one its attacker's hand dominates).
    pub fn proven_len(&self, pos: &Position) -> Option<i32> {
        Some(self.known_bounds(pos).0).filter(|&p| p < NEVER)
    }

    /// The largest disproven bound of `pos` (or of one whose attacker's hand dominates
    /// it); -1 if none.
    pub fn disproven_bound(&self, pos: &Position) -> i32 {
        self.known_bounds(pos).1
    }

    /// The moves a line read off the tables chooses among at `pos`, into `list`: the
    /// checks at an attacker node, the evasions at a defender node. An attacker node with
    /// a mate in one returns that mate instead, since the searches store no node below it.
    pub fn line_moves(&self, pos: &Position, list: &mut MoveList) -> Option<Move> {
        list.clear();
        if pos.side_to_move() == self.attacker {
            pos.checks(self.check_mode, list);
            if let Some(m) = pos.mating_check(list.as_slice()) {
                return Some(m);
            }
        } else {
            pos.evasions(GenMode::All, list);
        }
        None
    }

    /// The spot of `node`.
    pub(super) fn spot(&self, node: &Node) -> Spot {
        Spot {
            kind: node.kind,
            n: node.n,
            board_key: node.pos.board_key(),
            hand: node.pos.hand(self.attacker),
        }
    }

    pub(super) fn work_key(s: &Spot) -> u64 {
        let key = s.board_key ^ scramble((u64::from(s.hand.bits()) << 32) | u64::from(s.n as u32));
        match s.kind {
            Kind::Interpose { s: sq, m, .. } => {
                key ^ scramble(INTERPOSE_SALT ^ (u64::from(m as u32) << 8) ^ sq.index() as u64)
            }
            _ => key,
        }
    }

    /// Starts loading the slots [`Self::stored`] reads for `s`.
    pub(super) fn prefetch(&self, s: &Spot) {
        let key = Self::work_key(s);
        if !matches!(s.kind, Kind::Interpose { .. }) {
            self.known.prefetch(s.board_key);
            if let Some(b) = self.base {
                b.known.prefetch(s.board_key);
            }
        }
        self.work.prefetch(key);
        if let Some(b) = self.base {
            b.work.prefetch(key);
        }
    }

    /// What the tables hold for the node at `s`, if anything.
    pub(super) fn stored(&self, s: &Spot) -> Option<Val> {
        if !matches!(s.kind, Kind::Interpose { .. }) {
            if s.kind == Kind::Or && s.n < 1 || s.n < 0 {
                return Some(Val::disproven(s.n, Hand::full()));
            }
            let (p, d) = self.known_vals_at(s.board_key, s.hand);
            if p.len <= s.n {
                return Some(p);
            }
            if d.len >= s.n {
                return Some(d);
            }
        }
        let key = Self::work_key(s);
        self.work
            .get(key)
            .or_else(|| self.base.and_then(|b| b.work.get(key)))
            .map(|w| w.val)
    }

    /// The value of a node not visited yet: the df-pn table's verdict orders the search.
    /// A child it proved is tried first at an attacker node, one it did not last at a
    /// defender node. `pos` makes the node's position, for a hint source that needs it.
    pub(super) fn initial(&self, s: &Spot, pos: impl FnOnce() -> Position) -> Val {
        let hint = if Self::takes_hint(s) {
            self.hints
                .hint_at(s.board_key, s.hand)
                .unwrap_or_else(|| self.hints.hint(&pos()))
        } else {
            Hint::Unknown
        };
        match hint {
            Hint::NoMate => Val::disproven(NEVER, s.hand),
            Hint::Mated(_) => Val::open(1, 2),
            Hint::Unknown => Val::open(2, 1),
        }
    }

    /// Whether [`Self::initial`] asks the df-pn table about the node at `s`. Near the
    /// leaves the search settles a node faster than a probe of the big shared table (a
    /// cache miss behind a lock) can.
    pub(super) fn takes_hint(s: &Spot) -> bool {
        !matches!(s.kind, Kind::Interpose { .. }) && s.n >= 3
    }

    /// [`Self::stored`], or else [`Self::initial`], for a child of the node at `parent`:
    /// its initial value (a probe of the shared df-pn table) is taken once per
    /// expansion, not once per iteration.
    pub(super) fn lookup_child(
        &self,
        parent: &Position,
        kid: &Kid,
        initial: &mut Option<Val>,
    ) -> Val {
        self.stored(&kid.spot).unwrap_or_else(|| {
            *initial.get_or_insert_with(|| self.initial(&kid.spot, || kid.node(parent).pos))
        })
    }

    /// Records `v` for `node`, whose search took `effort` nodes this time.
    pub(super) fn store(&mut self, node: &Node, v: Val, effort: u64) {
        let s = self.spot(node);
        self.store_at(&s, v, effort);
    }

    /// [`Self::store`] by the node's spot.
    pub(super) fn store_at(&mut self, s: &Spot, v: Val, effort: u64) {
        let resolved = v.pn == 0 || v.dn == 0;
        if resolved && !matches!(s.kind, Kind::Interpose { .. }) {
            let i = self.known.shard_of(s.board_key);
            if self.known.shard(s.board_key).len() >= self.known_cap
                || self.known_heap[i] > self.known_heap_cap
            {
                self.make_room(s.board_key);
            }
            let set = self
                .known
                .get_or_insert_with(s.board_key, KnownSet::default);
            let before = set.heap_bytes();
            let k = set.entry(v.hand);
            if v.pn == 0 {
                k.proven = k.proven.min(v.len);
            } else {
                k.disproven = k.disproven.max(v.len);
            }
            // A set only grows here; `make_room` counts again what it frees.
            self.known_heap[i] += set.heap_bytes() - before;
            self.work.remove(Self::work_key(s));
        } else {
            let key = Self::work_key(s);
            if self.work.shard(key).len() >= self.work_cap {
                self.collect_work(key);
            }
            let effort = effort.min(u32::MAX as u64) as u32;
            let w = self
                .work
                .get_or_insert_with(key, || Work { val: v, effort: 0 });
            w.val = v;
            w.effort = w.effort.saturating_add(effort);
        }
    }

    /// Frees half of the shard of `work` that holds `key` when it is full: the entries
    /// whose subtrees took the fewest nodes, being the quickest to search again. Clearing
    /// it all, as before, threw away the whole open tree of a search that filled it (Zuko
    /// 99's disproof of "within 115", cleared at 8 M entries after 14 M nodes, started
    /// over from its root). One shard at a time, a collection scans at most 1 M slots
    /// (21 ms on Zuko 99), where a whole table of 2 M took 38 ms and one of 16 M would
    /// take eight times that.
    pub(super) fn collect_work(&mut self, key: u64) {
        let shard = self.work.shard_mut(key);
        let mut efforts: Vec<u32> = shard.values().map(|w| w.effort).collect();
        let Some(mid) = efforts.len().checked_sub(1).map(|n| n / 2) else {
            return;
        };
        let (_, &mut cut, _) = efforts.select_nth_unstable(mid);
        let before = shard.len();
        // At least half go: every entry at or below the median.
        shard.retain(|w| w.effort > cut);
        for w in shard.values_mut() {
            // Old effort counts for less, so that the next collection can free what the
            // search has left behind since.
            w.effort /= 2;
        }
        log::debug!(
            "mainline: work shard collected, {before} -> {} entries ({} nodes)",
            shard.len(),
            self.nodes
        );
    }

    /// Frees a quarter or more of the shard of `known` that holds `key` when it is full,
    /// in entries or in the vectors of boards with several hands. Disproofs of small
    /// bounds go first: they are the most numerous and the quickest to find again. Proofs
    /// stay while anything else can go, since the line is read from them.
    pub(super) fn make_room(&mut self, key: u64) {
        let target = self.known_cap - self.known_cap / 4;
        let heap_target = self.known_heap_cap - self.known_heap_cap / 4;
        let i = self.known.shard_of(key);
        let shard = self.known.shard_mut(key);
        let mut heap = self.known_heap[i];
        let mut bound = 1;
        while (shard.len() > target || heap > heap_target) && bound < NEVER {
            heap = 0;
            for ks in shard.values_mut() {
                for k in ks.as_mut_slice() {
                    if k.disproven <= bound {
                        k.disproven = -1;
                    }
                }
                ks.retain(|k| k.disproven >= 0 || k.proven < NEVER);
                heap += ks.heap_bytes();
            }
            shard.retain(|ks| !ks.is_empty());
            bound = if bound >= 64 { NEVER } else { bound + 4 };
        }
        if shard.len() > target || heap > heap_target {
            shard.clear();
            heap = 0;
        }
        self.known_heap[i] = heap;
        log::debug!(
            "mainline: known shard pruned to {} entries, {heap} bytes outside",
            shard.len()
        );
    }

    /// Forgets what the tables hold of the node at `s` but its proofs: a drop under it
    /// has turned out futile, and its disproof may have counted the drop a defence. A
    /// drop found futile takes a defence away, so what was proven stays proven. Returns
    /// the bound of the disproof forgotten for the node's very hand, if one was kept.
    pub(super) fn forget_disproof_at(&mut self, s: &Spot) -> Option<i32> {
        self.work.remove(Self::work_key(s));
        if matches!(s.kind, Kind::Interpose { .. }) {
            return None;
        }
        let i = self.known.shard_of(s.board_key);
        let set = self.known.get_mut(s.board_key)?;
        let before = set.heap_bytes();
        let mut forgotten = None;
        for k in set.as_mut_slice() {
            if k.hand == s.hand && k.disproven >= 0 {
                forgotten = Some(k.disproven);
                k.disproven = -1;
            }
        }
        set.retain(|k| k.disproven >= 0 || k.proven < NEVER);
        let (after, empty) = (set.heap_bytes(), set.is_empty());
        self.known_heap[i] = self.known_heap[i] + after - before;
        if empty {
            self.known.remove(s.board_key);
        }
        forgotten
    }

    /// Records that `pos` is mated within `len` (shown by a proof tree outside this search).
    pub fn remember_proof(&mut self, pos: &Position, len: i32) {
        let kind = self.kind_of(pos);
        let node = Node {
            pos: pos.clone(),
            kind,
            n: len,
        };
        self.store(&node, Val::proven(len, pos.hand(self.attacker)), 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_engine::{Color, GenMode, MoveList, PieceKind, Square};
    use std::sync::atomic::AtomicBool;

    fn no_hints(_: &Position) -> Hint {
        Hint::Unknown
    }

    /// A drop found futile voids the disproofs on the way to it: the node's own, for its
    /// very hand, and its open numbers. Its proof stays, as do other hands' entries.
    #[test]
    fn forgetting_a_disproof_keeps_the_proofs_and_other_hands() {
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 1 << 20);
        let gold = Hand::EMPTY.add(PieceKind::Gold);
        let two = gold.add(PieceKind::Gold);
        let spot = |board_key: u64, hand: Hand, n: i32| Spot {
            kind: Kind::Or,
            n,
            board_key,
            hand,
        };
        b.store_at(&spot(1, gold, 9), Val::disproven(9, gold), 1);
        b.store_at(&spot(1, gold, 11), Val::proven(11, gold), 1);
        b.store_at(&spot(1, two, 9), Val::disproven(7, two), 1);
        b.store_at(&spot(2, gold, 5), Val::open(3, 4), 1);
        // What was forgotten is told, so that a search that then runs out can put it back.
        assert_eq!(b.forget_disproof_at(&spot(1, gold, 9)), Some(9));
        assert_eq!(b.forget_disproof_at(&spot(1, gold, 9)), None);
        assert_eq!(b.forget_disproof_at(&spot(2, gold, 5)), None);
        // The two-gold disproof still covers the one-gold hand, at its own bound.
        assert_eq!(b.known_vals_at(1, gold).1.len, 7);
        assert_eq!(b.known_vals_at(1, two).1.len, 7);
        assert_eq!(b.known_vals_at(1, gold).0.len, 11);
        assert!(b.stored(&spot(2, gold, 5)).is_none());
        assert_eq!(b.forget_disproof_at(&spot(1, two, 9)), Some(7));
        assert_eq!(b.known_vals_at(1, gold).1.len, -1);
    }

    #[test]
    fn a_full_known_table_keeps_its_proofs() {
        let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b GS2r2b3g3s4n4l17p 1").unwrap();
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 0);
        b.known_cap = 4;
        b.remember_proof(&pos, 1);
        // Disproofs of other boards until the table is full and must make room.
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        assert!(list.len() > 8);
        for (i, &m) in list.as_slice().iter().enumerate() {
            let after = pos.play(m);
            let node = Node::new(after.clone(), Kind::Or, 1);
            b.store(
                &node,
                Val::disproven(1 + (i % 3) as i32, after.hand(Color::Black)),
                1,
            );
            assert!(b.known.len() <= b.known_cap);
        }
        assert_eq!(b.proven_len(&pos), Some(1));
    }

    /// A board proven or disproven with several attacker hands keeps them in a vector
    /// outside the map's array. Those vectors are counted, and once a shard's vectors pass
    /// their share garbage is collected in it, disproofs first: so the main line's search stays
    /// within its part of USI_Hash. (Zuko 99's main line, 256 MiB: 129 000 of 567 000
    /// boards had several hands, 9 MB outside arrays of 32 MiB, before they were counted.)
    #[test]
    fn boards_with_several_hands_stay_within_their_share() {
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 0);
        b.known_heap_cap = 4 << 10;
        let pawns = |n: usize| (0..n).fold(Hand::EMPTY, |h, _| h.add(PieceKind::Pawn));
        let spot = |board_key: u64, hand: Hand| Spot {
            kind: Kind::Or,
            n: 5,
            board_key,
            hand,
        };
        let recount =
            |b: &Bounded| -> usize { b.known.shard(1).values().map(KnownSet::heap_bytes).sum() };
        for h in 0..2 {
            b.store_at(&spot(1, pawns(h)), Val::proven(5, pawns(h)), 1);
        }
        let mut pruned = false;
        for board in 2..400u64 {
            for h in 0..3 {
                b.store_at(&spot(board, pawns(h)), Val::disproven(1, pawns(h)), 1);
                assert_eq!(b.known_heap[0], recount(&b), "board {board}");
                // A store may add one set's vector after the check that made room.
                assert!(b.known_heap[0] <= b.known_heap_cap + 256);
            }
            pruned |= b.known.len() < board as usize;
        }
        assert!(pruned, "the share was never reached");
        for h in 0..2 {
            assert_eq!(b.known_vals_at(1, pawns(h)).0.len, 5, "the proofs stay");
        }
        assert!(b.memory_used() >= b.known.bytes() + b.known_heap[0]);
    }

    /// Nodes of one board in `work` are told apart by the attacker's hand, the bound and,
    /// for a futility test, the square and the other replies' length. Keys once mixed the
    /// last three as multiples of small numbers XORed together, which cancel: a test at
    /// a bound of 4 whose other replies were mated in 7 had the key of one at 6 with 5,
    /// and the search could read one's result for the other's. This test fails on them.
    #[test]
    fn work_keys_tell_hands_and_bounds_apart() {
        let mut seen = std::collections::HashSet::new();
        let mut hand = Hand::EMPTY;
        for pawns in 0..18 {
            for n in -1..60 {
                // Attacker to move on this board (its key says whose move it is).
                let mut kinds = vec![Kind::Or];
                for sq in Square::all().take(9) {
                    for m in 0..12 {
                        kinds.push(Kind::Interpose {
                            s: sq,
                            checker: sq,
                            m,
                        });
                    }
                }
                for kind in kinds {
                    let spot = Spot {
                        kind,
                        n,
                        board_key: 0x1234_5678_9abc_def0,
                        hand,
                    };
                    assert!(
                        seen.insert(Bounded::work_key(&spot)),
                        "{pawns} pawns, bound {n}, {kind:?}"
                    );
                }
            }
            hand = hand.add(kanju_engine::PieceKind::Pawn);
        }
    }

    #[test]
    fn a_full_work_table_keeps_its_biggest_subtrees() {
        let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b GS2r2b3g3s4n4l17p 1").unwrap();
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 0);
        b.work_cap = 8;
        // Open nodes at bounds 1, 3, .., 15: the one at bound n took n * 100 nodes.
        let node = |n| Node::new(pos.clone(), Kind::Or, n);
        for n in (1..16).step_by(2) {
            b.store(&node(n), Val::open(3, 4), n as u64 * 100);
        }
        // The ninth entry finds the table full: the cheaper half goes first.
        b.store(&node(17), Val::open(5, 6), 1);
        for n in (1..8).step_by(2) {
            assert!(
                b.stored(&b.spot(&node(n))).is_none(),
                "bound {n} took few nodes"
            );
        }
        for n in (9..18).step_by(2) {
            assert!(b.stored(&b.spot(&node(n))).is_some(), "bound {n} stays");
        }
        // A node searched again adds its nodes to what it had.
        b.store(&node(17), Val::open(7, 8), 1_000);
        let w = *b
            .work
            .get(Bounded::work_key(&b.spot(&node(17))))
            .expect("kept");
        assert_eq!((w.val.pn, w.effort), (7, 1_001));
    }
}
