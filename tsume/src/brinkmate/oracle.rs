//! The tsume searches the brinkmate tree rests on: "does the side to move here mate by
//! checks?", asked of the attacker's positions, of the positions after a pass (is a move
//! a threatmate?) and of the defender's (can he mate first?).
//!
//! Each question is a df-pn search of the solver's table, with the side to move as the
//! attacker, and its answer is kept by position. A search that runs out of its nodes is
//! kept as open with the nodes it spent; asked again with a larger budget, it goes on
//! from what the table holds. Proofs and disproofs in the table hold whatever the path,
//! so the verdicts do too.

use crate::dfpn::{Searcher, Shared};
use crate::node::NO_DEP;
use crate::pv;
use crate::solve::key_salt;
use crate::table::{Table, FILTER_REBUILD_SLICE};
use crate::UnknownReason;
use kanju_engine::{Color, GenMode, Move, Position};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A tsume search's verdict on a position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Verdict {
    /// The side to move mates by checks (proven).
    Mate,
    /// It does not (proven, not inferred from a limit).
    NoMate,
    /// Not decided within the nodes spent so far.
    Open {
        /// Nodes spent on it so far.
        spent: u64,
    },
}

/// Table fill (per mille) at which the tsume table is collected between searches.
const GC_AT: u32 = 900;

/// The tsume searches of one brinkmate search.
pub(super) struct Oracle<'a> {
    table: &'a Table,
    stop: &'a AtomicBool,
    /// The salts of the table keys with Black and with White attacking: the piece set is
    /// the root's throughout, so each is fixed for the whole search.
    salts: [u64; 2],
    deadline: Option<Instant>,
    /// Nodes the tsume searches may still spend.
    left: u64,
    /// Nodes they spent.
    pub spent: u64,
    verdicts: HashMap<u64, Verdict>,
    /// Why a search stopped short of its budget, if one did: the whole search stops then.
    pub cut: Option<UnknownReason>,
    /// How many verdicts may be kept: the brinkmate search's memory is bounded.
    capacity: usize,
}

impl<'a> Oracle<'a> {
    /// Searches over `table` for positions with `root`'s pieces, within `nodes` and
    /// `deadline`, keeping up to `capacity` verdicts.
    pub fn new(
        table: &'a Table,
        stop: &'a AtomicBool,
        root: &Position,
        deadline: Option<Instant>,
        nodes: u64,
        capacity: usize,
    ) -> Oracle<'a> {
        Oracle {
            table,
            stop,
            salts: Color::ALL.map(|c| key_salt(root, c, GenMode::All)),
            deadline,
            left: nodes,
            spent: 0,
            verdicts: HashMap::new(),
            cut: None,
            capacity,
        }
    }

    /// Gives the searches that rebuild lines after the search until at least `deadline`
    /// (when there was one) and at least `nodes`.
    pub fn extend(&mut self, deadline: Instant, nodes: u64) {
        self.deadline = self.deadline.map(|d| d.max(deadline));
        self.left = self.left.max(nodes);
    }

    /// The verdict known for `pos`, without searching.
    pub fn known(&self, pos: &Position) -> Option<Verdict> {
        self.verdicts.get(&pos.key()).copied()
    }

    /// Whether the side to move mates by checks in `pos`, searching until the verdict
    /// has had `nodes` in all (less what the whole search has left). A search cut by
    /// the caller's limits sets [`Oracle::cut`] and answers open.
    pub fn mate(&mut self, pos: &Position, nodes: u64) -> Verdict {
        let key = pos.key();
        let spent = match self.verdicts.get(&key) {
            Some(&Verdict::Open { spent }) => spent,
            Some(&decided) => return decided,
            None => 0,
        };
        if spent >= nodes || self.cut.is_some() {
            return Verdict::Open { spent };
        }
        if pos.king_square(pos.side_to_move().flip()).is_none() {
            return self.keep(key, Verdict::NoMate);
        }
        let more = (nodes - spent).min(self.left);
        if more == 0 {
            self.cut = Some(UnknownReason::Nodes);
            return Verdict::Open { spent };
        }
        // A filter being rebuilt (see `Table::start_filter_rebuild`) moves on between
        // these searches, which have no watcher thread to do it.
        self.table.rebuild_filter_step(FILTER_REBUILD_SLICE);
        if self.table.hashfull() >= GC_AT {
            // Verdicts are kept here, so what the table loses costs only work.
            let stop = self.stop;
            self.table
                .collect(0.5, &[], || stop.load(Ordering::Relaxed));
        }
        let sh = self.shared(pos.side_to_move(), more);
        let mut s = Searcher::new(&sh, 0);
        let r = s.search_root(pos);
        let used = s.nodes;
        drop(s);
        self.left -= used.min(self.left);
        self.spent += used;
        let verdict = if r.pn == 0 {
            Verdict::Mate
        } else if r.dn == 0 && r.rep_dep == NO_DEP {
            Verdict::NoMate
        } else {
            // A limit of the caller's, not this search's own budget, stops everything.
            match *sh.reason.lock() {
                Some(UnknownReason::Nodes) | None => {}
                Some(reason) => self.cut = Some(reason),
            }
            Verdict::Open {
                spent: spent + used,
            }
        };
        self.keep(key, verdict)
    }

    /// A replayed mate line for `pos`, whose side to move mates (a proven verdict):
    /// rebuilt from the table, searched again where the table lost parts of it. `None`
    /// when the limits ran out first.
    pub fn mate_line(&mut self, pos: &Position) -> Option<Vec<Move>> {
        let attacker = pos.side_to_move();
        let sh = self.shared(attacker, self.left.max(1));
        let mut s = Searcher::new(&sh, 0);
        let line = pv::extract(&mut s, pos);
        let used = s.nodes;
        drop(s);
        self.left -= used.min(self.left);
        self.spent += used;
        line.filter(|l| pv::verify(pos, attacker, l))
    }

    fn keep(&mut self, key: u64, verdict: Verdict) -> Verdict {
        if self.verdicts.len() < self.capacity || self.verdicts.contains_key(&key) {
            self.verdicts.insert(key, verdict);
        } else if self.cut.is_none() {
            self.cut = Some(UnknownReason::TableFull);
        }
        verdict
    }

    /// A search of `attacker`'s mates with `nodes`.
    fn shared(&self, attacker: Color, nodes: u64) -> Shared<'a> {
        Shared {
            node_limit: nodes,
            deadline: self.deadline,
            salt: self.salts[attacker.index()],
            // Most of these searches are a few thousand nodes; a replayed proof would
            // spend many of them on one reply (see `solve::follow_up`).
            simulation: false,
            ..Shared::new(self.table, self.stop, attacker, GenMode::All)
        }
    }
}
