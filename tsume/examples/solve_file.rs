//! Solves every problem of a JSONL file and prints one line per problem:
//! name, result, plies, expected plies, time, time to the first proof or disproof,
//! nodes, nps.
//!
//! `cargo run --release -p kanju-tsume --example solve_file -- FILE [--time S] [--hash MB]
//!  [--threads N] [--filter SUBSTR] [--first N] [--nodes N] [--clear] [--proof-only]
//!  [--spare-rule strict|twoply|classical] [--futile-rule same-length|any-length]`
//!
//! `--proof-only` stops at the first verified mate, without the composer's main line.
//! The rules default to the library's (strict, same-length); the classical collections'
//! published lengths follow `--spare-rule classical --futile-rule any-length`.

#[path = "../tests/support/jsonl.rs"]
mod jsonl;

use kanju_engine::Position;
use kanju_tsume::{Config, FutileRule, Limits, Outcome, RootMode, Solver, SpareRule};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

const USAGE: &str = "usage: solve_file FILE [--time S] [--hash MB] [--threads N] \
[--filter SUBSTR] [--first N] [--nodes N] [--clear] [--proof-only] \
[--spare-rule strict|twoply|classical] [--futile-rule same-length|any-length]";

/// Prints what is wrong and the usage, and exits.
fn usage_error(what: &str) -> ! {
    eprintln!("solve_file: {what}\n{USAGE}");
    std::process::exit(2)
}

/// The value of option `name`, parsed.
fn value<T: std::str::FromStr>(name: &str, v: &str) -> T {
    v.parse()
        .unwrap_or_else(|_| usage_error(&format!("{name}: bad value '{v}'")))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut file = None;
    let mut time = 60.0f64;
    let mut hash = 1024usize;
    let mut threads = 1usize;
    let mut filter = String::new();
    let mut first = usize::MAX;
    let mut nodes = None;
    let mut clear = false;
    let mut main_line = true;
    let mut spare_rule = SpareRule::Strict;
    let mut futile_rule = FutileRule::SameLength;
    let mut i = 0;
    while i < args.len() {
        let v = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--time" => time = value("--time", &v),
            "--hash" => hash = value("--hash", &v),
            "--threads" => threads = value("--threads", &v),
            "--filter" => filter = v,
            "--first" => first = value("--first", &v),
            "--nodes" => nodes = Some(value("--nodes", &v)),
            "--spare-rule" => {
                spare_rule = match v.as_str() {
                    "strict" => SpareRule::Strict,
                    "twoply" => SpareRule::TwoPly,
                    "classical" => SpareRule::Classical,
                    _ => usage_error(&format!("--spare-rule: bad value '{v}'")),
                }
            }
            "--futile-rule" => {
                futile_rule = match v.as_str() {
                    "same-length" => FutileRule::SameLength,
                    "any-length" => FutileRule::AnyLength,
                    _ => usage_error(&format!("--futile-rule: bad value '{v}'")),
                }
            }
            "--proof-only" => {
                main_line = false;
                i += 1;
                continue;
            }
            "--clear" => {
                clear = true;
                i += 1;
                continue;
            }
            f if f.starts_with("--") => usage_error(&format!("unknown option {f}")),
            f => {
                file = Some(f.to_string());
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    let file = file.unwrap_or_else(|| usage_error("no problem file given"));
    if !std::path::Path::new(&file).is_file() {
        usage_error(&format!("{file}: no such file"));
    }
    let problems = jsonl::read(std::path::Path::new(&file));
    let mut solver = Solver::new(Config {
        threads,
        hash_mb: hash,
        progress_interval: Duration::ZERO,
        generate_all_moves: true,
        main_line,
        spare_rule,
        futile_rule,
        ..Config::default()
    });
    let (mut solved, mut total, mut total_nodes, mut total_time) = (0, 0, 0u64, 0f64);
    let mut times = Vec::new();
    let (mut decided_times, mut total_decided) = (Vec::new(), 0f64);
    for p in problems
        .iter()
        .filter(|p| p.name.contains(&filter))
        .take(first)
    {
        let pos = match Position::from_sfen(&p.sfen) {
            Ok(pos) => pos,
            Err(e) => {
                println!("{:<28} BADSFEN {e}", p.name);
                continue;
            }
        };
        if clear {
            solver.clear();
        }
        let limits = Limits {
            time: Some(Duration::from_secs_f64(time)),
            nodes,
            max_mate_len: None,
            root: RootMode::DefenderIfInCheck,
        };
        let stop = AtomicBool::new(false);
        let s = solver.solve(&pos, &limits, &stop, &mut |_| {});
        let secs = s.elapsed.as_secs_f64();
        let decided = s.decided_after.map_or(secs, |d| d.as_secs_f64());
        let (res, plies) = match &s.outcome {
            Outcome::Mate(l) => ("mate", l.len().to_string()),
            Outcome::NoMate => ("nomate", "-".into()),
            Outcome::Unknown(r) => ("unknown", format!("{r:?}")),
        };
        total += 1;
        if !matches!(s.outcome, Outcome::Unknown(_)) {
            solved += 1;
        }
        total_nodes += s.nodes;
        total_time += secs;
        total_decided += decided;
        times.push(secs);
        decided_times.push(decided);
        println!(
            "{:<28} {:<8} {:>6} exp {:>5} {:>9.3}s decided {:>9.3}s {:>12} nodes {:>9} nps",
            p.name,
            res,
            plies,
            p.mate_plies.map_or("-".into(), |m| m.to_string()),
            secs,
            decided,
            s.nodes,
            (s.nodes as f64 / secs.max(1e-9)) as u64
        );
    }
    let median = |t: &mut Vec<f64>| {
        t.sort_by(|a, b| a.total_cmp(b));
        t.get(t.len() / 2).copied().unwrap_or(0.0)
    };
    let median_decided = median(&mut decided_times);
    let median = median(&mut times);
    println!(
        "solved {solved}/{total}  total {total_time:.2}s  median {median:.3}s  \
         decided: total {total_decided:.2}s median {median_decided:.3}s  nodes {total_nodes}  nps {}",
        (total_nodes as f64 / total_time.max(1e-9)) as u64
    );
}
