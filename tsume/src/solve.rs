//! One `Solver::solve` call: set the search up, run it, turn the root's result into an
//! outcome with a verified line.

use crate::busy::Busy;
use crate::dfpn::{Res, Searcher, Shared};
use crate::entry::ANY_LENGTH;
use crate::mainline::{Hint, HintSource, MateSearch, Mated, NodeBudget};
use crate::node::NO_DEP;
use crate::path::PathSet;
use crate::table::Table;
use crate::threads::{self, STACK_BYTES};
use crate::{
    mainline, pv, Config, FutileRule, Limits, Outcome, Progress, RootMode, Solution, UnknownReason,
};
use kanju_engine::{Color, GenMode, Hand, Move, PieceKind, Position, Square};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The df-pn table's verdicts, for the main line's bounded search.
struct TableHints<'a> {
    sh: &'a Shared<'a>,
}

impl TableHints<'_> {
    fn verdict(&self, board_key: u64, hand: Hand) -> Hint {
        let r = self
            .sh
            .table
            // At any length: a disproof under a length limit says nothing of longer mates.
            .probe(self.sh.key_of_board(board_key), hand, 1, 1, u16::MAX);
        if r.pn == 0 {
            Hint::Mated(r.len)
        } else if r.dn == 0 {
            Hint::NoMate
        } else {
            Hint::Unknown
        }
    }
}

impl HintSource for TableHints<'_> {
    fn hint(&self, p: &Position) -> Hint {
        self.verdict(p.board_key(), p.hand(self.sh.attacker))
    }

    fn hint_at(&self, board_key: u64, hand: Hand) -> Option<Hint> {
        Some(self.verdict(board_key, hand))
    }

    fn prefetch(&self, board_key: u64) {
        self.sh.table.prefetch(self.sh.key_of_board(board_key));
    }

    fn prefetch_filter(&self, board_key: u64) {
        self.sh
            .table
            .prefetch_presence(self.sh.key_of_board(board_key));
    }
}

/// The salt of a search's table keys: the piece set, the attacker and the checks generated.
///
/// Pieces are conserved inside one search, so the board and the attacker's hand then
/// determine the defender's hand; the salt keeps problems with different piece sets
/// (incomplete defender hands) apart in one table. The attacker's hand means another
/// position when the other side attacks, and a disproof found without the non-promotions
/// of [`GenMode::Standard`] does not hold with them, so those two are mixed in too.
pub(crate) fn key_salt(pos: &Position, attacker: Color, check_mode: GenMode) -> u64 {
    let mut salt = piece_set_salt(pos);
    if attacker == Color::White {
        salt ^= 0x6a09_e667_f3bc_c908;
    }
    if check_mode == GenMode::All {
        salt ^= 0xbb67_ae85_84ca_a73b;
    }
    salt
}

/// A hash of the set of pieces in play.
fn piece_set_salt(pos: &Position) -> u64 {
    let mut counts = [0u64; 8];
    for sq in Square::all() {
        if let Some(p) = pos.piece_on(sq) {
            counts[p.kind().unpromote().index().min(7)] += 1;
        }
    }
    for c in Color::ALL {
        for k in PieceKind::HAND {
            counts[k.index()] += pos.hand(c).count(k) as u64;
        }
    }
    let mut h = 0x243f_6a88_85a3_08d3u64;
    for c in counts {
        h = (h ^ c).wrapping_mul(0x1000_0000_01b3).rotate_left(23);
    }
    h
}

/// A search after the main one, on the same table and problem, with its own limits and no
/// mate-length cap: rebuilding the proof line, or a futility test's give-back position.
///
/// It replays no proofs (`dfpn::simulate`): a give-back search has a thousand nodes or
/// three, and a replay may spend two hundred of them on one held-back reply. With replays,
/// Muso 31 under the classical rules (one thread, 32 MiB, all moves) left 6 434 futility
/// tests undecided and printed 21 plies not shown exact after 55 s; without, 17 exact in
/// 14 s, as before replays.
fn follow_up<'a>(sh: &Shared<'a>, node_limit: u64, deadline: Option<Instant>) -> Shared<'a> {
    Shared {
        node_limit,
        deadline,
        salt: sh.salt,
        simulation: false,
        ..Shared::new(sh.table, sh.stop, sh.attacker, sh.check_mode)
    }
}

/// A mate search at any length (a futility test's give-back position) gets the rest of
/// its node budget after the first third only while its root's proof number is at most
/// this: a search that is closing in on a mate. Of five Edo problems' 21 842 give-back
/// searches, 2 849 were still open after a third of the 3 000 nodes; 71 of those went on
/// to a proof, every one from a proof number of 9 or less, and 1 961 stayed open. Stopping
/// the others early changes no verdict that counts, since an open search and a disproof
/// both leave the drop effective; it does lose the disproofs (817 of the 2 849) that the
/// longer searches would have left in the table. Whole solves, one thread, 2 GiB, at
/// equal lines: eight Edo problems 64.3 s before, 62.2 s after (Muso 35 6.75 to 4.79 s,
/// Zuko 63 6.52 to 5.64 s; Muso 98 11.65 to 12.25 s); two threads, five problems, three
/// runs each: 22.3 to 21.1 s.
const LEAN_PN: u32 = 16;

/// Runs `f` on a one-thread follow-up searcher with `nodes`, or what `budget` has left if
/// that is less, and counts its nodes against `budget`. `None` when nothing is left.
fn budgeted<R>(
    sh: &Shared,
    budget: &NodeBudget,
    nodes: u64,
    deadline: Option<Instant>,
    f: impl FnOnce(&mut Searcher) -> R,
) -> Option<R> {
    let nodes = nodes.min(budget.left());
    if nodes == 0 {
        return None;
    }
    let sh = follow_up(sh, nodes, deadline);
    // Declared after the `sh` it borrows, the searcher drops first, handing its scratch
    // back.
    let mut s = Searcher::new(&sh, 0);
    let r = f(&mut s);
    // The searcher's own count: the shared one lags by what it has not flushed.
    budget.spend(s.nodes);
    Some(r)
}

/// Whether `pos` is mated at any length (a futility test's give-back position), by a
/// df-pn search on the solver's table within `nodes` and `deadline`. The search gets the
/// rest of its nodes after the first third only while it leans towards a mate (see
/// [`LEAN_PN`]); one still open then with its proof number at most that is
/// [`Mated::Near`].
fn mated_at_any_length(
    sh: &Shared,
    budget: &NodeBudget,
    pos: &Position,
    deadline: Option<Instant>,
    nodes: u64,
) -> Mated {
    let first = nodes / 3;
    let search = |n| budgeted(sh, budget, n, deadline, |s| s.search_root(pos));
    let Some(mut r) = search(first) else {
        return Mated::Open;
    };
    let leans = |r: &Res| r.pn != 0 && r.dn != 0 && r.pn <= LEAN_PN;
    if leans(&r) {
        match search(nodes - first) {
            Some(more) => r = more,
            None => return Mated::Open,
        }
    }
    if r.pn == 0 {
        Mated::Yes
    } else if r.dn == 0 && r.rep_dep == NO_DEP {
        Mated::No
    } else if leans(&r) {
        Mated::Near
    } else {
        Mated::Open
    }
}

/// Solves `pos`. See [`crate::Solver::solve`].
pub(crate) fn solve(
    config: &Config,
    table: &Table,
    pos: &Position,
    limits: &Limits,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Solution {
    let start = Instant::now();
    let attacker = match limits.root {
        RootMode::Attacker => pos.side_to_move(),
        RootMode::Defender => pos.side_to_move().flip(),
        RootMode::DefenderIfInCheck => {
            if pos.in_check() {
                pos.side_to_move().flip()
            } else {
                pos.side_to_move()
            }
        }
    };
    // No mate, or unknown: no line, so nothing about one.
    let without_line = |outcome, nodes, decided_after| Solution {
        outcome,
        length_exact: false,
        length_bound: None,
        cooks: Vec::new(),
        cooks_undecided: Vec::new(),
        cooks_checked_plies: 0,
        cooks_checked_last_plies: 0,
        undecided_drops: Vec::new(),
        spare_pieces: Hand::EMPTY,
        nodes,
        elapsed: start.elapsed(),
        decided_after,
    };
    let unknown = |reason, nodes| without_line(Outcome::Unknown(reason), nodes, None);
    if pos.king_square(attacker.flip()).is_none() {
        return unknown(UnknownReason::NotApplicable, 0);
    }
    // Root at depth 1; an attacker node at depth d is at ply d-1 and needs one more ply.
    let cap = (PathSet::CAPACITY - 4) as u32;
    let max_depth = limits
        .max_mate_len
        .map_or(cap, |l| l.saturating_add(1).min(cap)) as u16;
    // What the table holds is now an earlier search's (see `table`).
    table.new_search();
    let check_mode = if config.generate_all_moves {
        GenMode::All
    } else {
        GenMode::Standard
    };
    // Virtual-loss marks only pay when threads can meet.
    let busy = (config.threads > 1).then(|| Busy::new(config.threads));
    let sh = Shared {
        node_limit: limits.nodes.unwrap_or(u64::MAX),
        deadline: limits.time.map(|t| start + t),
        salt: key_salt(pos, attacker, check_mode),
        max_depth,
        busy: busy.as_ref(),
        mate1_at_expansion: false,
        seed: config.seed,
        ..Shared::new(table, stop, attacker, check_mode)
    };
    let run = threads::run(
        &sh,
        pos,
        config.threads,
        start,
        config.progress_interval,
        progress,
    );
    let nodes = sh.nodes.load(Ordering::Relaxed);
    log::debug!(
        "proof search: {nodes} nodes, {} moves made ({} to estimate new checks), {:.3} s",
        sh.moves.load(Ordering::Relaxed),
        sh.estimate_moves.load(Ordering::Relaxed),
        start.elapsed().as_secs_f64()
    );
    let reason = || sh.reason.lock().unwrap_or(UnknownReason::Stopped);
    let Some(root) = run.root else {
        return unknown(reason(), nodes);
    };
    let decided_after = Some(start.elapsed());
    if root.dn == 0 {
        let outcome = if root.rep_dep == NO_DEP && root.len == ANY_LENGTH {
            Outcome::NoMate
        } else {
            Outcome::Unknown(UnknownReason::LengthLimit)
        };
        return without_line(outcome, nodes, decided_after);
    }

    // Proven: build the line on a big stack (it may have to re-prove lost parts).
    let pv_sh = follow_up(
        &sh,
        limits
            .nodes
            .map_or(u64::MAX, |n| n.saturating_sub(nodes).max(1_000_000)),
        limits.time.map(|t| start + t + Duration::from_secs(1)),
    );
    let line = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("kanju-pv".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || {
                let mut s = Searcher::new(&pv_sh, 0);
                pv::extract(&mut s, pos)
            })
            .expect("spawn the main-line thread")
            .join()
            .ok()
            .flatten()
    });
    let nodes = nodes + pv_sh.nodes.load(Ordering::Relaxed);
    match line {
        Some(line) if pv::verify(pos, attacker, &line) => {
            // The main line publishes each bound it proves (`on_bound`).
            let bound: Mutex<Option<u32>> = Mutex::new(None);
            let on_bound = |n: i32| *bound.lock() = Some(n as u32);
            let mut announce = |line: &[Move], nodes: u64| {
                if !config.progress_interval.is_zero() {
                    let elapsed = start.elapsed();
                    progress(&Progress {
                        nodes,
                        nps: threads::nps(nodes, elapsed),
                        hashfull: table.hashfull(),
                        elapsed,
                        pv: line.to_vec(),
                        mate_len: Some(line.len() as u32),
                        length_bound: *bound.lock(),
                    });
                }
            };
            // A verified mate is news at once: a front end that must answer at its deadline
            // can then answer with it even if the refinement below runs to the end.
            announce(&line, nodes);
            // The composer's main line: exact length, 無駄合, 駒余り, 余詰 (mainline/). It
            // stops a little before the caller's deadline so the answer arrives within it.
            let deadline = limits
                .time
                .map(|t| start + t - (t / 20).min(Duration::from_millis(250)));
            let hints = TableHints { sh: &sh };
            // The futility tests ask whether a position is mated at all: a df-pn search on
            // the same table, whose proofs and disproofs hold whatever the path.
            // The caller's node limit holds for the main line too: it gets what the proof
            // and the line's extraction left, and these searches count against it. Its
            // nodes count in the solution's: a user reads nodes per second off the total
            // time.
            let budget = NodeBudget::new(limits.nodes.map(|n| n.saturating_sub(nodes)));
            let mate_search = |p: &Position, deadline: Option<Instant>, nodes: u64| {
                mated_at_any_length(&sh, &budget, p, deadline, nodes)
            };
            // The main line's walk of the df-pn proof meets nodes whose proof the table
            // lost: they are proved again from their children, storing new child proofs.
            let reprove = |p: &Position, deadline: Option<Instant>, nodes: u64| {
                budgeted(&sh, &budget, nodes, deadline, |s| s.search_again(p).pn == 0)
                    .unwrap_or(false)
            };
            // The main line publishes each line it has verified (`on_line`).
            let latest: Mutex<Option<Vec<Move>>> = Mutex::new(None);
            let on_line = |l: &[Move]| *latest.lock() = Some(l.to_vec());
            let setup = mainline::Setup {
                attacker,
                check_mode: sh.check_mode,
                stop,
                hints: &hints,
                mate_search: (config.futile_rule == FutileRule::AnyLength)
                    .then_some(&mate_search as MateSearch),
                reprove: &reprove,
                hash_mb: config.hash_mb,
                spare_gap: config.spare_rule.max_gap(),
                threads: config.threads,
                df_pn: &mate_search,
                budget: &budget,
                on_line: &on_line,
                on_bound: &on_bound,
            };
            // The main line can take minutes where the proof took seconds: a GUI that
            // hears nothing meanwhile looks hung. So progress goes on, with the nodes the
            // main line has spent and the verified line in hand.
            let mut last_report = Instant::now();
            let mut tick = || {
                if !config.progress_interval.is_zero()
                    && last_report.elapsed() >= config.progress_interval
                {
                    last_report = Instant::now();
                    let latest = latest.lock().clone();
                    announce(latest.as_deref().unwrap_or(&line), nodes + budget.used());
                }
            };
            let main = if config.main_line {
                mainline::refine(pos, &line, deadline, &setup, &mut tick)
            } else {
                None
            };
            let (line, length_exact, length_bound, cooks, undecided_drops) =
                main.map_or((line, false, None, Default::default(), Vec::new()), |m| {
                    (
                        m.line,
                        m.exact,
                        Some(m.bound as u32),
                        m.cooks,
                        m.undecided_drops,
                    )
                });
            // Every node of the main line, its df-pn searches' included, went to the budget,
            // also where no line came of them.
            let nodes = nodes + budget.used();
            let end = line.iter().fold(pos.clone(), |p, &m| p.play(m));
            *bound.lock() = length_bound;
            announce(&line, nodes);
            Solution {
                outcome: Outcome::Mate(line),
                length_exact,
                length_bound,
                cooks: cooks.found,
                cooks_undecided: cooks.undecided,
                cooks_checked_plies: cooks.checked_plies,
                cooks_checked_last_plies: cooks.checked_last_plies,
                undecided_drops,
                spare_pieces: end.hand(attacker),
                nodes,
                elapsed: start.elapsed(),
                decided_after,
            }
        }
        Some(line) => {
            log::error!("kanju-tsume: extracted line failed verification: {line:?}");
            unknown(UnknownReason::TableFull, nodes)
        }
        None => {
            let r = pv_sh
                .reason
                .lock()
                .or(*sh.reason.lock())
                .unwrap_or(UnknownReason::TableFull);
            unknown(r, nodes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One table may serve a search for either side, with or without the non-promotions:
    /// an entry of one must never be read as the other's, where the attacker's hand and a
    /// disproof mean other things.
    #[test]
    fn table_keys_differ_by_attacker_and_check_mode() {
        let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1")
            .expect("a legal position");
        let salts = [
            key_salt(&pos, Color::Black, GenMode::Standard),
            key_salt(&pos, Color::White, GenMode::Standard),
            key_salt(&pos, Color::Black, GenMode::All),
            key_salt(&pos, Color::White, GenMode::All),
        ];
        for i in 0..salts.len() {
            for j in i + 1..salts.len() {
                assert_ne!(salts[i], salts[j], "salts {i} and {j}");
            }
        }
        assert_eq!(salts[0], key_salt(&pos, Color::Black, GenMode::Standard));
    }

    /// Whether `sfen` (White to move, Black attacking) is mated at any length, on an empty
    /// table with the futility tests' budget, and the nodes the search took.
    fn give_back_verdict(sfen: &str) -> (Mated, u64) {
        let pos = Position::from_sfen(sfen).expect("a legal position");
        let table = Table::new(16);
        table.new_search();
        let stop = AtomicBool::new(false);
        let sh = Shared::for_test(&table, &stop, GenMode::All, u64::MAX, None);
        let budget = NodeBudget::new(None);
        let nodes = crate::mainline::GIVE_BACK_NODES;
        let v = mated_at_any_length(&sh, &budget, &pos, None, nodes);
        (v, budget.used())
    }

    /// A give-back search goes on past the first third of its nodes only while it leans
    /// towards a mate. Two give-back positions of Shogi Muso 35's main line: the first is
    /// mated, found after more than a third of the budget; the second is open after a
    /// third with a proof number above `LEAN_PN`, and the whole budget does not decide it
    /// either (measured: open after 3 072 nodes), so its search stops at the third.
    #[test]
    fn a_give_back_search_stops_early_unless_it_leans_to_a_mate() {
        let third = crate::mainline::GIVE_BACK_NODES / 3;
        let (v, nodes) =
            give_back_verdict("4p4/n8/1B1+B5/kn6R/3P5/2s+p5/sNP6/9/9 w SNr4gs4l14p 14");
        assert_eq!(v, Mated::Yes);
        assert!(nodes > third + 256, "{nodes} nodes");
        let (v, nodes) =
            give_back_verdict("4p4/n1+B6/1R1n5/9/1B1P5/k1s+p5/sNP6/9/9 w Sr4gsn4l14p 12");
        assert_eq!(v, Mated::Open);
        assert!(nodes <= third + 256, "{nodes} nodes");
    }
}
