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
    /// Neither side has a king. Names the side not to move, whose king a tsume needs.
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
                write!(
                    f,
                    "{} has two unpromoted pawns on file {file} (nifu)",
                    side(c)
                )
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

/// Attack groups: a kind can belong to several.
pub(crate) const GROUP_GOLD: usize = 0;
/// Pieces that attack every neighbour: king, horse, dragon.
pub(crate) const GROUP_KING: usize = 1;
/// Diagonal sliders: bishop, horse.
pub(crate) const GROUP_DIAG: usize = 2;
/// Orthogonal sliders: rook, dragon.
pub(crate) const GROUP_ORTH: usize = 3;
const GROUPS: usize = 4;

/// Which groups each kind belongs to, as a bit mask over the group indices.
const KIND_GROUPS: [u8; 14] = {
    let mut t = [0u8; 14];
    t[PieceKind::Gold as usize] = 1 << GROUP_GOLD;
    t[PieceKind::ProPawn as usize] = 1 << GROUP_GOLD;
    t[PieceKind::ProLance as usize] = 1 << GROUP_GOLD;
    t[PieceKind::ProKnight as usize] = 1 << GROUP_GOLD;
    t[PieceKind::ProSilver as usize] = 1 << GROUP_GOLD;
    t[PieceKind::King as usize] = 1 << GROUP_KING;
    t[PieceKind::Bishop as usize] = 1 << GROUP_DIAG;
    t[PieceKind::Rook as usize] = 1 << GROUP_ORTH;
    t[PieceKind::Horse as usize] = 1 << GROUP_KING | 1 << GROUP_DIAG;
    t[PieceKind::Dragon as usize] = 1 << GROUP_KING | 1 << GROUP_ORTH;
    t
};

/// A shogi position. Cloning is cheap (a few hundred bytes); moves are made by copy.
#[derive(Clone)]
pub struct Position {
    pub(crate) board: [Option<Piece>; 81],
    /// Occupancy per color.
    pub(crate) by_color: [Bitboard; 2],
    /// Occupancy per kind, both colors.
    pub(crate) by_kind: [Bitboard; 14],
    /// Pieces grouped by how they attack, both colors, kept so attack tests need no ORs.
    pub(crate) by_group: [Bitboard; GROUPS],
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

    /// The [`Position::board_key`] the position would have after the legal move `m`,
    /// without making it: a search looks up every child before choosing one to enter.
    #[inline(always)]
    pub fn board_key_after(&self, m: Move) -> u64 {
        use crate::zobrist::{piece_square, SIDE};
        let us = self.side;
        let to = m.to();
        let mut key = self.board_key ^ SIDE;
        match m.from() {
            None => {
                let k = m
                    .drop_kind()
                    .expect("a move has an origin or a dropped kind");
                key ^= piece_square(Piece::new(us, k), to);
            }
            Some(from) => {
                let p = self.board[from.index()].expect("a legal move starts on a piece");
                let k = if m.is_promotion() {
                    p.kind().promote()
                } else {
                    p.kind()
                };
                key ^= piece_square(p, from) ^ piece_square(Piece::new(us, k), to);
                if let Some(captured) = self.board[to.index()] {
                    key ^= piece_square(captured, to);
                }
            }
        }
        key
    }

    /// The hand `color` would hold after the legal move `m`.
    #[inline(always)]
    pub fn hand_after(&self, color: Color, m: Move) -> Hand {
        let h = self.hands[color.index()];
        if color != self.side {
            return h;
        }
        match m.from() {
            None => h.remove(m.drop_kind().expect("a drop names its kind")),
            Some(_) => match self.board[m.to().index()] {
                Some(captured) => h.add(captured.kind().unpromote()),
                None => h,
            },
        }
    }

    /// This position with one `kind` (unpromoted) moved from `giver`'s hand to the other
    /// side's; `None` if `giver` holds none. Tsume rules need it to judge a futile
    /// interposition: the captured piece is put back into the defender's hand.
    pub fn with_piece_handed_over(&self, giver: Color, kind: PieceKind) -> Option<Position> {
        let kind = kind.unpromote();
        if !self.hands[giver.index()].has(kind) {
            return None;
        }
        let mut p = self.clone();
        p.remove_from_hand(giver, kind);
        p.add_to_hand(giver.flip(), kind);
        Some(p)
    }

    /// This position with pieces moved between the hands until `color` holds `hand`, as
    /// far as the hands allow: `color` gives back what it holds beyond `hand`, and takes
    /// what it lacks from the other side's hand while that holds some. Tsume searches
    /// need it to read a result stored for another attacker hand on the same board.
    pub fn with_hand_toward(&self, color: Color, hand: Hand) -> Position {
        let other = color.flip();
        let mut p = self.clone();
        for kind in PieceKind::HAND {
            while p.hands[color.index()].count(kind) > hand.count(kind) {
                p.remove_from_hand(color, kind);
                p.add_to_hand(other, kind);
            }
            while p.hands[color.index()].count(kind) < hand.count(kind)
                && p.hands[other.index()].has(kind)
            {
                p.remove_from_hand(other, kind);
                p.add_to_hand(color, kind);
            }
        }
        p
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

// Internal mutation and queries shared by the generators.
impl Position {
    /// A position with nothing on the board and nothing in hand.
    pub(crate) fn empty(side: Color, ply: u32) -> Position {
        Position {
            board: [None; 81],
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; 14],
            by_group: [Bitboard::EMPTY; GROUPS],
            hands: [Hand::EMPTY; 2],
            side,
            kings: [None; 2],
            checkers: Bitboard::EMPTY,
            board_key: if side == Color::White {
                crate::zobrist::SIDE
            } else {
                0
            },
            hand_key: 0,
            ply,
        }
    }

    #[inline(always)]
    pub(crate) fn put(&mut self, sq: Square, p: Piece) {
        let bb = Bitboard::from_square(sq);
        self.board[sq.index()] = Some(p);
        self.by_color[p.color().index()] |= bb;
        self.by_kind[p.kind().index()] |= bb;
        self.toggle_groups(p.kind(), bb);
        self.board_key ^= crate::zobrist::piece_square(p, sq);
        if p.kind() == PieceKind::King {
            self.kings[p.color().index()] = Some(sq);
        }
    }

    /// Removes and returns the piece on `sq`, which must be occupied.
    #[inline(always)]
    pub(crate) fn take(&mut self, sq: Square) -> Piece {
        let p = self.board[sq.index()].expect("take from an occupied square");
        let bb = Bitboard::from_square(sq);
        self.board[sq.index()] = None;
        self.by_color[p.color().index()] ^= bb;
        self.by_kind[p.kind().index()] ^= bb;
        self.toggle_groups(p.kind(), bb);
        self.board_key ^= crate::zobrist::piece_square(p, sq);
        p
    }

    #[inline(always)]
    fn toggle_groups(&mut self, kind: PieceKind, bb: Bitboard) {
        let g = KIND_GROUPS[kind.index()];
        for i in 0..GROUPS {
            if g >> i & 1 != 0 {
                self.by_group[i] ^= bb;
            }
        }
    }

    #[inline(always)]
    pub(crate) fn add_to_hand(&mut self, c: Color, k: PieceKind) {
        self.hands[c.index()] = self.hands[c.index()].add(k);
        self.hand_key = self.hand_key.wrapping_add(crate::zobrist::hand_piece(c, k));
    }

    #[inline(always)]
    pub(crate) fn remove_from_hand(&mut self, c: Color, k: PieceKind) {
        self.hands[c.index()] = self.hands[c.index()].remove(k);
        self.hand_key = self.hand_key.wrapping_sub(crate::zobrist::hand_piece(c, k));
    }

    #[inline(always)]
    pub(crate) fn kind_bb(&self, kind: PieceKind) -> Bitboard {
        self.by_kind[kind.index()]
    }

    /// Pieces of `color` that attack `sq` when the board's occupancy is `occ`.
    /// In shogi a piece moves exactly where it attacks, so these are also the pieces
    /// that can move to `sq`.
    #[inline]
    pub(crate) fn attackers_to_occ(&self, color: Color, sq: Square, occ: Bitboard) -> Bitboard {
        use crate::attacks::steps;
        use PieceKind::*;
        let them = color.flip();
        let k = |kind: PieceKind| self.by_kind[kind.index()];
        let a = (steps(them, Pawn, sq) & k(Pawn))
            | (steps(them, Knight, sq) & k(Knight))
            | (steps(them, Silver, sq) & k(Silver))
            | (steps(them, Gold, sq) & self.by_group[GROUP_GOLD])
            | (steps(them, King, sq) & self.by_group[GROUP_KING]);
        (a | self.slider_attackers_occ(color, sq, occ)) & self.by_color[color.index()]
    }

    /// Sliding attackers (lance, bishop, rook, horse, dragon) of `color` on `sq`: the
    /// sliders an empty-board line from `sq` meets, each kept if nothing stands between.
    /// Tsume positions have few sliders, so this is a few table lookups.
    #[inline(always)]
    pub(crate) fn slider_attackers_occ(&self, color: Color, sq: Square, occ: Bitboard) -> Bitboard {
        use crate::attacks::{between, bishop_pseudo, lance_pseudo, rook_pseudo};
        use PieceKind::*;
        let own = self.by_color[color.index()];
        let candidates = ((lance_pseudo(color.flip(), sq) & self.by_kind[Lance.index()])
            | (bishop_pseudo(sq) & self.by_group[GROUP_DIAG])
            | (rook_pseudo(sq) & self.by_group[GROUP_ORTH]))
            & own;
        let mut out = Bitboard::EMPTY;
        for s in candidates {
            if (between(sq, s) & occ).is_empty() {
                out |= Bitboard::from_square(s);
            }
        }
        out
    }

    /// The squares of `targets`, all next to `center`, that `color` attacks with occupancy
    /// `occ`. A king's flight squares are asked about together: each of `color`'s pieces
    /// that could reach them is looked at once, where an attack test per square would look
    /// at every piece kind for every square.
    #[inline]
    pub(crate) fn attacked_around(
        &self,
        color: Color,
        center: Square,
        targets: Bitboard,
        occ: Bitboard,
    ) -> Bitboard {
        use crate::attacks::{
            bishop_attacks, bishop_pseudo, lance_attacks, lance_pseudo, rook_attacks, rook_pseudo,
            step_reach, steps,
        };
        use PieceKind::*;
        debug_assert!(targets
            .and_not(steps(Color::Black, King, center))
            .is_empty());
        let own = self.by_color[color.index()];
        let k = |kind: PieceKind| self.by_kind[kind.index()];
        let lances = k(Lance) & own;
        let diag = self.by_group[GROUP_DIAG] & own;
        let orth = self.by_group[GROUP_ORTH] & own;
        let mut hit = Bitboard::EMPTY;
        let steppers = own.and_not(lances | k(Bishop) | k(Rook)) & step_reach(center);
        for s in steppers {
            let kind = match self.board[s.index()] {
                Some(p) => p.kind(),
                None => continue,
            };
            hit |= steps(color, kind, s);
        }
        hit &= targets;
        for s in lances {
            if (lance_pseudo(color, s) & targets).is_nonempty() {
                hit |= lance_attacks(color, s, occ) & targets;
            }
        }
        for s in diag {
            if (bishop_pseudo(s) & targets).is_nonempty() {
                hit |= bishop_attacks(s, occ) & targets;
            }
        }
        for s in orth {
            if (rook_pseudo(s) & targets).is_nonempty() {
                hit |= rook_attacks(s, occ) & targets;
            }
        }
        hit
    }

    /// Pieces (of either color) that alone stand between a slider of `slider_color` and
    /// the square `target`: pinned pieces when they belong to `target`'s owner, and
    /// discovered-check candidates when they belong to the slider's side.
    #[inline]
    pub(crate) fn blockers(&self, slider_color: Color, target: Square) -> Bitboard {
        use crate::attacks::{bishop_pseudo, lance_pseudo, rook_pseudo};
        use PieceKind::*;
        let snipers = ((rook_pseudo(target) & self.by_group[GROUP_ORTH])
            | (bishop_pseudo(target) & self.by_group[GROUP_DIAG])
            | (lance_pseudo(slider_color.flip(), target) & self.by_kind[Lance.index()]))
            & self.by_color[slider_color.index()];
        let occ = self.occupied();
        let mut out = Bitboard::EMPTY;
        for s in snipers {
            let b = crate::attacks::between(target, s) & occ;
            if b.is_nonempty() && !b.has_more_than_one() {
                out |= b;
            }
        }
        out
    }

    /// Recomputes the checkers of the side to move.
    #[inline]
    pub(crate) fn refresh_checkers(&mut self) {
        self.checkers = match self.kings[self.side.index()] {
            Some(k) => self.attackers_to_occ(self.side.flip(), k, self.occupied()),
            None => Bitboard::EMPTY,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playouts::STARTS;
    use crate::{GenMode, MoveList};

    /// The predicted key and hands of every child equal those of the child itself, over
    /// seeded playouts from a game position and two tsume positions.
    #[test]
    fn child_keys_and_hands_are_predicted_exactly() {
        let mut list = MoveList::new();
        crate::playouts::for_each_position(&STARTS, 0x1234_5678, 40, 60, |pos| {
            list.clear();
            pos.legal_moves_with(GenMode::All, &mut list);
            for &m in list.as_slice() {
                let child = pos.play(m);
                assert_eq!(
                    pos.board_key_after(m),
                    child.board_key(),
                    "{} {m}",
                    pos.to_sfen()
                );
                for c in Color::ALL {
                    assert_eq!(pos.hand_after(c, m), child.hand(c), "{} {m}", pos.to_sfen());
                }
            }
        });
    }

    /// Hands moved toward a target both ways keep the board, move only what a hand
    /// holds, and carry the key along: the result equals the same position read from its
    /// SFEN.
    #[test]
    fn a_hand_moved_toward_a_target_is_that_position() {
        let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1").unwrap();
        let target = Hand::EMPTY
            .add(PieceKind::Silver)
            .add(PieceKind::Silver)
            .with_count(PieceKind::Pawn, 18)
            .unwrap();
        let moved = pos.with_hand_toward(Color::Black, target);
        // The gold goes back, two silvers come over, and the pawns stop at the 17 in hand.
        let expected = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b 2S17P2r2b4g2s4n4l 1").unwrap();
        assert_eq!(moved.key(), expected.key());
        assert_eq!(moved.to_sfen(), expected.to_sfen());
        assert_eq!(
            moved
                .with_hand_toward(Color::Black, pos.hand(Color::Black))
                .key(),
            pos.key()
        );
    }

    /// The attacks on a king's neighbours found together equal those found square by
    /// square, with the king lifted off the board as its own moves see it, over seeded
    /// playouts from a game position and two tsume positions.
    #[test]
    fn attacks_around_a_king_equal_attacks_square_by_square() {
        use crate::attacks::steps;
        let mut squares_checked = 0;
        crate::playouts::for_each_position(&STARTS, 0x9e37_79b9, 40, 60, |pos| {
            for c in Color::ALL {
                let Some(k) = pos.king_square(c) else {
                    continue;
                };
                let around = steps(c, PieceKind::King, k);
                let occ = pos.occupied() ^ Bitboard::from_square(k);
                let one_by_one: Bitboard = around
                    .iter()
                    .filter(|&sq| pos.attackers_to_occ(c.flip(), sq, occ).is_nonempty())
                    .fold(Bitboard::EMPTY, |b, sq| b | Bitboard::from_square(sq));
                assert_eq!(
                    pos.attacked_around(c.flip(), k, around, occ),
                    one_by_one,
                    "{} {c:?}",
                    pos.to_sfen()
                );
                squares_checked += around.count();
            }
        });
        assert!(squares_checked > 10_000, "{squares_checked}");
    }
}
