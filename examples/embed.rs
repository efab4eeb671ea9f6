//! Embedding Kanju's solver in another engine: build a position, set limits and a stop
//! flag, and read Mate / NoMate / Unknown.
//!
//! `cargo run --release --example embed`
use kanju_engine::Position;
use kanju_tsume::{Config, Limits, Outcome, Solver};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

fn main() {
    // 将棋図巧 #36, a 13-ply problem.
    let pos = Position::from_sfen("9/6nS1/4s4/4r1P1g/5Sk1B/5+pbR1/4Nsp2/9/4N4 b 3Gn4l15p 1")
        .expect("a valid position");
    let mut solver = Solver::new(Config {
        threads: 1,
        hash_mb: 64,
        ..Config::default()
    });
    let limits = Limits {
        time: Some(Duration::from_secs(10)),
        nodes: Some(5_000_000),
        ..Limits::default()
    };
    // Another thread may set this to stop the search early; the answer is then Unknown.
    let stop = AtomicBool::new(false);
    let solution = solver.solve(&pos, &limits, &stop, &mut |_progress| {});
    match solution.outcome {
        Outcome::Mate(line) => {
            let usi: Vec<String> = line.iter().map(|m| m.to_usi()).collect();
            println!("mate in {}: {}", line.len(), usi.join(" "));
        }
        Outcome::NoMate => println!("no mate"),
        Outcome::Unknown(reason) => println!("unknown: {reason:?}"),
    }
}
