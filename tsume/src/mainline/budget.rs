//! The main line's share of the caller's node limit.
//!
//! A node limit covers the whole solve: the df-pn proof, then the main line's bounded
//! searches and the df-pn searches they start (futility tests, re-proofs, the give-back
//! helper). A playing engine that hands Kanju a node limit and no time limit must get its
//! answer after about that many nodes; before this budget the main line ignored the limit
//! and ran until the length was exact (Zuko 77 with a limit of 200 000: 2.2 M nodes), which
//! on a problem like Microcosmos is never. Once the main line has spent what the proof
//! left, it ends as it does at its deadline: with the best line it has verified, its
//! length not shown exact.

use std::sync::atomic::{AtomicU64, Ordering};

/// Nodes the main line may still spend, shared by its threads.
pub(crate) struct NodeBudget {
    limit: u64,
    used: AtomicU64,
}

impl NodeBudget {
    /// A budget of `limit` nodes; `None` is unlimited.
    pub fn new(limit: Option<u64>) -> NodeBudget {
        NodeBudget {
            limit: limit.unwrap_or(u64::MAX),
            used: AtomicU64::new(0),
        }
    }

    /// Counts `nodes` as spent.
    pub fn spend(&self, nodes: u64) {
        self.used.fetch_add(nodes, Ordering::Relaxed);
    }

    /// The nodes spent.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// The nodes left.
    pub fn left(&self) -> u64 {
        self.limit.saturating_sub(self.used.load(Ordering::Relaxed))
    }

    /// True once nothing is left.
    pub fn exhausted(&self) -> bool {
        self.left() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_runs_out_and_stays_out() {
        let b = NodeBudget::new(Some(1_000));
        assert_eq!(b.left(), 1_000);
        b.spend(600);
        assert!(!b.exhausted());
        b.spend(600);
        assert_eq!(b.left(), 0);
        assert!(b.exhausted());
        assert!(!NodeBudget::new(None).exhausted());
    }
}
