//! The position: board, hands, side to move, cached checkers and keys. Copy-make.

use crate::bitboard::Bitboard;
use crate::hand::Hand;
use crate::moves::Move;
use crate::types::{Color, Piece, PieceKind, Square};
use std::fmt;

/// Why a position was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The SFEN text is malformed; the string says where.
    Malformed(String),
    /// A side has more than one king.
    TwoKings(Color),
    /// The side to move has no king although one is required (a tsume defender, or any
    /// position where the other side has one).
    MissingKing(Color),
    /// Two unpromoted pawns of one side on a file (二歩).
    Nifu(Color, u8),
    /// A piece that could never move again (歩・香 on the last rank, 桂 on the last two).
    DeadPiece(Square),
    /// The side not to move is in check: the side to move could capture the king.
    OpponentInCheck(Color),
    /// More pieces of a kind than the game has.
    TooManyPieces(PieceKind),
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |c: &Color| if *c == Color::Black { "black" } else { "white" };
        match self {
            PositionError::Malformed(s) => write!(f, "malformed SFEN: {s}"),
            PositionError::TwoKings(c) => write!(f, "{} has two kings", side(c)),
            PositionError::MissingKing(c) => write!(f, "{} has no king", side(c)),
            PositionError::Nifu(c, file) => {
                write!(f, "{} has two unpromoted pawns on file {file} (nifu)", side(c))
            }
            PositionError::DeadPiece(sq) => write!(f, "the piece on {sq} can never move"),
            PositionError::OpponentInCheck(c) => {
                write!(f, "{} is in check but it is not their turn", side(c))
            }
            PositionError::TooManyPieces(k) => {
                write!(f, "too many pieces of kind {}", k.unpromote().sfen_letter())
            }
        }
    }
}

impl std::error::Error for PositionError {}

/// Why a move in USI notation was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// Not USI move syntax.
    Syntax(String),
    /// Well-formed but not legal here.
    Illegal(String),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax(s) => write!(f, "'{s}' is not a USI move"),
            MoveError::Illegal(s) => write!(f, "'{s}' is not legal in this position"),
        }
    }
}

impl std::error::Error for MoveError {}

/// A shogi position. Cloning is cheap (a few hundred bytes); moves are made by copy.
#[derive(Clone)]
pub struct Position {
    pub(crate) board: [Option<Piece>; 81],
    /// Occupancy per color.
    pub(crate) by_color: [Bitboard; 2],
    /// Occupancy per kind, both colors.
    pub(crate) by_kind: [Bitboard; 14],
    pub(crate) hands: [Hand; 2],
    pub(crate) side: Color,
    pub(crate) kings: [Option<Square>; 2],
    /// Pieces giving check to the side to move.
    pub(crate) checkers: Bitboard,
    /// Zobrist key of the board and side to move, without hands.
    pub(crate) board_key: u64,
    /// Zobrist key of both hands, updated incrementally.
    pub(crate) hand_key: u64,
    pub(crate) ply: u32,
}

impl Position {
    /// The standard initial position.
    pub fn startpos() -> Position {
        Position::from_sfen(crate::STARTPOS_SFEN).expect("startpos is valid")
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The piece on `sq`.
    #[inline(always)]
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// The pieces `color` holds.
    #[inline(always)]
    pub fn hand(&self, color: Color) -> Hand {
        self.hands[color.index()]
    }

    /// Where `color`'s king stands, if it has one.
    #[inline(always)]
    pub fn king_square(&self, color: Color) -> Option<Square> {
        self.kings[color.index()]
    }

    /// All occupied squares.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// `color`'s pieces.
    #[inline(always)]
    pub fn pieces(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// `color`'s pieces of `kind`.
    #[inline(always)]
    pub fn pieces_of(&self, color: Color, kind: PieceKind) -> Bitboard {
        self.by_color[color.index()] & self.by_kind[kind.index()]
    }

    /// The pieces giving check to the side to move.
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// True if the side to move is in check.
    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.checkers.is_nonempty()
    }

    /// Zobrist key of the board and the side to move, without hands. The solver pairs it
    /// with [`Position::hand`] for proof and disproof pieces.
    #[inline(always)]
    pub fn board_key(&self) -> u64 {
        self.board_key
    }

    /// Zobrist key of the whole position, hands included (for repetition).
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.board_key ^ self.hand_key
    }

    /// Moves played since the SFEN's move number.
    #[inline(always)]
    pub fn ply(&self) -> u32 {
        self.ply
    }
}
