//! `cargo run --release -p kanju-engine --example perft -- <depth> [sfen]`
fn main() {
    let mut args = std::env::args().skip(1);
    let depth: u32 = args.next().and_then(|d| d.parse().ok()).unwrap_or(3);
    let sfen: Vec<String> = args.collect();
    let sfen = if sfen.is_empty() {
        "startpos".to_string()
    } else {
        sfen.join(" ")
    };
    let pos = kanju_engine::Position::from_sfen(&sfen).expect("valid SFEN");
    let t = std::time::Instant::now();
    let n = kanju_engine::perft(&pos, depth);
    println!("{n} nodes in {:.3} s", t.elapsed().as_secs_f64());
}
