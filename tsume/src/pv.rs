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
/// takes the proven child with the shortest stored mate, at defender nodes the longest.
/// Children missing from the table are proven again with `searcher`. `None` if a proof
/// cannot be completed (limits, or the table lost too much).
pub(crate) fn extract(searcher: &mut Searcher, root: &Position) -> Option<Vec<Move>> {
    let sh = searcher.sh;
    let attacker = sh.attacker;
    let mut pos = root.clone();
    let mut line = Vec::new();
    let mut seen = HashSet::new();
    seen.insert(pos.key());
    let mut list = MoveList::new();
    while line.len() < MAX_LINE {
        node_moves(&pos, attacker, sh.check_mode, &mut list);
        let or_node = pos.side_to_move() == attacker;
        if list.is_empty() {
            return (!or_node && pos.in_check()).then_some(line);
        }
        let mut chosen: Option<(Move, u16)> = None;
        if or_node {
            // A mate in one is the shortest finish, whatever the table says.
            if let Some(m) = pos.mate_in_1() {
                chosen = Some((m, 0));
            }
        }
        if or_node {
            for attempt in 0..2 {
                if chosen.is_some() {
                    break;
                }
                for &m in list.as_slice() {
                    let cpos = pos.play(m);
                    if seen.contains(&cpos.key()) {
                        continue;
                    }
                    let mut c = searcher.root_child(&cpos);
                    if c.pn != 0 && cpos.in_check() && !cpos.has_legal_move() {
                        // Checkmate: never stored, since no node below was searched.
                        c.pn = 0;
                        c.len = 0;
                    }
                    if c.pn == 0 && chosen.is_none_or(|(_, l)| c.len < l) {
                        chosen = Some((m, c.len));
                    }
                }
                if chosen.is_some() || attempt > 0 {
                    break;
                }
                // The table lost the proofs below this node: prove it again, once.
                let r = searcher.search_again(&pos);
                if searcher.aborted || r.pn != 0 {
                    return None;
                }
            }
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
                if seen.contains(&cpos.key()) {
                    continue;
                }
                if chosen.is_none_or(|(_, l)| c.len > l) {
                    chosen = Some((m, c.len));
                }
            }
        }
        let (m, _) = chosen?;
        line.push(m);
        pos = pos.play(m);
        seen.insert(pos.key());
    }
    None
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
