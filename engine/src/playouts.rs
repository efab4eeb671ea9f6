//! Seeded random games, for the contract tests that compare two ways of computing one
//! thing over many positions.

use crate::{GenMode, MoveList, Position};

/// A game position and two tsume positions (captures, drops and promotions all occur).
pub(crate) const STARTS: [&str; 3] = [
    crate::STARTPOS_SFEN,
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "9/6nS1/4s4/4r1P1g/5Sk1B/5+pbR1/4Nsp2/9/4N4 b 3Gn4l15p 1",
];

/// Calls `visit` on every position of `games` random games from each of `starts`, each
/// game of at most `plies` plies, every legal move (non-promotions included) as likely
/// as any other. The same `seed` plays the same games.
pub(crate) fn for_each_position(
    starts: &[&str],
    mut seed: u64,
    games: usize,
    plies: usize,
    mut visit: impl FnMut(&Position),
) {
    let mut list = MoveList::new();
    for start in starts {
        for _ in 0..games {
            let mut pos = Position::from_sfen(start).unwrap();
            for _ in 0..plies {
                visit(&pos);
                list.clear();
                pos.legal_moves_with(GenMode::All, &mut list);
                if list.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pos = pos.play(list[(seed % list.len() as u64) as usize]);
            }
        }
    }
}
