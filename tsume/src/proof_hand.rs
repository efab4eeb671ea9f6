//! Proof pieces (証明駒) and disproof pieces (反証駒).
//!
//! A proof hand P says: with this board, any attacker hand holding at least P mates. A
//! disproof hand D says: any attacker hand holding at most D does not. Both are derived
//! bottom-up from the children; every rule below keeps the claim true for *all* hands it
//! covers, which is what lets the table answer for positions never searched.
//!
//! Pieces are conserved within a search, so fewer attacker pieces means more defender
//! pieces. That is why a proof hand smaller than the actual hand must respect the drop
//! rule: the defender would then hold kinds it could interpose.

use kanju_engine::{between, Color, Hand, Move, PieceKind, Position};

const MAX: [u32; 7] = [18, 4, 4, 4, 4, 2, 2];

#[inline]
fn max_of(kind: PieceKind) -> u32 {
    MAX[kind.unpromote().index()]
}

/// One more `kind`, saturating at the game's supply.
#[inline]
pub(crate) fn add_sat(h: Hand, kind: PieceKind) -> Hand {
    let k = kind.unpromote();
    if h.count(k) >= max_of(k) {
        h
    } else {
        h.add(k)
    }
}

/// One fewer `kind`, saturating at zero.
#[inline]
pub(crate) fn sub_sat(h: Hand, kind: PieceKind) -> Hand {
    let k = kind.unpromote();
    if h.has(k) {
        h.remove(k)
    } else {
        h
    }
}

/// The kind the attacker gains by `m` here, if it captures.
#[inline]
pub(crate) fn captured_kind(pos: &Position, m: Move) -> Option<PieceKind> {
    if m.is_drop() {
        None
    } else {
        pos.piece_on(m.to()).map(|p| p.kind().unpromote())
    }
}

/// Proof hand of an attacker node proven by `m`, from the child's proof hand.
pub(crate) fn or_proof(child: Hand, m: Move, captured: Option<PieceKind>) -> Hand {
    let mut p = child;
    if let Some(k) = m.drop_kind() {
        // The attacker needs the dropped piece before the drop.
        p = add_sat(p, k);
    }
    if let Some(k) = captured {
        // The capture supplies one piece of that kind.
        p = sub_sat(p, k);
    }
    p
}

/// Widens the proof hand of a defender node in check so that the drop rule holds.
///
/// With a proof hand smaller than the actual one, the defender would hold the difference.
/// For every kind the defender holds none of now (so no drop of it was refuted) the proof
/// must keep all the attacker's pieces of that kind, if an interposition square exists.
pub(crate) fn and_proof_drop_rule(pos: &Position, attacker: Color, p: Hand) -> Hand {
    let defender = attacker.flip();
    let checkers = pos.checkers();
    if checkers.has_more_than_one() || checkers.is_empty() {
        // No interposition against a double check; not in check cannot happen here.
        return if checkers.is_empty() {
            pos.hand(attacker)
        } else {
            p
        };
    }
    let Some(king) = pos.king_square(defender) else {
        return p;
    };
    let checker = checkers.single();
    if between(king, checker).is_empty() {
        return p;
    }
    let actual = pos.hand(attacker);
    let def_hand = pos.hand(defender);
    let mut out = p;
    for k in PieceKind::HAND {
        if !def_hand.has(k) && actual.count(k) > out.count(k) {
            out = out.with_count(k, actual.count(k)).unwrap_or(out);
        }
    }
    out
}

/// The largest disproof hand before looking at any child: the attacker may hold more of
/// the kinds it already holds (no new drop becomes possible), none of the others.
pub(crate) fn disproof_ceiling(actual: Hand) -> Hand {
    let mut d = Hand::EMPTY;
    for k in PieceKind::HAND {
        if actual.has(k) {
            d = d.with_count(k, MAX[k.index()]).unwrap_or(d);
        }
    }
    d
}

/// Bounds an attacker node's disproof hand by one disproven child reached by `m`.
pub(crate) fn or_disproof(acc: Hand, child: Hand, m: Move, captured: Option<PieceKind>) -> Hand {
    let mut c = child;
    if let Some(k) = m.drop_kind() {
        // Before the drop the attacker held one more.
        c = add_sat(c, k);
    }
    if let Some(k) = captured {
        // Before the capture the attacker held one fewer.
        if !c.has(k) {
            // The child's disproof does not even cover the piece just captured: keep the
            // parent's claim to its actual hand for this kind.
            return acc.with_count(k, 0).unwrap_or(acc);
        }
        c = c.remove(k);
    }
    acc.min(c)
}

/// Disproof hand of a defender node refuted by evasion `m`: the defender must still be
/// able to play it, so a dropped kind stays at the actual count.
pub(crate) fn and_disproof(child: Hand, m: Move, actual: Hand) -> Hand {
    match m.drop_kind() {
        Some(k) if child.count(k) > actual.count(k) => {
            child.with_count(k, actual.count(k)).unwrap_or(child)
        }
        _ => child,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_engine::Square;

    fn h(p: u32, g: u32, r: u32) -> Hand {
        Hand::EMPTY
            .with_count(PieceKind::Pawn, p)
            .unwrap()
            .with_count(PieceKind::Gold, g)
            .unwrap()
            .with_count(PieceKind::Rook, r)
            .unwrap()
    }

    fn sq(s: &str) -> Square {
        Square::from_usi(s).unwrap()
    }

    #[test]
    fn proof_adds_drops_and_credits_captures() {
        let drop = Move::drop(PieceKind::Gold, sq("5b"));
        assert_eq!(or_proof(h(0, 0, 0), drop, None), h(0, 1, 0));
        let cap = Move::normal(sq("5c"), sq("5b"), false);
        assert_eq!(or_proof(h(1, 1, 0), cap, Some(PieceKind::Gold)), h(1, 0, 0));
        assert_eq!(or_proof(h(1, 0, 0), cap, Some(PieceKind::Gold)), h(1, 0, 0));
        // Saturation: no overflow into the next field.
        let full = Hand::EMPTY.with_count(PieceKind::Rook, 2).unwrap();
        assert_eq!(add_sat(full, PieceKind::Dragon), full);
    }

    #[test]
    fn disproof_bounds_follow_the_moves() {
        let actual = h(1, 1, 0);
        let ceil = disproof_ceiling(actual);
        assert_eq!(ceil.count(PieceKind::Pawn), 18);
        assert_eq!(
            ceil.count(PieceKind::Rook),
            0,
            "a rook in hand would add drops"
        );
        let drop = Move::drop(PieceKind::Gold, sq("5b"));
        // Child disproven with at most P+G after dropping G: parent covers P+2G.
        let d = or_disproof(ceil, h(1, 1, 0), drop, None);
        assert_eq!(d, h(1, 2, 0));
        // A capture of a gold: the parent holds one fewer than the child.
        let cap = Move::normal(sq("5c"), sq("5b"), false);
        assert_eq!(
            or_disproof(ceil, h(1, 2, 0), cap, Some(PieceKind::Gold)).count(PieceKind::Gold),
            1
        );
        // Defender's drop must stay possible.
        let ddrop = Move::drop(PieceKind::Gold, sq("5b"));
        assert_eq!(and_disproof(h(3, 3, 0), ddrop, h(1, 1, 0)), h(3, 1, 0));
    }
}
