//! Solves one SFEN given on the command line and prints the outcome.
//!
//! `one \"SFEN [moves M...]\" [SECONDS] [MAX_MATE_LEN]`; env `HASH` = table MiB, `THREADS` = threads.
use kanju_engine::Position;
use kanju_tsume::{Config, Limits, RootMode, Solver};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

fn main() {
    let sfen = std::env::args().nth(1).expect("an SFEN");
    let secs: f64 = std::env::args().nth(2).map_or(10.0, |s| s.parse().unwrap());
    let max_mate_len = std::env::args().nth(3).map(|s| s.parse().unwrap());
    let hash = std::env::var("HASH")
        .ok()
        .map_or(64, |s| s.parse().unwrap());
    let threads = std::env::var("THREADS")
        .ok()
        .map_or(1, |s| s.parse().unwrap());
    let mut parts = sfen.split(" moves ");
    let mut pos = Position::from_sfen(parts.next().unwrap()).expect("valid SFEN");
    for m in parts.next().unwrap_or("").split_whitespace() {
        pos = pos.play(pos.parse_usi_move(m).expect("legal move"));
    }
    let mut solver = Solver::new(Config {
        hash_mb: hash,
        threads,
        ..Config::default()
    });
    let limits = Limits {
        time: Some(Duration::from_secs_f64(secs)),
        max_mate_len,
        root: RootMode::DefenderIfInCheck,
        ..Limits::default()
    };
    let stop = AtomicBool::new(false);
    let s = solver.solve(&pos, &limits, &stop, &mut |p| {
        eprintln!(
            "info nodes {} nps {} hashfull {} pv {:?}",
            p.nodes, p.nps, p.hashfull, p.pv
        )
    });
    println!("{:?} nodes {} time {:?}", s.outcome, s.nodes, s.elapsed);
}
