//! Brinkmate (必至) search for full-board endgames: dual-λ search (Soeda, Kaneko & Tanaka
//! 2006) with df-pn as its driver and Kanju's tsume solver as its order-0 search.
//!
//! A *threatmate* (詰めろ) is a move after which the opponent, were he to pass, is mated
//! by checks. A *brinkmate* is a position in which every move of the side to move is
//! followed by such a mate. A brinkmate tree is one in which the attacker plays only
//! checks and threatmates, the defender every legal move, and every leaf is a brinkmate;
//! "brinkmate in n" asks for such a tree whose attacker moves number at most (n + 1) / 2,
//! so 1 is the one-move 一手必至 and 3 the 三手必至 of problem books.
//!
//! Threats to both kings are watched, as dual-λ search asks: the defender's replies
//! include every counter-check, and after each quiet attacker move the defender's own
//! mate is looked for first. A quiet move that lets the defender mate is refuted
//! at once, as the naive attack of the paper's Figure 3 is.
//!
//! The root is searched with one attacker move left, then two, and so on: the shortest
//! brinkmate is the one reported.
//!
//! Every answer rests on tsume proofs whose lines were replayed: a brinkmate is reported
//! only with a verified mate after each of the defender's replies to its last move.

mod alternatives;
mod line;
mod nodes;
mod oracle;
mod replies;
mod search;

use crate::{Limits, Outcome, Solver, UnknownReason};
use kanju_engine::{Move, Position};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Limits of one brinkmate search. `None` means unlimited.
#[derive(Clone, Debug)]
pub struct BrinkmateLimits {
    /// Wall-clock time.
    pub time: Option<Duration>,
    /// Nodes, the tsume searches' included.
    pub nodes: Option<u64>,
    /// The longest brinkmate looked for, in plies, counting the attacker's last move:
    /// 1 for a one-move brinkmate, 3 when a check or threatmate and the defender's reply
    /// come first. Odd; an even number is taken as the odd one below it. At most
    /// [`BrinkmateLimits::MAX_PLIES`].
    pub max_plies: u32,
}

impl BrinkmateLimits {
    /// The deepest brinkmate a search may look for.
    pub const MAX_PLIES: u32 = 15;
}

impl Default for BrinkmateLimits {
    fn default() -> BrinkmateLimits {
        BrinkmateLimits {
            time: None,
            nodes: None,
            max_plies: 1,
        }
    }
}

/// What a brinkmate search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BrinkmateOutcome {
    /// The side to move mates by checks: a replayed tsume line, as [`crate::Outcome::Mate`].
    Mate(Vec<Move>),
    /// A brinkmate within the plies, the fewest attacker moves first: the main line,
    /// ending with the attacker's move that leaves every defender reply mated. The attacker's earlier moves are checks or
    /// threatmates; the defender's are his longest resistance the search found.
    Brinkmate(Vec<Move>),
    /// Proven: no mate by checks, and no brinkmate tree within the plies. Like λ-search,
    /// this counts only checks and threatmates as attacking moves, so a win that rests on
    /// zugzwang alone (every defender move worsening his position) is outside it.
    NoBrinkmate,
    /// Neither was proven.
    Unknown(UnknownReason),
}

/// One defender reply to a brinkmate and the mate that answers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplyMate {
    /// The defender's move.
    pub reply: Move,
    /// The attacker's mate after it, replayed: every attacker move a legal check, ending
    /// in mate. Where the limits left time for it, the composer's line (the shortest
    /// mate, the longest defence) as [`Solver::solve`] gives it; otherwise, or where that
    /// line stops before a futile interposition, the first mate the search found.
    pub mate: Vec<Move>,
}

/// Everything a brinkmate search reports.
#[derive(Clone, Debug)]
pub struct BrinkmateSolution {
    /// Mate, brinkmate, none, or unknown.
    pub outcome: BrinkmateOutcome,
    /// For a brinkmate: every legal defender reply to its last move, each with its mate.
    pub replies: Vec<ReplyMate>,
    /// For a brinkmate: the root's other moves that also win with as few attacker moves
    /// (別解, what a composer checks a brinkmate problem for), each proof replayed.
    pub alternatives: Vec<Move>,
    /// For a brinkmate: the root's other moves that might, and that the limits left
    /// undecided. When this and `alternatives` are both empty, the brinkmate's first
    /// move is the only one.
    pub alternatives_undecided: Vec<Move>,
    /// The root's quiet moves proven to be threatmates (詰めろ), whether or not they lead
    /// to a brinkmate; empty when the root has a mate by checks or the search did not get
    /// that far.
    pub threatmates: Vec<Move>,
    /// Nodes searched: the brinkmate tree's and its tsume searches'.
    pub nodes: u64,
    /// Time spent.
    pub elapsed: Duration,
}

impl Solver {
    /// Looks for a brinkmate (必至) by the side to move in `pos`, within `limits`; returns
    /// early when `stop` becomes true. The solver's table holds the tsume searches, and
    /// the brinkmate tree takes the share of the memory the main line would use, so the
    /// whole stays within [`crate::Config::hash_mb`]. The search runs on one thread.
    ///
    /// When the win is a mate by checks, the answer is [`BrinkmateOutcome::Mate`] with
    /// the composer's line, as [`Solver::solve`] gives it in the time left.
    ///
    /// ```
    /// use kanju_engine::Position;
    /// use kanju_tsume::{BrinkmateLimits, BrinkmateOutcome, Config, Solver};
    /// use std::sync::atomic::AtomicBool;
    /// use std::time::Duration;
    ///
    /// let mut solver = Solver::new(Config { hash_mb: 16, ..Config::default() });
    /// // The proverb's lone king on 5a, with a gold and a silver in Black's hand.
    /// let pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/9 b GS 1").unwrap();
    /// let limits = BrinkmateLimits {
    ///     time: Some(Duration::from_secs(10)),
    ///     ..BrinkmateLimits::default()
    /// };
    /// let found = solver.brinkmate(&pos, &limits, &AtomicBool::new(false));
    /// match found.outcome {
    ///     BrinkmateOutcome::Brinkmate(line) => {
    ///         assert_eq!(line[0].to_usi(), "S*5c");
    ///         // Both king moves are answered by a mate with the gold.
    ///         assert_eq!(found.replies.len(), 2);
    ///     }
    ///     other => panic!("{other:?}"),
    /// }
    /// ```
    pub fn brinkmate(
        &mut self,
        pos: &Position,
        limits: &BrinkmateLimits,
        stop: &AtomicBool,
    ) -> BrinkmateSolution {
        self.table_mut().start_filter_rebuild();
        let mut solution = search::run(self.config(), self.table(), pos, limits, stop);
        // A root mate by checks, or a brinkmate whose main line checks throughout (likely
        // a mate too, though a side variation may need a quiet move), goes to the tsume
        // solver for the composer's line (the shortest mate, the longest defence) in the
        // time left. Only a mate it proves replaces the answer.
        let by_checks = match &solution.outcome {
            BrinkmateOutcome::Mate(_) => true,
            BrinkmateOutcome::Brinkmate(line) => attacks_by_checks(pos, line),
            _ => false,
        };
        if by_checks {
            let left = |limit: Option<Duration>| limit.map(|t| t.saturating_sub(solution.elapsed));
            let mate_limits = Limits {
                time: left(limits.time),
                nodes: limits.nodes.map(|n| n.saturating_sub(solution.nodes)),
                ..Limits::default()
            };
            let has_room = mate_limits.time != Some(Duration::ZERO) && mate_limits.nodes != Some(0);
            if has_room {
                let mate = self.solve(pos, &mate_limits, stop, &mut |_| {});
                solution.nodes += mate.nodes;
                if let Outcome::Mate(line) = mate.outcome {
                    // What came with a brinkmate does not belong to a mate.
                    solution = BrinkmateSolution {
                        outcome: BrinkmateOutcome::Mate(line),
                        replies: Vec::new(),
                        alternatives: Vec::new(),
                        alternatives_undecided: Vec::new(),
                        threatmates: Vec::new(),
                        ..solution
                    };
                }
                solution.elapsed += mate.elapsed;
            }
        }
        if let BrinkmateOutcome::Brinkmate(line) = &solution.outcome {
            let end = line.iter().fold(pos.clone(), |p, &m| p.play(m));
            self.composer_reply_mates(&end, limits, stop, &mut solution);
        }
        solution
    }
}

/// Whether every attacker move of `line`, played from `pos`, gives check.
fn attacks_by_checks(pos: &Position, line: &[Move]) -> bool {
    let mut p = pos.clone();
    for (i, &m) in line.iter().enumerate() {
        if i % 2 == 0 && !p.gives_check(m) {
            return false;
        }
        p.do_move(m);
    }
    true
}
