//! Mate-in-1.
//!
//! Most checks leave the king a square to step to, so each check is first put through an
//! exact king-escape test computed on the unchanged position (no copy-make). Only checks
//! that leave no escape are played out and tested for captures and interpositions.

use crate::attacks::{attacks_from, steps};
use crate::bitboard::Bitboard;
use crate::movegen::GenMode;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::types::{Piece, PieceKind};

impl Position {
    /// A move of the side to move that checkmates at once, if one exists. Sound: a returned
    /// move is always legal and mates; complete: if a mate-in-1 exists, one is returned.
    /// Considers every legal check, non-promotions included.
    pub fn mate_in_1(&self) -> Option<Move> {
        let ek = self.king_square(self.side.flip())?;
        let mut checks = MoveList::new();
        self.checks(GenMode::All, &mut checks);
        let escapes =
            steps(self.side.flip(), PieceKind::King, ek).and_not(self.pieces(self.side.flip()));
        checks
            .as_slice()
            .iter()
            .copied()
            .find(|&m| !self.king_escapes_after(m, escapes) && !self.play(m).has_evasion())
    }

    /// True if, after the checking move `m`, the defending king can step to one of
    /// `escapes` (its neighbours not holding its own pieces). Exact: it accounts for the
    /// vacated origin, the occupied destination and the king's own square.
    #[inline]
    fn king_escapes_after(&self, m: Move, escapes: Bitboard) -> bool {
        let us = self.side;
        let ek = self.king_square(us.flip()).expect("defender king");
        let to = m.to();
        let to_bb = Bitboard::from_square(to);
        let (piece, from_bb) = match m.from() {
            None => (
                Piece::new(us, m.drop_kind().expect("drop")),
                Bitboard::EMPTY,
            ),
            Some(from) => {
                let p = self.piece_on(from).expect("mover");
                let k = if m.is_promotion() {
                    p.kind().promote()
                } else {
                    p.kind()
                };
                (Piece::new(us, k), Bitboard::from_square(from))
            }
        };
        // Occupancy with the move made and the king lifted, so it cannot hide behind itself.
        let occ = ((self.occupied() ^ from_bb) | to_bb) ^ Bitboard::from_square(ek);
        let covered = attacks_from(piece, to, occ);
        for sq in escapes.and_not(covered) {
            let others = self.attackers_to_occ(us, sq, occ).and_not(from_bb);
            // A defender piece captured on `to` no longer guards; the attacker's own pieces
            // are unchanged apart from the mover, which `from_bb` removes.
            if others.is_empty() {
                return true;
            }
        }
        false
    }
}
