//! Churn: stretches of a line on which both sides keep dropping pieces, the defender
//! interposing and the attacker sacrificing, each drop soon taken and dropped again.
//!
//! Such a stretch looks cheap to df-pn. Every interposition shows only its cheapest drop
//! (the rest wait in a chain, see [`crate::delayed`]), so each defender node seems to have a
//! single reply, and a line of them keeps a proof number of 1 or 2 however deep it goes.
//! Pieces change hands without the board repeating, so neither repetition rule ends it.
//! In Shogi Muso 6 the defence 5a4b has a 15-ply mate, yet df-pn could follow a file-1
//! drop dance past ply 300 and never come back: about one run in eight of two threads
//! timed out on a problem one thread proves in a second.
//!
//! So a new defender node's proof number grows with the churning plies on its path: one
//! for every [`PLIES_PER_PN`] plies that close a window of [`WINDOW`] plies holding at
//! least [`DROPS`] drops. Composed main lines stay below that density (Microcosmos,
//! Kotobuki and the other long Edo problems drop at most 7 times in 16 plies, mostly 1 to
//! 3), so their estimates do not change; a dance drops on most plies and soon costs more
//! than the short mate beside it.

/// Plies in the window whose drops are counted.
pub(crate) const WINDOW: usize = 16;
/// Drops in the window that make its last ply a churning one.
pub(crate) const DROPS: u32 = 8;
/// Churning plies per unit of extra proof number.
pub(crate) const PLIES_PER_PN: u32 = 8;

/// Counts over the moves of a path from the search root up to some depth.
#[derive(Clone, Copy)]
pub(crate) struct Churn {
    /// Drops among the moves.
    drops: u32,
    /// Moves that closed a churning window.
    churning: u32,
}

impl Churn {
    /// The counts of an empty path.
    pub const ZERO: Churn = Churn {
        drops: 0,
        churning: 0,
    };

    /// The counts after one more move. `window_start` holds the counts `WINDOW` moves
    /// before this one (or the empty path's, near the root).
    #[inline]
    pub fn after(self, is_drop: bool, window_start: Churn) -> Churn {
        let drops = self.drops + u32::from(is_drop);
        let in_window = drops - window_start.drops;
        Churn {
            drops,
            churning: self.churning + u32::from(in_window >= DROPS),
        }
    }

    /// What a new defender node at the end of this path adds to its proof number.
    #[inline]
    pub fn penalty(self) -> u32 {
        self.churning / PLIES_PER_PN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counts after each move of `drops` (true for a drop), as the search keeps them:
    /// index d holds the path of d moves.
    fn walk(drops: &[bool]) -> Vec<Churn> {
        let mut counts = vec![Churn::ZERO];
        for (i, &d) in drops.iter().enumerate() {
            let start = counts[(i + 1).saturating_sub(WINDOW)];
            counts.push(counts[i].after(d, start));
        }
        counts
    }

    #[test]
    fn sparse_drops_cost_nothing() {
        // Three drops in every 16 plies, as along Microcosmos' main line, for 1600 plies.
        let line: Vec<bool> = (0..1600).map(|i| i % 16 < 3).collect();
        assert_eq!(walk(&line).last().unwrap().penalty(), 0);
        // Seven in 16 is still below the bar.
        let line: Vec<bool> = (0..1600).map(|i| i % 16 < 7).collect();
        assert_eq!(walk(&line).last().unwrap().penalty(), 0);
    }

    #[test]
    fn a_drop_dance_grows_with_its_length() {
        // A drop on every other ply, from the first: a window of 16 plies holds 8 drops,
        // and so does the path of the first 15 (near the root the window is the path).
        let line: Vec<bool> = (0..200).map(|i| i % 2 == 0).collect();
        let counts = walk(&line);
        assert_eq!(counts[14].churning, 0);
        assert_eq!(counts[15].churning, 1);
        assert_eq!(counts[16].churning, 2);
        assert_eq!(counts[200].churning, 186);
        assert_eq!(counts[200].penalty(), 186 / PLIES_PER_PN);
        assert!(
            counts[200].penalty() >= 20,
            "deep in a dance a node costs 20 more"
        );
    }

    #[test]
    fn the_window_slides() {
        // Sixteen drops, then quiet plies: the churn stops growing once the window has
        // fewer than `DROPS` drops, and what it counted stays.
        let mut line = vec![true; 16];
        line.extend(std::iter::repeat_n(false, 40));
        let counts = walk(&line);
        // Windows ending at plies 8..=24 hold at least 8 drops.
        assert_eq!(counts[56].churning, 17);
        assert_eq!(counts[24].churning, 17);
        assert_eq!(counts[25].churning, 17);
    }
}
