//! What the main line asks of the df-pn solver that proved the problem: its table's
//! verdicts ([`Hint`]), a mate search at any length ([`MateSearch`]) and a re-proof
//! ([`Reprove`]).

use kanju_engine::{Hand, Position};
use std::time::Instant;

/// What the df-pn table that proved the problem knows of a position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Hint {
    /// Mated; the df-pn proof's length, to order the moves of a walk over the proof.
    Mated(u16),
    /// Not mated at any length, whatever the path: a disproof here at every bound.
    NoMate,
    /// Not known.
    Unknown,
}

/// Where [`Hint`]s come from: the solver's table, or any function of a position (tests).
pub(crate) trait HintSource: Sync {
    /// The verdict on `pos`.
    fn hint(&self, pos: &Position) -> Hint;
    /// The verdict on the position with `board_key` where the attacker holds `hand`, if
    /// the source can tell without the position itself.
    fn hint_at(&self, _board_key: u64, _hand: Hand) -> Option<Hint> {
        None
    }
    /// Starts loading what [`Self::hint_at`] will read for `board_key`, so that the
    /// hints of a node's children overlap their cache misses instead of paying them one
    /// by one.
    fn prefetch(&self, _board_key: u64) {}
    /// Starts loading what [`Self::prefetch`] itself reads for `board_key` to decide
    /// whether to load more: call it for every child first, then `prefetch` for each.
    fn prefetch_filter(&self, _board_key: u64) {}
}

impl<F: Fn(&Position) -> Hint + Sync> HintSource for F {
    fn hint(&self, pos: &Position) -> Hint {
        self(pos)
    }
}

/// A source of [`Hint`]s: the solver's table.
pub(crate) type Hints<'a> = &'a dyn HintSource;

/// What a [`MateSearch`] found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Mated {
    /// Mated.
    Yes,
    /// Not mated, whatever the path.
    No,
    /// Undecided within the budget.
    Open,
    /// Undecided within the budget, but close to a proof: more nodes often find one.
    Near,
}

impl Mated {
    /// `Some(true)` mated, `Some(false)` not mated, `None` undecided.
    pub fn decided(self) -> Option<bool> {
        match self {
            Mated::Yes => Some(true),
            Mated::No => Some(false),
            Mated::Open | Mated::Near => None,
        }
    }
}

/// An unbounded mate search (the solver's df-pn on its own table) for a position, within
/// a deadline and a node budget.
pub(crate) type MateSearch<'a> = &'a (dyn Fn(&Position, Option<Instant>, u64) -> Mated + Sync);

/// The solver's df-pn proving `pos` again from its children, within a deadline and a
/// node budget, so that its table holds the child proofs once more: whether it did.
pub(crate) type Reprove<'a> = &'a (dyn Fn(&Position, Option<Instant>, u64) -> bool + Sync);
