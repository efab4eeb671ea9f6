//! Solves every problem of a JSONL file and prints one line per problem:
//! name, result, plies, expected plies, time, nodes, nps.
//!
//! `cargo run --release -p kanju-tsume --example solve_file -- FILE [--time S] [--hash MB]
//!  [--threads N] [--filter SUBSTR] [--first N] [--nodes N]`

#[path = "../tests/support/jsonl.rs"]
mod jsonl;

use kanju_engine::Position;
use kanju_tsume::{Config, Limits, Outcome, RootMode, Solver};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

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
    let mut i = 0;
    while i < args.len() {
        let v = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--time" => time = v.parse().expect("--time seconds"),
            "--hash" => hash = v.parse().expect("--hash MiB"),
            "--threads" => threads = v.parse().expect("--threads N"),
            "--filter" => filter = v,
            "--first" => first = v.parse().expect("--first N"),
            "--nodes" => nodes = Some(v.parse().expect("--nodes N")),
            "--clear" => {
                clear = true;
                i += 1;
                continue;
            }
            f => {
                file = Some(f.to_string());
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    let file = file.expect("a JSONL file");
    let problems = jsonl::read(std::path::Path::new(&file));
    let mut solver = Solver::new(Config {
        threads,
        hash_mb: hash,
        progress_interval: Duration::ZERO,
        generate_all_moves: true,
        ..Config::default()
    });
    let (mut solved, mut total, mut total_nodes, mut total_time) = (0, 0, 0u64, 0f64);
    let mut times = Vec::new();
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
        times.push(secs);
        println!(
            "{:<28} {:<8} {:>6} exp {:>5} {:>9.3}s {:>12} nodes {:>9} nps",
            p.name,
            res,
            plies,
            p.mate_plies.map_or("-".into(), |m| m.to_string()),
            secs,
            s.nodes,
            (s.nodes as f64 / secs.max(1e-9)) as u64
        );
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
    println!(
        "solved {solved}/{total}  total {total_time:.2}s  median {median:.3}s  nodes {total_nodes}  nps {}",
        (total_nodes as f64 / total_time.max(1e-9)) as u64
    );
}
