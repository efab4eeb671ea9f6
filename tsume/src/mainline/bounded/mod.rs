//! A length-bounded df-pn: "is there a mate within `n` plies under tsume rules?"
//!
//! Nodes are (position, bound). Every child has a smaller bound, except the futility test
//! of an interposing drop (see [`super::futile`]), which moves the checker strictly closer
//! to the king; so the search graph is acyclic and needs no repetition handling, and
//! every stored result holds whatever path led to it. Results are kept per position as
//! the shortest proven length and the largest disproven bound: a proof within `n` holds
//! for every larger bound, a disproof for every smaller one.
//!
//! The search loop is here ([`Bounded::prove`]); a node's children and its settled value
//! are in `expand`, the tables in `tables`, and the futility tests' give-back positions
//! in `give_back`.

use super::budget::NodeBudget;
use super::give_back_ahead::GiveBackAhead;
use super::key_map::KeyMap;
use super::known::KnownSet;
use super::solver::{Hint, Hints, MateSearch};
use crate::node::Pick;
use kanju_engine::{Color, GenMode, Hand, Move, Position, Square};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

mod drop_chains;
mod expand;
mod give_back;
mod line_drops;
mod near;
mod repetition;
mod tables;

use expand::KidLists;
pub(crate) use give_back::GIVE_BACK_NODES;
pub(crate) use near::{NearMates, Recheck};
use repetition::{Dep, Path, FREE};
pub(crate) use tables::KeyHasher;
use tables::{Map, Work};

/// Proof and disproof numbers saturate here.
pub(crate) const INF: u32 = 1 << 30;
/// Nodes with at most this many plies left are searched until they are settled, whatever
/// their thresholds. Their trees are small, and under thresholds they came back again and
/// again: on Zuko 77 nine visits in ten to a node with 1 to 5 plies left ended unsettled,
/// each paying for a fresh expansion. Sixteen Edo problems' whole solves took 114.8 s at
/// 3, 133.3 s at 4 and 163.9 s at 5 (session 29, `docs/performance.md`).
const SETTLED_HERE: i32 = 3;
/// A bound no mate needs: "disproven at NEVER" means no mate at any length.
pub(crate) const NEVER: i32 = 1 << 24;
/// The least each shard of `known` may keep outside its array, and the fewest give-back
/// verdicts kept, however small the budget.
const MIN_HEAP_PER_SHARD: usize = 1 << 16;
const MIN_GIVE_BACK: usize = 1 << 10;
/// Bytes a give-back verdict may take in its hash map: 17 a bucket, at most half the
/// buckets in use just after the map has grown.
const GIVE_BACK_ENTRY_BYTES: usize = 40;

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
}

/// `n` rounded down to the parity a node of `kind` can use.
fn rounded(kind: Kind, n: i32) -> i32 {
    match kind {
        Kind::Or if n % 2 == 0 => n - 1,
        Kind::And if n % 2 != 0 => n - 1,
        _ => n,
    }
}

impl Node {
    /// A node with the bound rounded to the parity its side can use.
    pub fn new(pos: Position, kind: Kind, n: i32) -> Node {
        Node {
            n: rounded(kind, n),
            pos,
            kind,
        }
    }
}

/// One child's standing.
#[derive(Clone, Copy, Default)]
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

    /// An open value kept for a node found disproven on the path the search came by,
    /// with the refuting reply at a defender node: the tables keep the estimate from
    /// before, and the walk of a disproof follows the node (see `near`).
    fn open_refuted_on_path(pn: u32, dn: u32, refuter: Option<Move>) -> Val {
        Val {
            len: REFUTED_ON_PATH | refuter.map_or(0, |m| i32::from(m.bits())),
            ..Val::open(pn, dn)
        }
    }

    /// For an open value, whether the node was found disproven on some path, and the
    /// refuting reply found there at a defender node.
    fn refuted_on_path(&self) -> Option<Option<Move>> {
        let open = self.pn != 0 && self.dn != 0;
        (open && self.len & REFUTED_ON_PATH != 0).then(|| {
            let bits = (self.len & 0xffff) as u16;
            (bits != 0).then(|| Move::from_bits(bits))
        })
    }
}

/// What a held-back drop adds to its defender node's proof number. Counted as nothing,
/// the node looked proven but for its last drops, and was often entered for them one at
/// a time: Muso 31's "mate within 35" took 1.06 M nodes, against 0.74 M with every drop
/// shown and 0.57 M with each held-back one counted as 1 (2: 0.58 M). On seven more
/// steps of the Edo set the three settings were level (docs/performance.md, session 80).
const HELD_BACK_PN: u32 = 1;

/// The value a held-back drop keeps until it is shown (see `drop_chains`): never counted,
/// and were it counted, neither proven nor disproven.
const HELD_BACK: Val = Val {
    pn: 1,
    dn: INF,
    len: 0,
    hand: Hand::EMPTY,
};

/// Marks an open value's `len`, which is otherwise unused: see
/// [`Val::open_refuted_on_path`]. Move bits fit below it.
const REFUTED_ON_PATH: i32 = 1 << 20;

/// Another search's tables, read-only: see [`Bounded::over`].
#[derive(Clone, Copy)]
struct Base<'a> {
    known: &'a KeyMap<KnownSet>,
    work: &'a KeyMap<Work>,
    give_back: &'a Map<Option<bool>>,
}

/// The searcher and its tables, kept across searches of one problem.
pub(crate) struct Bounded<'a> {
    pub attacker: Color,
    pub check_mode: GenMode,
    known: KeyMap<KnownSet>,
    work: KeyMap<Work>,
    /// Another search's tables, read where this one's know nothing (see [`Self::over`]).
    base: Option<Base<'a>>,
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
    /// Give-back positions whose mate search ended undecided near a mate, by full key, to
    /// search again before a disproof is final (see [`Self::settle_near_mates`]).
    near_mates: Map<Position>,
    /// Nodes a walk of a disproof's tree may take (see [`near::walk_cap`]).
    walk_cap: usize,
    /// Futility tests the mate search left undecided, for the debug log: those drops
    /// counted as effective (docs/rules.md).
    pub undecided_futility: u64,
    /// Give-back positions searched by df-pn on this thread, for the debug log.
    pub give_back_searches: u64,
    /// The time those searches took, for the debug log.
    pub give_back_time: std::time::Duration,
    /// Entries each shard of a table may hold before garbage is collected in it (each
    /// table has half the memory budget).
    work_cap: usize,
    known_cap: usize,
    /// Bytes each shard of `known` keeps outside the map's arrays, in the vectors of its
    /// boards with several hands, and the most it may keep before garbage is collected in
    /// it (see [`Self::new`]).
    known_heap: Vec<usize>,
    known_heap_cap: usize,
    /// Verdicts `give_back` holds at most; past it the record starts again.
    give_back_cap: usize,
    /// The current search ran out of time, nodes or was stopped.
    pub aborted: bool,
    /// The root's proof and disproof numbers when the last search ran out of its limits.
    pub last_open: Option<(u32, u32)>,
    /// Lists for the nodes the search enters, one set per level of its recursion.
    spare_lists: Vec<KidLists>,
    /// A helper thread searching give-back positions ahead of the futility tests.
    ahead: Option<&'a GiveBackAhead>,
    /// The main line's share of the caller's node limit, how much of `nodes` has been
    /// counted against it, and whether the search stops when it is spent.
    budget: Option<&'a NodeBudget>,
    spent: u64,
    budget_binds: bool,
    /// The nodes the search is in, for returns to them (see `repetition`).
    path: Path,
    /// The ancestor the value the last [`Self::mid`] returned rests on, or [`FREE`].
    dep: Dep,
    /// Whether returns may be counted as no mate at all (tests turn it off to compare).
    returns_may_cut: bool,
    /// Returns to a position on the line counted as no mate, for the debug log.
    pub returns_cut: u64,
    /// Nodes whose disproof the tables keep although returns were cut below them, with
    /// the disproof pieces: the tests check each one without the cut.
    #[cfg(test)]
    disproofs_over_returns: Vec<(Node, Hand)>,
    /// A deliberate fault for the tests: disproofs that rest on a return to an ancestor
    /// are stored as if they held on every path, so a test can show it would catch that.
    #[cfg(test)]
    stores_path_disproofs: bool,
    /// Every interposing drop shown at once, as before `drop_chains`, for the tests to
    /// compare.
    #[cfg(test)]
    shows_every_drop: bool,
}

impl Drop for Bounded<'_> {
    /// Frees the tables on another thread: tens of millions of entries take seconds to
    /// free, and the caller is waiting for the line. The last nodes go to the budget,
    /// which is where the solution's node count comes from.
    fn drop(&mut self) {
        self.flush_budget();
        let known = std::mem::take(&mut self.known);
        let work = std::mem::take(&mut self.work);
        if known.len() + work.len() > 100_000 {
            std::thread::spawn(move || drop((known, work)));
        }
    }
}

/// The budget of each of the two maps out of the main line's `memory_bytes`: five
/// twelfths, or the largest power of two within half, whichever is more. Of the share
/// `mainline_bytes` gives, five twelfths is a little over the eighth of the hash meant
/// for each map, so the df-pn table's filter, charged to the share, costs them no shard;
/// at a power-of-two hash the arrays take that eighth exactly. The power of two is what a
/// map took when its arrays could only be powers of two, which it keeps where that is
/// more (a small budget, held in one array).
pub(super) fn map_bytes(memory_bytes: usize) -> usize {
    let half = memory_bytes / 2;
    let power = if half == 0 { 0 } else { 1 << half.ilog2() };
    (memory_bytes / 12 * 5).max(power)
}

impl<'a> Bounded<'a> {
    pub fn new(
        attacker: Color,
        check_mode: GenMode,
        stop: &'a AtomicBool,
        hints: Hints<'a>,
        memory_bytes: usize,
    ) -> Bounded<'a> {
        let known = KeyMap::with_budget(map_bytes(memory_bytes));
        let work = KeyMap::with_budget(map_bytes(memory_bytes));
        // What the maps leave, less the walk's share (`near::walk_cap`): three quarters
        // for the vectors of boards with several hands, a quarter for the give-back
        // verdicts.
        let walk_cap = near::walk_cap(memory_bytes);
        let outside = memory_bytes
            .saturating_sub(known.max_bytes() + work.max_bytes())
            .saturating_sub(walk_cap * near::WALK_NODE_BYTES);
        let known_heap_cap = (outside / 4 * 3 / known.shard_count()).max(MIN_HEAP_PER_SHARD);
        let give_back_cap = (outside / 4 / GIVE_BACK_ENTRY_BYTES).max(MIN_GIVE_BACK);
        Bounded {
            attacker,
            check_mode,
            known_cap: known.shard_capacity(),
            work_cap: work.shard_capacity(),
            known_heap: vec![0; known.shard_count()],
            known_heap_cap,
            give_back_cap,
            known,
            work,
            base: None,
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            stop,
            hints,
            mate_search: None,
            give_back: Map::default(),
            near_mates: Map::default(),
            walk_cap,
            undecided_futility: 0,
            give_back_searches: 0,
            give_back_time: std::time::Duration::ZERO,
            aborted: false,
            last_open: None,
            spare_lists: Vec::new(),
            ahead: None,
            budget: None,
            spent: 0,
            budget_binds: true,
            path: Path::default(),
            dep: FREE,
            returns_may_cut: true,
            returns_cut: 0,
            #[cfg(test)]
            disproofs_over_returns: Vec::new(),
            #[cfg(test)]
            stores_path_disproofs: false,
            #[cfg(test)]
            shows_every_drop: false,
        }
    }

    /// Bytes this search's tables take now, with what they keep outside their arrays.
    pub fn memory_used(&self) -> usize {
        self.known.bytes()
            + self.work.bytes()
            + self.known_heap.iter().sum::<usize>()
            + self.give_back.capacity() * GIVE_BACK_ENTRY_BYTES / 2
            + self.near_mates.capacity() * (std::mem::size_of::<Position>() + 16)
    }

    /// Reads `base`'s tables (its proofs, open nodes and give-back verdicts) from now on
    /// wherever this search's own know nothing: a second search then starts from what
    /// the first has found, without copying it. `base` must not search meanwhile, which
    /// the borrow ensures.
    pub fn over(&mut self, base: &'a Bounded<'_>) {
        self.base = Some(Base {
            known: &base.known,
            work: &base.work,
            give_back: &base.give_back,
        });
    }

    /// Counts this search's nodes against `budget` from now on; once it is spent the
    /// search stops as if the caller had stopped it.
    pub fn set_budget(&mut self, budget: &'a NodeBudget) {
        self.flush_budget();
        self.budget = Some(budget);
    }

    /// Whether a spent budget stops the search. Its nodes are counted either way.
    pub fn set_budget_binds(&mut self, binds: bool) {
        self.budget_binds = binds;
    }

    /// Counts the nodes searched since the last call against the budget.
    fn flush_budget(&mut self) {
        if let Some(budget) = self.budget {
            budget.spend(self.nodes - self.spent);
        }
        self.spent = self.nodes;
    }

    /// Posts every give-back position this search makes to `ahead`, and takes the
    /// verdicts it has reached (see [`super::give_back_ahead`]).
    pub fn set_ahead(&mut self, ahead: &'a GiveBackAhead) {
        self.ahead = Some(ahead);
    }

    /// Decides futility tests with `search` (see [`super::futile`]).
    pub fn set_mate_search(&mut self, search: MateSearch<'a>) {
        self.mate_search = Some(search);
    }

    /// Caps the nodes a walk of a disproof's tree may take.
    #[cfg(test)]
    pub fn set_walk_cap(&mut self, nodes: usize) {
        self.walk_cap = nodes;
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
        debug_assert_eq!(self.path.depth(), 0, "a search inside a search");
        loop {
            let v = self.mid(node, INF, INF, true);
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

    /// The df-pn table's verdict on `pos`.
    pub fn hint(&self, pos: &Position) -> Hint {
        self.hints.hint(pos)
    }

    /// The deadline of the following searches has passed, or the search was stopped:
    /// either way there is no time for more.
    pub fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d) || self.stopped()
    }

    /// The caller asked the search to stop, or its node budget is spent.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
            || self.budget_binds && self.budget.is_some_and(NodeBudget::exhausted)
    }

    fn out_of_limits(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.nodes & 1023 == 0 {
            self.flush_budget();
            let late = self.deadline.is_some_and(|d| Instant::now() >= d);
            if late || self.stopped() || self.nodes >= self.node_limit {
                self.aborted = true;
            }
        }
        self.aborted
    }

    /// Searches `node` under the thresholds; `starts_line` for the root or a futility
    /// test's give-back position, which no move of the line above reached. Leaves in
    /// `self.dep` the ancestor the value rests on.
    fn mid(&mut self, node: &Node, th_pn: u32, th_dn: u32, starts_line: bool) -> Val {
        let mut lists = self.spare_lists.pop().unwrap_or_default();
        let on_line = (!matches!(node.kind, Kind::Interpose { .. }))
            .then(|| (node.pos.board_key(), node.pos.hand(self.attacker)));
        self.path.push(on_line, starts_line);
        let v = self.mid_with(node, th_pn, th_dn, &mut lists);
        self.path.pop();
        lists.clear();
        self.spare_lists.push(lists);
        v
    }

    /// Whether a return to a position on the line counts as no mate: only where which
    /// drops are futile does not hang on the other replies' lengths (see `repetition`).
    fn cuts_returns(&self) -> bool {
        self.returns_may_cut && self.mate_search.is_some()
    }

    /// [`Self::mid`] with `lists` to hold the node's children and their values.
    fn mid_with(&mut self, node: &Node, th_pn: u32, th_dn: u32, lists: &mut KidLists) -> Val {
        self.dep = FREE;
        self.nodes += 1;
        let start = self.nodes;
        let spot = self.spot(node);
        let cur = self
            .stored(&spot)
            .unwrap_or_else(|| self.initial(&spot, || node.pos.clone()));
        if cur.pn == 0 || cur.dn == 0 {
            return cur;
        }
        if self.out_of_limits() {
            return cur;
        }
        // A node this close to the leaves is settled on its first visit (see `SETTLED_HERE`).
        let (th_pn, th_dn) = if node.n <= SETTLED_HERE {
            (INF, INF)
        } else {
            (th_pn, th_dn)
        };
        let KidLists {
            kids,
            initial,
            vals,
            deps,
            chains,
        } = lists;
        if let Err(v) = self.expand(node, kids) {
            self.store(node, v, 1);
            return v;
        }
        let or_like = !matches!(node.kind, Kind::And);
        let n_real = kids
            .iter()
            .filter(|k| !matches!(k.spot.kind, Kind::Interpose { .. }))
            .count();
        #[cfg(test)]
        let holds_back = !self.shows_every_drop;
        #[cfg(not(test))]
        let holds_back = true;
        if holds_back && n_real < kids.len() {
            chains.link(kids);
        }
        // Every child is looked up below: start all their cache misses now. A hint's
        // prefetch first reads the table's filter, so every child's filter bits are on
        // their way before the first of those reads waits for its own.
        for (i, k) in kids.iter().enumerate() {
            if !chains.is_hidden(i) {
                self.prefetch(&k.spot);
            }
            if Self::takes_hint(&k.spot) {
                self.hints.prefetch_filter(k.spot.board_key);
            }
        }
        for k in kids.iter() {
            if Self::takes_hint(&k.spot) {
                self.hints.prefetch(k.spot.board_key);
            }
        }
        initial.resize(kids.len(), None);
        // Children's values are looked up once and then follow what their searches return:
        // re-probing every child on every iteration cost more than all else (a sibling
        // settled meanwhile through a transposition is seen when it is searched).
        for (k, init) in kids[..n_real].iter().zip(initial.iter_mut()) {
            let v = match k.given_back.as_deref() {
                Some(q) => {
                    let v = self.give_back_initial(q, &k.spot);
                    let v = v.unwrap_or_else(|| self.lookup_child(&node.pos, k, init));
                    self.give_back_settled(q, &k.spot, v)
                }
                None => self.lookup_child(&node.pos, k, init),
            };
            vals.push(v);
        }
        deps.resize(n_real, FREE);
        if self.cuts_returns() {
            for (i, k) in kids[..n_real].iter().enumerate() {
                // A settled child is settled whatever the path.
                if k.gives_back() || vals[i].pn == 0 || vals[i].dn == 0 {
                    continue;
                }
                if let Some(d) = self.path.return_to(k.spot.board_key, k.spot.hand) {
                    vals[i] = Val::disproven(k.spot.n, k.spot.hand);
                    deps[i] = d;
                    self.returns_cut += 1;
                }
            }
        }
        let depth = self.path.depth() - 1;
        let mut last = (cur.pn, cur.dn);
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
                    deps.truncate(n_real);
                    for (i, (k, init)) in kids[n_real..]
                        .iter_mut()
                        .zip(initial[n_real..].iter_mut())
                        .enumerate()
                    {
                        if let Kind::Interpose { m: km, .. } = &mut k.spot.kind {
                            *km = m;
                        }
                        vals.push(if chains.is_hidden(n_real + i) {
                            HELD_BACK
                        } else {
                            self.lookup_child(&node.pos, k, init)
                        });
                        deps.push(FREE);
                    }
                    // The bound moved every drop's value: show what the proven ones hold
                    // back.
                    for i in n_real..kids.len() {
                        if !chains.is_hidden(i) {
                            self.show_held_back(&node.pos, i, kids, initial, vals, chains);
                        }
                    }
                }
            }
            // An OR-like node takes its children's smallest pn and sums their dn; an
            // AND-like node the other way round. A held-back drop is never picked, and adds
            // only `HELD_BACK_PN` to a defender node's sum.
            let mut sum = 0u32;
            let mut pick = Pick::new(INF);
            for (i, v) in vals.iter().enumerate() {
                if chains.is_hidden(i) {
                    // Still to be proven, at the least a proof costs (see `drop_chains`).
                    sum = (sum + HELD_BACK_PN).min(INF);
                    continue;
                }
                let (sel, add) = if or_like { (v.pn, v.dn) } else { (v.dn, v.pn) };
                sum = (sum + add).min(INF);
                pick.offer(i, sel);
            }
            let Pick { min, best, second } = pick;
            let (pn, dn) = if or_like { (min, sum) } else { (sum, min) };
            debug_assert!(
                pn != 0 || (0..kids.len()).all(|i| !chains.is_hidden(i)),
                "proven with a drop held back"
            );
            if pn == 0 || dn == 0 {
                let (best, dep) = Self::resting_on(or_like, pn == 0, vals, deps, best);
                let v = self.resolved(node, kids, vals, best);
                // Resting on this node itself, the value is the node's own (see
                // `repetition`); on an ancestor, it holds on this path alone, and the
                // tables keep the last estimate instead.
                let holds_anywhere = dep as usize >= depth;
                #[cfg(test)]
                let holds_anywhere = holds_anywhere || self.stores_path_disproofs;
                if holds_anywhere {
                    #[cfg(test)]
                    if v.dn == 0 && deps.iter().any(|&d| d != FREE) {
                        self.disproofs_over_returns.push((node.clone(), v.hand));
                    }
                    self.store(node, v, self.nodes - start + 1);
                    #[cfg(test)]
                    if (dep as usize) < depth {
                        self.dep = dep;
                    }
                } else {
                    let refuter = (!or_like).then(|| kids[best].mv);
                    let kept = Val::open_refuted_on_path(last.0, last.1, refuter);
                    self.store(node, kept, self.nodes - start + 1);
                    self.dep = dep;
                }
                return v;
            }
            last = (pn, dn);
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
            let child = kids[best].node(&node.pos);
            vals[best] = self.mid(&child, cpn.min(INF), cdn.min(INF), kids[best].gives_back());
            deps[best] = self.dep;
            self.dep = FREE;
            if let Some(q) = kids[best].given_back.as_deref() {
                vals[best] = self.give_back_settled(q, &kids[best].spot, vals[best]);
            }
            if !or_like && best >= n_real {
                self.show_held_back(&node.pos, best, kids, initial, vals, chains);
            }
            // Aborted, the loop goes round once more to return the value with the child's
            // latest: in a forced line every node passes its child unlimited thresholds,
            // so what it held before the child's search says nothing of the frontier, and
            // `last_open` steers the steps down (MATE_LEAN).
        }
    }
}

impl Bounded<'_> {
    /// Shows the drops that child `i` of the defender node at `parent` holds back on its
    /// square, each looked up in turn, for as long as the last one shown is proven.
    fn show_held_back(
        &self,
        parent: &Position,
        mut i: usize,
        kids: &[expand::Kid],
        initial: &mut [Option<Val>],
        vals: &mut [Val],
        chains: &mut drop_chains::DropChains,
    ) {
        while vals[i].pn == 0 {
            let Some((n, was_held)) = chains.show_next(i) else {
                return;
            };
            if was_held {
                vals[n] = self.lookup_child(parent, &kids[n], &mut initial[n]);
            }
            i = n;
        }
    }

    /// The child a settled node's value comes from and the ancestor that value rests on.
    /// A disproof at a defender node takes a refuting reply that rests on no ancestor, or
    /// on the deepest; one at an attacker node rests on every child's. A proof rests on
    /// none: a return counted as no mate only ever removes mates, and each mate left is
    /// one (see `repetition`).
    fn resting_on(
        or_like: bool,
        proven: bool,
        vals: &[Val],
        deps: &[Dep],
        best: usize,
    ) -> (usize, Dep) {
        if proven {
            return (best, FREE);
        }
        if or_like {
            return (best, deps.iter().copied().min().unwrap_or(FREE));
        }
        (0..vals.len())
            .filter(|&i| vals[i].dn == 0)
            .max_by_key(|&i| deps[i])
            .map_or((best, FREE), |i| (i, deps[i]))
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
}
