//! The solver's own board keys, computed for a child without making the move.
//!
//! Expanding a node looks up every child in the table; making each move just to read its
//! key would copy the whole position per child. A key here is a Zobrist hash of the board
//! and side to move (hands are kept apart, as proof pieces need), and the key after a move
//! is the parent's key with the move's few changes.

use kanju_engine::{Color, Hand, Move, Piece, PieceKind, Position, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (s, z ^ (z >> 31))
}

const fn build() -> [[u64; 81]; 28] {
    let mut t = [[0u64; 81]; 28];
    let mut state = 0x7473_756d_655f_6b65; // "tsume_ke"
    let mut p = 0;
    while p < 28 {
        let mut sq = 0;
        while sq < 81 {
            let (s, z) = splitmix(state);
            state = s;
            t[p][sq] = z;
            sq += 1;
        }
        p += 1;
    }
    t
}

static PIECE_SQUARE: [[u64; 81]; 28] = build();
const WHITE_TO_MOVE: u64 = 0x5bd1_e995_2f0e_a8c3;

#[inline(always)]
fn ps(p: Piece, sq: Square) -> u64 {
    PIECE_SQUARE[p.index()][sq.index()]
}

/// The key of `pos`'s board and side to move, from scratch.
pub(crate) fn board_key(pos: &Position) -> u64 {
    let mut k = if pos.side_to_move() == Color::White {
        WHITE_TO_MOVE
    } else {
        0
    };
    for sq in pos.occupied() {
        if let Some(p) = pos.piece_on(sq) {
            k ^= ps(p, sq);
        }
    }
    k
}

/// The key after the legal move `m`, given `key` = `board_key(pos)`.
#[inline(always)]
pub(crate) fn key_after(pos: &Position, key: u64, m: Move) -> u64 {
    let us = pos.side_to_move();
    let to = m.to();
    let mut k = key ^ WHITE_TO_MOVE;
    match m.from() {
        None => {
            let kind = m.drop_kind().unwrap_or(PieceKind::Pawn);
            k ^= ps(Piece::new(us, kind), to);
        }
        Some(from) => {
            if let Some(c) = pos.piece_on(to) {
                k ^= ps(c, to);
            }
            if let Some(p) = pos.piece_on(from) {
                k ^= ps(p, from);
                let kind = if m.is_promotion() {
                    p.kind().promote()
                } else {
                    p.kind()
                };
                k ^= ps(Piece::new(us, kind), to);
            }
        }
    }
    k
}

/// `attacker`'s hand after `m`, given `hand` = `pos.hand(attacker)`.
#[inline(always)]
pub(crate) fn hand_after(pos: &Position, attacker: Color, hand: Hand, m: Move) -> Hand {
    if pos.side_to_move() != attacker {
        return hand;
    }
    match m.drop_kind() {
        Some(k) => hand.remove(k),
        None => match pos.piece_on(m.to()) {
            Some(c) => hand.add(c.kind().unpromote()),
            None => hand,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_engine::{GenMode, MoveList};

    /// The incremental key and hand agree with the ones computed after making the move,
    /// over every legal move of a few positions and their children.
    #[test]
    fn incremental_keys_match_scratch() {
        for sfen in [
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            "1pG1B4/Gs+P6/pP7/n1ls5/3k5/nL4+r1b/1+p1p+R4/1S7/2N6 b SP2gn2l11p 1",
            "l5knl/4+Rg2g/pp1p+Ng2p/7P1/1SP1B1p2/PKp1s3P/1P2P4/3B5/LN2G3+p b SNLPrs4p 145",
        ] {
            let pos = Position::from_sfen(sfen).unwrap();
            let mut list = MoveList::new();
            pos.legal_moves_with(GenMode::All, &mut list);
            for &m in list.as_slice() {
                let child = pos.play(m);
                assert_eq!(
                    key_after(&pos, board_key(&pos), m),
                    board_key(&child),
                    "{m}"
                );
                for c in Color::ALL {
                    assert_eq!(hand_after(&pos, c, pos.hand(c), m), child.hand(c), "{m}");
                }
                let mut l2 = MoveList::new();
                child.legal_moves_with(GenMode::All, &mut l2);
                for &m2 in l2.as_slice() {
                    assert_eq!(
                        key_after(&child, board_key(&child), m2),
                        board_key(&child.play(m2))
                    );
                }
            }
        }
    }
}
