//! SFEN parsing and printing, position validation, USI move parsing.

use crate::moves::Move;
use crate::position::{MoveError, Position, PositionError};

impl Position {
    /// Parses an SFEN (optionally prefixed by `sfen `) or the word `startpos`, and validates it.
    /// Hands may use counts (`2P`, `18p`); the move number may be omitted.
    pub fn from_sfen(s: &str) -> Result<Position, PositionError> {
        let _ = s;
        todo!()
    }

    /// The position in SFEN.
    pub fn to_sfen(&self) -> String {
        todo!()
    }

    /// Parses a USI move and checks it against the legal moves (non-promotions included).
    pub fn parse_usi_move(&self, s: &str) -> Result<Move, MoveError> {
        let _ = s;
        todo!()
    }
}
