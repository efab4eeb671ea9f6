//! 余詰 (cooks): other attacker moves on the main line that mate no later than the main
//! line's own move.

use super::bounded::Bounded;
use crate::Cook;
use kanju_engine::{Move, MoveList, Position};
use std::time::Instant;

/// Nodes one alternative may cost before it is left unresolved (and unreported).
const NODES_PER_ALTERNATIVE: u64 = 50_000;

/// At each attacker node of `line` (which mates in exactly its length when `exact`),
/// every other check that also mates within the plies the main move needed.
pub(crate) fn find(
    b: &mut Bounded,
    root: &Position,
    line: &[Move],
    deadline: Option<Instant>,
) -> Vec<Cook> {
    let mut cooks = Vec::new();
    let mut pos = root.clone();
    let mut list = MoveList::new();
    for (ply, &main) in line.iter().enumerate() {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        if pos.side_to_move() == b.attacker {
            let left = (line.len() - ply) as i32;
            list.clear();
            pos.checks(b.check_mode, &mut list);
            for &alt in list.as_slice() {
                if alt == main {
                    continue;
                }
                b.set_limits(deadline, Some(NODES_PER_ALTERNATIVE));
                if b.within(&pos.play(alt), left - 1) == Some(true) {
                    cooks.push(Cook {
                        ply,
                        main,
                        alternative: alt,
                    });
                }
            }
        }
        pos = pos.play(main);
    }
    cooks
}
