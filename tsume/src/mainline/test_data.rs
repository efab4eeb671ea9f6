//! Problems from the shared problem files, and empty hints, for the main-line tests.

use super::solver::Hint;
use kanju_engine::{Move, Position};

/// Hints from a df-pn table that knows nothing.
pub(crate) fn no_hints(_: &Position) -> Hint {
    Hint::Unknown
}

/// A problem's position and published solution, from a shared problem file.
pub(crate) fn published(file: &str, name: &str) -> (Position, Vec<Move>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/problems")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("the shared problem file");
    let tag = format!("\"name\": \"{name}\"");
    let record = text.lines().find(|l| l.contains(&tag)).expect(name);
    let field = |key: &str| {
        let start = record.find(&format!("\"{key}\": ")).expect(key) + key.len() + 4;
        &record[start..]
    };
    let sfen = field("sfen")
        .trim_start_matches('"')
        .split('"')
        .next()
        .unwrap();
    let moves = field("solution")
        .trim_start_matches('[')
        .split(']')
        .next()
        .unwrap();
    let root = Position::from_sfen(sfen).unwrap();
    let mut pos = root.clone();
    let line = moves
        .split(',')
        .map(|m| {
            let m = pos
                .parse_usi_move(m.trim().trim_matches('"'))
                .expect("a legal move");
            pos = pos.play(m);
            m
        })
        .collect();
    (root, line)
}
