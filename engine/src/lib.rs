//! Kanju's board engine: bitboards, positions, legal move generation for shogi,
//! with the check and evasion generators and the mate-in-1 test a tsume solver lives on.
//!
//! ```
//! use kanju_engine::{Position, MoveList};
//! let pos = Position::from_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1").unwrap();
//! let mut moves = MoveList::new();
//! pos.legal_moves(&mut moves);
//! assert_eq!(moves.len(), 30);
//! ```
#![deny(missing_docs)]

mod attacks;
mod bitboard;
mod core_compat;
mod evasion_count;
mod hand;
mod history;
mod mate1;
mod movegen;
mod moves;
#[cfg(test)]
mod playouts;
mod position;
mod sfen;
mod types;
mod zobrist;

pub use attacks::{attacks_from, between, line_through};
pub use bitboard::{Bitboard, BitboardIter};
pub use evasion_count::Replies;
pub use hand::Hand;
pub use history::{History, Repetition};
pub use movegen::GenMode;
pub use moves::{Move, MoveList};
pub use position::{MoveError, Position, PositionError};
pub use types::{Color, Piece, PieceKind, Square};

/// The standard initial position.
pub const STARTPOS_SFEN: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

/// Counts the leaf nodes of the legal-move tree to `depth`.
///
/// Every move the rules allow is counted, non-promotions included: that is what the
/// published shogi perft figures count (startpos depth 5 = 19 861 490), and what
/// rsshogi's and YaneuraOu's perft generators produce.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let mut list = MoveList::new();
    pos.legal_moves_with(GenMode::All, &mut list);
    if depth <= 1 {
        return if depth == 0 { 1 } else { list.len() as u64 };
    }
    list.as_slice()
        .iter()
        .map(|&m| perft(&pos.play(m), depth - 1))
        .sum()
}
