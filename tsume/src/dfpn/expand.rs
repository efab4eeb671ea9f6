//! A node's expansion: its moves generated, each child estimated (df-pn+) and looked up,
//! cheap mates in one settled on the spot, and SNDA's shared descendants detected from the
//! table's parent pointers.

use super::results::mate1_result;
use super::Searcher;
use crate::delayed::{link_delayed, reveal_settled};
use crate::entry::{INF, SNDA_MOVES};
use crate::initial;
use crate::leaf_cache::Leaf;
use crate::node::{Child, HIDDEN, MATE1_TESTED, NEW, NO_DEP};
use crate::proof_hand::and_proof_drop_rule;
use crate::table::Store;
use kanju_engine::{GenMode, Hand, Move, MoveList, Position};

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
            if !p.found {
                c.flags |= NEW;
                if or_node {
                    // df-pn+: a check is about as hard to follow up as the defender has
                    // replies (drops on one square count once: they are chained). No reply
                    // at all is mate.
                    if let Some(Leaf::Evasions(pn)) = self.scratch.leaves.get(c.key, c.hand) {
                        c.pn = pn + churn;
                    } else {
                        let mut cpos = pos.clone();
                        cpos.do_move(m);
                        self.moves += 1;
                        self.estimate_moves += 1;
                        let replies = cpos.count_evasions();
                        if replies.is_mate() {
                            c.pn = 0;
                            c.dn = INF;
                            c.res_hand = and_proof_drop_rule(&cpos, attacker, Hand::EMPTY);
                            c.len = 0;
                        } else {
                            let pn = initial::evasion_estimate(replies);
                            self.scratch.leaves.put(c.key, c.hand, Leaf::Evasions(pn));
                            c.pn = pn + churn;
                        }
                    }
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

fn add_move(set: &mut [u16; SNDA_MOVES], m: u16) {
    if set.contains(&m) {
        return;
    }
    if let Some(s) = set.iter_mut().find(|s| **s == 0) {
        *s = m;
    }
}
