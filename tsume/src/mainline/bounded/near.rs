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
//! The walk follows only the disproofs the search reached at their own nodes: one read
//! through hand dominance was found under another hand, and walking this hand's
//! children instead went through a tree nobody searched (Zuko 69's walks hit the cap of
//! half a million nodes in one run in ten, where the whole search took 60 000). And a drop
//! already known futile voids a disproof only where the tables show that drop refuting:
//! met among the drops walked for want of a known refuter, it may be no part of the
//! disproof, and voiding on it made Muso 3 search "within 37" again and again, each time
//! to the same disproof, until its time ran out.

use super::tables::{Map, Spot};
use super::{Bounded, Kind, Node, GIVE_BACK_NODES, NEVER};
use crate::mainline::solver::Hint;
use kanju_engine::Position;
use std::time::Instant;

/// Nodes a near mate gets when it is searched again.
const NEAR_NODES: u64 = 8 * GIVE_BACK_NODES;

/// Near mates kept at most (a position takes over half a kilobyte). Zuko 69 keeps a
/// dozen or two, and the most any of 40 Edo problems kept was 384.
const NEAR_CAP: usize = 1024;

/// Nodes of a disproof's tree walked at most in search of the near mates it rests on.
const WALK_NODES: usize = 1 << 17;

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
    /// disproof must be searched again ([`NearMates::Voided`]).
    pub fn settle_near_mates(&mut self, pos: &Position, n: i32) -> NearMates {
        if self.near_mates.is_empty() {
            return NearMates::Final;
        }
        let t = Instant::now();
        let root = Node::new(pos.clone(), self.kind_of(pos), n);
        let (tests, trail) = self.tests_under(root);
        let mut void = Vec::new();
        let mut searched = 0;
        let mut cut = false;
        // A give-back position met again under another node: found mated this round, it
        // voids that path too.
        let mut now_mated = Vec::new();
        for test in &tests {
            if test.mated || now_mated.contains(&test.key) {
                void.push(test.at);
                continue;
            }
            if self.past_deadline() {
                cut = true;
                break;
            }
            let Some(q) = self.near_mates.remove(&test.key) else {
                continue;
            };
            searched += 1;
            let v = self.search_give_back(&q, NEAR_NODES).decided();
            if v.is_some() {
                self.undecided_futility = self.undecided_futility.saturating_sub(1);
                self.keep_give_back(test.key, v);
            }
            if v == Some(true) {
                now_mated.push(test.key);
                void.push(test.at);
            }
        }
        for &at in &void {
            let mut i = Some(at);
            while let Some(j) = i {
                self.forget_disproof_at(&trail[j].0);
                i = trail[j].1;
            }
        }
        log::debug!(
            "mainline: the disproof within {n} passes {} near mates and futile drops; \
             {searched} searched again, {} futile ({:?})",
            tests.len(),
            void.len(),
            t.elapsed()
        );
        if !void.is_empty() {
            NearMates::Voided
        } else if cut {
            NearMates::Unsettled
        } else {
            NearMates::Final
        }
    }

    /// Whether `known` holds a disproof of `node` within its bound for its very hand: one
    /// the search reached at this node, from its children.
    fn searched_disproof(&self, node: &Node) -> bool {
        let hand = node.pos.hand(self.attacker);
        self.known.get(node.pos.board_key()).is_some_and(|ks| {
            ks.as_slice()
                .iter()
                .any(|k| k.hand == hand && k.disproven >= node.n)
        })
    }

    /// The futility tests the disproof of `root` may rest on that are near mates, or
    /// already known mated (a drop the disproof counted a defence, found futile since):
    /// met by walking the disproof's tree through the tables. With them, the walk's
    /// nodes, each with its parent's index, so that the disproofs on the way to a test
    /// can be forgotten. At an attacker node every check is refuted; at a defender node
    /// one refuting reply is enough, a real defence or else a drop the tables show
    /// refuting, and otherwise every drop is walked, as is every real defence the tables
    /// do not show mated. What lies beyond a disproof the tables lost or hold only for
    /// another hand (see the module's notes), or beyond [`WALK_NODES`], is missed.
    fn tests_under(&self, root: Node) -> (Vec<Test>, Vec<(Spot, Option<usize>)>) {
        let mut seen = Map::<()>::default();
        let mut trail: Vec<(Spot, Option<usize>)> = Vec::new();
        let mut tests = Vec::new();
        let mut stack = vec![(root, None, true)];
        let mut kids = Vec::new();
        let mut unfollowed = 0;
        while let Some((node, parent, refutes)) = stack.pop() {
            if trail.len() >= WALK_NODES {
                log::debug!("mainline: disproof walk cut at {WALK_NODES} nodes");
                break;
            }
            let spot = self.spot(&node);
            if seen.insert(Self::work_key(&spot), ()).is_some() {
                continue;
            }
            if !matches!(node.kind, Kind::Interpose { .. }) && !self.searched_disproof(&node) {
                // Not the search's own disproof of this node: another hand's, read
                // through dominance, whose tree is not this node's children.
                unfollowed += 1;
                continue;
            }
            let at = trail.len();
            let here = Some(at);
            trail.push((spot, parent));
            let for_good = |pos: &Position| {
                self.disproven_bound(pos) >= NEVER || self.hints.hint(pos) == Hint::NoMate
            };
            kids.clear();
            match node.kind {
                Kind::Or | Kind::And if node.n <= 0 || for_good(&node.pos) => {}
                // One ply from the bound, no test asks for a mate at any length.
                Kind::Or if node.n <= 1 => {}
                Kind::Or => {
                    if self.expand(&node, &mut kids).is_ok() {
                        stack.extend(kids.iter().map(|k| (k.node(&node.pos), here, true)));
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
                            open.push((child, here, false));
                        }
                    }
                    if let Some(child) = refuting {
                        stack.push((child, here, true));
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
                        .find(|k| self.stored(&k.spot).is_some_and(|v| v.dn == 0));
                    if let Some(k) = refuting {
                        stack.push((k.node(&node.pos), here, true));
                    } else {
                        stack.extend(open);
                        stack.extend(drops.iter().map(|k| (k.node(&node.pos), here, false)));
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
                            if self.any_length(m) && (mated || self.near_mates.contains_key(&key)) {
                                tests.push(Test { key, at, mated });
                            }
                        }
                        stack.push((k.node(&node.pos), here, refutes));
                    }
                }
            }
        }
        log::debug!(
            "mainline: disproof walk, {} nodes, {unfollowed} disproofs not followed",
            trail.len()
        );
        (tests, trail)
    }
}

/// What [`Bounded::settle_near_mates`] makes of a disproof.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum NearMates {
    /// Every near mate it rests on was searched again and none is mated: it stands.
    Final,
    /// It passes a drop now found futile: search it again.
    Voided,
    /// The deadline came before every near mate was searched again. It may rest on a
    /// drop that more search would find futile, so it does not show a length exact.
    Unsettled,
}

/// A futility test met by [`Bounded::tests_under`].
struct Test {
    /// The give-back position's full key.
    key: u64,
    /// The walk's index of the drop's node.
    at: usize,
    /// Already known mated: the drop is futile, and the disproof over it stale.
    mated: bool,
}
