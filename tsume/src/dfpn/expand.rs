//! A node's expansion: its moves generated, each child estimated (df-pn+) and looked up,
//! cheap mates in one settled on the spot, and SNDA's shared descendants detected from the
//! table's parent pointers.

use super::results::mate1_result;
use super::Searcher;
use crate::delayed::{link_delayed, reveal_settled};
use crate::entry::{INF, SNDA_MOVES};
use crate::initial;
use crate::leaf_cache::{Leaf, LeafCache};
use crate::node::{Child, HIDDEN, MATE1_TESTED, NEW, NO_DEP, PENDING};
use crate::proof_hand::and_proof_drop_rule;
use crate::table::Store;
use kanju_engine::{Color, GenMode, Hand, Move, MoveList, Position};

/// How far the SNDA walk follows parent pointers before giving up.
const SNDA_WALK: usize = 24;

impl Searcher<'_> {
    /// Generates the node's moves and looks every child up. With `mate1`, an attacker node
    /// first tests its checks for a mate in one, and returns the mating check without
    /// adding any child if there is one.
    pub(super) fn expand(
        &mut self,
        pos: &Position,
        depth: u16,
        or_node: bool,
        key: u64,
        hand: Hand,
        mate1: bool,
    ) -> Option<Move> {
        let sh = self.sh;
        let attacker = sh.attacker;
        // A local list: it is left uninitialised, whereas moving a 2 KiB list in and out
        // of `self` cost a memcpy each way on every expansion.
        let mut moves = MoveList::new();
        if or_node {
            pos.checks(sh.check_mode, &mut moves);
            if mate1 {
                let m = pos.mating_check(moves.as_slice());
                if m.is_some() {
                    return m;
                }
            }
        } else if pos.in_check() {
            pos.evasions(GenMode::All, &mut moves);
        } else {
            pos.legal_moves_with(GenMode::All, &mut moves);
        }
        let start = self.scratch.children.len();
        let mut any_drop = false;
        let mut any_promotion = false;
        // The leaf cache answers a new check's estimate, and a new evasion's mate in one
        // where that is tested at expansion; elsewhere its line would be fetched for nothing.
        let leaf_lookups = or_node || sh.mate1_at_expansion;
        // Pass 1: keys; prefetch every child's bit of the table's filter. Then, once all
        // are on their way, each child's repetition test and the cluster of every child
        // the table may hold, so that the path set's reads wait alongside the filter's
        // and the probes of pass 2 overlap their cache misses.
        for &m in moves.as_slice() {
            let ckey = sh.key_after(pos, m);
            let chand = pos.hand_after(attacker, m);
            sh.table.prefetch_presence(ckey);
            if leaf_lookups {
                self.scratch.leaves.prefetch(ckey, chand);
            }
            any_drop |= m.is_drop();
            any_promotion |= m.is_promotion();
            self.scratch.children.push(Child::new(ckey, m, chand));
        }
        let path = &self.scratch.path;
        for c in &mut self.scratch.children[start..] {
            if let Some(d) = path.repetition(c.key, c.hand) {
                // Repetition, exact or dominated: lost for the attacker, on this path.
                c.pn = INF;
                c.dn = 0;
                c.rep_dep = d;
            }
            sh.table.prefetch(c.key);
        }
        let delayed = !or_node && (any_drop || any_promotion);
        if delayed {
            link_delayed(pos, &mut self.scratch.children[start..]);
        }
        // A churning path makes every new defender node dearer (see `churn`).
        let churn = self.scratch.frames[depth as usize - 1].churn.penalty();
        // Most new attacker nodes return to their parent right after this expansion, and
        // all they return is the least proof number of their children. No estimate of a
        // check is below `floor`. So once a child is at the floor, the checks after it can
        // neither lower the least nor come before it in the order of choice, and their
        // estimates wait until the node goes on to search a child (`resolve_pending`).
        // Only where the mate in one has just been ruled out: an estimate also finds a
        // check with no reply, and then there is none to find.
        let floor = 1 + churn;
        let mut at_floor = false;
        // Pass 2: the table. Each child is updated where it lies: copying it out and back
        // cost more than the probe's own bookkeeping.
        for i in start..self.scratch.children.len() {
            let c = &mut self.scratch.children[i];
            if c.rep_dep != NO_DEP {
                continue;
            }
            let m = c.mv;
            let p = sh
                .table
                .probe(c.key, c.hand, c.pn, c.dn, sh.plies_left(depth + 1));
            c.pn = p.pn;
            c.dn = p.dn;
            if p.pn == 0 || p.dn == 0 {
                c.res_hand = p.hand;
            }
            c.len = p.len;
            c.md = p.md;
            c.amount = p.amount;
            c.snda = p.snda;
            at_floor |= or_node && p.found && p.pn <= floor;
            if !p.found {
                c.flags |= NEW;
                if or_node {
                    if let Some(Leaf::Evasions(pn)) = self.scratch.leaves.get(c.key, c.hand) {
                        c.pn = pn + churn;
                    } else if mate1 && at_floor {
                        c.pn = floor;
                        c.flags |= PENDING;
                    } else {
                        estimate_check(pos, attacker, &mut self.scratch.leaves, c, churn);
                        self.moves += 1;
                        self.estimate_moves += 1;
                    }
                    at_floor |= c.pn <= floor;
                }
                if sh.mate1_at_expansion
                    && !or_node
                    && c.flags & HIDDEN == 0
                    && depth + 1 < sh.max_depth
                {
                    // A new attacker node: the mate in one settles many. A held-back one is
                    // tested when it is entered, and one at the length limit is not: its
                    // mate would be longer than the limit.
                    c.flags |= MATE1_TESTED;
                    if self.scratch.leaves.get(c.key, c.hand) != Some(Leaf::NoMate1) {
                        let mut cpos = pos.clone();
                        cpos.do_move(m);
                        self.moves += 1;
                        if let Some(mm) = cpos.mate_in_1() {
                            let r = mate1_result(attacker, &cpos, mm);
                            c.pn = 0;
                            c.dn = INF;
                            c.res_hand = r.hand;
                            c.len = r.len;
                            c.amount = 1;
                            let s = Store {
                                pn: 0,
                                dn: INF,
                                hand: r.hand,
                                len: r.len,
                                md: depth + 1,
                                amount: 1,
                                parent_key: key,
                                parent_hand: hand,
                                parent_move: m,
                                snda: [0; SNDA_MOVES],
                            };
                            sh.table.store(c.key, &s);
                        } else {
                            self.scratch.leaves.put(c.key, c.hand, Leaf::NoMate1);
                        }
                    }
                }
            } else if p.parent_key != 0
                && !c.is_terminal()
                && (p.parent_key != key || p.parent_hand != hand)
            {
                self.detect_source(p.parent_key, p.parent_hand, p.parent_move, depth, m);
            }
        }
        if delayed {
            reveal_settled(&mut self.scratch.children[start..]);
        }
        None
    }

    /// Estimates the children of an attacker node whose estimates `expand` put off
    /// (`PENDING`), before the node chooses a child to search: the runner-up's proof number
    /// sets the chosen child's threshold. `children` are scratch indices.
    pub(super) fn resolve_pending(
        &mut self,
        pos: &Position,
        depth: u16,
        children: std::ops::Range<usize>,
    ) {
        let churn = self.scratch.frames[depth as usize - 1].churn.penalty();
        for c in &mut self.scratch.children[children] {
            if c.flags & PENDING != 0 {
                c.flags &= !PENDING;
                estimate_check(pos, self.sh.attacker, &mut self.scratch.leaves, c, churn);
                self.moves += 1;
                self.estimate_moves += 1;
            }
        }
    }

    /// SNDA: the child just probed was first reached from another parent. Follow parent
    /// pointers up the table; if they meet the current path, the node where they meet is
    /// a source whose two moves lead to the same descendant.
    pub(super) fn detect_source(
        &mut self,
        mut pk: u64,
        mut ph: Hand,
        mut pm: u16,
        depth: u16,
        current: Move,
    ) {
        for _ in 0..SNDA_WALK {
            if let Some(d) = self.scratch.path.depth_of(pk, ph) {
                let via = if d == depth {
                    current
                } else {
                    self.scratch.frames[d as usize].mv
                };
                if via.bits() != pm && pm != 0 {
                    let f = &mut self.scratch.frames[d as usize];
                    add_move(&mut f.snda, via.bits());
                    add_move(&mut f.snda, pm);
                }
                return;
            }
            match self.sh.table.parent_of(pk, ph) {
                Some((k, h, m)) => {
                    pk = k;
                    ph = h;
                    pm = m;
                }
                None => return,
            }
        }
    }
}

/// df-pn+: a new check `c` of `pos` is about as hard to follow up as the defender has
/// replies (drops on one square count once: they are chained), plus the path's `churn`.
/// No reply at all is mate. The count is kept in `leaves`.
fn estimate_check(
    pos: &Position,
    attacker: Color,
    leaves: &mut LeafCache,
    c: &mut Child,
    churn: u32,
) {
    let mut cpos = pos.clone();
    cpos.do_move(c.mv);
    let replies = cpos.count_evasions();
    if replies.is_mate() {
        c.pn = 0;
        c.dn = INF;
        c.res_hand = and_proof_drop_rule(&cpos, attacker, Hand::EMPTY);
        c.len = 0;
    } else {
        let pn = initial::evasion_estimate(replies);
        leaves.put(c.key, c.hand, Leaf::Evasions(pn));
        c.pn = pn + churn;
    }
}

fn add_move(set: &mut [u16; SNDA_MOVES], m: u16) {
    if set.contains(&m) {
        return;
    }
    if let Some(s) = set.iter_mut().find(|s| **s == 0) {
        *s = m;
    }
}

#[cfg(test)]
mod tests {
    use crate::dfpn::{Searcher, Shared};
    use crate::node::PENDING;
    use crate::table::Table;
    use kanju_engine::{Color, GenMode, MoveList, Position};
    use std::sync::atomic::AtomicBool;

    /// Attacker nodes along short walks from four Edo problems, with no mate in one: an
    /// expansion that puts estimates off and then resolves them leaves every child with the
    /// proof number an expansion estimating them all gives, and the node's least proof
    /// number and choice are those of the unresolved children already.
    #[test]
    fn put_off_estimates_change_nothing_once_made() {
        let starts = [
            "1pG1B4/Gs+P6/pP7/n1ls5/3k5/nL4+r1b/1+p1p+R4/1S7/2N6 b SP2gn2l11p 1",
            "l2B2+r2/s1s3+L2/k2s1g3/5B3/l+p1s+l4/1N+R2N3/2p6/9/9 b NP3gn15p 1",
            "4g4/1Slg1+P3/+rs1kp4/1L2s4/p+R1s5/2N6/9/9/9 b 2BN2g2n2l15p 1",
            "4+bn1g1/5kpPl/2l1b1s2/3+l1N1GP/4G1+P1N/5L3/9/1+r7/R8 b GP3sn13p 1",
        ];
        let table = Table::new(16);
        let stop = AtomicBool::new(false);
        let sh = Shared::for_test(&table, &stop, GenMode::All, u64::MAX, None);
        let mut s = Searcher::new(&sh, 0);
        let (mut nodes, mut put_off) = (0, 0);
        let mut frontier: Vec<Position> = starts
            .iter()
            .map(|f| Position::from_sfen(f).unwrap())
            .collect();
        for _ in 0..3 {
            let mut next = Vec::new();
            for pos in &frontier {
                let (key, hand) = (sh.key_of(pos), pos.hand(Color::Black));
                let lazy = s.expand(pos, 1, true, key, hand, true);
                if lazy.is_some() {
                    continue;
                }
                let children = s.scratch.children.clone();
                s.scratch.children.clear();
                s.expand(pos, 1, true, key, hand, false);
                let eager = s.scratch.children.clone();
                s.scratch.children.clear();
                let sum = |c: &[crate::node::Child]| {
                    let r = crate::node::summarize(c, true, 1, &[0; crate::entry::SNDA_MOVES]);
                    (r.pn, r.dn, r.best)
                };
                assert_eq!(sum(&children), sum(&eager), "{}", pos.to_sfen());
                put_off += children.iter().filter(|c| c.flags & PENDING != 0).count();
                s.scratch.children = children;
                s.resolve_pending(pos, 1, 0..eager.len());
                for (a, b) in s.scratch.children.iter().zip(&eager) {
                    assert_eq!(
                        (a.mv, a.pn, a.flags),
                        (b.mv, b.pn, b.flags),
                        "{}",
                        pos.to_sfen()
                    );
                }
                s.scratch.children.clear();
                nodes += 1;
                // One reply to each of the first few checks: the next attacker nodes.
                let mut checks = MoveList::new();
                pos.checks(GenMode::All, &mut checks);
                for &m in checks.as_slice().iter().take(4) {
                    let after = pos.play(m);
                    let mut replies = MoveList::new();
                    after.evasions(GenMode::All, &mut replies);
                    if let Some(&r) = replies.as_slice().first() {
                        next.push(after.play(r));
                    }
                }
            }
            frontier = next;
        }
        assert!(
            nodes > 20 && put_off > 20,
            "{nodes} nodes, {put_off} put off"
        );
    }
}
