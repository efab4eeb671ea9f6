//! 無駄合 (futile interposition): which defences are interpositions, and the position in
//! which an interposed piece is "given back".
//!
//! The rule Kanju applies (the give-back test of Noshita's T2):
//!
//! * Only a *drop* between a single long-range checker and the king is a candidate
//!   (中合 / 合駒). Moving a piece already on the board onto the line (移動合) always
//!   counts as a real defence, because capturing it changes the defender's material on
//!   the board, not only in hand.
//! * The drop is futile when the attacker can capture the dropped piece with check, by
//!   the checker or by a piece that then gives check alone, and the position after the
//!   capture, **with the captured piece put back into the defender's hand**, is still
//!   mated. The attacker then gains nothing from the piece, nor the
//!   defender from the drop. How long that mate may take is [`crate::FutileRule`]'s:
//!   within `N`, the length against the defender's other replies (Kakinoki's "the mate
//!   goes on in the same length"), or at any length, as the classical collections count.
//!   Either way, where every reply is such a drop (`N` = 0) the capture must mate again
//!   at once: the check is mate but for the drops, and a line may end there only if it
//!   really is.
//! * Futile drops are neither played nor counted. A defender whose only replies are
//!   futile drops is mated.
//! * A drop that fails the test is an effective interposition (有効合): it is played and
//!   counted, and the attacker keeps the captured piece.
//!
//! "Mated at any length" is decided, cheapest first, by the df-pn table's verdict, by a
//! mate within `N` (the bounded search's own test, which implies it), and by a df-pn
//! search of the give-back position with a small node budget. A test none of them decides
//! counts the drop as effective.
//!
//! Only captures that leave the taker the sole checker are tried: the checker's own keeps
//! the check on the same line, another piece's checks from the drop square, and any new
//! interposition then lies strictly closer to the king, so repeated futility tests always
//! terminate. (Shogi Zuko 73 needs the second kind: the horse, not the dragon, takes the
//! knight dropped on 8f.)

use kanju_engine::{between, GenMode, Move, MoveList, PieceKind, Position, Square};

/// The squares where a drop would be an interposition against the current check, with the
/// checker's square; `None` unless exactly one piece gives check from a distance.
pub(crate) fn interposition_line(pos: &Position) -> Option<(Square, kanju_engine::Bitboard)> {
    let checkers = pos.checkers();
    if checkers.is_empty() || checkers.has_more_than_one() {
        return None;
    }
    let checker = checkers.single();
    let king = pos.king_square(pos.side_to_move())?;
    let line = between(checker, king);
    line.is_nonempty().then_some((checker, line))
}

/// True if `m` is a drop onto `line` (a candidate futile interposition).
pub(crate) fn is_interposing_drop(m: Move, line: Option<(Square, kanju_engine::Bitboard)>) -> bool {
    matches!(line, Some((_, l)) if m.is_drop() && l.contains(m.to()))
}

/// True if the check `c` takes the piece just dropped on `s` against `checker` in a way the
/// futility test counts (`after` is the position after `c`): the checker itself, or any
/// piece that, standing on `s`, is then the only one giving check. Either way a further
/// drop can only go between `s` and the king, strictly closer, so repeated tests end.
pub(crate) fn takes_interposition(c: Move, s: Square, checker: Square, after: &Position) -> bool {
    c.to() == s
        && (c.from() == Some(checker) || after.checkers() == kanju_engine::Bitboard::from_square(s))
}

/// The give-back positions of the futility test on `drop`, interposed against the check
/// from `checker` (`after` is the position it leaves): for each capture of the dropped
/// piece that [`takes_interposition`] counts, the position it leaves with the piece
/// handed back to the defender.
pub(crate) fn give_backs(
    after: &Position,
    drop: Move,
    checker: Square,
    mode: GenMode,
) -> Vec<Position> {
    let (Some(kind), s) = (drop.drop_kind(), drop.to()) else {
        return Vec::new();
    };
    let mut checks = MoveList::new();
    after.checks(mode, &mut checks);
    checks
        .as_slice()
        .iter()
        .filter(|c| c.to() == s)
        .filter_map(|&c| {
            let taken = after.play(c);
            if !takes_interposition(c, s, checker, &taken) {
                return None;
            }
            give_back(&taken, kind)
        })
        .collect()
}

/// `pos` (defender to move, right after the attacker captured a piece of `kind`) with that
/// piece moved from the attacker's hand back to the defender's.
pub(crate) fn give_back(pos: &Position, kind: PieceKind) -> Option<Position> {
    pos.with_piece_handed_over(pos.side_to_move().flip(), kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_engine::Color;

    #[test]
    fn give_back_moves_one_piece_between_hands() {
        let pos = Position::from_sfen("4k4/9/4R4/9/9/9/9/9/9 w Pr2b4g4s4n4l17p 1").unwrap();
        let q = give_back(&pos, PieceKind::Pawn).unwrap();
        assert_eq!(q.hand(Color::Black).count(PieceKind::Pawn), 0);
        assert_eq!(q.hand(Color::White).count(PieceKind::Pawn), 18);
        assert_eq!(q.board_key(), pos.board_key());
    }
}
