//! The proof walk's path, and the positions it failed on, kept apart by whether a
//! failure rests on that path.
//!
//! The walk (`seed.rs`) refuses a position already on its path: under continuous checks
//! a repetition is no mate. So a failure below a position can come from the path above
//! it, and the same position reached by another path may succeed: the graph-history
//! interaction (GHI) of Kishimoto & Müller. Kept as a failure for the whole walk, it
//! refuses that position everywhere, and the failure climbs: on 新桃花源 a walk once
//! failed about a hundred plies in, where the king shuttles across two ranks, although
//! df-pn proved the positions there again. So each failure records the shallowest path
//! position it ran into. One that ran into none above itself holds whatever the path and
//! is kept; another holds only while the position it ran into stays on the path, and is
//! forgotten when that position leaves it.

use std::collections::{HashMap, HashSet};

/// Depth of no path position: a failure that ran into none.
pub(super) const NO_HIT: usize = usize::MAX;

/// The walk's path and failures.
#[derive(Default)]
pub(super) struct PathFailures {
    /// Positions on the path, by key, with their depth (the root's is 0).
    path: HashMap<u64, usize>,
    /// Failures that hold whatever the path.
    failed: HashSet<u64>,
    /// Failures that rest on a path position, with that position's depth.
    resting: HashMap<u64, usize>,
    /// The keys of `resting`, by the depth they rest on.
    resting_at: Vec<Vec<u64>>,
}

impl PathFailures {
    /// Why the walk may not enter `key` now: the depth of the path position its failure
    /// (or it itself) runs into, or [`NO_HIT`] for a failure that holds whatever the
    /// path. `None` when it may.
    pub fn refused(&self, key: u64) -> Option<usize> {
        if self.failed.contains(&key) {
            return Some(NO_HIT);
        }
        self.path
            .get(&key)
            .or_else(|| self.resting.get(&key))
            .copied()
    }

    /// The walk enters `key`; returns its depth.
    pub fn enter(&mut self, key: u64) -> usize {
        let depth = self.path.len();
        self.path.insert(key, depth);
        if self.resting_at.len() <= depth {
            self.resting_at.resize_with(depth + 1, Vec::new);
        }
        depth
    }

    /// The walk leaves `key`, entered at `depth`, having failed there if `failed`, where
    /// the failures below it ran into the path no higher than `hit`. The failures that
    /// rested on `key` are forgotten. Returns the depth its own failure rests on, for the
    /// parent's `hit` ([`NO_HIT`] for a success or a failure that holds anyway).
    pub fn leave(&mut self, key: u64, depth: usize, failed: bool, hit: usize) -> usize {
        self.path.remove(&key);
        for k in self.resting_at[depth].drain(..) {
            self.resting.remove(&k);
        }
        if !failed {
            return NO_HIT;
        }
        if hit < depth {
            self.resting.insert(key, hit);
            self.resting_at[hit].push(key);
            hit
        } else {
            // It ran into nothing above itself: whatever the path, it fails the same way.
            self.failed.insert(key);
            NO_HIT
        }
    }

    /// How many failures are kept, for the log.
    pub fn len(&self) -> usize {
        self.failed.len() + self.resting.len()
    }

    /// True before the first failure.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path R(0) → A(1) → B(2), where B ran back into R and A failed through B: both
    /// failures rest on R. Reached again while R is on the path they are refused; once R
    /// has left it, B and A may be walked again from elsewhere.
    #[test]
    fn a_failure_through_the_path_lasts_while_the_path_does() {
        let (r, a, b) = (1, 2, 3);
        let mut f = PathFailures::default();
        let dr = f.enter(r);
        let da = f.enter(a);
        let db = f.enter(b);
        assert_eq!(f.refused(r), Some(dr), "R is on the path");
        // B's only way on leads back to R.
        let hit_b = f.leave(b, db, true, dr);
        assert_eq!(hit_b, dr);
        let hit_a = f.leave(a, da, true, hit_b);
        assert_eq!(hit_a, dr);
        assert_eq!(f.refused(a), Some(dr));
        assert_eq!(f.refused(b), Some(dr));
        // R fails too (say), through nothing above it: it holds for good.
        assert_eq!(f.leave(r, dr, true, hit_a), NO_HIT);
        assert_eq!(f.refused(r), Some(NO_HIT));
        assert_eq!(f.refused(a), None, "A's failure went with R off the path");
        assert_eq!(f.refused(b), None);
        assert_eq!(f.len(), 1);
    }

    /// A failure that runs into itself, or into nothing, holds whatever the path.
    #[test]
    fn a_failure_within_its_own_subtree_holds_for_good() {
        let (r, a) = (1, 2);
        let mut f = PathFailures::default();
        let dr = f.enter(r);
        let da = f.enter(a);
        // A's subtree came back to A itself only.
        assert_eq!(f.leave(a, da, true, da), NO_HIT);
        assert_eq!(f.leave(r, dr, false, NO_HIT), NO_HIT);
        assert_eq!(f.refused(a), Some(NO_HIT));
        assert_eq!(f.refused(r), None, "R succeeded");
    }

    /// Failures resting on a deeper path position go when it leaves, those resting higher
    /// stay until theirs does.
    #[test]
    fn each_failure_goes_with_its_own_path_position() {
        let (r, a, x, y) = (1, 2, 3, 4);
        let mut f = PathFailures::default();
        let dr = f.enter(r);
        let da = f.enter(a);
        let dx = f.enter(x);
        f.leave(x, dx, true, dr);
        let dy = f.enter(y);
        f.leave(y, dy, true, da);
        assert_eq!((f.refused(x), f.refused(y)), (Some(dr), Some(da)));
        f.leave(a, da, false, NO_HIT);
        assert_eq!((f.refused(x), f.refused(y)), (Some(dr), None));
        f.leave(r, dr, false, NO_HIT);
        assert!(f.is_empty());
    }
}
