//! The public face of the solver: configuration, limits, results.

use crate::table::Table;
use kanju_engine::{Hand, Move, Position};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Which side the root's side to move plays.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum RootMode {
    /// The side to move is the attacker and must check on every move (the tsume setting).
    #[default]
    Attacker,
    /// The side to move is the defender: is every defence mated?
    Defender,
    /// Defender if the side to move is in check, else attacker (`RootIsAndNodeIfChecked`).
    DefenderIfInCheck,
}

/// How a defence whose mate ends with pieces left in the attacker's hand (駒余り) ranks
/// against a shorter defence whose mate ends with none. Among equally long defences the
/// one without spare pieces is always preferred.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum SpareRule {
    /// The longest defence, whatever it leaves; spare pieces only break ties. What
    /// solvers and most problem sets assume.
    #[default]
    Strict,
    /// The 二手変長 convention of today's composers: a defence with spare pieces at the
    /// end ranks below one without that is two plies shorter.
    TwoPly,
    /// The convention of the classical collections (Shogi Zuko, Shogi Muso): a defence
    /// with spare pieces at the end ranks below every defence without, however much
    /// longer it is.
    Classical,
}

impl SpareRule {
    /// How many plies longer a defence ending with spare pieces may be and still rank
    /// below one ending with none.
    pub(crate) fn max_gap(self) -> i32 {
        match self {
            SpareRule::Strict => 0,
            SpareRule::TwoPly => 2,
            SpareRule::Classical => i32::MAX / 4,
        }
    }
}

/// When an interposed drop is futile (無駄合). Either way the attacker must be able to take
/// it with check (by the checker, or by a piece that is then the only checker), and with
/// the piece given back to the defender the king must still be mated; the rules differ in
/// how long that mate may take (docs/rules.md).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum FutileRule {
    /// Kakinoki's: within the length of the defender's other replies, so that the mate
    /// goes on in the same length without the piece. What solvers and today's problem
    /// sets assume.
    #[default]
    SameLength,
    /// The classical collections' (Shogi Zuko, Shogi Muso): at any length.
    AnyLength,
}

/// Solver settings that persist across searches.
#[derive(Clone, Debug)]
pub struct Config {
    /// Search threads sharing one table.
    pub threads: usize,
    /// Transposition table size in MiB; the table never grows beyond it.
    pub hash_mb: usize,
    /// How often the progress callback is called; zero disables it.
    pub progress_interval: Duration,
    /// Whether the attacker may also play the non-promotions standard generation omits.
    /// Tsume needs them, so this is on by default.
    pub generate_all_moves: bool,
    /// The main line's 駒余り convention.
    pub spare_rule: SpareRule,
    /// The main line's 無駄合 rule.
    pub futile_rule: FutileRule,
    /// Whether a proof is followed by the composer's main line (exact length, 無駄合,
    /// 駒余り, 余詰). Off, the first verified mate is returned as soon as it is found: what
    /// a playing engine that only needs a mate wants.
    pub main_line: bool,
    /// Varies the search: each thread adds a little noise to its thresholds, and the seed
    /// picks that noise, the first thread's included. Seed 0, the default, leaves the
    /// first thread without noise, so a one-thread search repeats exactly. Any seed gives a
    /// sound search; the work it takes can differ by a factor of two or three on one
    /// problem (docs/performance.md, "How much a search's work is chance"), which is what
    /// the seed is for: measuring a change of the search over several seeds.
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            threads: 1,
            hash_mb: 256,
            progress_interval: Duration::from_millis(1000),
            generate_all_moves: true,
            spare_rule: SpareRule::Strict,
            futile_rule: FutileRule::SameLength,
            main_line: true,
            seed: 0,
        }
    }
}

/// Limits of one search. `None` means unlimited.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Wall-clock time.
    pub time: Option<Duration>,
    /// Nodes searched, all threads together. It covers the whole solve: the main line
    /// ([`Config::main_line`]) gets what the proof left, and when that is spent it returns
    /// the best line it has verified, with [`Solution::length_exact`] false.
    pub nodes: Option<u64>,
    /// Longest mate (plies) of interest; longer mates are not looked for. The limit is
    /// counted with every interposition played, futile drops (無駄合) included, so a mate
    /// whose tsume length fits only once those are left out can end in
    /// [`UnknownReason::LengthLimit`]. A mate that comes back is the main line, no longer
    /// than the limit. "No mate within n plies" is kept in the table for each position
    /// the search rules out, so that other paths reaching it with no more plies left use
    /// it; a later search without the limit, on the same table, ignores those entries.
    pub max_mate_len: Option<u32>,
    /// Which side the root player is.
    pub root: RootMode,
}

/// Why a search ended without a proof either way.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum UnknownReason {
    /// The time limit passed.
    Time,
    /// The node limit was reached.
    Nodes,
    /// The stop flag was raised.
    Stopped,
    /// The table filled with entries that could not be collected.
    TableFull,
    /// No mate within `max_mate_len`, but a longer one was not ruled out.
    LengthLimit,
    /// The position is not a tsume position (e.g. the defender has no king).
    NotApplicable,
}

/// The result of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Mate is proven; the line is a replayed, verified mate from the root.
    Mate(Vec<Move>),
    /// No mate exists: proven, never inferred from a limit.
    NoMate,
    /// Neither was proven.
    Unknown(UnknownReason),
}

/// An alternative mating move (余詰) at an attacker node of the main line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cook {
    /// Ply index in the main line of the attacker node (0 = root).
    pub ply: usize,
    /// The main line's move there.
    pub main: Move,
    /// Another move there: one that also mates in [`Solution::cooks`], one the cook
    /// search could not settle in [`Solution::cooks_undecided`].
    pub alternative: Move,
}

/// Everything a search reports.
#[derive(Clone, Debug)]
pub struct Solution {
    /// Mate, no mate, or unknown.
    pub outcome: Outcome,
    /// True if the line's length is proven to be the problem's length under tsume
    /// conventions. False means only that the line is a verified mate: when the search
    /// stopped before the main line was established, a shorter mate or a longer defence
    /// may exist.
    pub length_exact: bool,
    /// A length the problem's is proven not to exceed, in plies: the attacker mates
    /// within it against every defence, under tsume rules. It equals the line's length
    /// when that is exact. Otherwise it may be shorter than the line, when the search
    /// proved a shorter mate but ran out of limits before it had walked that mate's line.
    /// `None` without a mate, or when the main line was not worked out.
    pub length_bound: Option<u32>,
    /// Alternative mates found along the main line.
    pub cooks: Vec<Cook>,
    /// Alternatives along the main line that the cook search could not settle within
    /// its node budget: each may or may not mate.
    pub cooks_undecided: Vec<Cook>,
    /// The plies of the main line whose alternatives the cook search looked at: all of
    /// them (the line's length) unless its time ran out, and 0 without a main line.
    pub cooks_checked_plies: usize,
    /// When `cooks_checked_plies` falls short of the line: the plies at its end whose
    /// alternatives were looked at too (with several threads, searches work up from the
    /// end while the first works down); 0 otherwise.
    pub cooks_checked_last_plies: usize,
    /// Ply indices (0 = root) of the main line's interposing drops that the defender
    /// plays only because their futility tests (無駄合) were not decided within the
    /// limits: each is counted as an effective interposition, and the length, exact or
    /// not, rests on that. Under [`FutileRule::SameLength`] the tests are decided with the
    /// line, and this is empty.
    pub undecided_drops: Vec<usize>,
    /// Pieces the attacker still holds at the end of the main line (駒余り).
    pub spare_pieces: Hand,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent.
    pub elapsed: Duration,
    /// When the search first decided the root (mate or no mate), before any work on the
    /// main line: the figure to compare with solvers that stop at their first proof.
    pub decided_after: Option<Duration>,
}

/// A progress report, sent every `Config::progress_interval`.
#[derive(Clone, Debug)]
pub struct Progress {
    /// Nodes so far.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Table fill, per mille.
    pub hashfull: u32,
    /// Time so far.
    pub elapsed: Duration,
    /// The current best line (a verified mate once one is found).
    pub pv: Vec<Move>,
    /// The mate length once a mate is proven.
    pub mate_len: Option<u32>,
    /// Once the main line has proven one, the length the problem's cannot exceed (see
    /// [`Solution::length_bound`]): it falls as the search for a shorter mate goes on.
    pub length_bound: Option<u32>,
}

/// A solver owning a transposition table and its search threads.
///
/// ```
/// use kanju_engine::Position;
/// use kanju_tsume::{Config, Limits, Outcome, Solver};
/// use std::sync::atomic::AtomicBool;
/// use std::time::Duration;
///
/// // An embedding engine keeps one solver (the table is allocated here, once).
/// let mut solver = Solver::new(Config { hash_mb: 16, ..Config::default() });
/// // A mate in 3 (black attacks; white holds every other piece).
/// let pos = Position::from_sfen("k2G5/9/K8/9/N8/9/9/9/9 b 2r2b3g4s3n4l18p 1").unwrap();
/// let limits = Limits { time: Some(Duration::from_secs(10)), ..Limits::default() };
/// let stop = AtomicBool::new(false); // another thread may raise it to stop the search
/// let solution = solver.solve(&pos, &limits, &stop, &mut |_progress| {});
/// match solution.outcome {
///     Outcome::Mate(line) => assert!(line.len() % 2 == 1),
///     Outcome::NoMate => panic!("this one is a mate"),
///     Outcome::Unknown(reason) => panic!("gave up: {reason:?}"),
/// }
/// ```
pub struct Solver {
    config: Config,
    table: Table,
}

impl Solver {
    /// A solver with a freshly allocated table.
    pub fn new(config: Config) -> Solver {
        let table = Table::new(crate::mainline::table_mb(config.hash_mb));
        Solver { config, table }
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Reallocates the table at `mb` MiB (its contents are lost).
    pub fn set_hash_mb(&mut self, mb: usize) {
        if mb != self.config.hash_mb {
            self.config.hash_mb = mb;
            self.table = Table::new(crate::mainline::table_mb(mb));
        }
    }

    /// Sets the number of search threads.
    pub fn set_threads(&mut self, threads: usize) {
        self.config.threads = threads.max(1);
    }

    /// Replaces the whole configuration, reallocating the table if its size changed.
    pub fn set_config(&mut self, config: Config) {
        self.set_hash_mb(config.hash_mb);
        self.config = config;
    }

    /// Empties the table (for a new game or problem set).
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// Table fill, per mille.
    pub fn hashfull(&self) -> u32 {
        self.table.hashfull()
    }

    pub(crate) fn table(&self) -> &Table {
        &self.table
    }

    pub(crate) fn table_mut(&mut self) -> &mut Table {
        &mut self.table
    }

    /// Solves `pos` within `limits`. Returns early when `stop` becomes true.
    pub fn solve(
        &mut self,
        pos: &Position,
        limits: &Limits,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Progress),
    ) -> Solution {
        self.table.start_filter_rebuild();
        crate::solve::solve(&self.config, &self.table, pos, limits, stop, progress)
    }
}
