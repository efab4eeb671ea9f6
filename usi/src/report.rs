//! Turning solver results into USI lines.

use kanju_engine::{Move, Position};
use kanju_tsume::{Outcome, Progress, RootMode, Solution, UnknownReason};
use std::time::Duration;

/// True if the side to move at the root plays the defender under `mode`.
pub fn root_defends(mode: RootMode, pos: &Position) -> bool {
    match mode {
        RootMode::Attacker => false,
        RootMode::Defender => true,
        RootMode::DefenderIfInCheck => pos.in_check(),
    }
}

/// Moves in USI, space separated.
pub fn usi_moves(moves: &[Move]) -> String {
    moves
        .iter()
        .map(|m| m.to_usi())
        .collect::<Vec<_>>()
        .join(" ")
}

fn ms(d: Duration) -> u128 {
    d.as_millis()
}

/// The USI mate score of a line of `len` plies: negative when the side to move is mated.
fn mate_score(len: usize, defends: bool) -> String {
    if defends {
        format!("score mate -{len}")
    } else {
        format!("score mate {len}")
    }
}

/// The periodic `info` line.
pub fn progress_line(p: &Progress, defends: bool) -> String {
    let mut s = format!(
        "info time {} nodes {} nps {} hashfull {}",
        ms(p.elapsed),
        p.nodes,
        p.nps,
        p.hashfull.min(1000)
    );
    if let Some(len) = p.mate_len {
        s.push(' ');
        s.push_str(&mate_score(len as usize, defends));
    }
    if !p.pv.is_empty() {
        s.push_str(" pv ");
        s.push_str(&usi_moves(&p.pv));
    }
    s
}

/// The note that the main line has proven a mate within `n` plies: the length it works
/// down from while the search for a shorter mate goes on.
pub fn bound_line(n: u32) -> String {
    format!("info string mate within {n} plies is proven")
}

/// Nodes per second; a search too short to time counts as one microsecond.
pub fn nps(nodes: u64, elapsed: Duration) -> u64 {
    let us = elapsed.as_micros().max(1);
    (nodes as u128 * 1_000_000 / us) as u64
}

/// Why a search ended without a result, in words.
pub fn unknown_reason(r: UnknownReason) -> &'static str {
    match r {
        UnknownReason::Time => "the time limit was reached",
        UnknownReason::Nodes => "the node limit was reached",
        UnknownReason::Stopped => "the search was stopped",
        UnknownReason::TableFull => "the hash table is full (raise USI_Hash)",
        UnknownReason::LengthLimit => {
            "no mate within the length limit; a longer one was not ruled out"
        }
        UnknownReason::NotApplicable => "this is not a position a mate search applies to",
    }
}

/// Undecided cook alternatives listed one per line; the rest are counted. A long problem
/// can have a thousand (Microcosmos at 300 s: 1,010), too many for an engine window.
pub const UNDECIDED_LISTED: usize = 16;

/// What is known of the problem's length when the line's is not proven to be it, in
/// words for a note; `None` when it is. The CLI's text report says the same.
pub fn length_note(len: usize, sol: &Solution) -> Option<String> {
    if sol.length_exact {
        return None;
    }
    let head = format!("mate in {len} is not proven to be the problem's length");
    Some(match sol.length_bound.map(|b| b as usize) {
        Some(b) if b < len => format!(
            "{head}: a mate within {b} plies is proven, but its line was not worked out within the limits"
        ),
        Some(b) if b == len => {
            format!("{head}: no defence lasts longer, but a shorter mate was not ruled out")
        }
        Some(b) => format!(
            "{head}: a shorter mate, or a longer defence (up to {b} plies), was not ruled out"
        ),
        None => format!("{head}: a shorter mate, or a longer defence, was not ruled out"),
    })
}

/// The closing `info` lines shared by `go mate` and `go`: statistics, score and line,
/// then notes on exactness, 余詰 and 駒余り.
fn closing_info(sol: &Solution, defends: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut stats = format!(
        "info time {} nodes {} nps {}",
        ms(sol.elapsed),
        sol.nodes,
        nps(sol.nodes, sol.elapsed)
    );
    match &sol.outcome {
        Outcome::Mate(pv) => {
            stats.push(' ');
            stats.push_str(&mate_score(pv.len(), defends));
            if !pv.is_empty() {
                stats.push_str(" pv ");
                stats.push_str(&usi_moves(pv));
            }
            out.push(stats);
            if let Some(note) = length_note(pv.len(), sol) {
                out.push(format!("info string note: {note}"));
            }
            for c in &sol.cooks {
                out.push(format!(
                    "info string cook (yozume): at ply {} {} also mates (main line plays {})",
                    c.ply + 1,
                    c.alternative,
                    c.main
                ));
            }
            for c in sol.cooks_undecided.iter().take(UNDECIDED_LISTED) {
                out.push(format!(
                    "info string cook check: at ply {} {} was not settled within its node budget and may also mate (main line plays {})",
                    c.ply + 1,
                    c.alternative,
                    c.main
                ));
            }
            let more = sol.cooks_undecided.len().saturating_sub(UNDECIDED_LISTED);
            if more > 0 {
                out.push(format!(
                    "info string cook check: {more} more alternatives were not settled"
                ));
            }
            match cooks_coverage(sol, pv.len()) {
                Coverage::Whole => {}
                Coverage::None => out.push("info string note: cooks were not looked for".into()),
                Coverage::Part(plies) => out.push(format!(
                    "info string note: cooks were looked for in {plies} only"
                )),
            }
            for &i in &sol.undecided_drops {
                if let Some(m) = pv.get(i) {
                    out.push(format!(
                        "info string note: at ply {} the interposition {m} counts as a defence: its futility (mudaai) test was not decided",
                        i + 1
                    ));
                }
            }
            if !sol.spare_pieces.is_empty() {
                out.push(format!(
                    "info string note: the attacker ends with pieces in hand (komaamari): {}",
                    crate::notation::hand_sfen(sol.spare_pieces)
                ));
            }
            if pv.is_empty() {
                out.push("info string note: the side to move is already checkmated".into());
            }
        }
        Outcome::NoMate => out.push(stats),
        Outcome::Unknown(r) => {
            out.push(stats);
            out.push(format!(
                "info string note: no result: {}",
                unknown_reason(*r)
            ));
        }
    }
    out
}

/// Everything `go mate` prints once the solver returns, ending in exactly one `checkmate` line.
pub fn mate_answer(pos: &Position, sol: &Solution, defends: bool) -> Vec<String> {
    let mut out = closing_info(sol, defends);
    let last = match &sol.outcome {
        // An already-mated root (defender to move) is mate in 0, which USI cannot say:
        // `checkmate` with no moves hangs ShogiHome, and `nomate` would be false. The note
        // above says what happened; `timeout` claims nothing.
        Outcome::Mate(pv) if pv.is_empty() => "checkmate timeout".to_string(),
        Outcome::Mate(pv) => format!("checkmate {}", usi_moves(pv)),
        Outcome::NoMate => "checkmate nomate".to_string(),
        Outcome::Unknown(UnknownReason::NotApplicable) if defender_king_missing(pos, defends) => {
            "checkmate nomate".to_string()
        }
        Outcome::Unknown(_) => "checkmate timeout".to_string(),
    };
    out.push(last);
    out
}

fn defender_king_missing(pos: &Position, defends: bool) -> bool {
    let defender = if defends {
        pos.side_to_move()
    } else {
        pos.side_to_move().flip()
    };
    pos.king_square(defender).is_none()
}

/// Everything `go` (a game search) prints once the solver returns, ending in `bestmove`.
pub fn game_answer(sol: &Solution) -> Vec<String> {
    let mut out = closing_info(sol, false);
    out.push(match &sol.outcome {
        Outcome::Mate(pv) if !pv.is_empty() => format!("bestmove {}", pv[0]),
        _ => "bestmove resign".to_string(),
    });
    out
}

/// What `stop` (or a watchdog) prints when the solver has not answered in time: the best
/// verified mate seen in progress reports, else a timeout.
pub fn forced_answer(best: Option<&[Move]>, game: bool, defends: bool) -> Vec<String> {
    match (best, game) {
        (Some(pv), false) if !pv.is_empty() => vec![
            format!(
                "info {} pv {}",
                mate_score(pv.len(), defends),
                usi_moves(pv)
            ),
            "info string note: stopped before the mate length was proven minimal".into(),
            format!("checkmate {}", usi_moves(pv)),
        ],
        (_, false) => vec!["checkmate timeout".into()],
        (Some(pv), true) if !pv.is_empty() => vec![
            format!("info {} pv {}", mate_score(pv.len(), false), usi_moves(pv)),
            format!("bestmove {}", pv[0]),
        ],
        (_, true) => vec!["bestmove resign".into()],
    }
}

/// How much of a main line the search for cooks looked at.
pub(crate) enum Coverage {
    Whole,
    None,
    /// Which plies, in words: "the first 66 and the last 20 of 117 plies".
    Part(String),
}

/// What `sol`'s search for cooks covered of its line of `len` plies: the first plies,
/// and with several threads the last ones too (the other searches work up from the end).
pub(crate) fn cooks_coverage(sol: &Solution, len: usize) -> Coverage {
    let (first, last) = (sol.cooks_checked_plies, sol.cooks_checked_last_plies);
    match (first, last) {
        (f, _) if f >= len => Coverage::Whole,
        (0, 0) => Coverage::None,
        (f, 0) => Coverage::Part(format!("the first {f} of {len} plies")),
        (0, l) => Coverage::Part(format!("the last {l} of {len} plies")),
        (f, l) => Coverage::Part(format!("the first {f} and the last {l} of {len} plies")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_engine::Hand;
    use kanju_tsume::Cook;

    /// A mate in 3 whose cook search found one cook, left one alternative undecided and
    /// ran out of time before the last ply.
    fn solution(checked: usize) -> (Position, Solution) {
        let pos = Position::from_sfen("3sks3/9/4S4/9/9/8B/9/9/9 b S 1").unwrap();
        let line: Vec<Move> = ["1f5b+", "4a5b", "S*4b"]
            .iter()
            .scan(pos.clone(), |p, m| {
                let m = p.parse_usi_move(m).unwrap();
                *p = p.play(m);
                Some(m)
            })
            .collect();
        let cook = |alt: &str| Cook {
            ply: 0,
            main: line[0],
            alternative: pos.parse_usi_move(alt).unwrap(),
        };
        let sol = Solution {
            outcome: Outcome::Mate(line.clone()),
            length_exact: true,
            length_bound: Some(line.len() as u32),
            cooks: vec![cook("1f5b")],
            cooks_undecided: vec![cook("S*4b")],
            undecided_drops: Vec::new(),
            cooks_checked_plies: checked,
            cooks_checked_last_plies: 0,
            spare_pieces: Hand::EMPTY,
            nodes: 100,
            elapsed: Duration::from_millis(10),
            decided_after: None,
        };
        (pos, sol)
    }

    #[test]
    fn cooks_undecided_alternatives_and_an_unfinished_cook_search_are_all_reported() {
        let (pos, sol) = solution(2);
        let out = mate_answer(&pos, &sol, false);
        let notes: Vec<&str> = out
            .iter()
            .filter_map(|l| l.strip_prefix("info string "))
            .collect();
        assert_eq!(
            notes,
            [
                "cook (yozume): at ply 1 1f5b also mates (main line plays 1f5b+)",
                "cook check: at ply 1 S*4b was not settled within its node budget and may also mate (main line plays 1f5b+)",
                "note: cooks were looked for in the first 2 of 3 plies only",
            ]
        );
        assert_eq!(out.last().unwrap(), "checkmate 1f5b+ 4a5b S*4b");
        // A finished search says nothing more; one that never ran says so.
        let (_, sol) = solution(3);
        assert!(!closing_info(&sol, false)
            .iter()
            .any(|l| l.contains("looked for")));
        let (_, sol) = solution(0);
        assert!(closing_info(&sol, false)
            .iter()
            .any(|l| l == "info string note: cooks were not looked for"));
        // Two searches cut by the deadline, one from each end of the line.
        let (_, mut sol) = solution(1);
        sol.cooks_checked_last_plies = 1;
        assert!(closing_info(&sol, false).iter().any(|l| l
            == "info string note: cooks were looked for in the first 1 and the last 1 of 3 plies only"));
        sol.cooks_checked_plies = 0;
        assert!(closing_info(&sol, false)
            .iter()
            .any(|l| l == "info string note: cooks were looked for in the last 1 of 3 plies only"));
        // Past UNDECIDED_LISTED the rest are counted, not listed.
        let (_, mut sol) = solution(3);
        let one = sol.cooks_undecided[0].clone();
        sol.cooks_undecided = vec![one; UNDECIDED_LISTED + 3];
        let out = closing_info(&sol, false);
        let listed = out.iter().filter(|l| l.contains("was not settled")).count();
        assert_eq!(listed, UNDECIDED_LISTED);
        assert!(out
            .iter()
            .any(|l| l == "info string cook check: 3 more alternatives were not settled"));
    }

    /// An interposition counted as a defence on an undecided futility test is named, by
    /// its ply on the line (a dense open chase whose node-limited solve leaves N*3b's
    /// test undecided; see `mainline_rules.rs`).
    #[test]
    fn a_drop_counted_on_an_undecided_test_is_named() {
        let (_, mut sol) = solution(3);
        let root =
            Position::from_sfen("1+RBl1k3/1s+r6/2sN1p3/6+P2/9/9/9/9/9 b B2G2S2np 1").unwrap();
        let mut pos = root.play(root.parse_usi_move("B*2c").unwrap());
        let line: Vec<Move> = [
            "N*3b", "G*5a", "4a3a", "S*2b", "3a2b", "S*3c", "2b1a", "G*1b",
        ]
        .iter()
        .map(|u| {
            let m = pos.parse_usi_move(u).unwrap();
            pos = pos.play(m);
            m
        })
        .collect();
        sol.outcome = Outcome::Mate(line);
        (sol.cooks, sol.cooks_undecided) = (Vec::new(), Vec::new());
        sol.cooks_checked_plies = 8;
        sol.undecided_drops = vec![0];
        let out = closing_info(&sol, true);
        let named: Vec<&String> = out.iter().filter(|l| l.contains("mudaai")).collect();
        assert_eq!(
            named,
            ["info string note: at ply 1 the interposition N*3b counts as a defence: its futility (mudaai) test was not decided"]
        );
    }

    /// A line not shown exact says what is proven of the length, and says which way the
    /// line may be off: a bound below the line means a shorter mate is proven.
    #[test]
    fn a_length_not_shown_exact_comes_with_what_is_proven_of_it() {
        let (_, mut sol) = solution(3);
        let note = |sol: &Solution| {
            closing_info(sol, false)
                .into_iter()
                .filter(|l| l.contains("problem's length"))
                .collect::<Vec<_>>()
        };
        assert!(note(&sol).is_empty(), "an exact length needs no note");
        sol.length_exact = false;
        let head = "info string note: mate in 3 is not proven to be the problem's length";
        for (bound, tail) in [
            (
                Some(1),
                ": a mate within 1 plies is proven, but its line was not worked out within the limits",
            ),
            (
                Some(3),
                ": no defence lasts longer, but a shorter mate was not ruled out",
            ),
            (
                Some(7),
                ": a shorter mate, or a longer defence (up to 7 plies), was not ruled out",
            ),
            (
                None,
                ": a shorter mate, or a longer defence, was not ruled out",
            ),
        ] {
            sol.length_bound = bound;
            assert_eq!(note(&sol), [format!("{head}{tail}")], "{bound:?}");
        }
    }
}
