//! The background searcher: owns the solver (its table and threads) and runs one job at
//! a time, so the front end never blocks on a search.

use crate::output::Output;
use crate::panics::panic_text;
use crate::report;
use crate::session::Session;
use crossbeam_channel::{bounded, unbounded, Receiver, RecvTimeoutError, Sender};
use kanju_engine::Position;
use kanju_tsume::{Config, Limits, Solver};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A search to run.
pub struct Job {
    /// The root position.
    pub pos: Position,
    /// Its limits.
    pub limits: Limits,
    /// The solver configuration in force when `go` arrived.
    pub config: Config,
    /// Where the answer goes.
    pub session: Arc<Session>,
    /// When `go` arrived: the time limit counts from here, as the watchdog's does, so
    /// that allocating the table first does not make the solver overrun it.
    pub received: Instant,
}

/// Work for the searcher.
pub enum Request {
    /// `isready`: make sure a table of this configuration exists, then print `readyok`.
    Ready(Config),
    /// Empty the table.
    Clear,
    /// Run a search.
    Search(Box<Job>),
    /// Answer on the channel once every earlier request is done: at the end of input,
    /// the front end waits for this so that a `readyok` still owed is printed.
    Flush(Sender<()>),
}

/// Starts the searcher thread; dropping the returned sender ends it.
pub fn spawn(out: Output) -> Sender<Request> {
    let (tx, rx) = unbounded();
    let spawned = std::thread::Builder::new()
        .name("kanju-searcher".into())
        .spawn(move || run(rx, out));
    if let Err(e) = spawned {
        // Without a thread there is no engine; say so on stderr and let requests go nowhere.
        log::error!("cannot start the searcher thread: {e}");
    }
    tx
}

fn same_table(a: &Config, b: &Config) -> bool {
    a.threads == b.threads
        && a.hash_mb == b.hash_mb
        && a.progress_interval == b.progress_interval
        && a.generate_all_moves == b.generate_all_moves
}

/// Builds a solver for `config`, printing empty lines every second meanwhile so that
/// GUIs waiting for `readyok` do not give up on a large table.
fn allocate(config: &Config, out: &Output) -> Result<Solver, String> {
    let (tick_tx, tick_rx) = bounded::<()>(0);
    let ticker_out = out.clone();
    let ticker = std::thread::spawn(move || {
        while let Err(RecvTimeoutError::Timeout) = tick_rx.recv_timeout(Duration::from_secs(1)) {
            ticker_out.line("");
        }
    });
    let made = catch_unwind(AssertUnwindSafe(|| Solver::new(config.clone())));
    drop(tick_tx);
    let _ = ticker.join();
    made.map_err(|p| panic_text(&*p))
}

struct State {
    solver: Option<Solver>,
    out: Output,
}

impl State {
    fn ensure(&mut self, config: &Config) -> Result<&mut Solver, String> {
        if let Some(s) = self.solver.as_mut() {
            // Threads, interval and move generation change in place; the table is kept.
            if s.config().hash_mb == config.hash_mb && !same_table(s.config(), config) {
                s.set_config(config.clone());
            }
        }
        let fits = self
            .solver
            .as_ref()
            .is_some_and(|s| same_table(s.config(), config));
        if !fits {
            // Free the old table before allocating the new one: two large tables may not fit.
            self.solver = None;
            let s = allocate(config, &self.out)?;
            log::info!(
                "table ready: {} MiB, {} threads",
                config.hash_mb,
                config.threads
            );
            self.solver = Some(s);
        }
        Ok(self.solver.as_mut().expect("just ensured"))
    }

    fn search(&mut self, job: Job) {
        let Job {
            pos,
            mut limits,
            config,
            session,
            received,
        } = job;
        let failure = |why: String| {
            let last = if session.is_game() {
                "bestmove resign"
            } else {
                "checkmate timeout"
            };
            vec![format!("info string error: {why}"), last.to_string()]
        };
        let lines = match self.ensure(&config) {
            Err(e) => failure(format!("could not set up the solver: {e}")),
            Ok(solver) => {
                limits.time = limits.time.map(|t| t.saturating_sub(received.elapsed()));
                let s = Arc::clone(&session);
                let mut on_progress = move |p: &kanju_tsume::Progress| s.progress(p);
                let r = catch_unwind(AssertUnwindSafe(|| {
                    solver.solve(&pos, &limits, &session.stop, &mut on_progress)
                }));
                match r {
                    Ok(sol) if session.is_game() => report::game_answer(&sol),
                    Ok(sol) => report::mate_answer(&pos, &sol, session.defends()),
                    Err(p) => {
                        // A table a panicking search left behind cannot be trusted.
                        self.solver = None;
                        failure(format!("internal error in the solver: {}", panic_text(&*p)))
                    }
                }
            }
        };
        session.finish(lines);
    }
}

fn run(rx: Receiver<Request>, out: Output) {
    let mut st = State {
        solver: None,
        out: out.clone(),
    };
    for req in rx {
        match req {
            Request::Ready(config) => {
                if let Err(e) = st.ensure(&config) {
                    out.line(&format!(
                        "info string error: could not allocate the table: {e}"
                    ));
                }
                out.pay_ready(true);
            }
            Request::Clear => {
                if let Some(s) = st.solver.as_mut() {
                    if catch_unwind(AssertUnwindSafe(|| s.clear())).is_err() {
                        st.solver = None;
                    }
                }
            }
            Request::Search(job) => st.search(*job),
            Request::Flush(done) => {
                let _ = done.send(());
            }
        }
    }
}
