//! Conversion to and from `shogi_core`, the types Kanju shows at its API edges.
//!
//! Squares share their numbering (ours is `shogi_core`'s index minus one) and kinds their
//! order, so the piece-level conversions are arithmetic. Whole positions go through the
//! board and hands directly, then through the same validation as SFEN input.

use crate::position::{Position, PositionError};
use crate::types::{Color, Piece, PieceKind, Square};

impl Color {
    /// Converts to `shogi_core`'s color.
    pub fn to_core(self) -> shogi_core::Color {
        match self {
            Color::Black => shogi_core::Color::Black,
            Color::White => shogi_core::Color::White,
        }
    }

    /// Converts from `shogi_core`'s color.
    pub fn from_core(c: shogi_core::Color) -> Color {
        match c {
            shogi_core::Color::Black => Color::Black,
            shogi_core::Color::White => Color::White,
        }
    }
}

impl Position {
    /// Builds a position from a `shogi_core` partial position, validating it as
    /// [`Position::from_sfen`] does.
    pub fn from_core(p: &shogi_core::PartialPosition) -> Result<Position, PositionError> {
        // SFEN is the one validated way in, and this is no hot path.
        let sfen = p.to_sfen_owned();
        Position::from_sfen(&sfen)
    }

    /// The position as a `shogi_core` partial position.
    pub fn to_core(&self) -> shogi_core::PartialPosition {
        let mut p = shogi_core::PartialPosition::empty();
        for sq in Square::all() {
            if let Some(piece) = self.piece_on(sq) {
                p.piece_set(sq.to_core(), Some(piece.to_core()));
            }
        }
        for c in Color::ALL {
            let hand = p.hand_of_a_player_mut(c.to_core());
            for k in PieceKind::HAND {
                for _ in 0..self.hand(c).count(k) {
                    if let Some(h) = hand.added(k.to_core()) {
                        *hand = h;
                    }
                }
            }
        }
        p.side_to_move_set(self.side_to_move().to_core());
        // shogi_core refuses ply 0 only, and ours starts at 1.
        let _accepted = p.ply_set(u16::try_from(self.ply() + 1).unwrap_or(u16::MAX));
        p
    }
}

impl Piece {
    /// Converts from `shogi_core`'s piece.
    pub fn from_core(p: shogi_core::Piece) -> Piece {
        Piece::new(
            Color::from_core(p.color()),
            PieceKind::from_core(p.piece_kind()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_round_trip_through_shogi_core() {
        for s in [
            crate::STARTPOS_SFEN,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
        ] {
            let pos = Position::from_sfen(s).unwrap();
            let core = pos.to_core();
            assert_eq!(core.to_sfen_owned(), s);
            assert_eq!(Position::from_core(&core).unwrap().to_sfen(), s);
        }
    }
}
