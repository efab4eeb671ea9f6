//! Futility tests left undecided near a mate, and the disproofs that rest on them.
//!
//! A test its give-back search leaves undecided counts the drop as a real defence
//! (`docs/rules.md`). Whether a search with a small budget finds a mate depends on what
//! the shared df-pn table holds when it runs, which with two threads varies from run to
//! run. Shogi Zuko 69, 13 plies under the classical rules, came out 15, marked exact, in
//! about one run in seventy on two threads: after 7i6h and B*8f the defender drops on
//! 7g, the bishop takes, and with the piece given back the king is mated in 14 plies,
//! which an empty table proves in 2 900 nodes; in the bad runs that search stopped at
//! its 3 000 nodes with a proof number of 2 to 4. So a disproof is not taken as final
//! while it rests on a test whose search ended that close to a mate
//! ([`Mated::Near`](crate::mainline::Mated::Near)): those tests are searched again with
//! more nodes, a drop then found futile voids the disproofs on the way to it, and the
//! step runs again.
//!
//! Only the tests the disproof rests on are searched again, found by walking its tree
//! through the tables. Searching every near mate again cost more than the disproofs
//! themselves: on 40 Edo problems (one thread, 60 s) the whole solves took 755 s instead
//! of 524, one problem kept 384 near mates, and two lengths were no longer shown exact.
//! The walk follows a disproof read through hand dominance into the hand it was kept
//! for, whose children are the ones it was built from (see
//! [`Bounded::disproof_entry`]). It keeps only the nodes on the way to a test, and stops
//! at a cap of nodes that grows with the main line's memory ([`walk_cap`]). Cut there, it
//! has missed part of the disproof, so every near mate it did not reach is searched again
//! as well: none mated, the disproof stands; one mated, it may rest on it and the length
//! is not shown exact. Before, the walk skipped the disproofs read through another hand
//! and stopped at 131 072 nodes: on the 200 Edo problems (one thread, 1 GiB, 20 s) every
//! walk skipped some, 231 to 280 122 of them, and 44 hit the cap, 43 of those lengths
//! still marked exact (`docs/rules.md`, "The walk is partial"). A drop already known
//! futile voids a disproof only where the tables show that drop refuting: met among the
//! drops walked for want of a known refuter, it may be no part of the disproof, and
//! voiding on it made Muso 3 search "within 37" again and again, each time to the same
//! disproof, until its time ran out.

use super::repetition::Path;
use super::tables::{Map, Spot};
use super::{Bounded, Kind, Node, Val, GIVE_BACK_NODES, NEVER};
use crate::mainline::known::Known;
use crate::mainline::solver::{Hint, Mated};
use kanju_engine::{Hand, Position};
use std::time::Instant;

/// Nodes a near mate gets when it is searched again.
const NEAR_NODES: u64 = 8 * GIVE_BACK_NODES;

/// How many times [`NEAR_NODES`] a near mate gets in a deeper look (see
/// [`Bounded::settle_near_mates`]). The give-back position of
/// `6k1B/9/9/9/9/4+B+R3/9/9/9 b Lg 1 moves L*3h`, after G*3b 3h3b+ (classical rules), is
/// mated in 32 plies, which an empty table proves in 24 000 nodes; searched again with
/// [`NEAR_NODES`] it stayed near, G*3b counted as effective, and the line printed 6 plies,
/// exact, where it is 2. Searching every near mate that stays near four times as long
/// again cost Muso 62 (classical rules, one thread) 3.8 s of its 17, so the deeper look
/// is kept for a disproof that would otherwise stand.
const NEAR_GROWTH: u64 = 4;

/// Nodes a test left undecided far from a mate gets when a disproof the printed line
/// rests on is checked ([`Bounded::settle_undecided`]). A search that stops after its
/// first thousand nodes far from a proof can still be a mate: after
/// `5k3/9/9/7p+R/7+RG/9/9/9/9 b SLp 1 moves 2e4e 4a5a 4e5d 5a6a 5d6c 6a5a 1d1a`, P*4a
/// taken by 1a4a and given back is mated in 20 plies, 5 700 nodes on an empty table.
const FAR_NODES: u64 = NEAR_NODES;

/// Near mates that stayed near a disproof may look at more deeply, at most.
const DEEPER_CAP: usize = 8;

/// Near mates kept at most (a position takes over half a kilobyte). Zuko 69 keeps a
/// dozen or two, and the most any of 40 Edo problems kept was 384.
const NEAR_CAP: usize = 1024;

/// Bytes a walked node costs at most, mostly in the set of nodes seen.
pub(super) const WALK_NODE_BYTES: usize = 20;

/// The fewest nodes a walk may take, however small the memory.
const MIN_WALK_NODES: usize = 1 << 16;

/// The part of the main line's memory kept for the walk of a disproof, whose set of
/// walked nodes lives only while it runs: a tenth.
const WALK_SHARE: usize = 10;

/// Nodes a disproof's walk may take when the main line has `memory_bytes`: its share
/// ([`WALK_SHARE`]), at [`WALK_NODE_BYTES`] a node. Whole walks on eight Edo problems took
/// 190 000 to 1.3 million nodes, and Zuko 83's (263 plies) 2.7 million and Zuko 4's 3.8
/// million; at the judge's 4 GiB the cap is about 6.5 million. A thirty-second of the
/// memory, 1.8 million nodes there, cut those two in every run, and so left their
/// lengths unshown exact: a cut walk searches its unmet near mates again, and on both
/// some of those were mated.
pub(super) fn walk_cap(memory_bytes: usize) -> usize {
    (memory_bytes / WALK_SHARE / WALK_NODE_BYTES).max(MIN_WALK_NODES)
}

impl Bounded<'_> {
    /// Keeps `q`, a give-back position whose search ended near a mate.
    pub(super) fn keep_near_mate(&mut self, q: &Position) {
        if self.near_mates.len() < NEAR_CAP {
            self.near_mates.insert(q.key(), q.clone());
        }
    }

    /// Searches again, with [`NEAR_NODES`] each, the near mates that the disproof of a
    /// mate within `n` from `pos` rests on. Where one is now mated, or the disproof
    /// passes a drop already known futile, forgets the disproofs on the way to it: the
    /// disproof must be searched again ([`NearMates::Voided`]). Where none is, up to
    /// [`DEEPER_CAP`] of those still near a mate get [`NEAR_GROWTH`] times the nodes. A
    /// walk cut short at its cap searches every near mate it did not reach, and one of
    /// them mated leaves the disproof [`NearMates::Unsettled`]: it may rest on it.
    pub fn settle_near_mates(&mut self, pos: &Position, n: i32) -> NearMates {
        if self.near_mates.is_empty() {
            return NearMates::Final;
        }
        let t = Instant::now();
        let root = Node::new(pos.clone(), self.kind_of(pos), n);
        let walk = self.tests_under(root, false, self.walk_cap);
        let mut void = Vec::new();
        let mut searched = 0;
        let mut late = walk.end == WalkEnd::Late;
        // A give-back position met again under another node: found mated this round, it
        // voids that path too.
        let mut now_mated = Vec::new();
        // Searched again and still near a mate.
        let mut still_near = Vec::new();
        let mut deeper = 0;
        for test in &walk.tests {
            if test.mated || now_mated.contains(&test.key) {
                void.push(test.at);
                continue;
            }
            if late || self.past_deadline() {
                late = true;
                break;
            }
            let Some(q) = self.near_mates.remove(&test.key) else {
                continue;
            };
            searched += 1;
            match self.search_near_mate(test.key, &q, NEAR_NODES) {
                Mated::Yes => {
                    now_mated.push(test.key);
                    void.push(test.at);
                }
                Mated::Near => still_near.push((test.key, q)),
                Mated::No | Mated::Open => {}
            }
        }
        // A disproof about to stand gets a deeper look at the near mates it rests on that
        // stayed near: a few, as each costs four of the first pass's searches.
        if void.is_empty() && !late {
            for (key, q) in still_near.into_iter().take(DEEPER_CAP) {
                if self.past_deadline() {
                    late = true;
                    break;
                }
                deeper += 1;
                if self.search_near_mate(key, &q, NEAR_GROWTH * NEAR_NODES) == Mated::Yes {
                    void.extend(walk.tests.iter().filter(|t| t.key == key).map(|t| t.at));
                }
            }
        }
        self.forget_paths(&walk, &void);
        // Cut at its cap, the walk missed part of the disproof: any near mate may lie
        // under it, and only one found mated can matter.
        let mut unmet_mated = 0;
        if void.is_empty() && !late && walk.end == WalkEnd::Cut {
            let unmet: Vec<(u64, Position)> = self.near_mates.drain().collect();
            for (key, q) in unmet {
                if self.past_deadline() {
                    late = true;
                    break;
                }
                searched += 1;
                if self.search_near_mate(key, &q, NEAR_NODES) == Mated::Yes {
                    unmet_mated += 1;
                }
            }
        }
        log::debug!(
            "mainline: the disproof within {n} passes {} near mates and futile drops; \
             {searched} searched again ({deeper} deeper), {} futile, {unmet_mated} futile \
             off the walk ({:?})",
            walk.tests.len(),
            void.len(),
            t.elapsed()
        );
        if !void.is_empty() {
            NearMates::Voided
        } else if late || unmet_mated > 0 {
            NearMates::Unsettled
        } else {
            NearMates::Final
        }
    }

    /// Forgets the disproofs on the way to each of the tests at `void` (indices in the
    /// walk's kept nodes): each passes a drop now found futile.
    fn forget_paths(&mut self, walk: &Walk, void: &[usize]) {
        for &at in void {
            let mut i = Some(at);
            while let Some(j) = i {
                self.forget_disproof_at(&walk.kept[j].0);
                i = walk.kept[j].1;
            }
        }
    }

    /// Checks the disproof of a mate within `n` from `pos` more closely than
    /// [`Self::settle_near_mates`], for the few disproofs the printed line rests on (see
    /// `line_drops`), where a test far from a mate can be wrong too. Its tree is walked
    /// (within `budget`'s walk nodes), and searched again with [`FAR_NODES`] each:
    /// - the futility tests it rests on that were left undecided, near a mate or not, but
    ///   for those whose give-back positions' keys are in `done` (to which it adds the
    ///   ones it searches);
    /// - the nodes under it whose disproofs the tables no longer hold, and the defender
    ///   nodes under it none of whose replies the tables show refuting. A drop found
    ///   futile voids the disproofs on the way to it on one tree's walk, and a disproof
    ///   built on one of those, from another search, is left standing on nothing.
    ///
    /// Returns whether a test is now mated or a node stale, the disproofs on the way to it
    /// forgotten. What `budget`, the deadline or a cut walk leaves unsearched stands, as
    /// it did before it was looked at.
    pub fn settle_undecided(
        &mut self,
        pos: &Position,
        n: i32,
        done: &mut Vec<u64>,
        budget: &mut Recheck,
    ) -> bool {
        let t = Instant::now();
        let root = Node::new(pos.clone(), self.kind_of(pos), n);
        let walk = self.tests_under(root, true, budget.walk_nodes);
        budget.walk_nodes = budget.walk_nodes.saturating_sub(walk.walked);
        let mut void = Vec::new();
        let mut now_mated = Vec::new();
        let mut searched = 0;
        for test in &walk.tests {
            if test.mated || now_mated.contains(&test.key) {
                void.push(test.at);
                continue;
            }
            if done.contains(&test.key) {
                continue;
            }
            if budget.searches == 0 || self.past_deadline() {
                break;
            }
            let q = match &test.far {
                Some(q) => (**q).clone(),
                None => match self.near_mates.remove(&test.key) {
                    Some(q) => q,
                    None => continue,
                },
            };
            budget.searches -= 1;
            searched += 1;
            done.push(test.key);
            if self.search_near_mate(test.key, &q, FAR_NODES) == Mated::Yes {
                now_mated.push(test.key);
                void.push(test.at);
            }
        }
        let mut stale = 0;
        for Lost { node, at, own } in &walk.lost {
            if !void.is_empty() || budget.searches == 0 || self.past_deadline() {
                break;
            }
            budget.searches -= 1;
            searched += 1;
            let spot = &walk.kept[*at].0;
            // The node's own disproof goes, or the search would only read it back.
            let forgotten = if *own {
                self.forget_disproof_at(spot)
            } else {
                None
            };
            let (deadline, limit) = (self.deadline, self.node_limit);
            self.set_limits(deadline, Some(FAR_NODES));
            let v = self.prove(node);
            (self.deadline, self.node_limit) = (deadline, limit);
            match (v, forgotten) {
                (Some(true), _) => {
                    stale += 1;
                    void.push(*at);
                }
                // Undecided, the disproof stands as before, as an undecided futility
                // test does; forgotten, the next step would have to find it again.
                (None, Some(bound)) => self.store_at(spot, Val::disproven(bound, spot.hand), 1),
                _ => {}
            }
        }
        self.forget_paths(&walk, &void);
        log::debug!(
            "mainline: the disproof within {n} passes {} undecided tests and {} nodes not \
             shown refuted; {searched} searched again, {} futile, {stale} stale ({:?})",
            walk.tests.len(),
            walk.lost.len(),
            void.len() - stale,
            t.elapsed()
        );
        !void.is_empty()
    }

    /// Searches the near mate `q` (full key `key`) again with `nodes`, and keeps a
    /// verdict it reaches.
    pub(super) fn search_near_mate(&mut self, key: u64, q: &Position, nodes: u64) -> Mated {
        let v = self.search_give_back(q, nodes);
        if let Some(d) = v.decided() {
            self.undecided_futility = self.undecided_futility.saturating_sub(1);
            self.keep_give_back(key, Some(d));
        }
        v
    }

    /// The attacker's hand and bound of the disproof that answers for `node` in `known`:
    /// its own
    /// where the search stored a disproof for its very hand, or else the hand of one that
    /// dominates (the search's disproof pieces, or another hand's search). Walking that
    /// hand's children follows the tree the disproof was built from, whose children the
    /// tables hold under dominance too; this hand's children may be a tree nobody
    /// searched (Zuko 69's walks then hit a cap of half a million nodes in one run in
    /// ten, where the whole search took 60 000). `None` where no such entry is kept (a
    /// leaf, a disproof from the df-pn table, one lost to garbage collection, or one in
    /// the base's tables). The bound is the one the entry was built for, at least the
    /// node's: the walk goes on at it, once, whatever smaller bounds ask for the node.
    fn disproof_entry(&self, node: &Node) -> Option<(Hand, i32)> {
        let hand = node.pos.hand(self.attacker);
        let ks = self.known.get(node.pos.board_key())?.as_slice();
        let fits = |k: &&Known| k.hand.dominates(hand) && k.disproven >= node.n;
        let own = ks.iter().filter(fits).find(|k| k.hand == hand);
        own.or_else(|| ks.iter().find(fits))
            .map(|k| (k.hand, k.disproven))
    }

    /// The futility tests the disproof of `root` may rest on that are near mates, or
    /// already known mated (a drop the disproof counted a defence, found futile since):
    /// met by walking the disproof's tree through the tables, depth first, up to
    /// [`walk_cap`] nodes. With each test, the nodes on the way to it, so that their
    /// disproofs can be forgotten; the walk keeps those alone, the tests' ancestors. At an
    /// attacker node every check is refuted; at a defender node one refuting reply is
    /// enough, a real defence or else a drop the tables show refuting, and otherwise every
    /// drop is walked, as is every real defence the tables do not show mated. What lies
    /// beyond a disproof the tables lost is missed.
    fn tests_under(&self, root: Node, undecided: bool, cap: usize) -> Walk {
        let t = Instant::now();
        let mut seen = Map::<()>::default();
        let mut walk = Walk {
            tests: Vec::new(),
            lost: Vec::new(),
            kept: Vec::new(),
            end: WalkEnd::Whole,
            walked: 0,
        };
        // The current node's ancestors and itself, each with its index in `kept` once a
        // test below it has been met.
        let mut path: Vec<(Spot, Option<usize>)> = Vec::new();
        // The positions on the way, for returns to them, which the search counted as no
        // mate (see `repetition`): the walk stops there too.
        let mut line = Path::default();
        // Nodes to walk, with their depth, whether a drop on the way refutes, and whether
        // the node starts a line (the root, or a futility test's give-back position).
        let mut stack = vec![(root, 0, true, true)];
        let mut kids = Vec::new();
        let mut walked = 0;
        let mut unfollowed = 0;
        // For the debug log: returns met, and nodes walked that were disproven on a path.
        let (mut returns, mut on_path) = (0u64, 0u64);
        while let Some((node, depth, refutes, starts_line)) = stack.pop() {
            if walked >= cap {
                walk.end = WalkEnd::Cut;
                break;
            }
            if walked % 1024 == 1023 && self.past_deadline() {
                walk.end = WalkEnd::Late;
                break;
            }
            let mut spot = self.spot(&node);
            line.truncate(depth);
            let on_line = !matches!(node.kind, Kind::Interpose { .. });
            if on_line
                && !starts_line
                && self.cuts_returns()
                && line.return_to(spot.board_key, spot.hand).is_some()
            {
                returns += 1;
                continue;
            }
            let node = if !on_line {
                node
            } else {
                match self.disproof_entry(&node) {
                    Some((hand, bound)) if hand == spot.hand => {
                        spot.n = bound;
                        Node { n: bound, ..node }
                    }
                    Some((hand, bound)) => {
                        spot.n = bound;
                        // Kept at the entry's hand, so that forgetting the spot forgets
                        // the entry.
                        // The disproof's pieces may count more than the defender
                        // holds; the entry covers every hand it dominates, the one made
                        // here too.
                        spot.hand = hand;
                        Node {
                            pos: node.pos.with_hand_toward(self.attacker, hand),
                            n: bound,
                            ..node
                        }
                    }
                    // Disproven on the search's path only, so kept as open; walked as it is.
                    None if self
                        .stored(&spot)
                        .is_some_and(|v| v.refuted_on_path().is_some()) =>
                    {
                        on_path += 1;
                        node
                    }
                    None => {
                        // A leaf, a disproof from the df-pn table (whose tree holds no
                        // test of this search's), a real defence walked for want of a
                        // known refuter (no part of the disproof), or a disproof the
                        // tables have lost.
                        // Counted for the debug log alone: telling them apart takes a
                        // probe of the df-pn table.
                        let counts = refutes && node.n > 0;
                        if undecided && counts && depth > 0 {
                            // Searched again by `settle_undecided`: a disproof voided
                            // elsewhere leaves the ones built on it standing.
                            if self.hints.hint(&node.pos) != Hint::NoMate {
                                path.truncate(depth);
                                let at = keep_path(&mut path, &mut walk.kept);
                                walk.lost.push(Lost {
                                    node,
                                    at,
                                    own: false,
                                });
                            }
                        } else if log::log_enabled!(log::Level::Debug)
                            && counts
                            && self.hints.hint(&node.pos) != Hint::NoMate
                        {
                            unfollowed += 1;
                        }
                        continue;
                    }
                }
            };
            if seen.insert(Self::work_key(&spot), ()).is_some() {
                continue;
            }
            walked += 1;
            path.truncate(depth);
            path.push((spot, None));
            line.push(on_line.then_some((spot.board_key, spot.hand)), starts_line);
            let below = depth + 1;
            let for_good = |pos: &Position| {
                self.disproven_bound(pos) >= NEVER
                    || self
                        .hints
                        .hint_at(pos.board_key(), pos.hand(self.attacker))
                        .unwrap_or_else(|| self.hints.hint(pos))
                        == Hint::NoMate
            };
            kids.clear();
            match node.kind {
                Kind::Or | Kind::And if node.n <= 0 || for_good(&node.pos) => {}
                // One ply from the bound, no test asks for a mate at any length.
                Kind::Or if node.n <= 1 => {}
                Kind::Or => {
                    if self.expand(&node, &mut kids).is_ok() {
                        stack.extend(kids.iter().map(|k| (k.node(&node.pos), below, true, false)));
                    }
                }
                Kind::And => {
                    if self.expand(&node, &mut kids).is_err() {
                        continue;
                    }
                    let n_real = kids
                        .iter()
                        .filter(|k| !matches!(k.spot.kind, Kind::Interpose { .. }))
                        .count();
                    // The drops' futility bound, as the search set it: the length against
                    // the real defences when they are all mated.
                    let mut m = Some(0);
                    let mut open = Vec::new();
                    let mut refuting = None;
                    for k in &kids[..n_real] {
                        let child = k.node(&node.pos);
                        let (proven, disproven) = self.known_bounds(&child.pos);
                        if disproven >= child.n {
                            refuting = Some(child);
                            break;
                        }
                        if proven <= child.n {
                            m = m.map(|m: i32| m.max(proven + 1));
                        } else {
                            m = None;
                            open.push((child, below, false, false));
                        }
                    }
                    if let Some(child) = refuting {
                        stack.push((child, below, true, false));
                        continue;
                    }
                    let m = m.unwrap_or(node.n);
                    for k in &mut kids[n_real..] {
                        if let Kind::Interpose { m: km, .. } = &mut k.spot.kind {
                            *km = m;
                        }
                    }
                    // A drop the search settled as refuting is enough too (a drop's value
                    // is kept in `work`, by its futility bound).
                    let drops = &kids[n_real..];
                    let refuting = drops
                        .iter()
                        .find(|k| self.stored(&k.spot).is_some_and(|v| v.dn == 0))
                        .or_else(|| {
                            // Disproven on the search's path only: its refuter is kept.
                            let r = self.stored(&spot)?.refuted_on_path()??;
                            kids.iter().find(|k| k.mv == r)
                        });
                    if let Some(k) = refuting {
                        stack.push((k.node(&node.pos), below, true, false));
                    } else {
                        if undecided && refutes {
                            // No reply shown refuting: the disproof may stand on one whose
                            // own disproof a drop found futile elsewhere has voided.
                            let at = keep_path(&mut path, &mut walk.kept);
                            walk.lost.push(Lost {
                                node: node.clone(),
                                at,
                                own: true,
                            });
                        }
                        stack.extend(open);
                        stack.extend(
                            drops
                                .iter()
                                .map(|k| (k.node(&node.pos), below, false, false)),
                        );
                    }
                }
                Kind::Interpose { m, .. } => {
                    if self.expand(&node, &mut kids).is_err() {
                        continue;
                    }
                    for k in &kids {
                        if let Some(q) = k.given_back.as_deref() {
                            let key = q.key();
                            let kept = self.kept_give_back(key);
                            if kept == Some(Some(false)) {
                                // Not mated at all: nothing under the test counts.
                                continue;
                            }
                            // Mated, the drop is futile: a drop node the tables hold as
                            // refuting is stale, but one walked for want of a known
                            // refuter may be no part of the disproof.
                            let mated = kept == Some(Some(true)) && refutes;
                            let near = self.near_mates.contains_key(&key);
                            let open = undecided && !near && kept == Some(None);
                            if self.any_length(m) && (mated || near || open) {
                                let at = keep_path(&mut path, &mut walk.kept);
                                let far = open.then(|| Box::new(q.clone()));
                                walk.tests.push(Test {
                                    key,
                                    at,
                                    mated,
                                    far,
                                });
                            }
                        }
                        stack.push((k.node(&node.pos), below, refutes, k.gives_back()));
                    }
                }
            }
        }
        walk.walked = walked;
        log::debug!(
            "mainline: disproof walk {:?}, {walked} nodes ({on_path} disproven on a path, \
             {returns} returns), {} kept, {unfollowed} disproofs \
             lost ({:?})",
            walk.end,
            walk.kept.len(),
            t.elapsed()
        );
        walk
    }
}

/// Keeps in `kept` the nodes of `path` not kept yet, each with its parent's index, and
/// returns the index of the last.
fn keep_path(path: &mut [(Spot, Option<usize>)], kept: &mut Vec<(Spot, Option<usize>)>) -> usize {
    let first_new = path
        .iter()
        .rposition(|p| p.1.is_some())
        .map_or(0, |i| i + 1);
    let mut parent = first_new.checked_sub(1).and_then(|i| path[i].1);
    for p in &mut path[first_new..] {
        kept.push((p.0, parent));
        parent = Some(kept.len() - 1);
        p.1 = parent;
    }
    parent.expect("a path holds at least the test's own node")
}

/// What [`Bounded::settle_undecided`] may still spend on one line.
pub(crate) struct Recheck {
    /// Searches, of undecided tests and of nodes not shown refuted.
    pub searches: usize,
    /// Nodes the walks of the disproofs may visit.
    pub walk_nodes: usize,
}

impl Recheck {
    /// Whether another disproof may be walked and searched.
    pub fn left(&self) -> bool {
        self.searches > 0 && self.walk_nodes > 0
    }
}

/// What [`Bounded::settle_near_mates`] makes of a disproof.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum NearMates {
    /// Every near mate it rests on was searched again and none is mated: it stands.
    Final,
    /// It passes a drop now found futile: search it again.
    Voided,
    /// The deadline came before every near mate was searched again, or a walk cut at its
    /// cap left a near mate found mated off the walk. It may rest on a drop now futile,
    /// so it does not show a length exact.
    Unsettled,
}

/// How a walk of a disproof's tree ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum WalkEnd {
    /// It walked every node it could follow.
    Whole,
    /// It reached its cap of nodes.
    Cut,
    /// The deadline came, or the search was stopped.
    Late,
}

/// What [`Bounded::tests_under`] found.
struct Walk {
    tests: Vec<Test>,
    /// With undecided tests asked for: nodes whose disproofs the tables no longer hold,
    /// or that no reply is shown to refute.
    lost: Vec<Lost>,
    /// The tests' nodes and their ancestors, each with its parent's index.
    kept: Vec<(Spot, Option<usize>)>,
    end: WalkEnd,
    /// Nodes walked.
    walked: usize,
}

/// A node under a disproof whose own disproof is not shown by the tables: lost, or a
/// defender node none of whose replies is shown to refute.
struct Lost {
    node: Node,
    /// The index in [`Walk::kept`] of the node itself (`own`), whose disproof is
    /// forgotten before it is searched again, or else of its parent.
    at: usize,
    own: bool,
}

/// A futility test met by [`Bounded::tests_under`].
struct Test {
    /// The give-back position's full key.
    key: u64,
    /// The index in [`Walk::kept`] of the drop's node.
    at: usize,
    /// Already known mated: the drop is futile, and the disproof over it stale.
    mated: bool,
    /// The give-back position of a test left undecided far from a mate, when the walk
    /// was asked for those too (near ones are in [`Bounded::near_mates`]).
    far: Option<Box<Position>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mainline::bounded::Val;
    use kanju_engine::{Color, GenMode, PieceKind};
    use std::sync::atomic::AtomicBool;

    fn spot(n: i32) -> Spot {
        Spot {
            kind: Kind::Or,
            n,
            board_key: n as u64,
            hand: Hand::EMPTY,
        }
    }

    /// The walk's share of the main line's memory lies beside the maps' arrays, within
    /// the budget, at USI_Hash sizes from 32 MiB to 64 GiB, powers of two or not (below,
    /// the floor of [`MIN_WALK_NODES`] passes it by a megabyte at most); at the judge's 4
    /// GiB it holds the 3.8 million nodes of Zuko 4's whole walk. The maps take an
    /// eighth of the hash each at a power of two, and nearly that at the sizes between.
    #[test]
    fn the_walk_fits_beside_the_maps() {
        use crate::mainline::bounded::{map_bytes, tables::Work};
        use crate::mainline::key_map::KeyMap;
        use crate::mainline::known::KnownSet;
        let powers = (5..=16).map(|b| 1usize << b);
        let others = [48, 100, 1000, 3000, 6000, 10_000, 24_000, 50_000];
        for hash_mb in powers.chain(others) {
            let memory = crate::mainline::mainline_bytes(hash_mb);
            let known = KeyMap::<KnownSet>::with_budget(map_bytes(memory)).max_bytes();
            let work = KeyMap::<Work>::with_budget(map_bytes(memory)).max_bytes();
            let walk = walk_cap(memory) * WALK_NODE_BYTES;
            assert!(
                known + work + walk <= memory,
                "{hash_mb} MiB: {known} + {work} + {walk} > {memory}"
            );
            let eighth = (hash_mb << 20) / 8;
            if hash_mb.is_power_of_two() {
                assert!(known >= eighth && work >= eighth, "{hash_mb} MiB");
            } else if hash_mb >= 1000 {
                // Less than one shard short: 32 MiB, or a thirty-second of the map.
                let short = (eighth / 32).max(32 << 20);
                assert!(known + short >= eighth, "{hash_mb} MiB: {known}");
            }
        }
        // The judge's 4 GiB: the maps as they were when their arrays were powers of two.
        let memory = crate::mainline::mainline_bytes(4096);
        assert_eq!(
            KeyMap::<KnownSet>::with_budget(map_bytes(memory)).max_bytes(),
            512 << 20
        );
        assert!(walk_cap(memory) > 3_800_000);
    }

    /// Tests under one node share its ancestors in the trail, each kept once.
    #[test]
    fn tests_keep_their_ancestors_once() {
        let mut kept = Vec::new();
        let mut path = vec![(spot(0), None), (spot(1), None), (spot(2), None)];
        assert_eq!(keep_path(&mut path, &mut kept), 2);
        // A sibling of the first test: only itself is new.
        path.truncate(2);
        path.push((spot(3), None));
        assert_eq!(keep_path(&mut path, &mut kept), 3);
        // The same path again adds nothing.
        assert_eq!(keep_path(&mut path, &mut kept), 3);
        let parents: Vec<Option<usize>> = kept.iter().map(|k| k.1).collect();
        assert_eq!(parents, [None, Some(0), Some(1), Some(1)]);
    }

    /// A disproof read through dominance is walked at the hand it was kept for; one for
    /// the very hand is walked as it is, and a bound the disproofs do not reach is no
    /// disproof to walk.
    #[test]
    fn a_dominating_disproof_is_walked_at_its_own_hand() {
        let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1").unwrap();
        let hints = |_: &Position| Hint::Unknown;
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &hints, 1 << 20);
        let actual = pos.hand(Color::Black);
        let wider = actual.add(PieceKind::Silver).add(PieceKind::Silver);
        let node = |n| Node::new(pos.clone(), Kind::Or, n);
        let mut at = b.spot(&node(5));
        at.hand = wider;
        b.store_at(&at, Val::disproven(5, wider), 1);

        assert_eq!(b.disproof_entry(&node(3)), Some((wider, 5)));
        assert_eq!(b.disproof_entry(&node(7)), None);
        b.store_at(&b.spot(&node(5)), Val::disproven(5, actual), 1);
        assert_eq!(b.disproof_entry(&node(3)), Some((actual, 5)));
    }
}
