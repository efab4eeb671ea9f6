//! Legal move generation: all moves, checks, evasions. Every generator yields only legal moves.

use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::bitboard::Bitboard;
use crate::types::{Color, Square};

/// Which non-promotions a generator includes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum GenMode {
    /// The usual convention (YaneuraOu, cshogi, rsshogi): pawn, bishop and rook moves that
    /// could promote are generated only as promotions, and a lance only promotes on rank 2.
    #[default]
    Standard,
    /// Every legal move, including the non-promotions `Standard` leaves out. Tsume needs these
    /// (a non-promoted piece can avoid stalemating the defender into a pawn-drop mate, etc.).
    All,
}

impl Position {
    /// All legal moves, standard convention.
    pub fn legal_moves(&self, list: &mut MoveList) {
        self.legal_moves_with(GenMode::Standard, list)
    }

    /// All legal moves in the given mode.
    pub fn legal_moves_with(&self, mode: GenMode, list: &mut MoveList) {
        let _ = (mode, list);
        todo!()
    }

    /// The legal moves of the side to move that give check. Empty if the opponent has no king.
    pub fn checks(&self, mode: GenMode, list: &mut MoveList) {
        let _ = (mode, list);
        todo!()
    }

    /// The legal moves of a side in check. Must only be called when [`Position::in_check`].
    pub fn evasions(&self, mode: GenMode, list: &mut MoveList) {
        let _ = (mode, list);
        todo!()
    }

    /// True if the side to move has at least one legal move.
    pub fn has_legal_move(&self) -> bool {
        todo!()
    }

    /// True if the side to move is checkmated.
    pub fn is_checkmate(&self) -> bool {
        self.in_check() && !self.has_legal_move()
    }

    /// True if `m` is legal here by the rules (any promotion choice the rules allow).
    pub fn is_legal(&self, m: Move) -> bool {
        let _ = m;
        todo!()
    }

    /// True if the legal move `m` gives check.
    pub fn gives_check(&self, m: Move) -> bool {
        let _ = m;
        todo!()
    }

    /// Pieces of `color` attacking `sq` with the current occupancy.
    pub fn attackers_to(&self, color: Color, sq: Square) -> Bitboard {
        let _ = (color, sq);
        todo!()
    }

    /// Pieces of `color` pinned against `color`'s own king.
    pub fn pinned(&self, color: Color) -> Bitboard {
        let _ = color;
        todo!()
    }

    /// Makes the legal move `m` and returns the new position.
    pub fn play(&self, m: Move) -> Position {
        let mut p = self.clone();
        p.do_move(m);
        p
    }

    /// Makes the legal move `m` in place.
    pub fn do_move(&mut self, m: Move) {
        let _ = m;
        todo!()
    }
}
