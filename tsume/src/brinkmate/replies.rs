//! The mate shown after each reply to a brinkmate: the composer's line, as
//! [`Solver::solve`] gives it (the shortest mate, the longest defence, futile
//! interpositions left out), in place of the first mate df-pn met.
//!
//! The brinkmate search only needs to know that every reply is mated, and df-pn's line
//! for a reply is often longer than the mate: after gpsshogi's `yose`, 8h7g is mated in
//! 3 plies where df-pn's line took 9. Its defences need not be the longest either, so a
//! line of three plies can still hide a longer mate. A reader of a brinkmate problem
//! checks each reply's mate as a tsume, so every reply whose line is longer than a mate
//! in one goes to the tsume solver, with an even share of what the limits leave. Its
//! line replaces df-pn's when it ends in mate. A reply the solver leaves unproven keeps
//! df-pn's line, which was replayed, and so does one whose composer's line stops before
//! a futile interposition: the reply's mate must end in mate on the board.

use super::{BrinkmateLimits, BrinkmateSolution};
use crate::{pv, Limits, Outcome, Solver};
use kanju_engine::Position;
use std::sync::atomic::{AtomicBool, Ordering};

/// The most nodes one reply's tsume search takes: these mates are short, and a search
/// without limits must still end.
const REPLY_NODES: u64 = 2_000_000;

impl Solver {
    /// Replaces the mate after each reply to the brinkmate that ends in `end` by the
    /// composer's line, within what `limits` leave of `solution`'s time and nodes.
    pub(super) fn composer_reply_mates(
        &mut self,
        end: &Position,
        limits: &BrinkmateLimits,
        stop: &AtomicBool,
        solution: &mut BrinkmateSolution,
    ) {
        let todo: Vec<usize> = (0..solution.replies.len())
            .filter(|&i| solution.replies[i].mate.len() > 1)
            .collect();
        for (done, &i) in todo.iter().enumerate() {
            let shares = (todo.len() - done) as u32;
            let time = limits
                .time
                .map(|t| t.saturating_sub(solution.elapsed) / shares);
            let nodes = limits.nodes.map_or(REPLY_NODES, |n| {
                (n.saturating_sub(solution.nodes) / u64::from(shares)).min(REPLY_NODES)
            });
            if stop.load(Ordering::Relaxed) || time.is_some_and(|t| t.is_zero()) || nodes == 0 {
                return;
            }
            let after = end.play(solution.replies[i].reply);
            let reply_limits = Limits {
                time,
                nodes: Some(nodes),
                ..Limits::default()
            };
            let mate = self.solve(&after, &reply_limits, stop, &mut |_| {});
            solution.nodes += mate.nodes;
            solution.elapsed += mate.elapsed;
            match mate.outcome {
                // A composer's line may end where only futile drops are left to the
                // defender; a reply's mate must end in mate itself.
                Outcome::Mate(line) if pv::verify(&after, after.side_to_move(), &line) => {
                    solution.replies[i].mate = line;
                }
                _ => {}
            }
        }
    }
}
