//! The replies to a check counted, not listed.
//!
//! A tsume solver estimates how hard a check is to follow up by how many replies the
//! defender has (df-pn+), and it does so for every new check it meets: most of those
//! estimates are never followed by a visit. It needs the board moves one by one, since
//! each is a separate defence, but the interposition drops only as "some drop exists",
//! since drops on one square are tried one after another, weakest first. Listing every
//! drop of a full hand on every square between a distant checker and the king, to count
//! them as one, is most of what a list would cost.

use crate::bitboard::Bitboard;
use crate::movegen::{GenMode, MoveSink};
use crate::moves::Move;
use crate::position::Position;

/// How the side to move, in check, can answer: what [`Position::evasions`] would list
/// with [`GenMode::All`], counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Replies {
    /// King moves, captures of the checker and moves onto the line between, each
    /// promotion choice counted as a move.
    pub board_moves: u32,
    /// At least one drop between the checker and the king is legal.
    pub drop: bool,
}

impl Replies {
    /// No reply at all: the side to move is checkmated.
    pub fn is_mate(self) -> bool {
        self.board_moves == 0 && !self.drop
    }
}

/// Up to this many squares to answer a check on, its replies are found backwards from
/// each square; beyond, forwards from each piece (measured: docs/performance.md).
const ONTO_SQUARES: u32 = 2;

/// Counts what a generator would push.
struct Count(u32);

impl MoveSink for Count {
    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }
}

/// Notes whether a generator would push anything, and lets it stop at the first move.
struct Any(bool);

impl MoveSink for Any {
    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 = true;
    }

    #[inline(always)]
    fn has_enough(&self) -> bool {
        self.0
    }
}

impl Position {
    /// The replies of the side to move to the check it is in; nothing when it is not in
    /// check. Agrees with [`Position::evasions`] in [`GenMode::All`].
    pub fn count_evasions(&self) -> Replies {
        let mut out = Replies::default();
        let Some(ksq) = self.king_square(self.side) else {
            return out;
        };
        if !self.in_check() {
            return out;
        }
        let mut count = Count(0);
        self.king_moves(!self.pieces(self.side), &mut count);
        if self.checkers.has_more_than_one() {
            out.board_moves = count.0;
            return out;
        }
        let checker = self.checkers.single();
        let block = crate::attacks::between(ksq, checker);
        // Found backwards from each square where they are few, else forwards from each
        // piece: one attack lookup a piece beats one attackers test a square.
        let target = block | Bitboard::from_square(checker);
        if target.count() <= ONTO_SQUARES {
            self.piece_moves_onto(GenMode::All, target, &mut count);
        } else {
            self.piece_moves(GenMode::All, target, &mut count);
        }
        out.board_moves = count.0;
        // Drops on one square are tried one after another, so only whether any is legal
        // counts; the generator stops at the first.
        let mut drop = Any(false);
        self.drops(block, &mut drop);
        out.drop = drop.0;
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::playouts::STARTS;
    use crate::{GenMode, MoveList, Position};

    /// A drop counts only where the piece may stand: White's knights never on its last two
    /// ranks, its lances and pawns never on the last. A rook checks the king along the last
    /// rank, then along the one before it, and White holds one piece of a kind.
    #[test]
    fn a_drop_counts_only_where_the_piece_may_stand() {
        let drop = |sfen: &str| {
            let pos = Position::from_sfen(sfen).unwrap();
            let mut list = MoveList::new();
            pos.evasions(GenMode::All, &mut list);
            assert_eq!(pos.count_evasions().drop, list.iter().any(|m| m.is_drop()));
            pos.count_evasions().drop
        };
        for hand in ["n", "l", "p"] {
            assert!(
                !drop(&format!("4K4/9/9/9/9/9/9/9/R7k w {hand} 1")),
                "{hand}"
            );
        }
        assert!(!drop("4K4/9/9/9/9/9/9/R7k/9 w n 1"));
        assert!(drop("4K4/9/9/9/9/9/9/R7k/9 w l 1"));
        assert!(drop("4K4/9/9/9/9/9/9/R7k/9 w p 1"));
        assert!(drop("4K4/9/9/9/9/9/9/9/R7k w s 1"));
    }

    /// Counted replies equal the listed ones: after every check from positions along
    /// seeded playouts of a game and three tsume positions, the board moves are as many
    /// and a drop is found exactly when the list has one.
    #[test]
    fn counted_replies_equal_listed_ones() {
        let zuko_8 = "4+bn1g1/5kpPl/2l1b1s2/3+l1N1GP/4G1+P1N/5L3/9/1+r7/R8 b GP3sn13p 1";
        let starts = [STARTS[0], STARTS[1], STARTS[2], zuko_8];
        let (mut checks, mut replies) = (MoveList::new(), MoveList::new());
        let (mut positions, mut with_drops, mut mates) = (0, 0, 0);
        crate::playouts::for_each_position(&starts, 0x2545_f491, 30, 40, |pos| {
            checks.clear();
            pos.checks(GenMode::All, &mut checks);
            for &m in checks.as_slice() {
                let after = pos.play(m);
                replies.clear();
                after.evasions(GenMode::All, &mut replies);
                let drops = replies.iter().filter(|r| r.is_drop()).count();
                let counted = after.count_evasions();
                assert_eq!(
                    (counted.board_moves as usize, counted.drop),
                    (replies.len() - drops, drops > 0),
                    "{} after {m}",
                    pos.to_sfen()
                );
                assert_eq!(counted.is_mate(), replies.is_empty());
                positions += 1;
                with_drops += usize::from(drops > 0);
                mates += usize::from(replies.is_empty());
            }
            if !pos.in_check() {
                assert_eq!(pos.count_evasions(), Default::default());
            }
        });
        assert!(
            positions > 5_000 && with_drops > 500 && mates > 10,
            "{positions} {with_drops} {mates}"
        );
    }
}
