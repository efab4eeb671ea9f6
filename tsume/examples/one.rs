//! Solves one SFEN given on the command line and prints the outcome.
use kanju_engine::Position;
use kanju_tsume::{Config, Limits, Solver};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

fn main() {
    let sfen = std::env::args().nth(1).expect("an SFEN");
    let secs: f64 = std::env::args().nth(2).map_or(10.0, |s| s.parse().unwrap());
    let pos = Position::from_sfen(&sfen).expect("valid SFEN");
    let mut solver = Solver::new(Config {
        hash_mb: 64,
        ..Config::default()
    });
    let limits = Limits {
        time: Some(Duration::from_secs_f64(secs)),
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
