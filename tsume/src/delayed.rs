//! Moves held back until a sibling is settled (lazy expansion).
//!
//! Only defender nodes hold moves back. A held-back child is flagged `HIDDEN`: it takes no
//! part in its node's numbers and is never chosen. Each chain is linked through
//! `Child::next` and revealed one link at a time, once the link before it is proven:
//! - **Interposition drops on one square**, at a defender node, cheapest piece first. A
//!   dearer piece is tried only once the cheaper one is proven, since the cheaper one
//!   usually fails for the same reason.
//! - **The defender's non-promotions of a pawn, bishop or rook**, held back behind the
//!   promotion of the same move until it is proven. The promoted piece moves like the
//!   unpromoted one and more, so staying unpromoted rarely defends better.
//!
//! The attacker's non-promotions are not held back: the famous 不成 moves of the classics
//! would then wait for a disproof of the promotion, which is dear (on the Edo set at 1 M
//! nodes, 177 problems decided instead of 190).

use crate::node::{Child, HIDDEN, NO_NEXT};
use kanju_engine::{Move, PieceKind, Position};

/// Links and hides the delayed moves among `cs`, the children of the defender node `pos`.
pub(crate) fn link_delayed(pos: &Position, cs: &mut [Child]) {
    chain_interpositions(cs);
    chain_non_promotions(pos, cs);
}

/// After the table lookups: a hidden child already disproven is shown so that the
/// refutation is seen, and chains whose visible links the table already proved move on.
pub(crate) fn reveal_settled(cs: &mut [Child]) {
    for i in 0..cs.len() {
        if cs[i].flags & HIDDEN != 0 && cs[i].dn == 0 {
            cs[i].flags &= !HIDDEN;
        }
        if cs[i].flags & HIDDEN == 0 {
            reveal_chain(cs, i);
        }
    }
}

/// Reveals the chain after child `i` as far as its links are proven.
pub(crate) fn reveal_chain(cs: &mut [Child], mut i: usize) {
    while cs[i].pn == 0 && cs[i].next != NO_NEXT {
        i = cs[i].next as usize;
        cs[i].flags &= !HIDDEN;
    }
}

/// Chains the drops on each square from the cheapest kind up.
fn chain_interpositions(cs: &mut [Child]) {
    let Some(squares) = DropSquares::of(cs.iter().enumerate().map(|(i, c)| (i, c.mv))) else {
        return;
    };
    for c in cs.iter_mut().filter(|c| c.mv.is_drop()) {
        let (next, cheaper) = squares.links(c.mv);
        c.next = next.unwrap_or(NO_NEXT);
        if cheaper {
            c.flags |= HIDDEN;
        }
    }
}

/// One node's drops by square and kind, from which each drop's place in its square's
/// chain is read: two passes over the children, not a scan of all of them for each drop,
/// since a distant check can be answered by dozens of drops. The main line's bounded
/// search chains its drops with it too.
pub(crate) struct DropSquares {
    /// Per square, the kinds dropped there (bit per hand kind, pawn = bit 0, ranked as
    /// `PieceKind` ranks them).
    kinds: [u8; 81],
    /// Per square and kind, the child that drops it there.
    child: [[u16; 7]; 81],
}

impl DropSquares {
    /// The drops among `moves`, each with its child's index; `None` if there is none.
    #[inline]
    pub(crate) fn of(moves: impl Iterator<Item = (usize, Move)>) -> Option<DropSquares> {
        let mut d = DropSquares {
            kinds: [0; 81],
            child: [[0; 7]; 81],
        };
        let mut any = false;
        for (i, m) in moves {
            if let Some(k) = m.drop_kind() {
                let to = m.to().index();
                d.kinds[to] |= 1 << k.index();
                d.child[to][k.index()] = i as u16;
                any = true;
            }
        }
        any.then_some(d)
    }

    /// For the drop `m`, one of those given: the child dropping the next dearer kind on
    /// its square, if any, and whether a cheaper kind is dropped there.
    #[inline]
    pub(crate) fn links(&self, m: Move) -> (Option<u16>, bool) {
        let k = m.drop_kind().expect("a drop").index();
        let to = m.to().index();
        let cheaper = self.kinds[to] & ((1u8 << k) - 1);
        let dearer = self.kinds[to] & !((2u8 << k) - 1);
        let next = (dearer != 0).then(|| self.child[to][dearer.trailing_zeros() as usize]);
        (next, cheaper != 0)
    }
}

fn chain_non_promotions(pos: &Position, cs: &mut [Child]) {
    // The generators emit a move's non-promotion right before its promotion.
    for i in 1..cs.len() {
        let (stay, promote) = (cs[i - 1].mv, cs[i].mv);
        let Some(from) = promote.from() else {
            continue;
        };
        if !promote.is_promotion()
            || stay.is_promotion()
            || stay.from() != Some(from)
            || stay.to() != promote.to()
        {
            continue;
        }
        let kind = pos.piece_on(from).map(|p| p.kind());
        if matches!(
            kind,
            Some(PieceKind::Pawn | PieceKind::Bishop | PieceKind::Rook)
        ) {
            cs[i].next = (i - 1) as u16;
            cs[i - 1].flags |= HIDDEN;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_engine::{GenMode, Hand, Move, MoveList, Square};

    fn drop_child(kind: PieceKind, sq: usize) -> Child {
        Child::new(
            1,
            Move::drop(kind, Square::from_index(sq).unwrap()),
            Hand::EMPTY,
        )
    }

    fn hidden(cs: &[Child]) -> Vec<bool> {
        cs.iter().map(|c| c.flags & HIDDEN != 0).collect()
    }

    #[test]
    fn interpositions_are_chained_cheapest_first() {
        let mut cs = vec![
            drop_child(PieceKind::Gold, 10),
            drop_child(PieceKind::Pawn, 10),
            drop_child(PieceKind::Rook, 10),
            drop_child(PieceKind::Gold, 11),
        ];
        chain_interpositions(&mut cs);
        assert_eq!(hidden(&cs), vec![true, false, true, false]);
        assert_eq!(cs[1].next, 0);
        assert_eq!(cs[0].next, 2);
        cs[1].pn = 0;
        reveal_chain(&mut cs, 1);
        assert_eq!(cs[0].flags & HIDDEN, 0);
        assert_ne!(cs[2].flags & HIDDEN, 0);
    }

    /// The defender's rook entering the promotion zone: each non-promotion waits behind its
    /// promotion, and is revealed once the promotion is proven, not when it is disproven.
    #[test]
    fn non_promotions_wait_behind_promotions() {
        let pos = Position::from_sfen("r7k/9/9/9/9/9/9/9/4K4 w - 1").unwrap();
        let mut moves = MoveList::new();
        pos.legal_moves_with(GenMode::All, &mut moves);
        let mut cs: Vec<Child> = moves
            .as_slice()
            .iter()
            .map(|&m| Child::new(1, m, Hand::EMPTY))
            .collect();
        link_delayed(&pos, &mut cs);
        reveal_settled(&mut cs);
        let stays: Vec<usize> = (0..cs.len())
            .filter(|&i| {
                let m = cs[i].mv;
                !m.is_promotion()
                    && cs
                        .iter()
                        .any(|c| c.mv.is_promotion() && c.mv.to() == m.to())
            })
            .collect();
        assert_eq!(stays.len(), 3, "9g, 9h and 9i are reached both ways");
        for (i, c) in cs.iter().enumerate() {
            assert_eq!(
                c.flags & HIDDEN != 0,
                stays.contains(&i),
                "{}",
                c.mv.to_usi()
            );
        }
        let head = (0..cs.len())
            .find(|&i| cs[i].next == stays[0] as u16)
            .unwrap();
        cs[head].dn = 0;
        reveal_chain(&mut cs, head);
        assert_ne!(
            cs[stays[0]].flags & HIDDEN,
            0,
            "a disproof ends the search here"
        );
        cs[head].dn = 1;
        cs[head].pn = 0;
        reveal_chain(&mut cs, head);
        assert_eq!(cs[stays[0]].flags & HIDDEN, 0);
    }
}
