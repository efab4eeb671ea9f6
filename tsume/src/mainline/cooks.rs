//! 余詰 (cooks): other attacker moves on the main line that mate no later than the main
//! line's own move.
//!
//! A composer checks a problem for cooks, so what the search could not settle is reported
//! too: an alternative that ran out of its node budget may still mate, and plies past the
//! deadline were not looked at. "No cook found" is only a clean bill when neither happened.
//!
//! Each alternative is a search of its own, so several searches can share them out, each
//! on its own thread. Each must start from what
//! the main line's search has proven (`Bounded::over`): the proof that nothing shorter
//! mates asked many of the same questions, and a search without its tables left a
//! quarter more alternatives unsettled (docs/performance.md).

use super::bounded::Bounded;
use crate::Cook;
use kanju_engine::{Move, MoveList, Position};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Nodes one alternative may cost before it is left undecided.
const NODES_PER_ALTERNATIVE: u64 = 50_000;

/// With no deadline, each round of searches for the alternatives still undecided gives
/// each this many times the nodes of the round before.
const ROUND_GROWTH: u64 = 8;

/// What the search for cooks found along a line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cooks {
    /// Alternatives that also mate in time.
    pub found: Vec<Cook>,
    /// Alternatives the search could not settle within their node budget.
    pub undecided: Vec<Cook>,
    /// The plies of the line whose alternatives were all looked at: the line's length
    /// unless the deadline came first.
    pub checked_plies: usize,
    /// When the deadline left a gap, the plies at the line's end whose alternatives were
    /// all looked at too (the searches after the first work up from the end); else 0.
    pub checked_last_plies: usize,
}

/// What became of one alternative.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Verdict {
    Mates,
    Refuted,
    Undecided,
}

/// At each attacker node of `line` (which mates in exactly its length when `exact`),
/// every other check that also mates within the plies the main move needed, searched by
/// `searches`, the first on the caller's thread and each other on one of its own.
///
/// With no deadline (`go mate infinite`, `--time none`) the caller has asked for the whole
/// answer, and a composer checking a problem wants every alternative settled: those the
/// first pass leaves undecided are searched again with more nodes, round after round,
/// until none is left or the search is stopped or its node budget spent.
pub(crate) fn find(
    searches: &mut [&mut Bounded],
    root: &Position,
    line: &[Move],
    deadline: Option<Instant>,
) -> Cooks {
    let mut cooks = find_with(searches, root, line, deadline, NODES_PER_ALTERNATIVE);
    if deadline.is_none() {
        settle(searches, root, line, &mut cooks, NODES_PER_ALTERNATIVE);
    }
    cooks
}

/// The positions before each ply of `line`.
fn positions_along(root: &Position, line: &[Move]) -> Vec<Position> {
    let mut positions = Vec::with_capacity(line.len());
    let mut pos = root.clone();
    for &m in line {
        let next = pos.play(m);
        positions.push(std::mem::replace(&mut pos, next));
    }
    positions
}

/// Searches the undecided alternatives of `cooks` again, each round with `ROUND_GROWTH`
/// times the nodes of the last (`nodes` being the first pass's), until none is left or
/// the search is stopped. What a stop cuts stays undecided.
fn settle(
    searches: &mut [&mut Bounded],
    root: &Position,
    line: &[Move],
    cooks: &mut Cooks,
    mut nodes: u64,
) {
    let positions = positions_along(root, line);
    while !cooks.undecided.is_empty() && !searches[0].stopped() {
        nodes = nodes.saturating_mul(ROUND_GROWTH);
        let pending = std::mem::take(&mut cooks.undecided);
        let verdicts = search_all(searches, &positions, line.len(), &pending, None, nodes);
        for (cook, v) in pending.into_iter().zip(verdicts) {
            match v {
                Some(Verdict::Mates) => cooks.found.push(cook),
                Some(Verdict::Refuted) => {}
                // Cut by a stop, or still undecided.
                Some(Verdict::Undecided) | None => cooks.undecided.push(cook),
            }
        }
        log::debug!(
            "cooks: {} undecided after a round at {nodes} nodes each",
            cooks.undecided.len()
        );
    }
    // In the order of the line, as the first pass found them.
    cooks.found.sort_by_key(|c| c.ply);
}

/// [`find`] with `nodes` for each alternative.
fn find_with(
    searches: &mut [&mut Bounded],
    root: &Position,
    line: &[Move],
    deadline: Option<Instant>,
    nodes: u64,
) -> Cooks {
    let (attacker, check_mode) = (searches[0].attacker, searches[0].check_mode);
    let positions = positions_along(root, line);
    let mut alternatives = Vec::new();
    let mut list = MoveList::new();
    for (ply, (&main, pos)) in line.iter().zip(&positions).enumerate() {
        if pos.side_to_move() != attacker {
            continue;
        }
        list.clear();
        pos.checks(check_mode, &mut list);
        alternatives.extend(
            list.as_slice()
                .iter()
                .filter(|&&m| m != main)
                .map(|&m| Cook {
                    ply,
                    main,
                    alternative: m,
                }),
        );
    }
    let verdicts = search_all(
        searches,
        &positions,
        line.len(),
        &alternatives,
        deadline,
        nodes,
    );
    let (checked_plies, checked_last_plies) = checked_ends(&alternatives, &verdicts, line.len());
    let mut cooks = Cooks {
        checked_plies,
        checked_last_plies,
        ..Cooks::default()
    };
    for (cook, v) in alternatives.into_iter().zip(verdicts) {
        match v {
            Some(Verdict::Mates) => cooks.found.push(cook),
            Some(Verdict::Undecided) => cooks.undecided.push(cook),
            Some(Verdict::Refuted) | None => {}
        }
    }
    cooks
}

/// The plies at the start and at the end of a line of `len` plies whose `alternatives`
/// all have a verdict. The searches take the alternatives from both ends, so those left
/// without one are a run in the middle; the end's count is 0 when nothing past that run
/// was searched, and the start's is `len` when nothing was left.
fn checked_ends(alternatives: &[Cook], verdicts: &[Option<Verdict>], len: usize) -> (usize, usize) {
    let Some(first) = verdicts.iter().position(Option::is_none) else {
        return (len, 0);
    };
    let last = verdicts.iter().rposition(Option::is_none).unwrap_or(first);
    let gap_end = alternatives[last].ply;
    let after = alternatives[last..].iter().find(|c| c.ply > gap_end);
    (alternatives[first].ply, after.map_or(0, |c| len - c.ply))
}

/// Searches `alternatives` (in the line's order, played from `positions`, along a line
/// of `len` plies) with `nodes` each, on every search of `searches`. `None` for an
/// alternative cut by the deadline or a stop, or not reached before them.
fn search_all(
    searches: &mut [&mut Bounded],
    positions: &[Position],
    len: usize,
    alternatives: &[Cook],
    deadline: Option<Instant>,
    nodes: u64,
) -> Vec<Option<Verdict>> {
    // The first search takes the alternatives from the root down and the others from the
    // end up, so that each meets them in the order of the line and what it proved for one
    // ply serves the next: alternatives at neighbouring plies share most of their trees.
    let left = Mutex::new(0..alternatives.len());
    let cut = AtomicBool::new(false);
    let work = |b: &mut Bounded, from_root: bool| -> Vec<(usize, Verdict)> {
        let past_deadline = || deadline.is_some_and(|d| Instant::now() >= d);
        let mut done = Vec::new();
        while !cut.load(Ordering::Relaxed) {
            if past_deadline() || b.stopped() {
                cut.store(true, Ordering::Relaxed);
                break;
            }
            let taken = {
                let mut left = left.lock();
                if from_root {
                    left.next()
                } else {
                    left.next_back()
                }
            };
            let Some(i) = taken else { break };
            let c = &alternatives[i];
            b.set_limits(deadline, Some(nodes));
            let left = (len - c.ply) as i32 - 1;
            let v = match b.within(&positions[c.ply].play(c.alternative), left) {
                Some(true) => Verdict::Mates,
                Some(false) => Verdict::Refuted,
                None if past_deadline() || b.stopped() => {
                    cut.store(true, Ordering::Relaxed);
                    break;
                }
                None => Verdict::Undecided,
            };
            done.push((i, v));
        }
        done
    };
    let mut verdicts = vec![None; alternatives.len()];
    let (first, rest) = searches.split_first_mut().expect("one search at least");
    std::thread::scope(|scope| {
        let others: Vec<_> = rest
            .iter_mut()
            .filter_map(|b| {
                // Without the thread the other searches take its share.
                std::thread::Builder::new()
                    .name("kanju-cooks".into())
                    .stack_size(super::STACK_BYTES)
                    .spawn_scoped(scope, || work(b, false))
                    .ok()
            })
            .collect();
        let mine = work(first, true);
        let theirs = others.into_iter().filter_map(|h| h.join().ok());
        for (i, v) in std::iter::once(mine).chain(theirs).flatten() {
            verdicts[i] = Some(v);
        }
    });
    verdicts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mainline::budget::NodeBudget;
    use crate::mainline::test_data::no_hints;
    use kanju_engine::{Color, GenMode};
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    /// The rook checks from 9a with every drop on 8a..2a futile: mate in 1, and the
    /// promoting and the plain rook move both mate (see the main line's rule tests).
    const ROOK_MATE: &str = "8k/9/6N1G/9/9/9/9/9/R8 b r2b3g4s3n4l18p 1";

    /// Shogi Zuko 77's main line (19 plies).
    const ZUKO_77: &str = "9/9/9/2+R6/3+p5/1+p1lb4/3rk1S2/2+B1g4/2P1gsS2 b 2GNs3n3l15p 1";
    const ZUKO_77_LINE: &str = "N*6i 5i6i G*4h 5h4h 3i4h 5g5h G*6h 6g6h+ 7h6h 6i6h R*5g 5h6i \
                                G*5i 6h5i 5g5i 6i6h G*6i 6h6g 5i5g";

    const HOUR: Duration = Duration::from_secs(3600);

    fn parse_line(pos: &Position, line: &str) -> Vec<Move> {
        let mut at = pos.clone();
        line.split_whitespace()
            .map(|m| {
                let m = at.parse_usi_move(m).unwrap();
                at = at.play(m);
                m
            })
            .collect()
    }

    fn search(sfen: &str, line: &str, nodes: u64, deadline: Option<Instant>) -> Cooks {
        let pos = Position::from_sfen(sfen).unwrap();
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 1 << 24);
        let line = parse_line(&pos, line);
        find_with(&mut [&mut b], &pos, &line, deadline, nodes)
    }

    /// A deadline that strikes while one search works down the line and another up it
    /// leaves a run of alternatives in the middle unsearched: the plies before and after
    /// it are reported as checked. A ply only partly searched counts as not checked.
    #[test]
    fn the_plies_checked_are_counted_from_both_ends() {
        let pos = Position::from_sfen(ZUKO_77).unwrap();
        let line = parse_line(&pos, ZUKO_77_LINE);
        let cook = |ply: usize| Cook {
            ply,
            main: line[ply],
            alternative: line[ply],
        };
        let alternatives: Vec<Cook> = [0, 0, 2, 4, 4, 6, 8, 10, 12, 16, 18]
            .into_iter()
            .map(cook)
            .collect();
        let done = Some(Verdict::Refuted);
        let verdicts = |gap: std::ops::Range<usize>| -> Vec<Option<Verdict>> {
            (0..alternatives.len())
                .map(|i| if gap.contains(&i) { None } else { done })
                .collect()
        };
        let ends = |gap| checked_ends(&alternatives, &verdicts(gap), 19);
        assert_eq!(ends(0..0), (19, 0), "all searched");
        assert_eq!(
            ends(4..7),
            (4, 9),
            "plies 4 to 8 left: 0-3 and 10-18 checked"
        );
        assert_eq!(
            ends(4..5),
            (4, 13),
            "ply 4 half searched: 0-3 and 6-18 checked"
        );
        assert_eq!(ends(7..11), (10, 0), "one search only, down from the root");
        assert_eq!(ends(0..11), (0, 0), "nothing searched");
        assert_eq!(ends(0..9), (0, 3), "the other search's part only");
    }

    #[test]
    fn a_second_mating_move_is_a_cook_and_the_line_is_checked_to_its_end() {
        let cooks = search(ROOK_MATE, "9i9a+", NODES_PER_ALTERNATIVE, None);
        let alternatives: Vec<String> =
            cooks.found.iter().map(|c| c.alternative.to_usi()).collect();
        assert_eq!(alternatives, ["9i9a"]);
        assert!(cooks.undecided.is_empty());
        assert_eq!(cooks.checked_plies, 1);
    }

    #[test]
    fn an_alternative_out_of_nodes_is_reported_undecided_not_cleared() {
        // The search looks at its node limit every 1,024 nodes: some of the root's
        // alternatives, 18 plies from the end, need more to settle.
        let cooks = search(ZUKO_77, ZUKO_77_LINE, 1, None);
        assert!(cooks.undecided.iter().any(|c| c.ply == 0), "{cooks:?}");
        assert!(cooks
            .undecided
            .iter()
            .all(|c| c.ply % 2 == 0 && c.alternative != c.main));
        assert_eq!(cooks.checked_plies, 19);
    }

    /// Zuko 77's cooks, every one settled and in the line's order.
    fn assert_zuko_77_cooks(cooks: &Cooks) {
        assert!(cooks.undecided.is_empty(), "{:?}", cooks.undecided);
        let found: Vec<(usize, String)> = cooks
            .found
            .iter()
            .map(|c| (c.ply, c.alternative.to_usi()))
            .collect();
        let expected = [(16, "5i6i"), (16, "G*7h"), (18, "6i7h"), (18, "7d7h")];
        let mut sorted = found.clone();
        sorted.sort();
        assert_eq!(sorted, expected.map(|(p, m)| (p, m.to_string())));
        assert!(found.windows(2).all(|w| w[0].0 <= w[1].0), "in line order");
        assert_eq!(cooks.checked_plies, 19);
    }

    /// With no deadline the rounds go on until every alternative is settled: Zuko 77's
    /// first pass leaves some of its first plies' alternatives undecided at 50,000 nodes.
    #[test]
    fn with_no_deadline_every_alternative_is_settled() {
        let pos = Position::from_sfen(ZUKO_77).unwrap();
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 1 << 24);
        let line = parse_line(&pos, ZUKO_77_LINE);
        let first = find_with(
            &mut [&mut b],
            &pos,
            &line,
            Some(Instant::now() + HOUR),
            50_000,
        );
        assert!(!first.undecided.is_empty());
        let cooks = find(&mut [&mut b], &pos, &line, None);
        assert_zuko_77_cooks(&cooks);
    }

    /// A node budget spent in a round ends the rounds; what they did not settle stays
    /// undecided rather than being dropped.
    #[test]
    fn a_spent_budget_ends_the_rounds_and_keeps_the_rest_undecided() {
        let pos = Position::from_sfen(ZUKO_77).unwrap();
        let stop = AtomicBool::new(false);
        let budget = NodeBudget::new(Some(300_000));
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 1 << 24);
        b.set_budget(&budget);
        let line = parse_line(&pos, ZUKO_77_LINE);
        let mut cooks = find_with(&mut [&mut b], &pos, &line, None, 1);
        let before = cooks.undecided.len();
        assert!(before > 4, "{cooks:?}");
        settle(&mut [&mut b], &pos, &line, &mut cooks, 1);
        assert!(budget.exhausted());
        assert!(!cooks.undecided.is_empty());
        assert!(cooks.undecided.len() + cooks.found.len() <= before);
    }

    /// Two searches over the tables of a third that proved the line share the
    /// alternatives between two threads and report what one search alone reports (the
    /// previous test's cooks), each alternative once and in the line's order.
    #[test]
    fn two_searches_over_the_main_search_find_the_same_cooks() {
        let pos = Position::from_sfen(ZUKO_77).unwrap();
        let stop = AtomicBool::new(false);
        let line = parse_line(&pos, ZUKO_77_LINE);
        // The main search proved the line's last seven plies.
        let at_12 = line[..12].iter().fold(pos.clone(), |p, &m| p.play(m));
        let mut main = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 1 << 24);
        assert_eq!(main.within(&at_12, 7), Some(true));
        let mut first = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 1 << 24);
        let mut second = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 1 << 24);
        first.over(&main);
        second.over(&main);
        // The second searches know that through the main search's tables.
        assert_eq!(first.proven_len(&at_12), Some(7));
        assert_eq!(second.proven_len(&at_12), Some(7));
        let cooks = find(&mut [&mut first, &mut second], &pos, &line, None);
        assert!(first.nodes > 0 && second.nodes > 0, "both searched");
        assert_zuko_77_cooks(&cooks);
        // What the two searches found went into their own tables: a check at the root
        // other than the line's is known refuted to one of them, not to the main search,
        // which never looked above ply 12.
        let mut checks = MoveList::new();
        pos.checks(GenMode::All, &mut checks);
        let other = *checks.as_slice().iter().find(|&&m| m != line[0]).unwrap();
        let q = pos.play(other);
        assert_eq!(main.disproven_bound(&q), -1);
        assert!(first.disproven_bound(&q).max(second.disproven_bound(&q)) >= 17);
    }

    #[test]
    fn plies_past_the_deadline_are_not_counted_as_checked() {
        let past = Instant::now() - Duration::from_secs(1);
        let cooks = search(ROOK_MATE, "9i9a+", NODES_PER_ALTERNATIVE, Some(past));
        assert_eq!(cooks, Cooks::default());
        // Nor with two searches.
        let pos = Position::from_sfen(ROOK_MATE).unwrap();
        let stop = AtomicBool::new(false);
        let mut a = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 1 << 20);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 1 << 20);
        let line = parse_line(&pos, "9i9a+");
        let cooks = find(&mut [&mut a, &mut b], &pos, &line, Some(past));
        assert_eq!(cooks, Cooks::default());
    }
}
