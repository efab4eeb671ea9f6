//! Bad input of every kind: each gets one `info string error` line, a rejected position
//! is never answered for (nor is the one before it), and the engine goes on to solve the
//! next problem.

mod common;
use common::{errors, problems, Engine};

/// Positions the rules forbid, each with the kind of fault it has.
const BAD_POSITIONS: &[(&str, &str)] = &[
    ("eight ranks", "position sfen 4k4/9/4P4/9/9/9/9/9 b G 1"),
    (
        "ten squares in a rank",
        "position sfen 4k5/9/4P4/9/9/9/9/9/9 b G 1",
    ),
    (
        "bad piece letter",
        "position sfen 4k4/9/4X4/9/9/9/9/9/9 b G 1",
    ),
    (
        "bad side to move",
        "position sfen 4k4/9/4P4/9/9/9/9/9/9 x G 1",
    ),
    ("bad hand", "position sfen 4k4/9/4P4/9/9/9/9/9/9 b Q 1"),
    (
        "too many golds",
        "position sfen 4k4/9/4P4/9/9/9/9/9/9 b 5G 1",
    ),
    ("missing fields", "position sfen 4k4/9/4P4/9/9/9/9/9/9"),
    ("nothing after sfen", "position sfen"),
    (
        "neither startpos nor sfen",
        "position 4k4/9/4P4/9/9/9/9/9/9 b G 1",
    ),
    (
        "two white kings",
        "position sfen 4k4/9/4P4/9/9/9/9/9/4k4 b G 1",
    ),
    ("nifu", "position sfen 4k4/9/4P4/9/4P4/9/9/9/9 b G 1"),
    (
        "pawn on the last rank",
        "position sfen P3k4/9/9/9/9/9/9/9/9 b G 1",
    ),
    (
        "knight on the second rank",
        "position sfen 4k4/N8/9/9/9/9/9/9/9 b G 1",
    ),
    (
        "white lance on its last rank",
        "position sfen 4k4/9/4P4/9/9/9/9/9/l8 b G 1",
    ),
    (
        "side not to move in check",
        "position sfen 4k4/4R4/9/9/9/9/9/9/9 b G 1",
    ),
    (
        "black in check, white to move",
        "position sfen 4K4/2sP1Ps2/9/4r4/9/9/9/9/4k4 w - 1",
    ),
    (
        "illegal move",
        "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1 moves 5c5a",
    ),
    (
        "drop on an occupied square",
        "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1 moves G*5c",
    ),
    (
        "drop of a piece not in hand",
        "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1 moves S*5b",
    ),
    ("not a move", "position startpos moves 7g7f xyz"),
    (
        "moving the opponent's piece",
        "position startpos moves 3c3d",
    ),
    (
        "illegal move later in the list",
        "position startpos moves 7g7f 3c3d 7f7e 2b8h 8h2b",
    ),
    ("startpos with junk", "position startpos 7g7f"),
];

#[test]
fn every_bad_position_gets_one_error_and_no_stale_answer() {
    let mut e = Engine::ready();
    for (what, cmd) in BAD_POSITIONS {
        e.send(&format!("position sfen {}", problems::MATE1));
        e.send(cmd);
        let said = e.sync();
        assert_eq!(errors(&said).len(), 1, "{what}: {said:?}");
        assert_eq!(said.len(), 1, "{what}: {said:?}");
        // The mate in 1 set before the bad position must not be answered for it.
        e.send("go mate 30000");
        let said = e.until_checkmate();
        assert_eq!(
            said.last().unwrap(),
            "checkmate timeout",
            "{what}: {said:?}"
        );
        assert_eq!(errors(&said).len(), 1, "{what}: {said:?}");
    }
    // And a new problem is solved normally.
    assert_eq!(e.mate(problems::MATE3, 30_000).len(), 3);
}

#[test]
fn garbage_and_long_lines_do_not_break_the_engine() {
    let mut e = Engine::ready();
    e.send(&format!("position sfen {}", problems::MATE1));
    let long = "x".repeat(100_000);
    for junk in [
        long.as_str(),
        "position sfen \u{0}\u{1}\u{2} b - 1",
        "setoption name USI_Hash value 1e9",
        "\t\t",
    ] {
        e.send(junk);
        let said = e.sync();
        assert!(said.len() <= 1, "{said:?}");
    }
    // The junk `position` line unset the position; set it again.
    e.send(&format!("position sfen {}", problems::MATE1));
    // Malformed `go` lines still search (the position is the mate in 1) and answer once.
    for (go, answer) in [
        ("go mate -5", "checkmate G*5b"),
        ("go mate 99999999999999999999999", "checkmate G*5b"),
        ("go btime -100 wtime x byoyomi", "bestmove G*5b"),
    ] {
        e.send(go);
        let lines = e.collect_until(common::is_answer, common::SEARCH);
        assert_eq!(lines.last().unwrap(), answer, "{go}: {lines:?}");
        assert!(e.sync().iter().all(|l| !common::is_answer(l)));
    }
    assert_eq!(e.mate(problems::MATE3, 30_000).len(), 3);
}

#[test]
fn each_go_gets_exactly_one_answer_even_when_malformed() {
    let mut e = Engine::ready();
    e.send(&format!("position sfen {}", problems::MATE1));
    for go in [
        "go mate 30000 btime x",
        "go mate nodes",
        "go mate 30000 depth 3 searchmoves G*5b",
    ] {
        e.send(go);
        let lines = e.until_checkmate();
        assert_eq!(lines.last().unwrap(), "checkmate G*5b", "{go}: {lines:?}");
        assert!(
            !errors(&lines).is_empty(),
            "{go}: a warning is expected: {lines:?}"
        );
        assert!(e.sync().is_empty());
    }
}

/// Words that commands are made of, valid and not, for the stream below. `quit` is left
/// out: the stream must keep the engine running to the end.
const WORDS: &[&str] = &[
    "usi",
    "isready",
    "usinewgame",
    "position",
    "sfen",
    "startpos",
    "moves",
    "go",
    "mate",
    "infinite",
    "stop",
    "setoption",
    "name",
    "value",
    "USI_Hash",
    "Threads",
    "PvInterval",
    "NodesLimit",
    "ClearHash",
    "SpareRule",
    "FutileRule",
    "Classical",
    "AnyLength",
    "true",
    "false",
    "0",
    "1",
    "-1",
    "99999999999",
    "7g7f",
    "3c3d",
    "G*5b",
    "5a4a",
    "btime",
    "byoyomi",
    "ponderhit",
    "gameover",
    "win",
    "debug",
    "register",
    "b",
    "w",
    "-",
    "x",
    "+",
    "*",
    "searchmoves",
    "depth",
    "nodes",
    "MultiPV",
    "4k4/9/4P4/9/9/9/9/9/9",
    "G2r2b3g4s4n4l17p",
    "9/9/9/9/9/9/9/9/9",
    "\u{3042}",
];

/// Whole commands, so that the stream also sets positions and searches them.
const COMMANDS: &[&str] = &[
    "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
    "position startpos moves 7g7f",
    "go mate 200",
    "go mate infinite",
    "stop",
    "setoption name Threads value 2",
    "setoption name USI_Hash value 16",
    "usinewgame",
];

/// Real positions, whole or with a few characters changed, for the stream below: most of
/// the changed ones are not legal, and some of the whole ones are hard to solve.
const SFENS: &[&str] = &[
    problems::MATE1,
    problems::MATE3,
    problems::NOMATE,
    problems::WHITE_MATE1,
    problems::NOT_TO_MOVE_IN_CHECK,
    problems::ZUKO77,
    problems::HARD,
];

/// Characters a change may put into an SFEN.
const SFEN_CHARS: &[char] = &[
    'k', 'K', 'p', 'P', '+', '*', '/', ' ', '1', '5', '9', 'b', 'w', '-', 'r', 'G', '0', '\t',
    '\u{e9}',
];

/// A small xorshift generator: a stream must repeat exactly from its seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// `position sfen` with a real position, changed in one to three characters half the
/// time, and sometimes moves after it.
fn random_position(rng: &mut Rng) -> String {
    let mut sfen: Vec<char> = rng.pick(SFENS).chars().collect();
    if rng.below(2) == 0 {
        for _ in 0..1 + rng.below(3) {
            let i = rng.below(sfen.len());
            let c = SFEN_CHARS[rng.below(SFEN_CHARS.len())];
            match rng.below(3) {
                0 => sfen[i] = c,
                1 => sfen.insert(i, c),
                _ => {
                    sfen.remove(i);
                }
            }
        }
    }
    let mut line = format!("position sfen {}", sfen.into_iter().collect::<String>());
    if rng.below(3) == 0 {
        line.push_str(" moves");
        for _ in 0..rng.below(3) {
            line.push(' ');
            line.push_str(rng.pick(&["G*5b", "4a5b", "7g7f", "P*5e", "1a1b+", "x", "0000"]));
        }
    }
    line
}

/// Lines a USI engine may print on stdout.
fn is_protocol(line: &str) -> bool {
    ["id ", "option ", "info ", "checkmate ", "bestmove "]
        .iter()
        .any(|p| line.starts_with(p))
        || line == "usiok"
        || line == "readyok"
}

/// Seeded streams of commands, whole and random, sent without waiting so that they
/// arrive while searches run: the engine answers every `go` exactly once, prints nothing
/// on stdout but the protocol, is ready again at the end, and leaves cleanly on `quit`. A
/// panic on any input would break one of these. `KANJU_USI_FUZZ_SEEDS` sets the number of
/// streams (default 3; 400 passed in session 58).
#[test]
fn random_command_streams_do_not_break_the_engine() {
    let seeds: u64 = std::env::var("KANJU_USI_FUZZ_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    for seed in 1..=seeds {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let mut e = Engine::ready();
        let (mut gos, mut readies) = (0, 0);
        for _ in 0..300 {
            let line = match rng.below(10) {
                0..=2 => rng.pick(COMMANDS).to_string(),
                3 => random_position(&mut rng),
                _ => {
                    let n = 1 + rng.below(7);
                    (0..n)
                        .map(|_| rng.pick(WORDS))
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            };
            match line.split_whitespace().next() {
                Some("go") => gos += 1,
                Some("isready") => readies += 1,
                _ => {}
            }
            e.send(&line);
        }
        assert!(gos > 0, "seed {seed}: the stream should search");
        e.send("stop");
        e.send("isready");
        let mut answers = 0;
        for _ in 0..=readies {
            answers += e
                .until("readyok", common::QUICK)
                .iter()
                .filter(|l| common::is_answer(l))
                .count();
        }
        // A search stopped just before the last `isready` may answer after its `readyok`.
        while answers < gos {
            match e.next_line(common::QUICK) {
                Some(l) if common::is_answer(&l) => answers += 1,
                Some(_) => {}
                None => break,
            }
        }
        assert_eq!(answers, gos, "seed {seed}: {:?}", e.transcript);
        assert!(
            e.sync().iter().all(|l| !common::is_answer(l)),
            "seed {seed}: an extra answer"
        );
        if let Some(bad) = e.transcript.iter().find(|l| !is_protocol(l)) {
            panic!("seed {seed}: not a USI answer on stdout: {bad:?}");
        }
        e.send("quit");
        let status = e.wait_exit(common::QUICK);
        assert!(
            status.is_some_and(|s| s.success()),
            "seed {seed}: {status:?}"
        );
    }
}
