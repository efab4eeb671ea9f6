//! Mate-in-1.
//!
//! Most checks leave the king a square to step to, so each check is first put through an
//! exact king-escape test computed on the unchanged position (no copy-make). Only checks
//! that leave no escape are played out and tested for captures and interpositions.
//!
//! The escape test is shared by all checks of one position: who guards each square next to
//! the king is worked out once ([`EscapeGuards`]), and a check only triggers a fresh
//! attack test where its two changed squares could alter a slider's line.

use crate::attacks::steps;
use crate::attacks::{
    aligned, attacks_from, bishop_attacks, bishop_pseudo, rook_attacks, rook_pseudo,
};
use crate::bitboard::Bitboard;
use crate::movegen::GenMode;
use crate::moves::{Move, MoveList};
use crate::position::{Position, GROUP_DIAG, GROUP_ORTH};
use crate::types::{Piece, PieceKind, Square};

impl Position {
    /// A move of the side to move that checkmates at once, if one exists. Sound: a returned
    /// move is always legal and mates; complete: if a mate-in-1 exists, one is returned.
    /// Considers every legal check, non-promotions included.
    pub fn mate_in_1(&self) -> Option<Move> {
        let mut checks = MoveList::new();
        self.checks(GenMode::All, &mut checks);
        self.mating_check(checks.as_slice())
    }

    /// The first of `checks`, legal checks of the side to move, that mates at once. A
    /// search that generates a node's checks anyway tests them here, instead of having
    /// [`Position::mate_in_1`] generate them a second time. Sound and complete over the
    /// moves given; over the checks of [`GenMode::Standard`] it finds a mate whenever one
    /// exists, since each check that mode leaves out has a promotion with the same
    /// occupancy and a superset of its attacks.
    pub fn mating_check(&self, checks: &[Move]) -> Option<Move> {
        let ek = self.king_square(self.side.flip())?;
        if checks.is_empty() {
            return None;
        }
        let mut guards = EscapeGuards::new(self, ek);
        checks.iter().copied().find(|&m| {
            if guards.king_escapes_after(self, m) {
                return false;
            }
            let mut after = self.clone();
            after.do_move(m);
            !after.has_evasion()
        })
    }

    /// Appends the checks of `mode` after which the defending king has no move of its own:
    /// no free square to step to and nothing it can take. Only those can mate, whether at
    /// once or (by tsume rules) behind futile interpositions. Exact, and worked out on the
    /// unchanged position, without making any check.
    pub fn checks_leaving_no_flight(&self, mode: GenMode, list: &mut MoveList) {
        let Some(ek) = self.king_square(self.side.flip()) else {
            return;
        };
        let mut checks = MoveList::new();
        self.checks(mode, &mut checks);
        if checks.as_slice().is_empty() {
            return;
        }
        let mut guards = EscapeGuards::new(self, ek);
        for &m in checks.as_slice() {
            if !guards.king_escapes_after(self, m) {
                list.push(m);
            }
        }
    }
}

/// The squares next to the defending king that it could step to, each with the attacker's
/// pieces guarding it and the squares a slider's line to it passes through. Guards are
/// worked out on first use: most checks cover some squares themselves, and most are
/// refuted by the first free square, so many squares are never asked about.
struct EscapeGuards {
    king: Square,
    len: usize,
    squares: [Square; 8],
    /// Bit `i` set once `guards[i]` and `lines[i]` hold.
    known: u8,
    /// The squares no attacker piece guards. The king escapes to any of them that the
    /// checking piece does not cover from where it lands, unless it lies on a line through
    /// the square the piece left: only vacating that square can open a line, and filling
    /// the destination can only close one. A drop opens no line at all.
    unguarded: Bitboard,
    /// Attacker pieces attacking the square, with the king lifted off the board.
    guards: [Bitboard; 8],
    /// Squares whose occupancy could change the square's slider attacks: what a rook and a
    /// bishop on it would see, restricted to lines where the attacker has a slider at all.
    lines: [Bitboard; 8],
}

impl EscapeGuards {
    fn new(pos: &Position, king: Square) -> EscapeGuards {
        let them = pos.side.flip();
        let mut g = EscapeGuards {
            king,
            len: 0,
            squares: [king; 8],
            known: 0,
            unguarded: Bitboard::EMPTY,
            guards: [Bitboard::EMPTY; 8],
            lines: [Bitboard::EMPTY; 8],
        };
        let around = steps(them, PieceKind::King, king).and_not(pos.pieces(them));
        for sq in around {
            g.squares[g.len] = sq;
            g.len += 1;
        }
        let occ = pos.occupied() ^ Bitboard::from_square(king);
        g.unguarded = around.and_not(pos.attacked_around(pos.side, king, around, occ));
        g
    }

    /// The guards and lines of square `i`, computed on the unchanged position.
    #[inline]
    fn guard(&mut self, pos: &Position, i: usize) -> (Bitboard, Bitboard) {
        if self.known & (1 << i) == 0 {
            let us = pos.side;
            let sq = self.squares[i];
            let occ = pos.occupied() ^ Bitboard::from_square(self.king);
            let own = pos.by_color[us.index()];
            let orth = (pos.by_group[GROUP_ORTH] | pos.by_kind[PieceKind::Lance.index()]) & own;
            let diag = pos.by_group[GROUP_DIAG] & own;
            let mut lines = Bitboard::EMPTY;
            if (rook_pseudo(sq) & orth).is_nonempty() {
                lines |= rook_attacks(sq, occ);
            }
            if (bishop_pseudo(sq) & diag).is_nonempty() {
                lines |= bishop_attacks(sq, occ);
            }
            self.guards[i] = pos.attackers_to_occ(us, sq, occ);
            self.lines[i] = lines;
            self.known |= 1 << i;
        }
        (self.guards[i], self.lines[i])
    }

    /// True if, after the checking move `m`, the defending king can step to a neighbouring
    /// square. Exact: it accounts for the vacated origin, the occupied destination (a
    /// capture of the checker included, also where the check took the king's own piece)
    /// and the king's own square.
    #[inline]
    fn king_escapes_after(&mut self, pos: &Position, m: Move) -> bool {
        let us = pos.side;
        let to = m.to();
        let to_bb = Bitboard::from_square(to);
        let (piece, from_bb) = match m.from() {
            None => (
                Piece::new(us, m.drop_kind().expect("drop")),
                Bitboard::EMPTY,
            ),
            Some(from) => {
                let p = pos.piece_on(from).expect("mover");
                let k = if m.is_promotion() {
                    p.kind().promote()
                } else {
                    p.kind()
                };
                (Piece::new(us, k), Bitboard::from_square(from))
            }
        };
        // Occupancy with the move made and the king lifted, so it cannot hide behind itself.
        let occ = ((pos.occupied() ^ from_bb) | to_bb) ^ Bitboard::from_square(self.king);
        let covered = attacks_from(piece, to, occ);
        let opened = m.from().map_or(Bitboard::EMPTY, aligned);
        if self.unguarded.and_not(covered | opened).is_nonempty() {
            return true;
        }
        for i in 0..self.len {
            let sq = self.squares[i];
            if covered.contains(sq) {
                continue;
            }
            // The mover no longer guards from its origin; it guards from `to` via `covered`.
            let (guards, lines) = self.guard(pos, i);
            let others = guards.and_not(from_bb);
            if others.is_empty() {
                // Filling `to` can only block lines; only the vacated origin can open one.
                if (lines & from_bb).is_empty() {
                    return true;
                }
            } else if (lines & to_bb).is_empty() {
                // Still guarded: vacating the origin can only open lines, not close them.
                continue;
            }
            if pos
                .attackers_to_occ(us, sq, occ)
                .and_not(from_bb)
                .is_empty()
            {
                return true;
            }
        }
        // A check that takes a piece next to the king opens that square to the king: it
        // may take the checker back where nothing else guards it.
        if pos.piece_on(to).is_some()
            && steps(us.flip(), PieceKind::King, self.king).contains(to)
            && pos
                .attackers_to_occ(us, to, occ)
                .and_not(from_bb)
                .is_empty()
        {
            return true;
        }
        false
    }
}
