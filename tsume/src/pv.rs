//! The main line: read from the proven tree, re-proven where the table lost a piece of
//! it, and replayed before anyone sees it.

use crate::dfpn::Searcher;
use crate::entry::INF;
use kanju_engine::{Color, GenMode, Move, MoveList, Position};
use std::collections::HashSet;

/// The longest line extraction follows: beyond any known problem (Microcosmos is 1525).
const MAX_LINE: usize = 8000;

fn node_moves(pos: &Position, attacker: Color, check_mode: GenMode, list: &mut MoveList) {
    list.clear();
    if pos.side_to_move() == attacker {
        pos.checks(check_mode, list);
    } else if pos.in_check() {
        pos.evasions(GenMode::All, list);
    } else {
        pos.legal_moves_with(GenMode::All, list);
    }
}

/// Builds a mate line from `root`, which the table holds as proven. At attacker nodes it
/// tries the proven checks shortest stored mate first, at defender nodes the replies
/// longest first. Replies missing from the table are proven again with `searcher`. `None`
/// if a proof cannot be completed (limits, or the table lost too much).
///
/// Stored lengths are upper bounds from many proofs (several threads', and proofs for
/// dominating hands), so they need not fall ply by ply: following the longest defence can
/// reach a node whose every proven check repeats a position already on the line. The walk
/// then backs up and takes the next defence, depth first. Should that run past its budget,
/// a walk along the shortest defences gives a verified mate still, which the main-line
/// work starts from in any case.
pub(crate) fn extract(searcher: &mut Searcher, root: &Position) -> Option<Vec<Move>> {
    if let Some(line) = walk(searcher, root, Defence::Longest) {
        return Some(line);
    }
    if searcher.aborted {
        return None;
    }
    log::debug!("pv: no loop-free line along the longest defences; trying the shortest");
    walk(searcher, root, Defence::Shortest)
}

/// In which order the defender's proven replies are tried.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Defence {
    Longest,
    Shortest,
}

/// How many nodes one walk may enter, backing up included.
const WALK_BUDGET: usize = 200_000;

/// A node of the walk: its position and its candidate moves, best last.
struct Step {
    pos: Position,
    moves: Vec<Move>,
}

fn walk(searcher: &mut Searcher, root: &Position, defence: Defence) -> Option<Vec<Move>> {
    let mated = |p: &Position| {
        p.side_to_move() != searcher.sh.attacker && p.in_check() && !p.has_legal_move()
    };
    if mated(root) {
        // A defender root already mated: the line is empty.
        return Some(Vec::new());
    }
    let mut seen = HashSet::new();
    seen.insert(root.key());
    let mut path = vec![Step {
        pos: root.clone(),
        moves: candidates(searcher, root, defence, &seen)?,
    }];
    let mut line: Vec<Move> = Vec::new();
    let mut entered = 0;
    while let Some(top) = path.last_mut() {
        let Some(m) = top.moves.pop() else {
            // Every candidate here was a dead end: back up.
            let dead = path.pop().expect("non-empty");
            seen.remove(&dead.pos.key());
            line.pop();
            continue;
        };
        let child = top.pos.play(m);
        if seen.contains(&child.key()) {
            continue;
        }
        entered += 1;
        if entered > WALK_BUDGET || line.len() >= MAX_LINE {
            return None;
        }
        line.push(m);
        if mated(&child) {
            return Some(line);
        }
        seen.insert(child.key());
        let moves = candidates(searcher, &child, defence, &seen)?;
        path.push(Step { pos: child, moves });
    }
    None
}

/// The moves of `pos` the walk may take, best last: proven checks (shortest stored mate
/// first), or every reply of the defender (each proven, again if the table lost it),
/// leaving out positions already on the line. `None` if a reply cannot be proven.
fn candidates(
    searcher: &mut Searcher,
    pos: &Position,
    defence: Defence,
    seen: &HashSet<u64>,
) -> Option<Vec<Move>> {
    let sh = searcher.sh;
    let mut list = MoveList::new();
    node_moves(pos, sh.attacker, sh.check_mode, &mut list);
    let mut scored: Vec<(Move, u16)> = Vec::new();
    if pos.side_to_move() == sh.attacker {
        // A mate in one is the shortest finish, whatever the table says.
        if let Some(m) = pos.mate_in_1() {
            return Some(vec![m]);
        }
        for attempt in 0..2 {
            for &m in list.as_slice() {
                let cpos = pos.play(m);
                if seen.contains(&cpos.key()) {
                    continue;
                }
                let c = searcher.root_child(&cpos);
                if c.pn == 0 {
                    scored.push((m, c.len));
                }
            }
            if !scored.is_empty() || attempt > 0 {
                break;
            }
            // The table lost the proofs below this node: prove it again, once.
            let r = searcher.search_again(pos);
            if searcher.aborted {
                return None;
            }
            if r.pn != 0 {
                return Some(Vec::new());
            }
        }
        // Shortest last, so that it is popped first; among equals, the first generated.
        scored.reverse();
        scored.sort_by_key(|&(_, l)| std::cmp::Reverse(l));
    } else {
        for &m in list.as_slice() {
            let cpos = pos.play(m);
            let mut c = searcher.root_child(&cpos);
            if c.pn != 0 {
                let r = searcher.search_root(&cpos);
                if searcher.aborted || r.pn != 0 {
                    return None;
                }
                c = searcher.root_child(&cpos);
                if c.pn != 0 {
                    return None;
                }
            }
            if !seen.contains(&cpos.key()) {
                scored.push((m, c.len));
            }
        }
        scored.reverse();
        match defence {
            Defence::Longest => scored.sort_by_key(|&(_, l)| l),
            Defence::Shortest => scored.sort_by_key(|&(_, l)| std::cmp::Reverse(l)),
        }
    }
    Some(scored.into_iter().map(|(m, _)| m).collect())
}

/// True if `line` is a mate from `root`: each attacker move legal and checking, each
/// defender move legal, and the defender checkmated at the end.
pub(crate) fn verify(root: &Position, attacker: Color, line: &[Move]) -> bool {
    let mut pos = root.clone();
    for &m in line {
        if !pos.is_legal(m) {
            return false;
        }
        if pos.side_to_move() == attacker {
            if !pos.gives_check(m) {
                return false;
            }
        } else if !pos.in_check() && pos.ply() != root.ply() {
            return false;
        }
        pos = pos.play(m);
    }
    pos.side_to_move() != attacker && pos.in_check() && !pos.has_legal_move()
}

/// A cheap best line for progress reports: follows the table only, no search.
pub(crate) fn best_line(searcher: &Searcher, root: &Position, max: usize) -> Vec<Move> {
    let sh = searcher.sh;
    let attacker = sh.attacker;
    let mut pos = root.clone();
    let mut line = Vec::new();
    let mut seen = HashSet::new();
    seen.insert(pos.key());
    let mut list = MoveList::new();
    while line.len() < max {
        node_moves(&pos, attacker, sh.check_mode, &mut list);
        let or_node = pos.side_to_move() == attacker;
        let mut best: Option<(Move, (u32, u32))> = None;
        for &m in list.as_slice() {
            let cpos = pos.play(m);
            if seen.contains(&cpos.key()) {
                continue;
            }
            let c = searcher.root_child(&cpos);
            // Attacker: smallest pn (shortest mate once proven); defender: smallest dn
            // (longest mate once everything is proven).
            let score = if or_node {
                (c.pn, if c.pn == 0 { c.len as u32 } else { 0 })
            } else {
                (c.dn, if c.pn == 0 { INF - c.len as u32 } else { 0 })
            };
            if best.is_none_or(|(_, s)| score < s) {
                best = Some((m, score));
            }
        }
        let Some((m, _)) = best else { break };
        line.push(m);
        pos = pos.play(m);
        seen.insert(pos.key());
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gold and pawn against a bare king on 5a: G*5b mates, guarded by the pawn.
    const MATE1: &str = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";

    fn replays(sfen: &str, line: &[&str]) -> bool {
        let root = Position::from_sfen(sfen).expect("a legal position");
        let line: Vec<Move> = line
            .iter()
            .map(|s| Move::from_usi(s).expect("a move in USI"))
            .collect();
        verify(&root, Color::Black, &line)
    }

    #[test]
    fn a_mate_replays() {
        assert!(replays(MATE1, &["G*5b"]));
    }

    /// Each way a line can fail the replay is caught: the answer a GUI gets is only ever
    /// a line that ends in mate with every attacker move a legal check.
    #[test]
    fn lines_that_are_not_mates_are_refused() {
        // No move at all: the attacker is to move, nothing is mated.
        assert!(!replays(MATE1, &[]));
        // G*4b checks, but the king steps to 6a or 6b.
        assert!(!replays(MATE1, &["G*4b"]));
        // The defence is answered, and the line ends on the attacker's turn.
        assert!(!replays(MATE1, &["G*4b", "5a6a"]));
        // A legal drop that gives no check.
        assert!(!replays(MATE1, &["G*9a"]));
        // A drop of a piece the attacker does not hold.
        assert!(!replays(MATE1, &["S*5b"]));
        // A move for the wrong side.
        assert!(!replays(MATE1, &["5a4a"]));
    }

    /// The king on 5a has the gold on 5c guarding 4b, 5b and 6b, and the lances on files
    /// 4 and 6 guarding 4a and 6a: P*5b would leave it no reply, which makes the drop
    /// illegal (打ち歩詰め), so a line ending with it is no mate.
    #[test]
    fn a_pawn_drop_mate_is_refused() {
        let sfen = "4k4/9/4G4/9/9/9/9/9/3L1L3 b P2r2b3g4s4n2l17p 1";
        let root = Position::from_sfen(sfen).unwrap();
        let drop = Move::from_usi("P*5b").unwrap();
        // It would be mate, so the rule alone refuses it.
        let after = root.play(drop);
        assert!(after.in_check() && !after.has_legal_move());
        assert!(!replays(sfen, &["P*5b"]));
    }

    /// A check from afar that only drops can answer is not a mate by the rules of play,
    /// whatever tsume rules make of the drops: this replay knows no futile drops (the
    /// main line's verifier, `mainline::verify`, does).
    #[test]
    fn a_check_answered_only_by_drops_is_not_a_mate_here() {
        assert!(!replays(
            "8k/6S2/7G1/9/9/9/9/9/9 b Rr2b3g3s4n4l18p 1",
            &["R*9a"]
        ));
    }
}
