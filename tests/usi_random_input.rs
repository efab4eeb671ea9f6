//! Seeded random command streams, sent without waiting for answers, so that positions,
//! options and junk arrive while searches run. Whatever arrives, Kanju must not panic,
//! must answer every `isready` once, must print nothing on stdout but the protocol's
//! answers, and must leave on the `quit` that follows with status 0.
//!
//! The hand-picked bad inputs, each with its one error line, are in `usi_bad_input.rs`;
//! this test is for the orders and mixtures nobody thought to write down. A failure names
//! its seed, and the stream it sent is in the message. `KANJU_USI_FUZZ_SEEDS` changes the
//! number of streams (default 6).

mod common;
use common::problems;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

/// A small xorshift generator: the streams must repeat exactly from their seeds.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        items[self.below(items.len())]
    }
}

const SFENS: &[&str] = &[
    problems::MATE1,
    problems::MATE3,
    problems::MATE3B,
    problems::NOMATE,
    problems::WHITE_MATE1,
    problems::NOT_TO_MOVE_IN_CHECK,
    problems::ZUKO77,
    problems::HARD,
];

/// Moves to follow a position with: some legal somewhere, most not.
const MOVES: &[&str] = &[
    "G*5b", "4a5b", "7g7f", "3c3d", "P*5e", "1a1b+", "9i9a", "R*1a", "5c5b+", "x", "", "0000",
];

/// Characters a mutation may put into an SFEN.
const CHARS: &[char] = &[
    'k', 'K', 'p', 'P', '+', '*', '/', ' ', '1', '5', '9', 'b', 'w', '-', 'r', 'G', 'l', '0', 'é',
    '\t',
];

const TOKENS: &[&str] = &[
    "usi",
    "isready",
    "position",
    "sfen",
    "startpos",
    "moves",
    "go",
    "mate",
    "infinite",
    "nodes",
    "btime",
    "byoyomi",
    "stop",
    "setoption",
    "name",
    "value",
    "USI_Hash",
    "Threads",
    "0",
    "1",
    "-1",
    "99999999999999999999",
    "ponderhit",
    "gameover",
    "+",
    "*",
    "ｇｏ",
    "\t",
];

const OPTIONS: &[&str] = &[
    "USI_Hash",
    "Threads",
    "PvInterval",
    "NodesLimit",
    "RootIsAndNodeIfChecked",
    "GenerateAllLegalMoves",
    "ClearHash",
    "SpareRule",
    "FutileRule",
    "NoSuchOption",
];

const VALUES: &[&str] = &[
    "0",
    "1",
    "2",
    "16",
    "-5",
    "abc",
    "true",
    "false",
    "Classical",
    "AnyLength",
    "99999999999999999999",
    "",
];

fn mutated(rng: &mut Rng, sfen: &str) -> String {
    let mut s: Vec<char> = sfen.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let i = rng.below(s.len());
        let c = CHARS[rng.below(CHARS.len())];
        match rng.below(3) {
            0 => s[i] = c,
            1 => s.insert(i, c),
            _ => {
                s.remove(i);
            }
        }
    }
    s.into_iter().collect()
}

fn command(rng: &mut Rng) -> String {
    match rng.below(20) {
        0..=6 => {
            let sfen = rng.pick(SFENS);
            let sfen = if rng.below(2) == 0 {
                mutated(rng, sfen)
            } else {
                sfen.to_string()
            };
            let mut c = format!("position sfen {sfen}");
            if rng.below(3) == 0 {
                c.push_str(" moves");
                for _ in 0..rng.below(3) {
                    c.push(' ');
                    c.push_str(rng.pick(MOVES));
                }
            }
            c
        }
        7..=10 => rng
            .pick(&[
                "go mate 0",
                "go mate 30",
                "go mate 80",
                "go mate 50 nodes 200",
                "go mate infinite",
                "go btime 100 wtime 100 byoyomi 50",
                "go nodes 500",
            ])
            .to_string(),
        11..=13 => rng
            .pick(&[
                "stop",
                "isready",
                "usinewgame",
                "gameover lose",
                "ponderhit",
            ])
            .to_string(),
        14..=16 => format!(
            "setoption name {} value {}",
            rng.pick(OPTIONS),
            rng.pick(VALUES)
        ),
        _ => (0..rng.below(6))
            .map(|_| rng.pick(TOKENS))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// Lines a USI engine may print on stdout.
fn is_protocol(line: &str) -> bool {
    ["id ", "option ", "info ", "checkmate ", "bestmove "]
        .iter()
        .any(|p| line.starts_with(p))
        || line == "usiok"
        || line == "readyok"
}

#[test]
fn random_command_streams_are_served_without_a_panic() {
    let seeds: u64 = std::env::var("KANJU_USI_FUZZ_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6);
    for seed in 1..=seeds {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ seed.wrapping_mul(0xd1b5_4a32_d192_ed03));
        let mut lines = vec![
            "usi".to_string(),
            "setoption name USI_Hash value 16".to_string(),
            "isready".to_string(),
        ];
        lines.extend((0..60).map(|_| command(&mut rng)));
        // Whatever the stream left running, the engine must still answer.
        lines.extend(["stop", "isready"].map(String::from));
        // A command is its first word: `isready` with words after it is still one.
        let isready = lines
            .iter()
            .filter(|l| l.split_whitespace().next() == Some("isready"))
            .count();

        let mut child = Command::new(env!("CARGO_BIN_EXE_kanju"))
            .current_dir(std::env::temp_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn kanju");
        let mut stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let err = std::thread::spawn(move || {
            let mut s = String::new();
            stderr.read_to_string(&mut s).ok();
            s
        });
        stdin
            .write_all((lines.join("\n") + "\n").as_bytes())
            .expect("write to kanju");
        // Every `isready` answered: then `quit`, which must end the process.
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut out = Vec::new();
        while out.iter().filter(|l| *l == "readyok").count() < isready {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(l) => out.push(l),
                Err(_) => {
                    child.kill().ok();
                    panic!("seed {seed}: {isready} isready, answered {out:#?}; stream {lines:#?}");
                }
            }
        }
        stdin.write_all(b"quit\n").expect("write to kanju");
        drop(stdin);
        let status = loop {
            if let Some(s) = child.try_wait().expect("wait for kanju") {
                break s;
            }
            if Instant::now() > deadline {
                child.kill().ok();
                panic!("seed {seed}: kanju did not quit; stream {lines:#?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        out.extend(rx.iter());
        let err = err.join().unwrap();
        assert!(status.success(), "seed {seed}: {status}; stderr {err}");
        assert!(
            !err.contains("panicked"),
            "seed {seed}: {err}; stream {lines:#?}"
        );
        if let Some(bad) = out.iter().find(|l| !is_protocol(l)) {
            panic!("seed {seed}: not a USI answer on stdout: {bad:?}");
        }
        // Nothing answers an `isready` twice.
        let readyok = out.iter().filter(|l| *l == "readyok").count();
        assert_eq!(
            readyok, isready,
            "seed {seed}: stream {lines:#?}\nout {out:#?}"
        );
    }
}
