//! A length-bounded df-pn: "is there a mate within `n` plies under tsume rules?"
//!
//! Nodes are (position, bound). Every child has a smaller bound, except the futility test
//! of an interposing drop (see [`super::futile`]), which moves the checker strictly closer
//! to the king; so the search graph is acyclic and needs no repetition handling, and
//! every stored result holds whatever path led to it. Results are kept per position as
//! the shortest proven length and the largest disproven bound: a proof within `n` holds
//! for every larger bound, a disproof for every smaller one.

use super::futile::{give_back, interposition_line, is_interposing_drop, takes_interposition};
use crate::proof_hand::{
    and_disproof, and_proof_drop_rule, captured_kind, disproof_ceiling, or_disproof, or_proof,
};
use kanju_engine::{Color, GenMode, Hand, Move, MoveList, Position, Square};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Proof and disproof numbers saturate here.
pub(crate) const INF: u32 = 1 << 30;
/// A bound no mate needs: "disproven at NEVER" means no mate at any length.
pub(crate) const NEVER: i32 = 1 << 24;

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
type Map<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// What one node asks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// Attacker to move: some check mates within the bound.
    Or,
    /// Defender to move, in check: every reply that is not a futile drop is mated within
    /// the bound less one.
    And,
    /// Attacker to move right after the defender dropped a piece on `s` against the check
    /// from `checker`, `n` being the defender node's bound: either the interposition is
    /// futile (the checker takes it and, the piece given back, the defender is mated; a
    /// mate within `m`, the length against the other replies, is the search's own test,
    /// the rest is `give_back_settled`'s) or it is mated normally within
    /// `n - 1`.
    Interpose { s: Square, checker: Square, m: i32 },
}

/// A node: a position and the plies left (for `Interpose`, the defender node's bound).
#[derive(Clone)]
pub(crate) struct Node {
    pub pos: Position,
    pub kind: Kind,
    pub n: i32,
    /// A futility test: the capture of an interposed piece with the piece given back.
    pub gives_back: bool,
    /// The move that led here from the parent, for proof and disproof hands.
    pub mv: Option<Move>,
}

impl Node {
    /// A node with the bound rounded to the parity its side can use.
    pub fn new(pos: Position, kind: Kind, n: i32) -> Node {
        let n = match kind {
            Kind::Or if n % 2 == 0 => n - 1,
            Kind::And if n % 2 != 0 => n - 1,
            _ => n,
        };
        Node {
            pos,
            kind,
            n,
            gives_back: false,
            mv: None,
        }
    }

    fn after(mut self, m: Move) -> Node {
        self.mv = Some(m);
        self
    }
}

#[derive(Clone, Copy)]
struct Known {
    /// A proof holds for any attacker hand that dominates this one, a disproof for any
    /// hand it dominates (pieces are conserved, so the defender holds the rest). Proofs
    /// and disproofs store their proof and disproof pieces, so one entry answers for
    /// many hands.
    hand: Hand,
    /// Shortest length proven (NEVER if none).
    proven: i32,
    /// Largest bound disproven (-1 if none).
    disproven: i32,
}

/// An open node's numbers in `work`, with the nodes searched under it so far: when the
/// table is full the cheapest half goes (small trees first, as in Nagai's SmallTreeGC),
/// and the big subtrees a long search has built stay.
#[derive(Clone, Copy)]
struct Work {
    val: Val,
    effort: u32,
}

/// One child's standing.
#[derive(Clone, Copy)]
struct Val {
    pn: u32,
    dn: u32,
    /// Proven: the length; disproven: the bound.
    len: i32,
    /// Proven: the proof pieces; disproven: the disproof pieces; otherwise unused.
    hand: Hand,
}

impl Val {
    fn proven(len: i32, hand: Hand) -> Val {
        Val {
            pn: 0,
            dn: INF,
            len,
            hand,
        }
    }

    fn disproven(len: i32, hand: Hand) -> Val {
        Val {
            pn: INF,
            dn: 0,
            len,
            hand,
        }
    }

    fn open(pn: u32, dn: u32) -> Val {
        Val {
            pn,
            dn,
            len: 0,
            hand: Hand::EMPTY,
        }
    }
}

/// What the df-pn table that proved the problem knows of a position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Hint {
    /// Mated; the df-pn proof's length, to order the moves of a walk over the proof.
    Mated(u16),
    /// Not mated at any length, whatever the path: a disproof here at every bound.
    NoMate,
    /// Not known.
    Unknown,
}

/// A source of [`Hint`]s: the solver's table.
pub(crate) type Hints<'a> = &'a (dyn Fn(&Position) -> Hint + Sync);

/// An unbounded mate search (the solver's df-pn on its own table) for a position, within
/// a deadline and a node budget: `Some(true)` mated, `Some(false)` not mated whatever the
/// path, `None` undecided.
pub(crate) type MateSearch<'a> =
    &'a (dyn Fn(&Position, Option<Instant>, u64) -> Option<bool> + Sync);

/// The solver's df-pn proving `pos` again from its children, within a deadline and a
/// node budget, so that its table holds the child proofs once more: whether it did.
pub(crate) type Reprove<'a> = &'a (dyn Fn(&Position, Option<Instant>, u64) -> bool + Sync);

/// Nodes the df-pn may spend on one give-back position. Most tests that run out are
/// positions that are not mated, which df-pn cannot disprove in a few thousand nodes, and
/// a problem can meet thousands of them, so the budget is time. The Zuko 69 variation of
/// `a_drop_is_futile_when_the_give_back_position_is_mated_at_any_length`, a 10-ply mate
/// on an empty table, needs 2,000.
const GIVE_BACK_NODES: u64 = 3_000;

/// The searcher and its tables, kept across searches of one problem.
pub(crate) struct Bounded<'a> {
    pub attacker: Color,
    pub check_mode: GenMode,
    known: Map<Vec<Known>>,
    work: Map<Work>,
    pub nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    stop: &'a AtomicBool,
    hints: Hints<'a>,
    /// Decides futility tests at any length; without it they ask for a mate within the
    /// length of the other replies.
    mate_search: Option<MateSearch<'a>>,
    /// Verdicts on give-back positions, by full key (hands included).
    give_back: Map<Option<bool>>,
    /// Futility tests the mate search left undecided, for the debug log: those drops
    /// counted as effective (docs/rules.md).
    pub undecided_futility: u64,
    /// Entries each table may hold before it is cleared: half the memory budget each.
    work_cap: usize,
    known_cap: usize,
    /// The current search ran out of time, nodes or was stopped.
    pub aborted: bool,
    /// The root's proof and disproof numbers when the last search ran out of its limits.
    pub last_open: Option<(u32, u32)>,
}

const INTERPOSE_SALT: u64 = 0x9e37_79b9_7f4a_7c15;
/// Bytes one entry of `work` may take, hash-map slack and growth included.
const WORK_ENTRY_BYTES: usize = 64;
/// Bytes one entry of `known` may take, with its vector's allocation.
const KNOWN_ENTRY_BYTES: usize = 160;

fn mix(a: i32, salt: u64) -> u64 {
    (a as u64 ^ salt)
        .wrapping_mul(0xff51_afd7_ed55_8ccd)
        .rotate_left(29)
}

impl Drop for Bounded<'_> {
    /// Frees the tables on another thread: tens of millions of entries take seconds to
    /// free, and the caller is waiting for the line.
    fn drop(&mut self) {
        let known = std::mem::take(&mut self.known);
        let work = std::mem::take(&mut self.work);
        if known.len() + work.len() > 100_000 {
            std::thread::spawn(move || drop((known, work)));
        }
    }
}

impl<'a> Bounded<'a> {
    pub fn new(
        attacker: Color,
        check_mode: GenMode,
        stop: &'a AtomicBool,
        hints: Hints<'a>,
        memory_bytes: usize,
    ) -> Bounded<'a> {
        Bounded {
            attacker,
            check_mode,
            known: Map::default(),
            work: Map::default(),
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            stop,
            hints,
            mate_search: None,
            give_back: Map::default(),
            undecided_futility: 0,
            work_cap: (memory_bytes / 2 / WORK_ENTRY_BYTES).max(1024),
            known_cap: (memory_bytes / 2 / KNOWN_ENTRY_BYTES).max(1024),
            aborted: false,
            last_open: None,
        }
    }

    /// Decides futility tests with `search` (see [`super::futile`]).
    pub fn set_mate_search(&mut self, search: MateSearch<'a>) {
        self.mate_search = Some(search);
    }

    /// Whether the tables already say that the give-back position `q` of a futility test
    /// is mated at some length: the df-pn table's verdict, or a proof in this search's.
    /// Always `None` under the same-length rule.
    fn give_back_known(&self, q: &Position) -> Option<bool> {
        self.mate_search?;
        match (self.hints)(q) {
            Hint::Mated(_) => Some(true),
            Hint::NoMate => Some(false),
            Hint::Unknown if self.proven_len(q).is_some() => Some(true),
            Hint::Unknown if self.disproven_bound(q) >= NEVER => Some(false),
            Hint::Unknown => None,
        }
    }

    /// Whether `q` is mated at any length, by a df-pn search with a node budget; `None`
    /// when it stays undecided (counted in `undecided_futility`).
    fn give_back_searched(&mut self, q: &Position) -> Option<bool> {
        let key = q.key();
        if let Some(&v) = self.give_back.get(&key) {
            return v;
        }
        let v = self
            .mate_search
            .and_then(|f| f(q, self.deadline, GIVE_BACK_NODES));
        if v.is_none() {
            self.undecided_futility += 1;
        }
        log::trace!("give-back {} mated: {v:?}", q.to_sfen());
        if self.give_back.len() >= self.known_cap {
            self.give_back.clear();
        }
        self.give_back.insert(key, v);
        v
    }

    /// Whether a futility test whose bound is `m` (the length against the other replies)
    /// accepts a mate at any length. Not where every reply is a drop (`m` = 0): the check
    /// would be mate but for them, so a mate that goes on after the capture is no mate
    /// here, and the capture must mate again at once.
    fn any_length(&self, m: i32) -> bool {
        self.mate_search.is_some() && m > 0
    }

    /// A futility test's node valued by the tables' verdicts alone, if they have one.
    fn give_back_initial(&self, node: &Node) -> Option<Val> {
        if !self.any_length(node.n) {
            return None;
        }
        let hand = node.pos.hand(self.attacker);
        match self.give_back_known(&node.pos)? {
            true => Some(Val::proven(0, hand)),
            false => Some(Val::disproven(NEVER, hand)),
        }
    }

    /// A futility test's node after the bounded search disproved it within its horizon:
    /// the df-pn may still find the give-back position mated at a greater length.
    fn give_back_settled(&mut self, node: &Node, v: Val) -> Val {
        if v.dn != 0 || self.aborted || v.len >= NEVER || !self.any_length(node.n) {
            return v;
        }
        match self.give_back_searched(&node.pos) {
            Some(true) => Val::proven(0, node.pos.hand(self.attacker)),
            _ => v,
        }
    }

    /// The futility test on the give-back position `q`, whose sibling defences are mated
    /// within `m`: see [`super::futile`].
    pub fn give_back_test(&mut self, q: Position, m: i32) -> Option<bool> {
        if let Some(v) = self
            .any_length(m)
            .then(|| self.give_back_known(&q))
            .flatten()
        {
            return Some(v);
        }
        match self.prove(&Node::new(q.clone(), Kind::And, m))? {
            true => Some(true),
            false => Some(self.any_length(m) && self.give_back_searched(&q) == Some(true)),
        }
    }

    /// Sets the limits of the following searches.
    pub fn set_limits(&mut self, deadline: Option<Instant>, nodes: Option<u64>) {
        self.deadline = deadline;
        self.node_limit = nodes.map_or(u64::MAX, |n| self.nodes.saturating_add(n));
    }

    /// Proves or disproves `node`: `Some(true)` mate within the bound, `Some(false)` none,
    /// `None` when the limits ran out first.
    pub fn prove(&mut self, node: &Node) -> Option<bool> {
        self.aborted = false;
        self.last_open = None;
        loop {
            let v = self.mid(node, INF, INF);
            if v.pn == 0 {
                return Some(true);
            }
            if v.dn == 0 {
                return Some(false);
            }
            if self.aborted {
                self.last_open = Some((v.pn, v.dn));
                return None;
            }
        }
    }

    /// Mate within `n` from `pos` (defender or attacker to move), with limits.
    pub fn within(&mut self, pos: &Position, n: i32) -> Option<bool> {
        let kind = self.kind_of(pos);
        self.prove(&Node::new(pos.clone(), kind, n))
    }

    /// `Or` if the attacker is to move, else `And`.
    pub fn kind_of(&self, pos: &Position) -> Kind {
        if pos.side_to_move() == self.attacker {
            Kind::Or
        } else {
            Kind::And
        }
    }

    /// What `known` says of `pos` under hand dominance: the shortest proven length (NEVER
    /// if none) and the largest disproven bound (-1 if none), in one probe.
    fn known_bounds(&self, pos: &Position) -> (i32, i32) {
        let (p, d) = self.known_vals(pos);
        (p.len, d.len)
    }

    /// [`Self::known_bounds`] with the proof and disproof pieces behind them.
    fn known_vals(&self, pos: &Position) -> (Val, Val) {
        let hand = pos.hand(self.attacker);
        let mut p = Val::proven(NEVER, hand);
        let mut d = Val::disproven(-1, hand);
        for k in self.known.get(&pos.board_key()).into_iter().flatten() {
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

    fn work_key(node: &Node) -> u64 {
        match node.kind {
            Kind::Interpose { s, m, .. } => {
                node.pos.key()
                    ^ INTERPOSE_SALT
                    ^ mix(node.n, 1)
                    ^ mix(m, 2)
                    ^ mix(s.index() as i32, 3)
            }
            _ => node.pos.key() ^ mix(node.n, 0),
        }
    }

    /// What the tables hold for `node`, if anything.
    fn stored(&self, node: &Node) -> Option<Val> {
        if !matches!(node.kind, Kind::Interpose { .. }) {
            if node.kind == Kind::Or && node.n < 1 || node.n < 0 {
                return Some(Val::disproven(node.n, Hand::full()));
            }
            let (p, d) = self.known_vals(&node.pos);
            if p.len <= node.n {
                return Some(p);
            }
            if d.len >= node.n {
                return Some(d);
            }
        }
        self.work.get(&Self::work_key(node)).map(|w| w.val)
    }

    /// The value of a node not visited yet: the df-pn table's verdict orders the search.
    /// A child it proved is tried first at an attacker node, one it did not last at a
    /// defender node.
    fn initial(&self, node: &Node) -> Val {
        // Near the leaves the search settles a node faster than a probe of the big
        // shared table (a cache miss behind a lock) can.
        let hint = match node.kind {
            Kind::Interpose { .. } => Hint::Unknown,
            _ if node.n < 3 => Hint::Unknown,
            _ => (self.hints)(&node.pos),
        };
        match hint {
            Hint::NoMate => Val::disproven(NEVER, node.pos.hand(self.attacker)),
            Hint::Mated(_) => Val::open(1, 2),
            Hint::Unknown => Val::open(2, 1),
        }
    }

    fn lookup(&self, node: &Node) -> Val {
        self.stored(node).unwrap_or_else(|| self.initial(node))
    }

    /// [`Self::lookup`] for a child of the node being searched: its initial value (a probe
    /// of the shared df-pn table) is taken once per expansion, not once per iteration.
    fn lookup_child(&self, node: &Node, initial: &mut Option<Val>) -> Val {
        self.stored(node)
            .unwrap_or_else(|| *initial.get_or_insert_with(|| self.initial(node)))
    }

    /// Records `v` for `node`, whose search took `effort` nodes this time.
    fn store(&mut self, node: &Node, v: Val, effort: u64) {
        let resolved = v.pn == 0 || v.dn == 0;
        if resolved && !matches!(node.kind, Kind::Interpose { .. }) {
            if self.known.len() >= self.known_cap {
                self.make_room();
            }
            let hand = v.hand;
            let ks = self.known.entry(node.pos.board_key()).or_default();
            let i = match ks.iter().position(|k| k.hand == hand) {
                Some(i) => i,
                None => {
                    if ks.len() >= 16 {
                        ks.remove(0);
                    }
                    ks.push(Known {
                        hand,
                        proven: NEVER,
                        disproven: -1,
                    });
                    ks.len() - 1
                }
            };
            let k = &mut ks[i];
            if v.pn == 0 {
                k.proven = k.proven.min(v.len);
            } else {
                k.disproven = k.disproven.max(v.len);
            }
            self.work.remove(&Self::work_key(node));
        } else {
            if self.work.len() >= self.work_cap {
                self.collect_work();
            }
            let effort = effort.min(u32::MAX as u64) as u32;
            self.work
                .entry(Self::work_key(node))
                .and_modify(|w| {
                    w.val = v;
                    w.effort = w.effort.saturating_add(effort);
                })
                .or_insert(Work { val: v, effort });
        }
    }

    /// Frees half of `work` when it is full: the entries whose subtrees took the fewest
    /// nodes, being the quickest to search again. Clearing it all, as before, threw away
    /// the whole open tree of a search that filled it (Zuko 99's disproof of "within
    /// 115", cleared at 8 M entries after 14 M nodes, started over from its root).
    fn collect_work(&mut self) {
        let mut efforts: Vec<u32> = self.work.values().map(|w| w.effort).collect();
        let Some(mid) = efforts.len().checked_sub(1).map(|n| n / 2) else {
            return;
        };
        let (_, &mut cut, _) = efforts.select_nth_unstable(mid);
        let before = self.work.len();
        // At least half go: every entry at or below the median.
        self.work.retain(|_, w| w.effort > cut);
        for w in self.work.values_mut() {
            // Old effort counts for less, so that the next collection can free what the
            // search has left behind since.
            w.effort /= 2;
        }
        log::debug!(
            "mainline: work table collected, {before} -> {} entries ({} nodes)",
            self.work.len(),
            self.nodes
        );
    }

    /// Frees a quarter or more of `known` when it is full. Disproofs of small bounds go
    /// first: they are the most numerous and the quickest to find again. Proofs stay while
    /// anything else can go, since the line is read from them.
    fn make_room(&mut self) {
        let target = self.known_cap - self.known_cap / 4;
        let mut bound = 1;
        while self.known.len() > target && bound < NEVER {
            for ks in self.known.values_mut() {
                for k in ks.iter_mut() {
                    if k.disproven <= bound {
                        k.disproven = -1;
                    }
                }
                ks.retain(|k| k.disproven >= 0 || k.proven < NEVER);
            }
            self.known.retain(|_, ks| !ks.is_empty());
            bound = if bound >= 64 { NEVER } else { bound + 4 };
        }
        if self.known.len() > target {
            self.known.clear();
        }
        log::debug!(
            "mainline: known table pruned to {} entries",
            self.known.len()
        );
    }

    /// The df-pn table's verdict on `pos`.
    pub fn hint(&self, pos: &Position) -> Hint {
        (self.hints)(pos)
    }

    /// Records that `pos` is mated within `len` (shown by a proof tree outside this search).
    pub fn remember_proof(&mut self, pos: &Position, len: i32) {
        let kind = self.kind_of(pos);
        let node = Node {
            pos: pos.clone(),
            kind,
            n: len,
            gives_back: false,
            mv: None,
        };
        self.store(&node, Val::proven(len, pos.hand(self.attacker)), 0);
    }

    /// The deadline of the following searches has passed.
    pub fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The caller asked the search to stop.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn out_of_limits(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.nodes & 1023 == 0 {
            let late = self.deadline.is_some_and(|d| Instant::now() >= d);
            if late || self.stop.load(Ordering::Relaxed) || self.nodes >= self.node_limit {
                self.aborted = true;
            }
        }
        self.aborted
    }

    /// The children of `node`, or its value when it is decided without them.
    fn expand(&self, node: &Node) -> Result<Vec<Node>, Val> {
        let mut list = MoveList::new();
        let pos = &node.pos;
        let n = node.n;
        let actual = pos.hand(self.attacker);
        match node.kind {
            Kind::Or => {
                if n < 1 {
                    return Err(Val::disproven(n, Hand::full()));
                }
                if let Some(m) = pos.mate_in_1() {
                    let mated = and_proof_drop_rule(&pos.play(m), self.attacker, Hand::EMPTY);
                    return Err(Val::proven(1, or_proof(mated, m, captured_kind(pos, m))));
                }
                pos.checks(self.check_mode, &mut list);
                if list.is_empty() {
                    // More of the kinds already held adds no check.
                    return Err(Val::disproven(NEVER, disproof_ceiling(actual)));
                }
                Ok(list
                    .as_slice()
                    .iter()
                    .map(|&m| Node::new(pos.play(m), Kind::And, n - 1).after(m))
                    .collect())
            }
            Kind::And => {
                if n < 0 {
                    return Err(Val::disproven(n, Hand::full()));
                }
                pos.evasions(GenMode::All, &mut list);
                if list.is_empty() {
                    let p = and_proof_drop_rule(pos, self.attacker, Hand::EMPTY);
                    return Err(Val::proven(0, p));
                }
                let line = interposition_line(pos);
                let mut kids = Vec::with_capacity(list.len());
                for &m in list.as_slice() {
                    let child = pos.play(m);
                    if is_interposing_drop(m, line) {
                        let checker = line.expect("an interposition has a line").0;
                        kids.push(Node {
                            pos: child,
                            kind: Kind::Interpose {
                                s: m.to(),
                                checker,
                                m: n,
                            },
                            n,
                            gives_back: false,
                            mv: Some(m),
                        });
                    } else {
                        if n < 2 {
                            // A real defence (a king move or a capture, there whatever
                            // the attacker holds) and no plies left for the attacker.
                            return Err(Val::disproven(n, Hand::full()));
                        }
                        kids.push(Node::new(child, Kind::Or, n - 1).after(m));
                    }
                }
                // Real defences first: their lengths set the futility bound.
                kids.sort_by_key(|k| matches!(k.kind, Kind::Interpose { .. }));
                Ok(kids)
            }
            Kind::Interpose { s, checker, m } => {
                pos.checks(self.check_mode, &mut list);
                let mut kids = Vec::new();
                for &c in list.as_slice() {
                    let after = pos.play(c);
                    if takes_interposition(c, s, checker, &after) {
                        let kind = pos.piece_on(s).expect("the dropped piece").kind();
                        if let Some(q) = give_back(&after, kind) {
                            let mut q = Node::new(q, Kind::And, m).after(c);
                            q.gives_back = true;
                            kids.push(q);
                        }
                    }
                    if n >= 2 {
                        kids.push(Node::new(after, Kind::And, n - 2).after(c));
                    }
                }
                if kids.is_empty() {
                    return Err(Val::disproven(n, actual));
                }
                Ok(kids)
            }
        }
    }

    /// How much a proven child adds to its parent's length.
    fn contribution(parent: Kind, child: &Node, len: i32, pseudo: bool) -> i32 {
        match parent {
            Kind::Or => len + 1,
            Kind::And => match child.kind {
                Kind::Interpose { .. } => len,
                _ => len + 1,
            },
            // A futile drop costs nothing; a real capture line costs the drop and the
            // capture (`len` counts from after the capture).
            Kind::Interpose { .. } => {
                if pseudo {
                    0
                } else {
                    len + 2
                }
            }
        }
    }

    /// The value of `node` once its children `vals` settle it: the length (or bound) and
    /// the proof (or disproof) pieces. At a defender node `best` is a refuting child
    /// when there is one.
    fn resolved(
        &self,
        node: &Node,
        kids: &[Node],
        vals: &[Val],
        pseudo: &[bool],
        best: usize,
    ) -> Val {
        let pos = &node.pos;
        let actual = pos.hand(self.attacker);
        let or_like = !matches!(node.kind, Kind::And);
        if vals.iter().all(|v| v.pn == 0) || (or_like && vals.iter().any(|v| v.pn == 0)) {
            if or_like {
                // The shortest proven child.
                let (i, len) = (0..kids.len())
                    .filter(|&i| vals[i].pn == 0)
                    .map(|i| {
                        (
                            i,
                            Self::contribution(node.kind, &kids[i], vals[i].len, pseudo[i]),
                        )
                    })
                    .min_by_key(|&(_, c)| c)
                    .expect("a proven child");
                let m = kids[i].mv.expect("a child records its move");
                let hand = if pseudo[i] {
                    vals[i].hand
                } else {
                    or_proof(vals[i].hand, m, captured_kind(pos, m))
                };
                return Val::proven(len, hand);
            }
            let mut len = 0;
            let mut hand = Hand::EMPTY;
            for (i, v) in vals.iter().enumerate() {
                len = len.max(Self::contribution(node.kind, &kids[i], v.len, pseudo[i]));
                hand = hand.max(v.hand);
            }
            return Val::proven(len, and_proof_drop_rule(pos, self.attacker, hand));
        }
        if or_like {
            let mut hand = disproof_ceiling(actual);
            for (i, v) in vals.iter().enumerate() {
                let m = kids[i].mv.expect("a child records its move");
                hand = if pseudo[i] {
                    hand.min(v.hand)
                } else {
                    or_disproof(hand, v.hand, m, captured_kind(pos, m))
                };
            }
            let len = if node.kind == Kind::Or {
                let d = vals.iter().map(|v| v.len).min().unwrap_or(NEVER);
                if d >= NEVER {
                    NEVER
                } else {
                    (d + 1).max(node.n)
                }
            } else {
                node.n
            };
            return Val::disproven(len, hand);
        }
        let m = kids[best].mv.expect("a child records its move");
        Val::disproven(node.n, and_disproof(vals[best].hand, m, actual))
    }

    fn mid(&mut self, node: &Node, th_pn: u32, th_dn: u32) -> Val {
        self.nodes += 1;
        let start = self.nodes;
        let cur = self.lookup(node);
        if cur.pn == 0 || cur.dn == 0 {
            return cur;
        }
        if self.out_of_limits() {
            return cur;
        }
        let mut kids = match self.expand(node) {
            Ok(k) => k,
            Err(v) => {
                self.store(node, v, 1);
                return v;
            }
        };
        let or_like = !matches!(node.kind, Kind::And);
        // For Interpose: which children are futility tests (the given-back positions).
        let pseudo: Vec<bool> = match node.kind {
            Kind::Interpose { .. } => kids.iter().map(|k| k.gives_back).collect(),
            _ => vec![false; kids.len()],
        };
        let n_real = kids
            .iter()
            .filter(|k| !matches!(k.kind, Kind::Interpose { .. }))
            .count();
        let mut initial: Vec<Option<Val>> = vec![None; kids.len()];
        // Children's values are looked up once and then follow what their searches return:
        // re-probing every child on every iteration cost more than all else (a sibling
        // settled meanwhile through a transposition is seen when it is searched).
        let mut vals: Vec<Val> = Vec::with_capacity(kids.len());
        for (k, init) in kids[..n_real].iter().zip(&mut initial) {
            let v = if k.gives_back {
                let v = self.give_back_initial(k);
                let v = v.unwrap_or_else(|| self.lookup_child(k, init));
                self.give_back_settled(k, v)
            } else {
                self.lookup_child(k, init)
            };
            vals.push(v);
        }
        let mut futility_bound = None;
        loop {
            if n_real < kids.len() {
                // The futility bound: the length against the real defences, once known.
                let real = &vals[..n_real];
                let m = if real.iter().all(|v| v.pn == 0) {
                    real.iter().map(|v| v.len + 1).max().unwrap_or(0)
                } else {
                    node.n
                };
                if futility_bound != Some(m) {
                    futility_bound = Some(m);
                    vals.truncate(n_real);
                    for (k, init) in kids[n_real..].iter_mut().zip(&mut initial[n_real..]) {
                        if let Kind::Interpose { m: km, .. } = &mut k.kind {
                            *km = m;
                        }
                        vals.push(self.lookup_child(k, init));
                    }
                }
            }
            let (mut pn, mut dn) = if or_like { (INF, 0u32) } else { (0u32, INF) };
            let mut best = 0usize;
            let mut second = INF;
            for (i, v) in vals.iter().enumerate() {
                if or_like {
                    dn = (dn + v.dn).min(INF);
                    if v.pn < pn {
                        second = pn;
                        pn = v.pn;
                        best = i;
                    } else if v.pn < second {
                        second = v.pn;
                    }
                } else {
                    pn = (pn + v.pn).min(INF);
                    if v.dn < dn {
                        second = dn;
                        dn = v.dn;
                        best = i;
                    } else if v.dn < second {
                        second = v.dn;
                    }
                }
            }
            if pn == 0 || dn == 0 {
                let v = self.resolved(node, &kids, &vals, &pseudo, best);
                self.store(node, v, self.nodes - start + 1);
                return v;
            }
            if pn >= th_pn || dn >= th_dn || self.aborted {
                let v = Val::open(pn, dn);
                self.store(node, v, self.nodes - start + 1);
                return v;
            }
            let (cpn, cdn) = if or_like {
                let cpn = th_pn.min(second.saturating_add(1).max(second + second / 4));
                let cdn = th_dn - dn + vals[best].dn;
                (cpn, cdn)
            } else {
                let cdn = th_dn.min(second.saturating_add(1).max(second + second / 4));
                let cpn = th_pn - pn + vals[best].pn;
                (cpn, cdn)
            };
            let child = kids[best].clone();
            vals[best] = self.mid(&child, cpn.min(INF), cdn.min(INF));
            if child.gives_back {
                vals[best] = self.give_back_settled(&child, vals[best]);
            }
            // Aborted, the loop goes round once more to return the value with the child's
            // latest: in a forced line every node passes its child unlimited thresholds,
            // so what it held before the child's search says nothing of the frontier, and
            // `last_open` steers the steps down (MATE_LEAN).
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_hints(_: &Position) -> Hint {
        Hint::Unknown
    }

    #[test]
    fn a_proof_stores_its_proof_pieces() {
        // G*5b mates, guarded by the pawn on 5c: the silver in hand plays no part.
        let with_silver =
            Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b GS2r2b3g3s4n4l17p 1").unwrap();
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 1 << 20);
        assert_eq!(b.within(&with_silver, 1), Some(true));
        // So the same board with the gold alone is known mated in 1 without a search,
        let gold_only = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1").unwrap();
        assert_eq!(b.proven_len(&gold_only), Some(1));
        // but not without the gold.
        let silver_only =
            Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b S2r2b4g3s4n4l17p 1").unwrap();
        assert_eq!(b.proven_len(&silver_only), None);
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
            assert!(b.stored(&node(n)).is_none(), "bound {n} took few nodes");
        }
        for n in (9..18).step_by(2) {
            assert!(b.stored(&node(n)).is_some(), "bound {n} stays");
        }
        // A node searched again adds its nodes to what it had.
        b.store(&node(17), Val::open(7, 8), 1_000);
        let w = b.work[&Bounded::work_key(&node(17))];
        assert_eq!((w.val.pn, w.effort), (7, 1_001));
    }
}
