//! Zobrist keys. The board key covers pieces on squares and the side to move; hands are
//! hashed separately so the solver can key its table by board alone and compare hands
//! by domination.

use crate::types::{Color, Piece, PieceKind};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (s, z ^ (z >> 31))
}

/// Keys per piece index (0..28) and square. Bit 0 is cleared so it stays free for the side.
const fn build_board() -> [[u64; 81]; 28] {
    let mut t = [[0u64; 81]; 28];
    let mut state = 0x4b61_6e6a_7521_u64; // "Kanju!"
    let mut p = 0;
    while p < 28 {
        let mut sq = 0;
        while sq < 81 {
            let (s, z) = splitmix(state);
            state = s;
            t[p][sq] = z & !1;
            sq += 1;
        }
        p += 1;
    }
    t
}

/// Keys per color and hand kind, for one piece; a count of n adds n times the key.
const fn build_hand() -> [[u64; 7]; 2] {
    let mut t = [[0u64; 7]; 2];
    let mut state = 0x4861_6e64_u64;
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 7 {
            let (s, z) = splitmix(state);
            state = s;
            t[c][k] = z & !1;
            k += 1;
        }
        c += 1;
    }
    t
}

static BOARD: [[u64; 81]; 28] = build_board();
static HAND: [[u64; 7]; 2] = build_hand();

/// The side-to-move key: White to move flips bit 0 of the board key.
pub(crate) const SIDE: u64 = 1;

#[inline(always)]
pub(crate) fn piece_square(p: Piece, sq: crate::types::Square) -> u64 {
    BOARD[p.index()][sq.index()]
}

/// Hands are hashed additively, so adding or removing one piece is one add or subtract.
#[inline(always)]
pub(crate) fn hand_piece(c: Color, k: PieceKind) -> u64 {
    HAND[c.index()][k.unpromote().index()]
}
