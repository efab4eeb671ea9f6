//! Shortcuts: a line walked at a loose bound can reach one of its own later positions the
//! long way round, and the attacker's shortest mate takes the short way.
//!
//! The walk takes, at each attacker node, the first check the tables prove within the
//! bound. Far above the exact length that bound has room for detours, and on Microcosmos
//! they show as a recurring pattern: where the composer drops N*3d at once, the walk first
//! moves a rook aside and back (3a4a 4b3b 2a3a 3b2b N*3d 4d3d 3a2a 2b3b), and arrives
//! four plies later at the position the composer's N*3d 4d3d 3a4a 4b3b reaches. The
//! detours are local, so a look a few moves ahead of each attacker node of the line finds
//! them: a short sequence that lands on a later position of the line replaces the plies
//! between.
//!
//! A shortcut must still be a line by the rules. The defender's moves on it must be
//! longest: every other reply is shown mated within what the chosen one leaves (a
//! bounded search under a node budget; a reply it cannot settle rejects the shortcut), and
//! interpositions are judged by the futility test, as in the walk. A shortcut never takes
//! a drop as the defender's move, nor passes through a position the line already holds,
//! and lines ending with spare pieces are left alone, since the 駒余り comparison would
//! need their lengths exact.
//!
//! A shortcut also shortens what every defence above it leads to, and those defences were
//! chosen against the longer line: a reply the walk ranked below the chosen one may now
//! last longer. So each defender node above is checked again against the new length, in
//! the same way (the tables' proven lengths settle most replies; the rest get a bounded
//! search, and one it cannot settle rejects the shortcut). The length of the result is
//! still not proven minimal, as the line was walked at a loose bound.

use super::bounded::Bounded;
use super::choose::Chooser;
use super::futile::{interposition_line, is_interposing_drop};
use super::replay;
use kanju_engine::{GenMode, Move, MoveList, Position};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// The most attacker moves a shortcut may have. Two reach every detour seen on
/// Microcosmos; each more multiplies the look-ahead by the branching of a move pair.
const MAX_CHECKS: usize = 2;
/// Positions the look-ahead may reach from one node: with many pieces in hand a move pair
/// branches a hundredfold, and the look-ahead is a heuristic, not worth the whole deadline.
const LOOKAHEAD: usize = 50_000;
/// Shortcuts tried at one node, the longest saving first.
const TRIES_PER_NODE: usize = 4;
/// Nodes for each test that a reply off the shortcut is mated no later.
const TEST_NODES: u64 = 200_000;

/// A candidate: the moves that replace `line[from..to]`.
struct Candidate {
    moves: Vec<Move>,
    to: usize,
}

/// `line` from `root` with every shortcut that checks out, taken from the root down, until
/// `deadline`.
pub(crate) fn shorten(
    b: &mut Bounded,
    root: &Position,
    mut line: Vec<Move>,
    deadline: Option<Instant>,
) -> Vec<Move> {
    let (attacker, check_mode) = (b.attacker, b.check_mode);
    let mut ch = Chooser::new(b, None, deadline, Some(TEST_NODES));
    let mut positions = replay(root, &line);
    if !positions
        .last()
        .is_some_and(|p| p.hand(attacker).is_empty())
    {
        return line;
    }
    let mut from = 0;
    loop {
        let Some((i, c)) = next_shortcut(&mut ch, check_mode, &line, &positions, from, deadline)
        else {
            return line;
        };
        log::debug!(
            "mainline: shortcut at ply {i}: {} plies for {}",
            c.moves.len(),
            c.to - i
        );
        line.splice(i..c.to, c.moves);
        positions = replay(root, &line);
        from = i;
    }
}

/// The first shortcut that checks out at an attacker node from line index `from` on, with
/// its index; `None` if there is none, or once `deadline` passed.
fn next_shortcut(
    ch: &mut Chooser,
    check_mode: GenMode,
    line: &[Move],
    positions: &[Position],
    from: usize,
    deadline: Option<Instant>,
) -> Option<(usize, Candidate)> {
    let attacker = ch.b.attacker;
    let plies = positions.len() - 1;
    // Where each attacker-to-move position last stands on the line: the furthest landing
    // saves the most.
    let mut last = HashMap::new();
    for (j, p) in positions.iter().enumerate() {
        if p.side_to_move() == attacker {
            last.insert(p.key(), j);
        }
    }
    let on_line: HashSet<u64> = positions.iter().map(Position::key).collect();
    for (i, pos) in positions.iter().enumerate().take(plies).skip(from) {
        if pos.side_to_move() != attacker {
            continue;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        let mut found = Vec::new();
        let mut budget = LOOKAHEAD;
        let seen = Seen {
            i,
            last: &last,
            on_line: &on_line,
        };
        landings(
            check_mode,
            pos,
            &seen,
            &mut Vec::new(),
            &mut budget,
            &mut found,
        );
        found.sort_by_key(|c| (c.moves.len() as isize) - (c.to - i) as isize);
        for c in found.into_iter().take(TRIES_PER_NODE) {
            let new_plies = plies - (c.to - i) + c.moves.len();
            if holds(ch, pos, &c.moves, new_plies - i, deadline)?
                && above_holds(ch, line, positions, i, new_plies, deadline)?
            {
                return Some((i, c));
            }
        }
    }
    None
}

/// The line as the look-ahead from its node `i` sees it.
struct Seen<'a> {
    i: usize,
    /// Line index of each attacker-to-move position, the last where it repeats.
    last: &'a HashMap<u64, usize>,
    /// Every position of the line.
    on_line: &'a HashSet<u64>,
}

/// Adds to `found` every sequence of at most [`MAX_CHECKS`] check-and-reply pairs from
/// `pos` (reached from line node `seen.i` by `moves`) that lands on a later position of
/// the line sooner than the line does, until `budget` positions are spent. Replies that
/// are drops are not followed, nor sequences through positions of the line.
fn landings(
    check_mode: GenMode,
    pos: &Position,
    seen: &Seen,
    moves: &mut Vec<Move>,
    budget: &mut usize,
    found: &mut Vec<Candidate>,
) {
    let mut checks = MoveList::new();
    pos.checks(check_mode, &mut checks);
    for &c in checks.as_slice() {
        if *budget == 0 {
            return;
        }
        let after = pos.play(c);
        if seen.on_line.contains(&after.key()) {
            continue;
        }
        let mut replies = MoveList::new();
        after.evasions(GenMode::All, &mut replies);
        for &d in replies.as_slice() {
            if d.is_drop() || *budget == 0 {
                continue;
            }
            *budget -= 1;
            let land = after.play(d);
            let plies = moves.len() + 2;
            moves.extend([c, d]);
            match seen.last.get(&land.key()) {
                Some(&j) if j > seen.i + plies => found.push(Candidate {
                    moves: moves.clone(),
                    to: j,
                }),
                Some(_) => {}
                None if plies / 2 < MAX_CHECKS => {
                    landings(check_mode, &land, seen, moves, budget, found);
                }
                None => {}
            }
            moves.truncate(moves.len() - 2);
        }
    }
}

/// True if `moves` from `pos`, followed by the line to its end `plies` plies from `pos`,
/// keeps the defender's longest defence at each of its replies. `None` once the deadline
/// passed.
fn holds(
    ch: &mut Chooser,
    pos: &Position,
    moves: &[Move],
    plies: usize,
    deadline: Option<Instant>,
) -> Option<bool> {
    let mut p = pos.clone();
    for (k, &m) in moves.iter().enumerate() {
        if k % 2 == 1 {
            // What the chosen reply leaves, and what every other must be mated within.
            let left = (plies - k - 1) as i32;
            let line_sq = interposition_line(&p);
            let mut replies = MoveList::new();
            p.evasions(GenMode::All, &mut replies);
            for &d in replies.as_slice() {
                if d == m {
                    continue;
                }
                if is_interposing_drop(d, line_sq) {
                    ch.b.set_limits(deadline, Some(TEST_NODES));
                    match ch.is_futile(&p, d, left + 1) {
                        Some(true) => continue,
                        Some(false) => {}
                        None if ch.b.past_deadline() => return None,
                        None => return Some(false),
                    }
                }
                ch.b.set_limits(deadline, Some(TEST_NODES));
                match ch.b.within(&p.play(d), left) {
                    Some(true) => {}
                    None if ch.b.past_deadline() => return None,
                    _ => return Some(false),
                }
            }
        }
        p = p.play(m);
    }
    Some(true)
}

/// True if every defence of `line` above its node `i` is still a longest one once the line
/// is `plies` long: each other reply there mated within what the chosen one now leaves,
/// or a futile drop against that length. `None` once the deadline passed.
fn above_holds(
    ch: &mut Chooser,
    line: &[Move],
    positions: &[Position],
    i: usize,
    plies: usize,
    deadline: Option<Instant>,
) -> Option<bool> {
    let defender = ch.b.attacker.flip();
    for (k, p) in positions.iter().enumerate().take(i) {
        if p.side_to_move() != defender {
            continue;
        }
        let left = (plies - k - 1) as i32;
        let line_sq = interposition_line(p);
        let mut replies = MoveList::new();
        p.evasions(GenMode::All, &mut replies);
        for &d in replies.as_slice() {
            if d == line[k] {
                continue;
            }
            let child = p.play(d);
            if ch.b.proven_len(&child).is_some_and(|l| l <= left) {
                continue;
            }
            if is_interposing_drop(d, line_sq) {
                ch.b.set_limits(deadline, Some(TEST_NODES));
                match ch.is_futile(p, d, left + 1) {
                    Some(true) => continue,
                    Some(false) => {}
                    None if ch.b.past_deadline() => return None,
                    None => return Some(false),
                }
            }
            ch.b.set_limits(deadline, Some(TEST_NODES));
            match ch.b.within(&child, left) {
                Some(true) => {}
                None if ch.b.past_deadline() => return None,
                _ => {
                    log::debug!(
                        "mainline: no shortcut at ply {i}: the defence at ply {k} may last longer"
                    );
                    return Some(false);
                }
            }
        }
    }
    Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mainline::test_data::{no_hints, published};
    use kanju_engine::Color;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    fn microcosmos() -> (Position, Vec<Move>) {
        published("tsume_long_named.jsonl", "microcosmos")
    }

    /// Muso 77 (published 11 plies), at its sixth ply: the king's 8g7f and 8g8h are both
    /// mated in 5 more plies (変化同手数). A shortcut below that made the main line two plies
    /// shorter would leave 8g8h the longer defence, so it must not be taken; at the
    /// published length every defence above stands.
    #[test]
    fn a_shortcut_must_not_leave_a_longer_defence_above_it() {
        let (root, sol) = published("tsume_edo_zukou_musou.jsonl", "musou-077");
        assert_eq!(sol.len(), 11);
        let positions = replay(&root, &sol);
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 64 << 20);
        let deadline = Some(Instant::now() + Duration::from_secs(60));
        let mut ch = Chooser::new(&mut b, None, deadline, Some(TEST_NODES));
        assert_eq!(
            above_holds(&mut ch, &sol, &positions, 6, 11, deadline),
            Some(true)
        );
        assert_eq!(
            above_holds(&mut ch, &sol, &positions, 6, 9, deadline),
            Some(false)
        );
    }

    /// The detour Kanju's walk took on Microcosmos at ply 63: the rook steps aside and back
    /// around the knight drop, four plies longer than the composer's order. The shortcut
    /// finds the composer's order again, and nothing else in the published line. The
    /// bounded search recurses once a ply, here some 1 470 deep, so the test runs on a
    /// stack as large as the main line's thread has.
    #[test]
    fn a_detour_to_a_later_position_of_the_line_is_cut() {
        std::thread::Builder::new()
            .stack_size(crate::threads::STACK_BYTES)
            .spawn(cut_the_detour)
            .unwrap()
            .join()
            .unwrap();
    }

    fn cut_the_detour() {
        let (root, sol) = microcosmos();
        let start = 56;
        let mut pos = root.clone();
        for &m in &sol[..start] {
            pos = pos.play(m);
        }
        let usi = |p: &Position, s: &str| p.parse_usi_move(s).unwrap();
        // sol[62..66] is N*3d 4d3d 3a4a 4b3b.
        let mut detour = sol[start..62].to_vec();
        let mut p = pos.clone();
        for &m in &detour {
            p = p.play(m);
        }
        for s in [
            "3a4a", "4b3b", "2a3a", "3b2b", "N*3d", "4d3d", "3a2a", "2b3b",
        ] {
            let m = usi(&p, s);
            detour.push(m);
            p = p.play(m);
        }
        detour.extend_from_slice(&sol[66..]);
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 64 << 20);
        let deadline = Some(Instant::now() + Duration::from_secs(120));
        let line = shorten(&mut b, &pos, detour.clone(), deadline);
        assert_eq!(line.len(), detour.len() - 4);
        assert_eq!(line, sol[start..]);
    }
}
