//! Looking for a brinkmate (必至) in one problem and describing the result, as text for
//! people and as one JSON object for scripts.

use super::args::{BrinkmateArgs, CommonArgs};
use super::guard::{self, kifu_or_usi};
use super::job::Job;
use super::json::Obj;
use super::problems::Problem;
use super::stats;
use crate::report::{unknown_reason, usi_moves};
use kanju_engine::{Move, Position};
use kanju_tsume::{
    BrinkmateLimits, BrinkmateOutcome, BrinkmateSolution, Config, ReplyMate, Solver,
};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A reply's mate longer than this is shown in the text cut to its first moves (the
/// JSON has it whole): a reply list is read down the page, one line per reply.
const MATE_SHOWN: usize = 9;

/// Replies listed in the text; the rest are counted (the JSON has them all). A one-move
/// brinkmate on an open board can leave the defender hundreds of interpositions by
/// drop, nearly all answered alike, which would bury the replies that matter.
const REPLIES_LISTED: usize = 24;

/// A finished search.
pub struct Searched {
    /// The root position.
    pub pos: Position,
    /// What the search found.
    pub sol: BrinkmateSolution,
}

/// The solver settings `kanju brinkmate` asks for.
pub fn config(args: &BrinkmateArgs) -> Config {
    Config {
        // The brinkmate search runs on one thread whatever the table is shared with,
        // and it has no progress reports to time.
        threads: 1,
        hash_mb: args.common.hash_mb,
        progress_interval: Duration::ZERO,
        ..Config::default()
    }
}

/// Builds the problem's position and looks for a brinkmate in it. `Err` names what went
/// wrong, for the line's error report, a panic inside the engine included; the caller
/// must then drop `solver`.
pub fn search(solver: &mut Solver, p: &Problem, args: &BrinkmateArgs) -> Result<Searched, String> {
    let pos = p.position()?;
    let limits = BrinkmateLimits {
        time: args.common.time,
        nodes: args.common.nodes,
        max_plies: args.plies,
    };
    let stop = AtomicBool::new(false);
    let sol = guard::catching("in the brinkmate search", || {
        solver.brinkmate(&pos, &limits, &stop)
    })?;
    Ok(Searched { pos, sol })
}

fn result_word(o: &BrinkmateOutcome) -> &'static str {
    match o {
        BrinkmateOutcome::Brinkmate(_) => "brinkmate",
        BrinkmateOutcome::Mate(_) => "mate",
        BrinkmateOutcome::NoBrinkmate => "nobrinkmate",
        BrinkmateOutcome::Unknown(_) => "unknown",
    }
}

/// The attacker's line: the mate, or the brinkmate's main line.
fn main_line(o: &BrinkmateOutcome) -> Option<&[Move]> {
    match o {
        BrinkmateOutcome::Brinkmate(l) | BrinkmateOutcome::Mate(l) => Some(l),
        BrinkmateOutcome::NoBrinkmate | BrinkmateOutcome::Unknown(_) => None,
    }
}

fn plies(n: usize) -> String {
    if n == 1 {
        "1 ply".to_string()
    } else {
        format!("{n} plies")
    }
}

/// The last of `moves`, played from `pos`, in Japanese notation with its side mark;
/// the moves before it decide whether it is written `同`.
fn kifu_of_last(pos: &Position, moves: &[Move]) -> String {
    kifu_or_usi(pos, moves).pop().unwrap_or_default()
}

fn usi_list(moves: &[Move]) -> Vec<String> {
    moves.iter().map(|m| m.to_usi()).collect()
}

/// A mate in USI, cut to its first [`MATE_SHOWN`] moves when longer.
fn short_usi(mate: &[Move]) -> String {
    if mate.len() <= MATE_SHOWN {
        usi_moves(mate)
    } else {
        format!("{} …", usi_moves(&mate[..MATE_SHOWN]))
    }
}

impl Job for BrinkmateArgs {
    type Found = Searched;
    const COMMAND: &'static str = "brinkmate";
    const RESULTS: &'static [&'static str] = &["brinkmate", "mate", "nobrinkmate", "unknown"];

    fn common(&self) -> &CommonArgs {
        &self.common
    }

    fn solver(&self) -> Solver {
        Solver::new(config(self))
    }

    fn search(&self, solver: &mut Solver, p: &Problem) -> Result<Searched, String> {
        search(solver, p, self)
    }

    fn json_record(&self, p: &Problem, r: &Result<Searched, String>) -> String {
        let mut o = Obj::new();
        o.put("line", p.line as u64);
        if let Some(n) = &p.name {
            o.put("name", n.as_str());
        }
        o.put("sfen", p.sfen_text());
        if let Some(e) = &p.expected_move {
            o.put("expected", e.clone());
        }
        let s = match r {
            Err(e) => {
                o.put("result", "error").put("error", e.as_str());
                return o.render();
            }
            Ok(s) => s,
        };
        o.put("result", result_word(&s.sol.outcome))
            .put("max_plies", self.plies);
        if let Some(line) = main_line(&s.sol.outcome) {
            o.put("moves", usi_list(line))
                .put("kifu", kifu_or_usi(&s.pos, line))
                .put("plies", line.len() as u64);
        }
        if let BrinkmateOutcome::Brinkmate(_) = &s.sol.outcome {
            let replies: Vec<Obj> = s
                .sol
                .replies
                .iter()
                .map(|r| {
                    let mut ro = Obj::new();
                    ro.put("reply", r.reply.to_usi())
                        .put("mate", usi_list(&r.mate));
                    ro
                })
                .collect();
            o.put_objs("replies", &replies);
            o.put("alternatives", usi_list(&s.sol.alternatives)).put(
                "alternatives_undecided",
                usi_list(&s.sol.alternatives_undecided),
            );
        }
        o.put("threatmates", usi_list(&s.sol.threatmates));
        if let BrinkmateOutcome::Unknown(why) = &s.sol.outcome {
            o.put("reason", unknown_reason(*why));
        }
        stats::put_json(&mut o, s.sol.nodes, s.sol.elapsed, None);
        o.render()
    }

    fn text_report(&self, p: &Problem, s: &Searched) -> String {
        let mut out = vec![format!("position:  {}", p.sfen_text())];
        let outcome = &s.sol.outcome;
        out.push(format!(
            "result:    {}",
            match outcome {
                BrinkmateOutcome::Brinkmate(l) => format!("brinkmate in {}", plies(l.len())),
                BrinkmateOutcome::Mate(l) => format!("mate in {}", plies(l.len())),
                BrinkmateOutcome::NoBrinkmate => format!(
                    "no brinkmate (proven within {})",
                    plies(self.plies as usize)
                ),
                BrinkmateOutcome::Unknown(why) => format!("unknown ({})", unknown_reason(*why)),
            }
        ));
        if let Some(line) = main_line(outcome) {
            out.push(format!("usi:       {}", usi_moves(line)));
            out.push(format!(
                "kifu:      {}",
                kifu_or_usi(&s.pos, line).join(" ")
            ));
        }
        // A mate by checks leaves no threatmates to look for; otherwise an empty list
        // says only that none was proven, not that none exists.
        if !matches!(outcome, BrinkmateOutcome::Mate(_)) {
            let threats: Vec<String> = s
                .sol
                .threatmates
                .iter()
                .map(|&m| format!("{} ({})", kifu_of_last(&s.pos, &[m]), m.to_usi()))
                .collect();
            out.push(if threats.is_empty() {
                "詰めろ:    none found".to_string()
            } else {
                format!("詰めろ:    {}", threats.join(", "))
            });
        }
        if let BrinkmateOutcome::Brinkmate(line) = outcome {
            let first_moves = |moves: &[Move]| {
                moves
                    .iter()
                    .map(|&m| format!("{} ({})", kifu_of_last(&s.pos, &[m]), m.to_usi()))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            out.push(if s.sol.alternatives.is_empty() {
                "別解:      none".to_string()
            } else {
                format!("別解:      {}", first_moves(&s.sol.alternatives))
            });
            if !s.sol.alternatives_undecided.is_empty() {
                out.push(format!(
                    "undecided: {}",
                    first_moves(&s.sol.alternatives_undecided)
                ));
            }
            out.push(format!("replies:   {}, each mated:", s.sol.replies.len()));
            // Board moves (king moves, captures) first: drops are the many look-alikes.
            let mut shown: Vec<&ReplyMate> = s.sol.replies.iter().collect();
            shown.sort_by_key(|r| r.reply.is_drop());
            let mut after = line.to_vec();
            for r in shown.iter().take(REPLIES_LISTED) {
                after.push(r.reply);
                out.push(format!(
                    "           {} ({})  mated: {}",
                    kifu_of_last(&s.pos, &after),
                    r.reply.to_usi(),
                    short_usi(&r.mate)
                ));
                after.pop();
            }
            let more = shown.len().saturating_sub(REPLIES_LISTED);
            if more > 0 {
                out.push(format!(
                    "           {more} more replies, each mated (all are in the JSON)"
                ));
            }
        }
        out.extend(stats::text_lines(s.sol.nodes, s.sol.elapsed, None));
        out.join("\n")
    }

    fn result_word(found: &Searched) -> &'static str {
        result_word(&found.sol.outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_tsume::UnknownReason;

    fn searched(sfen: &str, outcome: BrinkmateOutcome, replies: Vec<ReplyMate>) -> Searched {
        Searched {
            pos: Position::from_sfen(sfen).unwrap(),
            sol: BrinkmateSolution {
                outcome,
                replies,
                alternatives: Vec::new(),
                alternatives_undecided: Vec::new(),
                threatmates: Vec::new(),
                nodes: 1234,
                elapsed: Duration::from_millis(5),
            },
        }
    }

    fn problem(sfen: &str) -> Problem {
        match super::super::problems::parse_line(1, sfen) {
            super::super::problems::Line::Problem(p) => p,
            other => panic!("{other:?}"),
        }
    }

    /// The reports are written here against made-up results, since the search that
    /// gives real ones is tested on its own.
    #[test]
    fn a_brinkmate_report_lists_every_reply_with_its_mate() {
        // Black: a pawn on 2d and gold, silver in hand against the king on 1a.
        let sfen = "8k/9/9/7P1/9/9/9/9/9 b GS2r2b3g3s4n4l17p 1";
        let pos = Position::from_sfen(sfen).unwrap();
        let mv = |pos: &Position, usi: &str| pos.parse_usi_move(usi).unwrap();
        let hisshi = mv(&pos, "S*2b");
        let after = pos.play(hisshi);
        let reply = mv(&after, "1a2b");
        let long: Vec<Move> = vec![hisshi; MATE_SHOWN + 3];
        let s = searched(
            sfen,
            BrinkmateOutcome::Brinkmate(vec![hisshi]),
            vec![ReplyMate {
                reply,
                mate: long.clone(),
            }],
        );
        let args = BrinkmateArgs::default();
        let p = problem(sfen);
        let text = args.text_report(&p, &s);
        assert!(text.contains("result:    brinkmate in 1 ply"), "{text}");
        assert!(text.contains("usi:       S*2b"), "{text}");
        assert!(text.contains("kifu:      ▲２二銀"), "{text}");
        assert!(text.contains("△同玉 (1a2b)  mated: S*2b"), "{text}");
        assert!(text.contains(" …"), "{text}");
        assert!(text.contains("詰めろ:    none found"), "{text}");
        let v: serde_json::Value = serde_json::from_str(&args.json_record(&p, &Ok(s))).unwrap();
        assert_eq!(v["result"], "brinkmate");
        assert_eq!(v["plies"], 1);
        assert_eq!(v["replies"][0]["reply"], "1a2b");
        assert_eq!(
            v["replies"][0]["mate"].as_array().unwrap().len(),
            long.len(),
            "the JSON has the whole mate"
        );
    }

    #[test]
    fn no_brinkmate_and_unknown_say_within_what() {
        let sfen = "8k/9/9/7P1/9/9/9/9/9 b GS2r2b3g3s4n4l17p 1";
        let args = BrinkmateArgs {
            plies: 3,
            ..BrinkmateArgs::default()
        };
        let p = problem(sfen);
        let none = searched(sfen, BrinkmateOutcome::NoBrinkmate, Vec::new());
        let text = args.text_report(&p, &none);
        assert!(
            text.contains("no brinkmate (proven within 3 plies)"),
            "{text}"
        );
        let unknown = searched(
            sfen,
            BrinkmateOutcome::Unknown(UnknownReason::Time),
            Vec::new(),
        );
        let text = args.text_report(&p, &unknown);
        assert!(
            text.contains("unknown (the time limit was reached)"),
            "{text}"
        );
        let v: serde_json::Value =
            serde_json::from_str(&args.json_record(&p, &Ok(unknown))).unwrap();
        assert_eq!(
            (v["result"].as_str(), v["max_plies"].as_u64()),
            (Some("unknown"), Some(3))
        );
        assert!(v["reason"].as_str().unwrap().contains("time"));
        assert!(v.get("moves").is_none() && v["threatmates"].is_array());
    }
}
