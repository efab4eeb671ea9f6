//! SFEN parsing and printing, position validation, USI move parsing.

use crate::bitboard::Bitboard;
use crate::movegen::GenMode;
use crate::moves::{Move, MoveList};
use crate::position::{MoveError, Position, PositionError};
use crate::types::{Color, Piece, PieceKind, Square};

/// How many pieces of each unpromoted kind the game has.
const SUPPLY: [u32; 8] = [18, 4, 4, 4, 4, 2, 2, 2];

fn malformed(msg: impl Into<String>) -> PositionError {
    PositionError::Malformed(msg.into())
}

impl Position {
    /// Parses an SFEN (optionally prefixed by `sfen `) or the word `startpos`, and validates it.
    /// Hands may use counts (`2P`, `18p`); the move number may be omitted.
    pub fn from_sfen(s: &str) -> Result<Position, PositionError> {
        let s = s.trim();
        if s == "startpos" {
            return Position::from_sfen(crate::STARTPOS_SFEN);
        }
        let s = s.strip_prefix("sfen ").unwrap_or(s).trim_start();
        let mut fields = s.split_ascii_whitespace();
        let board = fields.next().ok_or_else(|| malformed("empty SFEN"))?;
        let side = match fields.next() {
            Some("b") => Color::Black,
            Some("w") => Color::White,
            Some(other) => {
                return Err(malformed(format!(
                    "side to move must be 'b' or 'w', not '{other}'"
                )))
            }
            None => return Err(malformed("missing side to move")),
        };
        let hand = fields
            .next()
            .ok_or_else(|| malformed("missing hands (use '-' for none)"))?;
        let ply =
            match fields.next() {
                None => 1,
                Some(n) => n.parse::<u32>().ok().filter(|&n| n >= 1).ok_or_else(|| {
                    malformed(format!("move number '{n}' is not a positive integer"))
                })?,
            };
        if let Some(extra) = fields.next() {
            return Err(malformed(format!(
                "unexpected text after the move number: '{extra}'"
            )));
        }

        let mut pos = Position::empty(side, ply - 1);
        let mut counts = [0u32; 8];
        parse_board(board, &mut pos, &mut counts)?;
        parse_hands(hand, &mut pos, &mut counts)?;
        // Kings are left to `validate`, which names the side with two.
        for (i, &n) in counts.iter().enumerate().take(7) {
            if n > SUPPLY[i] {
                return Err(PositionError::TooManyPieces(PieceKind::ALL[i]));
            }
        }
        pos.validate()?;
        pos.refresh_checkers();
        Ok(pos)
    }

    fn validate(&self) -> Result<(), PositionError> {
        for c in Color::ALL {
            if self.pieces_of(c, PieceKind::King).count() > 1 {
                return Err(PositionError::TwoKings(c));
            }
        }
        if self.kings == [None, None] {
            // Some king must be defended; in the tsume setting it is the side not to move's.
            return Err(PositionError::MissingKing(self.side.flip()));
        }
        for c in Color::ALL {
            let pawns = self.pieces_of(c, PieceKind::Pawn);
            for file in 1..=9 {
                if (pawns & Bitboard::file_mask(file)).has_more_than_one() {
                    return Err(PositionError::Nifu(c, file));
                }
            }
        }
        for sq in Square::all() {
            if let Some(p) = self.piece_on(sq) {
                let r = sq.relative_rank(p.color());
                let dead = match p.kind() {
                    PieceKind::Pawn | PieceKind::Lance => r == 1,
                    PieceKind::Knight => r <= 2,
                    _ => false,
                };
                if dead {
                    return Err(PositionError::DeadPiece(sq));
                }
            }
        }
        let waiting = self.side.flip();
        if let Some(k) = self.king_square(waiting) {
            if self.attackers_to(self.side, k).is_nonempty() {
                return Err(PositionError::OpponentInCheck(waiting));
            }
        }
        Ok(())
    }

    /// The position in SFEN.
    pub fn to_sfen(&self) -> String {
        let mut out = String::with_capacity(96);
        for rank in 1..=9 {
            let mut empty = 0;
            for file in (1..=9).rev() {
                let sq = Square::new(file, rank).expect("on board");
                match self.piece_on(sq) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        out.push_str(&p.to_string());
                    }
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if rank < 9 {
                out.push('/');
            }
        }
        out.push_str(if self.side == Color::Black {
            " b "
        } else {
            " w "
        });
        let mut any = false;
        for c in Color::ALL {
            let h = self.hand(c);
            for k in PieceKind::HAND.iter().rev() {
                let n = h.count(*k);
                if n == 0 {
                    continue;
                }
                any = true;
                if n > 1 {
                    out.push_str(&n.to_string());
                }
                let l = k.sfen_letter();
                out.push(if c == Color::Black {
                    l
                } else {
                    l.to_ascii_lowercase()
                });
            }
        }
        if !any {
            out.push('-');
        }
        out.push(' ');
        out.push_str(&(self.ply + 1).to_string());
        out
    }

    /// Parses a USI move and checks it against the legal moves (non-promotions included).
    pub fn parse_usi_move(&self, s: &str) -> Result<Move, MoveError> {
        let m = Move::from_usi(s).ok_or_else(|| MoveError::Syntax(s.to_string()))?;
        let mut list = MoveList::new();
        self.legal_moves_with(GenMode::All, &mut list);
        if list.contains(m) {
            Ok(m)
        } else {
            Err(MoveError::Illegal(s.to_string()))
        }
    }
}

fn parse_board(
    board: &str,
    pos: &mut Position,
    counts: &mut [u32; 8],
) -> Result<(), PositionError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 9 {
        return Err(malformed(format!(
            "the board has {} ranks, not 9",
            ranks.len()
        )));
    }
    for (r, text) in ranks.iter().enumerate() {
        let rank = r as u8 + 1;
        let mut file: i32 = 9;
        let mut promoted = false;
        for ch in text.chars() {
            if let Some(d) = ch.to_digit(10) {
                if promoted || d == 0 {
                    return Err(malformed(format!("bad '{ch}' on rank {rank}")));
                }
                file -= d as i32;
            } else if ch == '+' {
                if promoted {
                    return Err(malformed(format!("'++' on rank {rank}")));
                }
                promoted = true;
                continue;
            } else {
                let kind = PieceKind::from_sfen_letter(ch)
                    .ok_or_else(|| malformed(format!("unknown piece '{ch}' on rank {rank}")))?;
                if file < 1 {
                    return Err(malformed(format!("rank {rank} has more than 9 squares")));
                }
                if promoted && !kind.can_promote() {
                    return Err(malformed(format!(
                        "'+{ch}' cannot be promoted (rank {rank})"
                    )));
                }
                let kind = if promoted { kind.promote() } else { kind };
                let color = if ch.is_ascii_uppercase() {
                    Color::Black
                } else {
                    Color::White
                };
                let sq = Square::new(file as u8, rank).expect("file and rank in range");
                counts[kind.unpromote().index()] += 1;
                pos.put(sq, Piece::new(color, kind));
                file -= 1;
            }
            promoted = false;
            if file < 0 {
                return Err(malformed(format!("rank {rank} has more than 9 squares")));
            }
        }
        if promoted {
            return Err(malformed(format!("rank {rank} ends with '+'")));
        }
        if file != 0 {
            return Err(malformed(format!(
                "rank {rank} has {} squares, not 9",
                9 - file
            )));
        }
    }
    Ok(())
}

fn parse_hands(hand: &str, pos: &mut Position, counts: &mut [u32; 8]) -> Result<(), PositionError> {
    if hand == "-" {
        return Ok(());
    }
    let mut n: Option<u32> = None;
    for ch in hand.chars() {
        if let Some(d) = ch.to_digit(10) {
            let v = n.unwrap_or(0).saturating_mul(10).saturating_add(d);
            if v == 0 {
                return Err(malformed("a hand count cannot be zero"));
            }
            n = Some(v);
            continue;
        }
        let kind = PieceKind::from_sfen_letter(ch)
            .filter(|k| *k != PieceKind::King)
            .ok_or_else(|| malformed(format!("'{ch}' cannot be held in hand")))?;
        let count = n.take().unwrap_or(1);
        if count > 18 {
            return Err(PositionError::TooManyPieces(kind));
        }
        let color = if ch.is_ascii_uppercase() {
            Color::Black
        } else {
            Color::White
        };
        counts[kind.index()] += count;
        if counts[kind.index()] > SUPPLY[kind.index()] {
            return Err(PositionError::TooManyPieces(kind));
        }
        for _ in 0..count {
            pos.add_to_hand(color, kind);
        }
    }
    if n.is_some() {
        return Err(malformed("hands end with a count and no piece"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for s in [
            crate::STARTPOS_SFEN,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
            "8k/9/9/9/9/9/9/9/9 b 2R2B4G4S4N4L18P 1",
        ] {
            assert_eq!(Position::from_sfen(s).unwrap().to_sfen(), s);
        }
        assert_eq!(
            Position::from_sfen("startpos").unwrap().to_sfen(),
            crate::STARTPOS_SFEN
        );
        assert_eq!(
            Position::from_sfen("sfen 4k4/9/9/9/9/9/9/9/9 w 18P")
                .unwrap()
                .to_sfen(),
            "4k4/9/9/9/9/9/9/9/9 w 18P 1"
        );
    }

    #[test]
    fn errors_name_the_problem() {
        use PositionError::*;
        let e = |s: &str| Position::from_sfen(s).err().unwrap();
        assert_eq!(e("4k4/9/9/9/9/9/9/9/4K3K b - 1"), TwoKings(Color::Black));
        assert_eq!(e("9/9/9/9/9/9/9/9/9 b - 1"), MissingKing(Color::White));
        assert_eq!(e("4k4/9/9/9/4P4/4P4/9/9/9 b - 1"), Nifu(Color::Black, 5));
        assert_eq!(
            e("4k3P/9/9/9/9/9/9/9/9 b - 1"),
            DeadPiece(Square::new(1, 1).unwrap())
        );
        assert_eq!(
            e("4k4/9/9/9/9/9/9/9/4n4 w - 1"),
            DeadPiece(Square::new(5, 9).unwrap())
        );
        assert_eq!(
            e("4k4/4R4/9/9/9/9/9/9/9 b - 1"),
            OpponentInCheck(Color::White)
        );
        assert_eq!(
            e("4k4/9/9/9/9/9/9/9/9 b 3R 1"),
            TooManyPieces(PieceKind::Rook)
        );
        assert_eq!(
            e("4k4/9/9/9/9/9/9/9/9 b 19P 1"),
            TooManyPieces(PieceKind::Pawn)
        );
        assert!(matches!(e("4k4/9/9/9/9/9/9/9 b - 1"), Malformed(_)));
        assert!(matches!(e("4k4/9/9/9/9/9/9/9/9 x - 1"), Malformed(_)));
        assert!(matches!(e("4k4/9/9/9/9/9/9/9/+G8 b - 1"), Malformed(_)));
        assert!(matches!(e("4k4/9/9/9/9/9/9/9/9 b K 1"), Malformed(_)));
        assert!(matches!(e("4k5/9/9/9/9/9/9/9/9 b - 1"), Malformed(_)));
        assert!(matches!(e(""), Malformed(_)));
    }

    #[test]
    fn usi_moves_are_checked_against_the_position() {
        let p = Position::startpos();
        assert_eq!(p.parse_usi_move("7g7f").unwrap().to_usi(), "7g7f");
        assert!(matches!(
            p.parse_usi_move("7g7e"),
            Err(MoveError::Illegal(_))
        ));
        assert!(matches!(
            p.parse_usi_move("P*5e"),
            Err(MoveError::Illegal(_))
        ));
        assert!(matches!(
            p.parse_usi_move("hello"),
            Err(MoveError::Syntax(_))
        ));
    }
}
