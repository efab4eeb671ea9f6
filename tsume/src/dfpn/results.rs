//! What a settled node returns to its parent and stores: proof and disproof pieces under
//! the drop rule, mate lengths, and the path dependency of a disproof that rests on a
//! repetition.

use super::{Res, Searcher};
use crate::entry::{one_ply_up, ANY_LENGTH, INF, PN_MAX, SNDA_MOVES};
use crate::node::{Child, NO_DEP};
use crate::proof_hand::{
    and_disproof, and_proof_drop_rule, captured_kind, disproof_ceiling, or_disproof, or_proof,
};
use crate::table::Store;
use kanju_engine::{Color, Hand, Move, Position};

/// The result of an attacker node with a mate in one by `m`.
pub(super) fn mate1_result(attacker: Color, pos: &Position, m: Move) -> Res {
    let after = pos.play(m);
    let p_and = and_proof_drop_rule(&after, attacker, Hand::EMPTY);
    let p = or_proof(p_and, m, captured_kind(pos, m));
    let p = if pos.hand(attacker).dominates(p) {
        p
    } else {
        pos.hand(attacker)
    };
    Res {
        pn: 0,
        dn: INF,
        hand: p,
        len: 1,
        rep_dep: NO_DEP,
        amount: 1,
    }
}

impl Searcher<'_> {
    pub(super) fn proof_of(
        &self,
        pos: &Position,
        or_node: bool,
        start: usize,
        end: usize,
        r: &mut Res,
    ) {
        let cs = &self.scratch.children[start..end];
        let actual = r.hand;
        if or_node {
            // The shortest proven mate among the children.
            let c = cs
                .iter()
                .filter(|c| c.pn == 0)
                .min_by_key(|c| c.len)
                .expect("a proven child");
            r.hand = or_proof(c.res_hand, c.mv, captured_kind(pos, c.mv));
            r.len = c.len.saturating_add(1);
        } else {
            let mut p = Hand::EMPTY;
            let mut len = 0u16;
            for c in cs {
                p = p.max(c.res_hand);
                len = len.max(c.len);
            }
            r.hand = and_proof_drop_rule(pos, self.sh.attacker, p);
            r.len = len.saturating_add(1);
        }
        if !actual.dominates(r.hand) {
            r.hand = actual;
        }
    }

    pub(super) fn disproof_of(
        &self,
        pos: &Position,
        or_node: bool,
        depth: u16,
        start: usize,
        end: usize,
        r: &mut Res,
    ) {
        let cs = &self.scratch.children[start..end];
        let actual = r.hand;
        let mut dep = NO_DEP;
        if or_node {
            let mut d = disproof_ceiling(actual);
            for c in cs {
                d = or_disproof(d, c.res_hand, c.mv, captured_kind(pos, c.mv));
                dep = dep.min(c.rep_dep);
            }
            r.hand = d;
            // Under a length limit, the check whose refutation reaches least bounds how
            // far the node's does; with none limited, it holds at any length.
            r.len = cs
                .iter()
                .map(|c| one_ply_up(c.len))
                .filter(|&reach| reach != ANY_LENGTH)
                .min()
                .unwrap_or(ANY_LENGTH);
        } else {
            // Prefer a refutation that holds everywhere, then one that holds at any length,
            // then the one that reaches furthest.
            let c = cs
                .iter()
                .filter(|c| c.dn == 0)
                .max_by_key(|c| (c.rep_dep, c.len == ANY_LENGTH, c.len))
                .expect("a disproven child");
            r.hand = and_disproof(c.res_hand, c.mv, actual);
            r.len = one_ply_up(c.len);
            dep = c.rep_dep;
        }
        if !r.hand.dominates(actual) {
            r.hand = actual;
        }
        // Dependencies on this node or deeper are closed here: the cycle returned to us.
        r.rep_dep = if dep >= depth { NO_DEP } else { dep };
        if r.rep_dep != NO_DEP {
            r.hand = actual;
        }
    }

    pub(super) fn store_terminal(
        &self,
        key: u64,
        r: &Res,
        md: u16,
        me: &Child,
        parent: (u64, Hand, Move),
    ) {
        let s = Store {
            pn: r.pn,
            dn: r.dn,
            hand: r.hand,
            len: r.len,
            md,
            amount: r.amount.max(me.amount),
            parent_key: parent.0,
            parent_hand: parent.1,
            parent_move: parent.2,
            snda: [0; SNDA_MOVES],
        };
        self.sh.table.store(key, &s);
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn store_unknown(
        &self,
        key: u64,
        hand: Hand,
        pn: u32,
        dn: u32,
        md: u16,
        amount: u32,
        parent: (u64, Hand, Move),
        depth: u16,
    ) {
        let s = Store {
            pn: pn.clamp(1, PN_MAX),
            dn: dn.clamp(1, PN_MAX),
            hand,
            len: 0,
            md,
            amount,
            parent_key: parent.0,
            parent_hand: parent.1,
            parent_move: parent.2,
            snda: self.scratch.frames[depth as usize].snda,
        };
        self.sh.table.store(key, &s);
    }
}
