//! The composer's main line (作意): exact length, shortest mate for the attacker, longest
//! defence, no futile drops (無駄合), no spare pieces where a defence can avoid them
//! (駒余り), and the cooks (余詰) along the way.
//!
//! The df-pn proof gives some mate line of length `U`. A length-bounded df-pn
//! ([`bounded`]) then proves "mate within `n`" and disproves "mate within `n - 2`" for the
//! smallest such `n` (KomoringHeights' MinLength idea), walks the line ([`choose`]),
//! replays it ([`verify`]) and looks for cooks ([`cooks`]) with the time left.

mod bounded;
mod budget;
mod choose;
mod cooks;
mod futile;
mod give_back_ahead;
mod key_map;
mod known;
mod path_failures;
mod seed;
mod shortcut;
mod solver;
mod tail;
#[cfg(test)]
mod test_data;
mod verify;

#[cfg(test)]
pub(crate) use bounded::GIVE_BACK_NODES;
pub(crate) use budget::NodeBudget;
pub(crate) use cooks::Cooks;

/// Phase timings, for tuning: `RUST_LOG=kanju_tsume=debug`.
macro_rules! dbg_line {
    ($($t:tt)*) => {
        log::debug!($($t)*)
    };
}
use crate::table::Table;
use crate::threads;
use bounded::{Bounded, NearMates};
use kanju_engine::{Color, GenMode, Move, Position};
use solver::Reprove;
pub(crate) use solver::{Hint, HintSource, Hints, MateSearch, Mated};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The refined line.
pub(crate) struct MainLine {
    /// The verified main line.
    pub line: Vec<Move>,
    /// Its length is proven minimal under tsume rules.
    pub exact: bool,
    /// A length the problem's cannot exceed: "mate within it" is proven under tsume
    /// rules. It can be shorter than an inexact line, whose walk at that bound was cut.
    pub bound: i32,
    /// Alternative mates found along it, and how far the search for them got.
    pub cooks: Cooks,
    /// The plies (from 0) of its interposing drops played as defences only because their
    /// futility tests are undecided.
    pub undecided_drops: Vec<usize>,
}

/// The df-pn table's part of a memory budget of `hash_mb` MiB: what the main line's
/// search does not take (`mainline_bytes`), so that the whole solver stays within the
/// budget (USI_Hash).
pub(crate) fn table_mb(hash_mb: usize) -> usize {
    (hash_mb - hash_mb / 4 - hash_mb / 16).max(1)
}

/// The main-line search's part of a budget of `hash_mb` MiB, in bytes: a quarter for its
/// two maps' arrays and a sixteenth beyond it, for what they keep outside those arrays
/// and for the walk of a disproof (`Bounded::new`), less the df-pn table's filter (at
/// most a sixty-fourth of the table).
pub(crate) fn mainline_bytes(hash_mb: usize) -> usize {
    let share = (hash_mb / 4 + hash_mb / 16).max(1).saturating_mul(1 << 20);
    share.saturating_sub(Table::filter_bytes(table_mb(hash_mb)))
}

/// Nodes for the test of a walked line's length as the bound (see `refine_here`).
const GUESS_NODES: u64 = 2_000_000;

/// The least memory worth giving a second search for cooks: about a hundred thousand
/// entries in each of its tables.
const MIN_COOK_BYTES: usize = 8 << 20;

/// Nodes for verifying a line (its futility tests search).
const VERIFY_NODES: u64 = 2_000_000;

/// How many times the drops a main line counts as effective are searched again (see
/// `bounded::line_drops`), each time one found futile sends the search back.
const MAX_RECHECKS: u32 = 3;

/// Stack for the walk: lines of thousands of plies recurse that deep.
const STACK_BYTES: usize = 1 << 30;

/// What the main-line search works with, besides the position and its deadline.
pub(crate) struct Setup<'a> {
    pub attacker: Color,
    pub check_mode: GenMode,
    pub stop: &'a AtomicBool,
    /// The df-pn table's verdicts.
    pub hints: Hints<'a>,
    /// The solver's df-pn, for futility tests that ask for a mate at any length
    /// ([`crate::FutileRule::AnyLength`]); `None` asks for the same length.
    pub mate_search: Option<MateSearch<'a>>,
    /// The solver's df-pn, to prove again a part of its proof that its table lost.
    pub reprove: Reprove<'a>,
    /// The solver's whole memory budget (USI_Hash), in MiB.
    pub hash_mb: usize,
    /// How many plies longer a defence ending with spare pieces may be and still rank
    /// below one ending with none (see [`crate::SpareRule`]).
    pub spare_gap: i32,
    /// Threads the solver may use: from two on, a helper thread runs the futility tests'
    /// give-back searches ahead of the main line's ([`give_back_ahead`]).
    pub threads: usize,
    /// The solver's df-pn, for that helper: under either futility rule what it leaves in
    /// the table settles the bounded search's nodes sooner.
    pub df_pn: MateSearch<'a>,
    /// What the caller's node limit leaves the main line. The df-pn searches above count
    /// their own nodes against it.
    pub budget: &'a NodeBudget,
    /// Hears of each line the main line has in hand and has verified, before the search
    /// goes on: the caller's progress reports carry it, and a front end that must answer
    /// before the main line is done answers with it.
    pub on_line: &'a (dyn Fn(&[Move]) + Sync),
    /// Hears of each bound the main line proves ("mate within n"), as it falls.
    pub on_bound: &'a (dyn Fn(i32) + Sync),
}

/// How often the caller's thread, waiting for the main line, wakes up to call its `tick`.
const TICK: Duration = Duration::from_millis(5);

/// Turns the verified mate `upper` into the main line, within `deadline`. `None` when not
/// even an upper-bound line could be rebuilt and verified in time (the caller keeps
/// `upper`). The search runs on threads of its own; the caller's thread calls `tick`
/// every few milliseconds meanwhile, so that it can report progress.
pub(crate) fn refine(
    root: &Position,
    upper: &[Move],
    deadline: Option<Instant>,
    setup: &Setup,
    tick: &mut dyn FnMut(),
) -> Option<MainLine> {
    let ahead =
        (setup.threads > 1).then(|| (setup.df_pn, give_back_ahead::GiveBackAhead::default()));
    std::thread::scope(|scope| {
        if let Some((search, ahead)) = &ahead {
            let spawned = std::thread::Builder::new()
                .name("kanju-give-back".into())
                .stack_size(threads::STACK_BYTES)
                .spawn_scoped(scope, move || {
                    ahead.serve(*search, bounded::GIVE_BACK_NODES, deadline)
                });
            if spawned.is_err() {
                log::warn!("kanju-tsume: no thread to run the give-back searches ahead");
            }
        }
        let ahead = ahead.as_ref().map(|a| &a.1);
        let line = std::thread::Builder::new()
            .name("kanju-mainline".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, move || {
                refine_here(root, upper, deadline, setup, ahead)
            })
            .ok()
            .and_then(|h| {
                while !h.is_finished() {
                    std::thread::sleep(TICK);
                    tick();
                }
                h.join().ok().flatten()
            });
        // The helper stops once the main line is done, however it ended.
        if let Some(a) = ahead {
            a.stop();
        }
        line
    })
}

/// The debug log's line for a finished walk.
fn log_walk(bound: i32, line: &[Move], chooser: &choose::Chooser, started: Instant) {
    dbg_line!(
        "mainline: walk at {bound}: line {} exact {} ({:?}, {} futility tests searched, {} \
         longest defences known without a test)",
        line.len(),
        chooser.exact,
        started.elapsed(),
        chooser.futility_searches,
        chooser.longest_inferred
    );
}

/// A line read off the tables ([`choose::table_line`]) that `accept` takes and that
/// verifies, within `deadline`: what stands in where a walk ran out of time. The tables'
/// choices rest on upper bounds only, so the line from `reached`, the moves the walk had
/// settled when it stopped, is tried too, and the longer of the two is taken: a defence
/// that gives up early only shortens a line, and attacker detours are the shortcuts'
/// to cut (Muso 6's walk cut at 10 and 15 s: the tables alone gave 37 plies, with spare
/// pieces, where the main line is 43).
fn verified_table_line(
    b: &mut Bounded,
    root: &Position,
    reached: &[Move],
    deadline: Option<Instant>,
    accept: impl Fn(&[Move]) -> bool,
) -> Option<Vec<Move>> {
    b.set_limits(deadline, Some(VERIFY_NODES));
    let from_reached = || {
        let end = reached.iter().fold(root.clone(), |p, &m| p.play(m));
        let tail = choose::table_line(b, &end)?;
        Some([reached, &tail].concat())
    };
    let candidates = [
        (!reached.is_empty()).then(from_reached).flatten(),
        choose::table_line(b, root),
    ];
    candidates
        .into_iter()
        .flatten()
        .filter(|l| accept(l) && verify::verify(b, root, l))
        .max_by_key(|l| l.len())
}

/// Of `lines`, the shortest that verifies and reaches `bound`, where "mate within `bound`"
/// is proven: a line that long claims no shorter mate than the problem has. A line chosen
/// by upper bounds alone, as the df-pn line and the tables' line are, can end far sooner
/// (Zuko 65, 31 plies, stopped in its main line answered 11 to 15 plies), so where the
/// walk is cut these stand in first. Where none reaches `bound`, the longest that
/// verifies: the shorter ones have a defence that gives up sooner, and a line shorter than
/// the problem claims a mate the defender can outlast. Zuko 1 (69 plies, one thread,
/// 20 s) proved a bound of 91 and had its walk cut, and no line reached 91; it answered
/// with the df-pn proof's 49 plies where the measured tree's line had 87.
fn honest_line<'l>(
    b: &mut Bounded,
    root: &Position,
    bound: i32,
    lines: impl IntoIterator<Item = Option<&'l [Move]>>,
) -> Option<Vec<Move>> {
    let mut lines: Vec<&[Move]> = lines.into_iter().flatten().collect();
    // Those reaching the bound shortest first, then the others longest first.
    lines.sort_by_key(|l| {
        let len = l.len() as i32;
        if len >= bound {
            (false, len)
        } else {
            (true, -len)
        }
    });
    lines
        .into_iter()
        .find(|l| verify::verify(b, root, l))
        .map(<[Move]>::to_vec)
}

/// `line` with the detours [`shortcut::shorten`] finds cut, within `deadline`.
fn shortened(
    b: &mut Bounded,
    root: &Position,
    line: Vec<Move>,
    deadline: Option<Instant>,
    started: Instant,
) -> Vec<Move> {
    let before = line.len();
    let line = shortcut::shorten(b, root, line, deadline);
    dbg_line!(
        "mainline: shortcuts {before} -> {} ({:?})",
        line.len(),
        started.elapsed()
    );
    line
}

/// The positions along `line` from `root`, `root` first.
fn replay(root: &Position, line: &[Move]) -> Vec<Position> {
    let mut positions = Vec::with_capacity(line.len() + 1);
    positions.push(root.clone());
    for &m in line {
        let next = positions.last().expect("the root").play(m);
        positions.push(next);
    }
    positions
}

/// A point `frac` of the way from now to `deadline`.
fn share(deadline: Option<Instant>, frac: f64) -> Option<Instant> {
    deadline.map(|d| {
        let now = Instant::now();
        now + d.saturating_duration_since(now).mul_f64(frac)
    })
}

/// Nodes for each step down before the walk, the first time it is tried.
const STEP_NODES: u64 = 2_000_000;

/// A step that ran out of nodes is given as many again as it has had while its root's
/// disproof number is this many times its proof number or more: the search seems to be
/// closing in on a mate. A disproof, the step that cannot finish, mostly shows no such
/// lean (Muso 31's "within 15": pn 470, dn 984 at 2 M nodes; Zuko 1's proof of "within
/// 85" from its loose bound of 87: pn 55, dn 42,578 at 2 M, proven at 3 M).
const MATE_LEAN: u32 = 16;

/// How many times one step's nodes may be doubled. A search that is no proof can lean
/// towards a mate for a long time too (Muso 31's "within 23" under the same-length
/// futility rule, on an empty table: dn 10 to 1,000 times pn from 20 k to 40 M nodes,
/// then pn 8, dn 1 at 80 M, still open), and each doubling costs the walk that much
/// time. Two take a step to 8 M nodes in all.
const MAX_DOUBLINGS: u32 = 2;

/// Lowers the proven bound `best` by proving mates within `best - 2`, each search until
/// `deadline` and with `budget` nodes, down to `min_len`. A step that runs out of nodes
/// while it leans towards a mate (see [`MATE_LEAN`]) goes on until it has had twice as
/// many, up to [`MAX_DOUBLINGS`] times.
/// Returns the bound reached and whether it is exact: no mate within `best - 2` (a
/// disproof the table may already hold), or nothing shorter possible. Proofs are quick
/// and may jump several steps at once.
fn step_down(
    b: &mut Bounded,
    root: &Position,
    mut best: i32,
    min_len: i32,
    deadline: Option<Instant>,
    budget: Option<u64>,
    on_bound: &dyn Fn(i32),
) -> (i32, bool) {
    while best - 2 >= min_len {
        let mut allowance = budget;
        let mut doublings = 0;
        let verdict = loop {
            b.set_limits(deadline, allowance);
            let v = b.within(root, best - 2);
            let leans_to_mate = b
                .last_open
                .is_some_and(|(pn, dn)| pn.saturating_mul(MATE_LEAN) <= dn);
            let go_on = v.is_none()
                && allowance.is_some()
                && leans_to_mate
                && doublings < MAX_DOUBLINGS
                && !b.past_deadline();
            if !go_on {
                break v;
            }
            // As many again as the step has had: its total doubles.
            allowance = budget.map(|n| n << doublings);
            doublings += 1;
            dbg_line!(
                "mainline: within {} leans to a mate, {allowance:?} more nodes ({} nodes)",
                best - 2,
                b.nodes
            );
        };
        match verdict {
            Some(true) => {
                best = b.proven_len(root).unwrap_or(best - 2).min(best - 2);
                on_bound(best);
                dbg_line!("mainline: mate within {best} ({} nodes)", b.nodes);
            }
            Some(false) => match b.settle_near_mates(root, best - 2) {
                NearMates::Voided => {
                    dbg_line!(
                        "mainline: within {} disproven, but over a drop now found futile; \
                         again ({} nodes)",
                        best - 2,
                        b.nodes
                    );
                    continue;
                }
                NearMates::Unsettled => {
                    dbg_line!(
                        "mainline: within {} disproven, but it may rest on a near mate: \
                         the deadline came before they were all searched again, or one \
                         off a cut walk is mated ({} nodes)",
                        best - 2,
                        b.nodes
                    );
                    return (best, false);
                }
                NearMates::Final => {
                    dbg_line!("mainline: no mate within {} ({} nodes)", best - 2, b.nodes);
                    return (best, true);
                }
            },
            None => {
                dbg_line!(
                    "mainline: within {} undecided ({} nodes)",
                    best - 2,
                    b.nodes
                );
                return (best, false);
            }
        }
    }
    (best, true)
}

fn refine_here(
    root: &Position,
    upper: &[Move],
    deadline: Option<Instant>,
    setup: &Setup,
    ahead: Option<&give_back_ahead::GiveBackAhead>,
) -> Option<MainLine> {
    let Setup {
        attacker,
        check_mode,
        stop,
        hints,
        mate_search,
        reprove,
        hash_mb,
        spare_gap,
        threads,
        df_pn: _,
        budget: node_budget,
        on_line,
        on_bound,
    } = *setup;
    let started = Instant::now();
    let bytes = mainline_bytes(hash_mb);
    let bounded = |bytes| {
        let mut b = Bounded::new(attacker, check_mode, stop, hints, bytes);
        b.set_budget(node_budget);
        if let Some(search) = mate_search {
            b.set_mate_search(search);
        }
        b
    };
    let mut b = bounded(bytes);
    if let Some(a) = ahead {
        b.set_ahead(a);
    }
    let min_len = if root.side_to_move() == attacker {
        1
    } else {
        0
    };

    // 1. A bound the tsume rules prove. The df-pn line's length usually is one, but its
    //    defences need not be the longest (a longer defence makes "within n" false, and
    //    disproving that can take long), so each try gets a node budget and a failed try
    //    widens the bound; wide bounds prove about as fast as plain df-pn.
    b.set_limits(share(deadline, 0.6), None);
    let mut n = upper.len() as i32;
    dbg_line!(
        "mainline: start, df-pn line {n}, {:?} left",
        deadline.map(|d| d.saturating_duration_since(started))
    );
    // The df-pn proof itself, measured under tsume rules, is such a bound when the table
    // still holds it; walking it also hands its lengths to the searches below.
    let measure = seed::upper_bound(&mut b, reprove, root, share(deadline, 0.3), 20_000_000);
    if let Some(u) = measure {
        dbg_line!(
            "mainline: df-pn proof measures {u} ({:?})",
            started.elapsed()
        );
        n = u;
    }
    // The measured tree's line: a stand-in that does not understate the length, should
    // the walk below be cut before it has a line of its own.
    let measured = measure.and_then(|_| seed::measured_line(&b, root));
    if let Some(m) = &measured {
        dbg_line!("mainline: the measured tree's line has {} plies", m.len());
    }
    let mut budget = 500_000u64;
    let best = loop {
        b.set_limits(share(deadline, 0.6), Some(budget));
        match b.within(root, n) {
            Some(true) => break b.proven_len(root).unwrap_or(n),
            None if b.past_deadline() => {
                // Stopped before any bound of its own: the measure is one.
                let bound = measure?;
                let line = honest_line(&mut b, root, bound, [measured.as_deref(), Some(upper)])?;
                return Some(MainLine {
                    undecided_drops: b.undecided_line_drops(root, &line),
                    line,
                    exact: false,
                    bound,
                    cooks: Cooks::default(),
                });
            }
            Some(false) | None => {
                n += (n / 2 + 8) & !1;
                budget = budget.saturating_mul(2);
            }
        }
    };
    on_bound(best);
    // Cheap steps down: proofs of shorter mates are quick, disproofs are not, so each
    // step gets a node budget here; the full disproof comes after a line is in hand.
    let steps_deadline = share(deadline, 0.3);
    let (best, mut exact) = step_down(
        &mut b,
        root,
        best,
        min_len,
        steps_deadline,
        Some(STEP_NODES),
        on_bound,
    );

    // 2. A line at the best bound, comparing defences while time allows. A walk that
    //    runs out of comparison time takes the first mate at each attacker node left and
    //    the first longest defence, so its line ends with whatever spare pieces that mate
    //    leaves; one that runs out of all its time leaves only the tables' line, further
    //    off still. So the walk gets most of the time: the steps below seldom finish on a
    //    problem long enough to need it (Microcosmos' walk takes 14-37 s, varying with the
    //    df-pn proof it starts from).
    let line_deadline = share(deadline, 0.85);
    let tie_break_until = share(deadline, 0.6);
    let mut chooser = choose::Chooser::new(&mut b, tie_break_until, line_deadline, Some(100_000));
    chooser.spare_gap = spare_gap;
    chooser.exact_bound = exact;
    let (mut line, mut line_exact, mut spare_rule) = match chooser.line(root, best) {
        Some(l) => {
            log_walk(best, &l, &chooser, started);
            (l, chooser.exact, chooser.spare_rule_used)
        }
        None => {
            let reached = chooser.reached().to_vec();
            dbg_line!(
                "mainline: walk cut after {} plies, line from the tables below",
                reached.len()
            );
            let l = verified_table_line(&mut b, root, &reached, deadline, |_| true);
            // "Mate within `best`" is proven: see `honest_line`.
            let lines = [l.as_deref(), Some(upper), measured.as_deref()];
            // The tables' line is among the candidates, so none verifying leaves nothing.
            let h = honest_line(&mut b, root, best, lines)?;
            if l.as_ref() != Some(&h) {
                dbg_line!(
                    "mainline: the tables' line ({:?} plies) gives way, with the bound at \
                     {best}, to one of {} plies",
                    l.as_ref().map(Vec::len),
                    h.len()
                );
            }
            (h, false, false)
        }
    };

    // A line that ends with spare pieces may have an end as long without: a walk that ran
    // out of comparison time chose its end without comparing, and one that did not gave
    // the attacker's other checks only a reduced test where the strict rule lets the
    // spare pieces decide no length.
    if !spare_rule {
        line = tail::without_spare_end(&mut b, root, line, spare_gap, share(deadline, 0.3));
    }
    // A line not shown exact may take detours its walk's loose bound left room for; cut
    // them now, so that the line is as short as it gets when the steps below run out.
    let shown_exact = exact && line_exact && line.len() as i32 == best;
    if !shown_exact && !spare_rule {
        line = shortened(&mut b, root, line, share(deadline, 0.5), started);
    }
    let walked = line.clone();
    // The exactness proof below may take long, and may never finish: the walked line is
    // what a stop should answer with meanwhile.
    b.set_limits(deadline, Some(VERIFY_NODES));
    b.set_budget_binds(false);
    if verify::verify(&mut b, root, &line) {
        on_line(&line);
    }
    b.set_budget_binds(true);

    // 3. The full disproof of a shorter mate, with what is left. A shorter mate found on
    //    the way lowers the bound and the search goes on, so with no deadline (`go mate
    //    infinite`) it ends only with the exact length.
    let mut line_bound = best;
    let mut best = best;
    // A walked line shorter than its bound, where no 駒余り choice shortened it, followed
    // defences known only by upper bounds: its length is a guess at the problem's, and a
    // proof of mate within it skips the steps above it, each of which is a search of
    // nearly the whole problem. A wrong guess costs one budgeted search.
    let guess = line.len() as i32;
    if !exact && !spare_rule && guess < best && guess >= min_len {
        b.set_limits(share(deadline, 0.5), Some(GUESS_NODES));
        if b.within(root, guess) == Some(true) {
            best = b.proven_len(root).unwrap_or(guess).min(guess);
            on_bound(best);
            dbg_line!(
                "mainline: mate within {best}, the walked line's length ({} nodes)",
                b.nodes
            );
        }
    }
    // Rounds of: the steps down, the line again, and the drops the line counts as
    // effective on an undecided test searched again (see `bounded::line_drops`). One
    // found futile sends the search back, since the disproof of a shorter mate may pass
    // it and the line's defence may rest on it.
    let mut rechecks = 0;
    let mut rechecked = Vec::new();
    let mut rewalk = false;
    loop {
        if !exact {
            // One deadline for all the steps: each step given a share of what is left
            // would leave the last one, the disproof that cannot finish, all but nothing
            // for the line at the bound the proofs reached.
            let steps_deadline = share(deadline, 0.8);
            (best, exact) = step_down(&mut b, root, best, min_len, steps_deadline, None, on_bound);
        }
        // The line again where the bound moved or its walk rested on upper bounds.
        if rewalk || best != line_bound || (exact && !line_exact) {
            let budget = if exact { None } else { Some(100_000) };
            let mut chooser =
                choose::Chooser::new(&mut b, share(deadline, 0.85), share(deadline, 0.9), budget);
            chooser.spare_gap = spare_gap;
            chooser.exact_bound = exact;
            if let Some(l) = chooser.line(root, best) {
                log_walk(best, &l, &chooser, started);
                line_exact = chooser.exact;
                spare_rule = chooser.spare_rule_used;
                line = l;
            } else {
                line_exact = false;
                if best != line_bound {
                    // The walk ran out of time. The line at the old bound has an
                    // attacker's move that a shorter mate beats; a line read off the
                    // tables at the new bound is closer to the main line when it verifies
                    // and reaches the bound. One that ends sooner has a defence that gave
                    // up early, which is further off.
                    let reaches_bound = |l: &[Move]| (best as usize..line.len()).contains(&l.len());
                    let reached = chooser.reached().to_vec();
                    let until = share(deadline, 0.95);
                    if let Some(l) =
                        verified_table_line(&mut b, root, &reached, until, reaches_bound)
                    {
                        dbg_line!(
                            "mainline: line {} from the tables at the new bound",
                            l.len()
                        );
                        spare_rule = false;
                        line = l;
                    }
                }
            }
            line_bound = best;
        }
        // A line the 駒余り rule shortened is as exact as the lengths its choices rest on.
        exact &= line_exact && (line.len() as i32 == best || spare_rule);
        if !exact || rechecks == MAX_RECHECKS {
            break;
        }
        rechecks += 1;
        b.set_limits(share(deadline, 0.8), None);
        let drops = b.recheck_line_drops(root, &line, &mut rechecked);
        dbg_line!(
            "mainline: the line's undecided drops: {drops:?} ({:?})",
            started.elapsed()
        );
        if drops.futile == 0 {
            let voided = b.recheck_line_defences(root, &line, &mut rechecked);
            dbg_line!(
                "mainline: the line's defences: {voided} not shown longest ({:?})",
                started.elapsed()
            );
            if voided == 0 {
                break;
            }
        }
        (exact, line_exact, rewalk) = (false, false, true);
    }
    if !exact && !spare_rule && line != walked {
        line = shortened(&mut b, root, line, share(deadline, 0.5), started);
    }
    dbg_line!(
        "mainline: line {} exact {exact} ({:?}, {} nodes, {} returns cut, {} futility tests \
         undecided, {} give-back searches here in {:?})",
        line.len(),
        started.elapsed(),
        b.nodes,
        b.returns_cut,
        b.undecided_futility,
        b.give_back_searches,
        b.give_back_time
    );
    // 4. Nothing leaves unverified.
    // A line found within the node budget is verified even when the budget is spent: its
    // one search, the end's futile drops, is small, and without it the line is lost.
    b.set_limits(share(deadline, 0.95), Some(VERIFY_NODES));
    b.set_budget_binds(false);
    if !verify::verify(&mut b, root, &line) {
        log::error!("kanju-tsume: main line failed verification: {line:?}");
        return None;
    }
    b.set_budget_binds(true);
    let undecided_drops = b.undecided_line_drops(root, &line);
    on_line(&line);
    // 5. Cooks with what is left, but never more than the line itself took. With no
    //    deadline the caller asked for the whole answer: every alternative is settled.
    let spent = started.elapsed().max(Duration::from_secs(1));
    let cook_deadline =
        deadline.map(|d| share(Some(d), 0.9).unwrap_or(d).min(Instant::now() + spent));
    dbg_line!("mainline: verified ({:?})", started.elapsed());
    // With several threads the cooks are searched by as many searches over the main
    // line's tables, which stop growing then; each gets an equal share of the memory
    // those tables left unused, for what it adds.
    let cook_searches = threads.clamp(1, 4);
    let cook_bytes = bytes.saturating_sub(b.memory_used()) / cook_searches;
    let cooks = if cook_searches > 1 && cook_bytes >= MIN_COOK_BYTES {
        // The give-back helper's core goes to the searches for cooks.
        if let Some(a) = ahead {
            a.stop();
        }
        let mut searches: Vec<Bounded> = (0..cook_searches)
            .map(|_| {
                let mut s = bounded(cook_bytes);
                s.over(&b);
                if let Some(a) = ahead {
                    s.set_ahead(a);
                }
                s
            })
            .collect();
        let mut searches: Vec<&mut Bounded> = searches.iter_mut().collect();
        cooks::find(&mut searches, root, &line, cook_deadline)
    } else {
        cooks::find(&mut [&mut b], root, &line, cook_deadline)
    };
    dbg_line!("mainline: cooks done ({:?})", started.elapsed());
    // An exact line's length is the problem's (under the 駒余り rule it can be shorter
    // than the longest defence, which `best` bounds).
    let bound = if exact { line.len() as i32 } else { best };
    Some(MainLine {
        line,
        exact,
        bound,
        cooks,
        undecided_drops,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mainline::test_data::{no_hints, published};
    use kanju_engine::{Color, GenMode};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    /// A line that reaches the proven bound is taken over a shorter one, and where none
    /// reaches it the longest that verifies: Muso 77's published 11 plies against a line
    /// in which one of the defender's replies is mated sooner. A line shorter than the
    /// problem, taken where a longer one verifies, would claim a mate the defender can
    /// outlast.
    #[test]
    fn a_stand_in_line_is_the_longest_that_verifies() {
        let (root, main) = published("tsume_edo_zukou_musou.jsonl", "musou-077");
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 64 << 20);
        // A line whose defender, somewhere, takes a reply mated sooner than the published.
        let positions = replay(&root, &main);
        let short = (1..main.len())
            .step_by(2)
            .find_map(|i| {
                let mut replies = kanju_engine::MoveList::new();
                positions[i].evasions(GenMode::All, &mut replies);
                let left = (main.len() - i - 1) as i32;
                replies.as_slice().iter().find_map(|&r| {
                    let after = positions[i].play(r);
                    if r == main[i] || b.within(&after, left - 2) != Some(true) {
                        return None;
                    }
                    let tail =
                        choose::Chooser::new(&mut b, None, None, None).line(&after, left - 2)?;
                    Some([&main[..i], &[r], &tail].concat())
                })
            })
            .expect("a reply mated sooner than the published one");
        assert!(short.len() < main.len(), "{} plies", short.len());
        assert!(verify::verify(&mut b, &root, &short));
        let lines = || [Some(&short[..]), Some(&main[..])];
        let bound = main.len() as i32;
        assert_eq!(
            honest_line(&mut b, &root, bound, lines()),
            Some(main.clone())
        );
        assert_eq!(
            honest_line(&mut b, &root, bound + 4, lines()),
            Some(main.clone()),
            "no line reaches the bound: the longest stands in"
        );
        assert_eq!(
            honest_line(&mut b, &root, bound + 4, [Some(&short[..])]),
            Some(short.clone())
        );
        // A line that is no mate never stands in.
        let cut = &main[..main.len() - 1];
        assert_eq!(honest_line(&mut b, &root, bound + 4, [Some(cut)]), None);
    }

    /// Muso 3 opens with its only check, so the root passes that check unlimited
    /// thresholds and the first search under it runs until the budget does. The numbers
    /// the aborted search reports must be the frontier's, gathered on the way back up, not
    /// the root's initial guess (pn 2, dn 1): Zuko 99's step to "within 119" read (1, 2)
    /// there at 2 M nodes where the frontier stood at pn 457, dn 50,353, did not lean to
    /// the mate, and left the walk a bound four plies loose, 40 s of its 60.
    #[test]
    fn an_aborted_search_reports_the_frontier() {
        let (root, published) = published("tsume_edo_zukou_musou.jsonl", "musou-003");
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 64 << 20);
        b.set_limits(None, Some(20_000));
        assert_eq!(b.within(&root, published.len() as i32), None);
        let (pn, dn) = b.last_open.expect("the search ran out");
        assert!(
            pn > 2 && dn > 1,
            "pn {pn}, dn {dn}: the root's initial numbers"
        );
    }

    /// Muso 31 from a loose bound of 37 (it is 17 plies). On an empty table, "mate within
    /// 35" takes about 570 k nodes; at 200 k the root stands at pn 33, dn 15 246, leaning
    /// towards the mate, so the step goes on and proves it. Stopped
    /// at its first budget, the step would leave the bound at 37, and the walk would start
    /// from there.
    #[test]
    fn a_step_that_leans_to_a_mate_gets_more_nodes() {
        let (root, _) = published("tsume_edo_zukou_musou.jsonl", "musou-031");
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 256 << 20);
        b.set_limits(None, Some(200_000));
        assert_eq!(b.within(&root, 35), None, "200 k nodes do not settle it");
        let (pn, dn) = b.last_open.expect("the search ran out");
        assert!(
            pn * MATE_LEAN <= dn,
            "pn {pn}, dn {dn}: leaning to the mate"
        );

        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 256 << 20);
        let deadline = Some(Instant::now() + Duration::from_secs(120));
        let (best, _) = step_down(&mut b, &root, 37, 1, deadline, Some(200_000), &|_| {});
        assert!(best <= 35, "the bound stayed at {best}");
    }

    /// A disproof is not taken as final while it may rest on a futility test left
    /// undecided near a mate. The defence in Shogi Zuko 69's variation (see
    /// `tests/mainline_rules.rs`) is 2 plies when the give-back positions of its drops are
    /// found mated, and longer while they count as effective. Here every give-back search
    /// with the first budget ends near a mate; with the second budget it tells the truth
    /// (a mate within 21 plies, which covers the variation's 10). Unsettled, the steps
    /// would stop above 2.
    #[test]
    fn a_disproof_resting_on_a_near_mate_searches_it_again() {
        const VARIATION: &str = "9/9/9/9/5l3/p8/1p1+R3B1/S1G6/5ksR1 w GSb2gs4n3l16p 16";
        let root = Position::from_sfen(VARIATION).unwrap();
        let stop = AtomicBool::new(false);
        let truth = |q: &Position| {
            let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 16 << 20);
            b.within(q, 21) == Some(true)
        };
        let settles = AtomicBool::new(true);
        let search = |q: &Position, _: Option<Instant>, nodes: u64| {
            if nodes == GIVE_BACK_NODES || !settles.load(Ordering::Relaxed) {
                Mated::Near
            } else if truth(q) {
                Mated::Yes
            } else {
                Mated::Open
            }
        };
        let steps = || {
            let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 16 << 20);
            b.set_mate_search(&search as MateSearch);
            assert_eq!(b.within(&root, 20), Some(true));
            step_down(&mut b, &root, 20, 0, None, None, &|_| {})
        };
        assert_eq!(steps(), (2, true));
        settles.store(false, Ordering::Relaxed);
        let (unsettled, _) = steps();
        assert!(unsettled > 2, "{unsettled}");

        // The deadline comes between the disproof and the searches that would void it: the
        // disproof is then no proof that nothing shorter exists.
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 16 << 20);
        b.set_mate_search(&search as MateSearch);
        assert_eq!(b.within(&root, unsettled), Some(true));
        assert_eq!(b.within(&root, unsettled - 2), Some(false));
        settles.store(true, Ordering::Relaxed);
        b.set_limits(Some(Instant::now()), None);
        assert_eq!(
            b.settle_near_mates(&root, unsettled - 2),
            NearMates::Unsettled
        );
        b.set_limits(None, None);
        assert_eq!(b.settle_near_mates(&root, unsettled - 2), NearMates::Voided);

        // Cut at its first node, the walk meets no test, so the near mates it did not
        // reach are searched again all the same: found mated, one of them may be what the
        // disproof rests on; still near, none is mated and the disproof stands.
        for (settle, expected) in [(true, NearMates::Unsettled), (false, NearMates::Final)] {
            settles.store(false, Ordering::Relaxed);
            let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 16 << 20);
            b.set_mate_search(&search as MateSearch);
            assert_eq!(b.within(&root, unsettled), Some(true));
            assert_eq!(b.within(&root, unsettled - 2), Some(false));
            settles.store(settle, Ordering::Relaxed);
            b.set_walk_cap(1);
            assert_eq!(b.settle_near_mates(&root, unsettled - 2), expected);
        }
    }
}
