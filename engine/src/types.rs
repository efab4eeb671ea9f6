//! Colors, squares, piece kinds and pieces.
//!
//! Squares are numbered file-major from 0: `1a = 0, 1b = 1, …, 1i = 8, 2a = 9, …, 9i = 80`.
//! This is `shogi_core::Square::index() - 1`, so conversion at the API edge is one
//! subtraction. A file's nine squares are contiguous bits of a [`crate::Bitboard`].

use std::fmt;

/// The side: Black (先手, ▲) moves first and plays "up" the board towards rank a.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// 先手 (sente), the attacker in most tsume problems.
    Black = 0,
    /// 後手 (gote).
    White = 1,
}

impl Color {
    /// Both colors, Black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The other side.
    #[inline(always)]
    pub const fn flip(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// A square of the 9×9 board. See the module docs for the numbering.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Number of squares.
    pub const NUM: usize = 81;

    /// The square on `file` (1–9, right to left from Black's view) and `rank` (1–9 = a–i).
    #[inline]
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file >= 1 && file <= 9 && rank >= 1 && rank <= 9 {
            Some(Square((file - 1) * 9 + (rank - 1)))
        } else {
            None
        }
    }

    /// The square with this 0-based index, if it is below 81.
    #[inline]
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < 81 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The square with this 0-based index; `index` must be below 81.
    #[inline(always)]
    pub(crate) const fn from_index_unchecked(index: usize) -> Square {
        debug_assert!(index < 81);
        Square(index as u8)
    }

    /// The 0-based index, 0..81.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file, 1–9.
    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 / 9 + 1
    }

    /// The rank, 1–9 (a–i).
    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 % 9 + 1
    }

    /// The rank as seen by `color`: 1 is that side's farthest rank.
    #[inline(always)]
    pub const fn relative_rank(self, color: Color) -> u8 {
        match color {
            Color::Black => self.rank(),
            Color::White => 10 - self.rank(),
        }
    }

    /// The square seen from the other side (180° rotation).
    #[inline(always)]
    pub const fn flip(self) -> Square {
        Square(80 - self.0)
    }

    /// All 81 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..81u8).map(Square)
    }

    /// Parses USI square notation such as `7g`.
    pub fn from_usi(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let file = b[0].wrapping_sub(b'0');
        let rank = b[1].wrapping_sub(b'a') + 1;
        Square::new(file, rank)
    }

    /// Converts to `shogi_core`'s square.
    #[inline]
    pub fn to_core(self) -> shogi_core::Square {
        // SAFETY-free: index + 1 is always in 1..=81.
        shogi_core::Square::from_u8(self.0 + 1).expect("square index in range")
    }

    /// Converts from `shogi_core`'s square.
    #[inline]
    pub fn from_core(sq: shogi_core::Square) -> Square {
        Square(sq.index() - 1)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), (b'a' + self.rank() - 1) as char)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The kind of a piece, unpromoted kinds first, in `shogi_core::PieceKind` order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[repr(u8)]
pub enum PieceKind {
    /// 歩
    Pawn = 0,
    /// 香
    Lance,
    /// 桂
    Knight,
    /// 銀
    Silver,
    /// 金
    Gold,
    /// 角
    Bishop,
    /// 飛
    Rook,
    /// 玉
    King,
    /// と
    ProPawn,
    /// 成香
    ProLance,
    /// 成桂
    ProKnight,
    /// 成銀
    ProSilver,
    /// 馬
    Horse,
    /// 龍
    Dragon,
}

impl PieceKind {
    /// Number of kinds.
    pub const NUM: usize = 14;

    /// All kinds in index order.
    pub const ALL: [PieceKind; 14] = [
        PieceKind::Pawn,
        PieceKind::Lance,
        PieceKind::Knight,
        PieceKind::Silver,
        PieceKind::Gold,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::King,
        PieceKind::ProPawn,
        PieceKind::ProLance,
        PieceKind::ProKnight,
        PieceKind::ProSilver,
        PieceKind::Horse,
        PieceKind::Dragon,
    ];

    /// The seven kinds that can be held in hand, cheapest first.
    pub const HAND: [PieceKind; 7] = [
        PieceKind::Pawn,
        PieceKind::Lance,
        PieceKind::Knight,
        PieceKind::Silver,
        PieceKind::Gold,
        PieceKind::Bishop,
        PieceKind::Rook,
    ];

    /// The index, 0..14.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kind with this index, if below 14.
    #[inline]
    pub const fn from_index(i: usize) -> Option<PieceKind> {
        if i < 14 {
            Some(PieceKind::ALL[i])
        } else {
            None
        }
    }

    /// True for pawn, lance, knight, silver, bishop and rook.
    #[inline(always)]
    pub const fn can_promote(self) -> bool {
        matches!(
            self,
            PieceKind::Pawn
                | PieceKind::Lance
                | PieceKind::Knight
                | PieceKind::Silver
                | PieceKind::Bishop
                | PieceKind::Rook
        )
    }

    /// True for the six promoted kinds.
    #[inline(always)]
    pub const fn is_promoted(self) -> bool {
        (self as u8) >= PieceKind::ProPawn as u8
    }

    /// The promoted kind, or `self` if it cannot promote.
    #[inline(always)]
    pub const fn promote(self) -> PieceKind {
        match self {
            PieceKind::Pawn => PieceKind::ProPawn,
            PieceKind::Lance => PieceKind::ProLance,
            PieceKind::Knight => PieceKind::ProKnight,
            PieceKind::Silver => PieceKind::ProSilver,
            PieceKind::Bishop => PieceKind::Horse,
            PieceKind::Rook => PieceKind::Dragon,
            k => k,
        }
    }

    /// The unpromoted kind: what the piece becomes when captured.
    #[inline(always)]
    pub const fn unpromote(self) -> PieceKind {
        match self {
            PieceKind::ProPawn => PieceKind::Pawn,
            PieceKind::ProLance => PieceKind::Lance,
            PieceKind::ProKnight => PieceKind::Knight,
            PieceKind::ProSilver => PieceKind::Silver,
            PieceKind::Horse => PieceKind::Bishop,
            PieceKind::Dragon => PieceKind::Rook,
            k => k,
        }
    }

    /// The SFEN letter of a Black piece of this kind, without `+`.
    pub const fn sfen_letter(self) -> char {
        match self.unpromote() {
            PieceKind::Pawn => 'P',
            PieceKind::Lance => 'L',
            PieceKind::Knight => 'N',
            PieceKind::Silver => 'S',
            PieceKind::Gold => 'G',
            PieceKind::Bishop => 'B',
            PieceKind::Rook => 'R',
            _ => 'K',
        }
    }

    /// The kind named by an unpromoted SFEN letter, either case.
    pub const fn from_sfen_letter(c: char) -> Option<PieceKind> {
        match c.to_ascii_uppercase() {
            'P' => Some(PieceKind::Pawn),
            'L' => Some(PieceKind::Lance),
            'N' => Some(PieceKind::Knight),
            'S' => Some(PieceKind::Silver),
            'G' => Some(PieceKind::Gold),
            'B' => Some(PieceKind::Bishop),
            'R' => Some(PieceKind::Rook),
            'K' => Some(PieceKind::King),
            _ => None,
        }
    }

    /// The Japanese name used in kifu notation (歩, 香, …, 龍).
    pub const fn japanese(self) -> &'static str {
        match self {
            PieceKind::Pawn => "歩",
            PieceKind::Lance => "香",
            PieceKind::Knight => "桂",
            PieceKind::Silver => "銀",
            PieceKind::Gold => "金",
            PieceKind::Bishop => "角",
            PieceKind::Rook => "飛",
            PieceKind::King => "玉",
            PieceKind::ProPawn => "と",
            PieceKind::ProLance => "成香",
            PieceKind::ProKnight => "成桂",
            PieceKind::ProSilver => "成銀",
            PieceKind::Horse => "馬",
            PieceKind::Dragon => "龍",
        }
    }

    /// Converts to `shogi_core`'s kind (same order).
    pub fn to_core(self) -> shogi_core::PieceKind {
        shogi_core::PieceKind::from_u8(self as u8 + 1).expect("kind in range")
    }

    /// Converts from `shogi_core`'s kind.
    pub fn from_core(k: shogi_core::PieceKind) -> PieceKind {
        PieceKind::ALL[k as usize - 1]
    }
}

/// A colored piece, stored as `kind | color << 4`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece(u8);

impl Piece {
    /// The piece of this color and kind.
    #[inline(always)]
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece(kind as u8 | (color as u8) << 4)
    }

    /// Its color.
    #[inline(always)]
    pub const fn color(self) -> Color {
        if self.0 >> 4 == 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    /// Its kind.
    #[inline(always)]
    pub const fn kind(self) -> PieceKind {
        PieceKind::ALL[(self.0 & 15) as usize]
    }

    /// A dense index 0..28 (kind + 14 × color), for tables.
    #[inline(always)]
    pub const fn index(self) -> usize {
        (self.0 & 15) as usize + 14 * (self.0 >> 4) as usize
    }

    /// Converts to `shogi_core`'s piece.
    pub fn to_core(self) -> shogi_core::Piece {
        shogi_core::Piece::new(self.kind().to_core(), self.color().to_core())
    }
}

impl fmt::Display for Piece {
    /// SFEN notation: `+P`, `k`, …
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let k = self.kind();
        let c = k.sfen_letter();
        let c = if self.color() == Color::White {
            c.to_ascii_lowercase()
        } else {
            c
        };
        if k.is_promoted() {
            write!(f, "+{c}")
        } else {
            write!(f, "{c}")
        }
    }
}

impl fmt::Debug for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_numbering_matches_shogi_core() {
        for sq in Square::all() {
            let core = sq.to_core();
            assert_eq!(core.file(), sq.file());
            assert_eq!(core.rank(), sq.rank());
            assert_eq!(Square::from_core(core), sq);
        }
    }

    #[test]
    fn usi_square_round_trip() {
        for sq in Square::all() {
            assert_eq!(Square::from_usi(&sq.to_string()), Some(sq));
        }
        assert_eq!(Square::from_usi("0a"), None);
        assert_eq!(Square::from_usi("1j"), None);
        assert_eq!(Square::from_usi("7"), None);
    }

    #[test]
    fn kinds_match_shogi_core() {
        for k in PieceKind::ALL {
            assert_eq!(PieceKind::from_core(k.to_core()), k);
            assert_eq!(k.promote().unpromote(), k.unpromote());
        }
    }
}
