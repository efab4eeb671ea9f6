//! A USI conversation with the real `kanju` binary, for the integration tests.
//!
//! Timeouts here are generous on purpose: they only keep a broken engine from hanging
//! the suite. Latency is measured by `scripts/usi_stop_latency.py`, not asserted here.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Problems from `../shared/problems/tsume_short_tests.jsonl` (sources are named there),
/// copied here so the tests do not depend on the shared folder.
pub mod problems {
    /// antma-tsume1-6: mate in 1, G*5b.
    pub const MATE1: &str = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";
    /// antma-tsume3-2: mate in 3.
    pub const MATE3: &str = "3sks3/9/4S4/9/9/8B/9/9/9 b S 1";
    /// antma-tsume3-7: mate in 3.
    pub const MATE3B: &str = "7nl/7k1/6Ppp/9/9/9/9/9/9 b 2G2r2b2g4s3n3l15p 1";
    /// kh-met-nomate-2: no mate at all.
    pub const NOMATE: &str = "6R+P1/8k/7sp/9/9/9/9/9/9 b r2b4g3s4n4l16p 1";
    /// rsshogi-mate1-head-1: White to move mates in 1.
    pub const WHITE_MATE1: &str =
        "ln1gkg1nl/6+P2/2sppps1p/2p3p2/p8/P1P1P3P/2NPbPP2/3sK1SR1/L1+b2G1NL w R2Pgp 44";
    /// rsshogi-mate-contract-6 as transcribed in the shared file: White to move, but the
    /// white rook on 5d already gives check to the black king on 5a, so it is illegal.
    pub const NOT_TO_MOVE_IN_CHECK: &str = "4K4/2sP1Ps2/9/4r4/9/9/9/9/4k4 w - 1";
    /// Shogi Zuko #77 (tsume_edo_zukou_musou.jsonl, 19 plies): proven in milliseconds,
    /// then seconds of main-line work before its length is shown exact.
    pub const ZUKO77: &str = "9/9/9/2+R6/3+p5/1+p1lb4/3rk1S2/2+B1g4/2P1gsS2 b 2GNs3n3l15p 1";
    /// Microcosmos (1525 plies, from tsume_long_named.jsonl): no solver finishes it in the
    /// seconds a test allows, so it is the problem for timeouts, stop and quit.
    pub const HARD: &str =
        "g1+P1k1+P+P+L/1p3P3/+R+p2pp1pl/1NNsg+p2+R/+b+nL+P1+p3/1P3ssP1/2P1+Ps2N/4+P1P1L/+B5G1g b - 1";
}

/// A running engine with a thread collecting its output.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line received so far, for failure messages.
    pub transcript: Vec<String>,
}

/// The default wait for an answer that needs no search.
pub const QUICK: Duration = Duration::from_secs(20);
/// The wait for a search answer.
pub const SEARCH: Duration = Duration::from_secs(60);

impl Engine {
    /// Starts `kanju` (no arguments: USI mode).
    pub fn start() -> Engine {
        Engine::start_in(&std::env::current_dir().expect("cwd"))
    }

    /// Starts `kanju` in the working directory `dir`.
    pub fn start_in(dir: &std::path::Path) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kanju"))
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn kanju");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Engine {
            child,
            stdin,
            lines: rx,
            transcript: Vec::new(),
        }
    }

    /// Starts the engine and completes `usi`/`isready` with a small table.
    pub fn ready() -> Engine {
        let mut e = Engine::start();
        e.send("usi");
        e.until("usiok", QUICK);
        e.send("setoption name USI_Hash value 64");
        e.send("isready");
        e.until("readyok", QUICK);
        e
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to kanju");
        stdin.flush().expect("flush");
    }

    /// Closes the engine's input (end of file).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The next line within `timeout`, or `None`.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => {
                self.transcript.push(l.clone());
                Some(l)
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// All lines up to and including the first for which `pred` holds.
    pub fn collect_until(&mut self, pred: impl Fn(&str) -> bool, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(l) => {
                    let done = pred(&l);
                    got.push(l);
                    if done {
                        return got;
                    }
                }
                None => panic!(
                    "no expected line within {timeout:?}; got {got:?}; transcript {:?}",
                    self.transcript
                ),
            }
        }
    }

    /// All lines up to and including `line` exactly.
    pub fn until(&mut self, line: &str, timeout: Duration) -> Vec<String> {
        self.collect_until(|l| l == line, timeout)
    }

    /// Lines up to and including the `checkmate …` answer.
    pub fn until_checkmate(&mut self) -> Vec<String> {
        self.collect_until(|l| l.starts_with("checkmate"), SEARCH)
    }

    /// Sends `isready` and returns every line before `readyok`: a way to see everything
    /// the engine said about the commands sent before it. Left out are the empty lines
    /// the engine prints each second while it sets up a table, so that GUIs keep waiting
    /// for `readyok`: on fresh memory the first table can take longer than that, and a
    /// test counting the replies to a bad command then saw one line too many.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut v = self.until("readyok", QUICK);
        v.pop();
        v.retain(|l| !l.is_empty());
        v
    }

    /// `position sfen <sfen>` then `go mate <ms>`; returns the words after `checkmate`.
    pub fn mate(&mut self, sfen: &str, ms: u64) -> Vec<String> {
        self.send(&format!("position sfen {sfen}"));
        self.send(&format!("go mate {ms}"));
        let lines = self.until_checkmate();
        let last = lines.last().unwrap();
        last.split_whitespace().skip(1).map(String::from).collect()
    }

    /// Waits for the process to end.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                return Some(s);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Lines that are the final answer of a mate search.
pub fn checkmates(lines: &[String]) -> usize {
    lines.iter().filter(|l| l.starts_with("checkmate")).count()
}

/// Whether `line` ends a search: `checkmate …` after `go mate`, `bestmove …` after any
/// other `go`.
pub fn is_answer(line: &str) -> bool {
    line.starts_with("checkmate") || line.starts_with("bestmove")
}

/// Lines that report an error.
pub fn errors(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.starts_with("info string error"))
        .collect()
}
