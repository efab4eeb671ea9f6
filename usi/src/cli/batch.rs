//! `kanju solve FILE` and `kanju brinkmate FILE`: many problems, several at once, results
//! streamed as JSON Lines in input order.

use super::guard;
use super::job::Job;
use super::json::Obj;
use super::problems::{parse_line, Line, Problem};
use crossbeam_channel::{unbounded, Receiver, Sender};
use kanju_tsume::Solver;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Read, Write};
use std::time::Instant;

/// How one problem ended, for the summary.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Status {
    /// The result word; `None` for an error.
    result: Option<&'static str>,
    /// See [`Job::matched`].
    matched: Option<bool>,
}

impl Status {
    const ERROR: Status = Status {
        result: None,
        matched: None,
    };
}

struct Tally {
    /// A count for each result word, in the order the summary shows them.
    results: Vec<(&'static str, usize)>,
    errors: usize,
    with_expected: usize,
    matched: usize,
}

impl Tally {
    fn new(words: &[&'static str]) -> Tally {
        Tally {
            results: words.iter().map(|&w| (w, 0)).collect(),
            errors: 0,
            with_expected: 0,
            matched: 0,
        }
    }

    fn add(&mut self, s: Status) {
        let Some(word) = s.result else {
            self.errors += 1;
            return;
        };
        match self.results.iter_mut().find(|(w, _)| *w == word) {
            Some((_, n)) => *n += 1,
            // A word the job did not declare is still counted, not lost.
            None => self.results.push((word, 1)),
        }
        if let Some(m) = s.matched {
            self.with_expected += 1;
            self.matched += usize::from(m);
        }
    }

    fn done(&self) -> usize {
        self.results.iter().map(|(_, n)| n).sum::<usize>() + self.errors
    }

    /// The counts, errors last: `3 mate, 1 nomate, 2 errors` for the summary (number
    /// first), `mate 3  nomate 1  errors 2` for the bar (a label, then its number).
    fn counts(&self, sep: &str, number_first: bool) -> String {
        self.results
            .iter()
            .copied()
            .chain([("errors", self.errors)])
            .map(|(w, n)| {
                if number_first {
                    format!("{n} {w}")
                } else {
                    format!("{w} {n}")
                }
            })
            .collect::<Vec<_>>()
            .join(sep)
    }
}

struct Done {
    index: usize,
    json: String,
    status: Status,
    error: Option<String>,
    line: usize,
}

fn worker<J: Job>(job: J, jobs: Receiver<(usize, Problem)>, results: Sender<Done>) {
    let mut solver: Option<Solver> = None;
    for (index, p) in jobs {
        let s = solver.get_or_insert_with(|| job.solver());
        let r = job.search(s, &p);
        if r.as_ref().is_err_and(|e| guard::is_internal(e)) {
            solver = None;
        } else if let Some(s) = solver.as_mut() {
            // Each problem starts from an empty table, so a result does not depend on
            // which problems came before it in the file.
            s.clear();
        }
        let status = match &r {
            Err(_) => Status::ERROR,
            Ok(f) => Status {
                result: Some(J::result_word(f)),
                matched: J::matched(&p, f),
            },
        };
        let done = Done {
            index,
            json: job.json_record(&p, &r),
            status,
            error: r.err(),
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
        "\r[{}{}] {}/{}  {}  {:.0}s ",
        "#".repeat(filled),
        ".".repeat(W - filled),
        t.done(),
        total,
        t.counts("  ", false),
        start.elapsed().as_secs_f64()
    )
}

/// Runs `job` on every problem of `source` (a path, or `-` for standard input). Returns
/// the exit code: 0, 1 if some line was not a problem, 2 if the source could not be read.
pub fn run<J: Job>(job: &J, source: &str) -> i32 {
    let args = job.common();
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
                let mut o = Obj::new();
                o.put("line", line as u64)
                    .put("result", "error")
                    .put("error", e.as_str());
                let done = Done {
                    index,
                    json: o.render(),
                    status: Status::ERROR,
                    error: Some(e),
                    line,
                };
                pending.insert(index, done);
            }
            Line::Skip => {}
        }
    }
    drop(job_tx);
    let workers: Vec<_> = (0..args.jobs.min(total))
        .map(|_| {
            let (j, rx, tx) = (job.clone(), job_rx.clone(), res_tx.clone());
            std::thread::spawn(move || worker(j, rx, tx))
        })
        .collect();
    drop(res_tx);

    let stdout = std::io::stdout();
    let mut tally = Tally::new(J::RESULTS);
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
        let mut s = format!("{total} problems: {}", tally.counts(", ", true));
        if tally.with_expected > 0 {
            s.push_str(&format!(
                "; {} of {} {}",
                tally.matched,
                tally.with_expected,
                J::MATCHED
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
