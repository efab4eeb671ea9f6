//! `kanju solve FILE`: many problems, several at once, results streamed as JSON Lines
//! in input order.

use super::args::SolveArgs;
use super::problems::{parse_line, Line, Problem};
use super::solve::{self, json_record, Solved};
use crossbeam_channel::{unbounded, Receiver, Sender};
use kanju_tsume::{Outcome, Solver};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Read, Write};
use std::time::{Duration, Instant};

/// How one problem ended, for the summary.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Status {
    Mate { len: usize, expected: Option<u64> },
    NoMate,
    Unknown,
    Error,
}

#[derive(Default)]
struct Tally {
    mate: usize,
    nomate: usize,
    unknown: usize,
    errors: usize,
    with_expected: usize,
    matched: usize,
}

impl Tally {
    fn add(&mut self, s: Status) {
        match s {
            Status::Mate { len, expected } => {
                self.mate += 1;
                if let Some(e) = expected {
                    self.with_expected += 1;
                    if e == len as u64 {
                        self.matched += 1;
                    }
                }
            }
            Status::NoMate => self.nomate += 1,
            Status::Unknown => self.unknown += 1,
            Status::Error => self.errors += 1,
        }
    }

    fn done(&self) -> usize {
        self.mate + self.nomate + self.unknown + self.errors
    }
}

fn status_of(p: &Problem, r: &Result<Solved, String>) -> Status {
    match r {
        Err(_) => Status::Error,
        Ok(s) => match &s.sol.outcome {
            Outcome::Mate(l) => Status::Mate {
                len: l.len(),
                expected: p.expected_plies,
            },
            Outcome::NoMate => Status::NoMate,
            Outcome::Unknown(_) => Status::Unknown,
        },
    }
}

struct Done {
    index: usize,
    json: String,
    status: Status,
    error: Option<String>,
    line: usize,
}

fn worker(args: SolveArgs, jobs: Receiver<(usize, Problem)>, results: Sender<Done>) {
    let mut solver: Option<Solver> = None;
    for (index, p) in jobs {
        let s = solver.get_or_insert_with(|| Solver::new(solve::config(&args, Duration::ZERO)));
        let r = solve::solve(s, &p, &args, &mut |_| {});
        if r.as_ref().is_err_and(|e| e.starts_with("internal error")) {
            solver = None;
        } else if let Some(s) = solver.as_mut() {
            // Each problem starts from an empty table, so a result does not depend on
            // which problems came before it in the file.
            s.clear();
        }
        let done = Done {
            index,
            json: json_record(&p, &r),
            status: status_of(&p, &r),
            error: r.as_ref().err().cloned(),
            line: p.line,
        };
        if results.send(done).is_err() {
            return;
        }
    }
}

fn read_source(source: &str) -> Result<String, String> {
    let bytes = if source == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        b
    } else {
        std::fs::read(source).map_err(|e| format!("cannot read '{source}': {e}"))?
    };
    // A file that is not text is still read line by line; each line then reports itself.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn bar(t: &Tally, total: usize, start: Instant) -> String {
    const W: usize = 30;
    let filled = (t.done() * W).checked_div(total).unwrap_or(W);
    format!(
        "\r[{}{}] {}/{}  mate {}  nomate {}  unknown {}  errors {}  {:.0}s ",
        "#".repeat(filled),
        ".".repeat(W - filled),
        t.done(),
        total,
        t.mate,
        t.nomate,
        t.unknown,
        t.errors,
        start.elapsed().as_secs_f64()
    )
}

/// Solves every problem of `source` (a path, or `-` for standard input). Returns the
/// exit code: 0, 1 if some line was not a problem, 2 if the source could not be read.
pub fn run(args: &SolveArgs, source: &str) -> i32 {
    let text = match read_source(source) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("kanju: {e}");
            return 2;
        }
    };
    let items: Vec<(usize, Line)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, parse_line(i + 1, l)))
        .filter(|(_, l)| *l != Line::Skip)
        .collect();
    if items.is_empty() {
        eprintln!("kanju: '{source}' holds no problems");
        return 1;
    }
    let total = items.len();
    let start = Instant::now();
    let show_bar = !args.quiet && std::io::stderr().is_terminal();

    let (job_tx, job_rx) = unbounded::<(usize, Problem)>();
    let (res_tx, res_rx) = unbounded::<Done>();
    let mut pending: BTreeMap<usize, Done> = BTreeMap::new();
    for (index, (line, item)) in items.into_iter().enumerate() {
        match item {
            Line::Problem(p) => {
                let _ = job_tx.send((index, p));
            }
            Line::Error(e) => {
                let p = Problem {
                    line,
                    name: None,
                    start: crate::command::Start::Startpos,
                    moves: Vec::new(),
                    expected_plies: None,
                };
                let r = Err(e.clone());
                let mut o = super::json::Obj::new();
                o.put("line", line as u64)
                    .put("result", "error")
                    .put("error", e.as_str());
                pending.insert(
                    index,
                    Done {
                        index,
                        json: o.render(),
                        status: status_of(&p, &r),
                        error: Some(e),
                        line,
                    },
                );
            }
            Line::Skip => {}
        }
    }
    drop(job_tx);
    let workers: Vec<_> = (0..args.jobs.min(total))
        .map(|_| {
            let (a, rx, tx) = (args.clone(), job_rx.clone(), res_tx.clone());
            std::thread::spawn(move || worker(a, rx, tx))
        })
        .collect();
    drop(res_tx);

    let stdout = std::io::stdout();
    let mut tally = Tally::default();
    let mut next = 0;
    let mut flush_ready = |pending: &mut BTreeMap<usize, Done>, tally: &mut Tally| {
        while let Some(d) = pending.remove(&next) {
            let mut out = stdout.lock();
            let _ = writeln!(out, "{}", d.json);
            let _ = out.flush();
            if let Some(e) = &d.error {
                if show_bar {
                    eprint!("\r\x1b[K");
                }
                eprintln!("kanju: line {}: {e}", d.line);
            }
            tally.add(d.status);
            next += 1;
        }
        if show_bar {
            eprint!("{}", bar(tally, total, start));
        }
    };
    flush_ready(&mut pending, &mut tally);
    for d in res_rx {
        pending.insert(d.index, d);
        flush_ready(&mut pending, &mut tally);
    }
    for w in workers {
        if w.join().is_err() {
            eprintln!("kanju: a worker thread failed");
        }
    }
    // A worker that died leaves holes; report them rather than hang or drop them silently.
    if tally.done() < total {
        eprintln!("kanju: {} problems got no result", total - tally.done());
    }
    if show_bar {
        eprintln!();
    }
    if !args.quiet {
        let mut s = format!(
            "{} problems: {} mate, {} nomate, {} unknown, {} errors",
            total, tally.mate, tally.nomate, tally.unknown, tally.errors
        );
        if tally.with_expected > 0 {
            s.push_str(&format!(
                "; {} of {} mates have the expected length",
                tally.matched, tally.with_expected
            ));
        }
        s.push_str(&format!("; {:.1} s", start.elapsed().as_secs_f64()));
        eprintln!("{s}");
    }
    if tally.errors > 0 || tally.done() < total {
        1
    } else {
        0
    }
}
