//! Solving one problem and describing the result, as text for people and as one JSON
//! object for scripts.

use super::args::{CommonArgs, SolveArgs};
use super::guard::{self, kifu_or_usi};
use super::job::Job;
use super::json::Obj;
use super::problems::Problem;
use super::stats;
use crate::notation;
use crate::report::{self, unknown_reason};
use kanju_engine::Position;
use kanju_tsume::{Config, Cook, Limits, Outcome, Progress, RootMode, Solution, Solver};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A finished search.
pub struct Solved {
    /// The root position.
    pub pos: Position,
    /// What the solver found.
    pub sol: Solution,
    /// True if the root player defends.
    pub defends: bool,
    /// The mate length limit searched under (`--max-length`).
    pub max_length: Option<u32>,
}

/// The solver settings `kanju solve` asks for.
pub fn config(args: &SolveArgs, progress_interval: Duration) -> Config {
    Config {
        threads: args.threads,
        hash_mb: args.common.hash_mb,
        progress_interval,
        generate_all_moves: true,
        spare_rule: args.spare_rule,
        futile_rule: args.futile_rule,
        main_line: !args.proof_only,
        seed: args.seed,
    }
}

/// Builds the problem's position and solves it. `Err` names what went wrong, for the
/// line's error report. A panic inside the engine is caught and reported the same way;
/// the caller must then drop `solver`.
pub fn solve(
    solver: &mut Solver,
    p: &Problem,
    args: &SolveArgs,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Solved, String> {
    let pos = p.position()?;
    // As over USI (RootIsAndNodeIfChecked): a side to move in check defends.
    let root = if args.defender_root {
        RootMode::Defender
    } else {
        RootMode::DefenderIfInCheck
    };
    let limits = Limits {
        time: args.common.time,
        nodes: args.common.nodes,
        max_mate_len: args.max_length,
        root,
    };
    let stop = AtomicBool::new(false);
    let sol = guard::catching("in the solver", || {
        solver.solve(&pos, &limits, &stop, progress)
    })?;
    let defends = report::root_defends(root, &pos);
    Ok(Solved {
        pos,
        sol,
        defends,
        max_length: args.max_length,
    })
}

impl Job for SolveArgs {
    type Found = Solved;
    const COMMAND: &'static str = "solve";
    const RESULTS: &'static [&'static str] = &["mate", "nomate", "unknown"];
    const MATCHED: &'static str = "mates have the expected length";

    fn common(&self) -> &CommonArgs {
        &self.common
    }

    fn solver(&self) -> Solver {
        Solver::new(config(self, Duration::ZERO))
    }

    fn search(&self, solver: &mut Solver, p: &Problem) -> Result<Solved, String> {
        solve(solver, p, self, &mut |_| {})
    }

    fn json_record(&self, p: &Problem, r: &Result<Solved, String>) -> String {
        json_record(p, r)
    }

    fn text_report(&self, p: &Problem, found: &Solved) -> String {
        text_report(p, found)
    }

    fn result_word(found: &Solved) -> &'static str {
        result_word(&found.sol.outcome)
    }

    fn matched(p: &Problem, found: &Solved) -> Option<bool> {
        match &found.sol.outcome {
            Outcome::Mate(line) => p.expected_plies.map(|e| e == line.len() as u64),
            Outcome::NoMate | Outcome::Unknown(_) => None,
        }
    }
}

/// A cook described in both notations.
struct CookText {
    ply: usize,
    main: String,
    alternative: String,
    main_kifu: String,
    alternative_kifu: String,
}

/// The cooks found along the main line, with their kifu.
fn cooks(s: &Solved) -> Vec<CookText> {
    cook_texts(s, &s.sol.cooks)
}

/// The alternatives the cook search could not settle, with their kifu.
fn undecided_cooks(s: &Solved) -> Vec<CookText> {
    cook_texts(s, &s.sol.cooks_undecided)
}

fn cook_texts(s: &Solved, list: &[Cook]) -> Vec<CookText> {
    let Outcome::Mate(line) = &s.sol.outcome else {
        return Vec::new();
    };
    list.iter()
        .map(|c| {
            let kifu = guard::catching("writing the kifu", || {
                let mut pos = s.pos.clone();
                for &m in line.iter().take(c.ply) {
                    pos.do_move(m);
                }
                let prev = c
                    .ply
                    .checked_sub(1)
                    .and_then(|i| line.get(i))
                    .map(|m| m.to());
                let mark = notation::side_mark(pos.side_to_move());
                (
                    format!("{mark}{}", notation::kifu_move(&pos, c.main, prev)),
                    format!("{mark}{}", notation::kifu_move(&pos, c.alternative, prev)),
                )
            });
            let (main_kifu, alternative_kifu) =
                kifu.unwrap_or_else(|_| (c.main.to_usi(), c.alternative.to_usi()));
            CookText {
                ply: c.ply + 1,
                main: c.main.to_usi(),
                alternative: c.alternative.to_usi(),
                main_kifu,
                alternative_kifu,
            }
        })
        .collect()
}

/// The line's drops counted as defences on undecided futility tests: (ply from 1, USI,
/// kifu).
fn undecided_drops(s: &Solved) -> Vec<(usize, String, String)> {
    let Outcome::Mate(line) = &s.sol.outcome else {
        return Vec::new();
    };
    // The kifu of the whole line is written once more only where a drop needs its entry.
    if s.sol.undecided_drops.is_empty() {
        return Vec::new();
    }
    let kifu = kifu_or_usi(&s.pos, line);
    s.sol
        .undecided_drops
        .iter()
        .filter_map(|&i| Some((i + 1, line.get(i)?.to_usi(), kifu.get(i)?.clone())))
        .collect()
}

fn result_word(o: &Outcome) -> &'static str {
    match o {
        Outcome::Mate(_) => "mate",
        Outcome::NoMate => "nomate",
        Outcome::Unknown(_) => "unknown",
    }
}

/// The JSON record of one problem (its line, or a whole result).
pub fn json_record(p: &Problem, r: &Result<Solved, String>) -> String {
    let mut o = Obj::new();
    o.put("line", p.line as u64);
    if let Some(n) = &p.name {
        o.put("name", n.as_str());
    }
    o.put("sfen", p.sfen_text());
    if let Some(e) = p.expected_plies {
        o.put("expected_plies", e);
    }
    match r {
        Err(e) => {
            o.put("result", "error").put("error", e.as_str());
        }
        Ok(s) => {
            o.put("result", result_word(&s.sol.outcome));
            match &s.sol.outcome {
                Outcome::Mate(line) => {
                    let usi: Vec<String> = line.iter().map(|m| m.to_usi()).collect();
                    o.put("moves", usi)
                        .put("kifu", kifu_or_usi(&s.pos, line))
                        .put("length", line.len() as u64)
                        .put("length_exact", s.sol.length_exact);
                    if let Some(b) = s.sol.length_bound {
                        o.put("length_bound", b as u64);
                    }
                    let objs = |cs: Vec<CookText>| -> Vec<Obj> {
                        cs.into_iter()
                            .map(|c| {
                                let mut co = Obj::new();
                                co.put("ply", c.ply as u64)
                                    .put("main", c.main)
                                    .put("alternative", c.alternative)
                                    .put("main_kifu", c.main_kifu)
                                    .put("alternative_kifu", c.alternative_kifu);
                                co
                            })
                            .collect()
                    };
                    o.put_objs("cooks", &objs(cooks(s)));
                    o.put_objs("cooks_undecided", &objs(undecided_cooks(s)));
                    o.put("cooks_checked_plies", s.sol.cooks_checked_plies as u64);
                    o.put(
                        "cooks_checked_last_plies",
                        s.sol.cooks_checked_last_plies as u64,
                    );
                    let drops: Vec<Obj> = undecided_drops(s)
                        .into_iter()
                        .map(|(ply, usi, kifu)| {
                            let mut d = Obj::new();
                            d.put("ply", ply as u64).put("move", usi).put("kifu", kifu);
                            d
                        })
                        .collect();
                    o.put_objs("undecided_drops", &drops);
                    o.put("spare_pieces", notation::hand_sfen(s.sol.spare_pieces));
                }
                Outcome::NoMate => {}
                Outcome::Unknown(r) => {
                    o.put("reason", unknown_reason(*r));
                }
            }
            if s.defends {
                o.put("defender_root", true);
            }
            if let Some(n) = s.max_length {
                o.put("max_length", n as u64);
            }
            stats::put_json(&mut o, s.sol.nodes, s.sol.elapsed, s.sol.decided_after);
        }
    }
    o.render()
}

/// The human-readable report of one solved problem.
pub fn text_report(p: &Problem, s: &Solved) -> String {
    let mut out = Vec::new();
    out.push(format!("position:  {}", p.sfen_text()));
    match &s.sol.outcome {
        Outcome::Mate(line) => {
            let who = if s.defends {
                "the side to move is mated"
            } else {
                "mate"
            };
            out.push(format!("result:    {who} in {}", line.len()));
            if let Some(note) = report::length_note(line.len(), &s.sol) {
                out.push(format!("note:      {note}"));
            }
            out.push(format!("usi:       {}", report::usi_moves(line)));
            out.push(format!(
                "kifu:      {}",
                kifu_or_usi(&s.pos, line).join(" ")
            ));
            out.push(format!("length:    {} plies", line.len()));
            let cs = cooks(s);
            let undecided = undecided_cooks(s);
            let coverage = report::cooks_coverage(&s.sol, line.len());
            // "None found" would claim a search that never ran.
            if cs.is_empty() && !matches!(coverage, report::Coverage::None) {
                out.push("余詰:      none found".to_string());
            }
            for c in cs {
                out.push(format!(
                    "余詰:      ply {}: {} ({}) also mates; main line {} ({})",
                    c.ply, c.alternative_kifu, c.alternative, c.main_kifu, c.main
                ));
            }
            let more = undecided.len().saturating_sub(report::UNDECIDED_LISTED);
            for c in undecided.into_iter().take(report::UNDECIDED_LISTED) {
                out.push(format!(
                    "余詰:      ply {}: {} ({}) not settled within its node budget; main line {} ({})",
                    c.ply, c.alternative_kifu, c.alternative, c.main_kifu, c.main
                ));
            }
            if more > 0 {
                out.push(format!(
                    "余詰:      {more} more alternatives not settled (all are in the JSON)"
                ));
            }
            match coverage {
                report::Coverage::Whole => {}
                report::Coverage::None => out.push("余詰:      not looked for".to_string()),
                report::Coverage::Part(plies) => {
                    out.push(format!("余詰:      looked for in {plies} only"))
                }
            }
            for (ply, usi, kifu) in undecided_drops(s) {
                out.push(format!(
                    "無駄合:    ply {ply}: {kifu} ({usi}) counted as a defence: its futility test was not decided"
                ));
            }
            out.push(format!("駒余り:    {}", notation::hand(s.sol.spare_pieces)));
        }
        Outcome::NoMate => out.push("result:    no mate (proven)".to_string()),
        Outcome::Unknown(r) => out.push(format!("result:    unknown: {}", unknown_reason(*r))),
    }
    out.extend(stats::text_lines(
        s.sol.nodes,
        s.sol.elapsed,
        s.sol.decided_after,
    ));
    out.join("\n")
}
