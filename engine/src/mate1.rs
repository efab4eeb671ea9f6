//! Mate-in-1.

use crate::movegen::GenMode;
use crate::moves::{Move, MoveList};
use crate::position::Position;

impl Position {
    /// A move of the side to move that checkmates at once, if one exists. Sound: a returned
    /// move is always legal and mates; complete: if a mate-in-1 exists, one is returned.
    /// Considers every legal check, non-promotions included.
    pub fn mate_in_1(&self) -> Option<Move> {
        let mut checks = MoveList::new();
        self.checks(GenMode::All, &mut checks);
        checks.as_slice().iter().copied().find(|&m| !self.play(m).has_evasion())
    }
}
