//! The USI front end: reads the GUI's lines, keeps the option and position state, and
//! hands searches to the background searcher. It never waits on a search except for
//! the short grace `stop` allows, so `stop`, `quit` and `isready` are always answered.

use crate::command::{Command, Go, MateTime, Start};
use crate::options::{Effect, Options, DEBUG_LOG_FILE};
use crate::output::Output;
use crate::panics::panic_text;
use crate::report;
use crate::searcher::{self, Job, Request};
use crate::session::Session;
use crossbeam_channel::Sender;
use kanju_engine::{Color, Position};
use kanju_tsume::{Limits, RootMode};
use std::io::BufRead;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Duration;

/// How long `stop` lets the solver produce its own answer before answering for it.
/// Well inside the 100 ms promised to GUIs.
const STOP_GRACE: Duration = Duration::from_millis(40);

/// How long `quit` waits for answers still owed, such as the `readyok` of an `isready`
/// sent just before it. The process must be gone within the 100 ms promised to GUIs, and a
/// `readyok` whose table is still being allocated is not worth more.
const QUIT_GRACE: Duration = Duration::from_millis(40);

/// What the front end needs to know about the program around it.
#[derive(Clone, Debug)]
pub struct Identity {
    /// The `id name` value.
    pub name: String,
    /// The `id author` value.
    pub author: String,
}

/// Builds a position from a `position` command, checking every move.
pub fn build_position(start: &Start, moves: &[String]) -> Result<Position, String> {
    let mut pos = match start {
        Start::Startpos => Position::startpos(),
        Start::Sfen(s) => Position::from_sfen(s).map_err(|e| format!("{e}"))?,
    };
    for (i, text) in moves.iter().enumerate() {
        let m = pos
            .parse_usi_move(text)
            .map_err(|e| format!("move {} of the list: {e}", i + 1))?;
        pos.do_move(m);
    }
    Ok(pos)
}

/// How long a `go` with clock information may think. `None`: until done or `stop`.
pub fn game_budget(g: &Go, side: Color) -> Option<Duration> {
    if let Some(t) = g.movetime {
        return Some(Duration::from_millis(t.max(1)));
    }
    let (time, inc) = match side {
        Color::Black => (g.btime, g.binc),
        Color::White => (g.wtime, g.winc),
    };
    if time.is_none() && inc.is_none() && g.byoyomi.is_none() {
        return None;
    }
    // A mate engine in a game only helps when it is quick: a twentieth of the clock plus
    // what is given back each move, less a margin for the GUI's own latency.
    let budget = time.unwrap_or(0) / 20 + inc.unwrap_or(0) + g.byoyomi.unwrap_or(0);
    Some(Duration::from_millis(budget.saturating_sub(200).max(50)))
}

/// The USI engine state.
pub struct Frontend {
    out: Output,
    identity: Identity,
    options: Options,
    position: Option<Position>,
    searcher: Sender<Request>,
    current: Option<Arc<Session>>,
    /// `go ponder`'s budget, applied from `ponderhit` on.
    ponder_budget: Option<Duration>,
}

/// Why [`Frontend::handle`] asks the caller to stop reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep serving.
    Continue,
    /// `quit` was received.
    Quit,
}

impl Frontend {
    /// A front end writing to `out`, with its own searcher thread.
    pub fn new(out: Output, identity: Identity) -> Frontend {
        let searcher = searcher::spawn(out.clone());
        Frontend {
            out,
            identity,
            options: Options::default(),
            position: None,
            searcher,
            current: None,
            ponder_budget: None,
        }
    }

    fn error(&self, msg: &str) {
        self.out.line(&format!("info string error: {msg}"));
    }

    /// Passes a request to the searcher; false (and an error line) if it is gone.
    fn send(&self, r: Request) -> bool {
        let sent = self.searcher.send(r).is_ok();
        if !sent {
            self.error("the searcher thread is gone");
        }
        sent
    }

    /// The search still occupying the searcher, if any.
    fn busy(&self) -> Option<&Arc<Session>> {
        self.current.as_ref().filter(|s| !s.is_done())
    }

    /// Handles one line. Never panics: a failure inside becomes an `info string error`.
    pub fn handle(&mut self, line: &str) -> Flow {
        self.out.log_input(line);
        let cmd = Command::parse(line);
        log::debug!("<- {line}");
        match catch_unwind(AssertUnwindSafe(|| self.dispatch(cmd))) {
            Ok(flow) => flow,
            Err(p) => {
                self.error(&format!(
                    "internal error on '{}': {}",
                    line.trim(),
                    panic_text(&*p)
                ));
                Flow::Continue
            }
        }
    }

    /// A rejected `position`: a later `go` must not answer for the position before it, which
    /// the GUI no longer shows (a mate printed for the previous problem would read as an
    /// answer to this one). The engine keeps serving; `go` reports that no position is set.
    fn reject_position(&mut self, msg: &str) {
        self.position = None;
        self.error(&format!("{msg} (no position is set until a valid one)"));
    }

    fn dispatch(&mut self, cmd: Command) -> Flow {
        match cmd {
            Command::Usi => {
                let mut lines = vec![
                    format!("id name {}", self.identity.name),
                    format!("id author {}", self.identity.author),
                ];
                lines.extend(Options::usi_lines());
                lines.push("usiok".into());
                self.out.lines(&lines);
            }
            Command::IsReady => {
                if self.busy().is_some() {
                    // The table exists and is in use; allocation waits for the next search.
                    // A `readyok` still owed for the search's table goes out first.
                    self.out.answer_after(self.out.ready_owed(), &["readyok"]);
                } else {
                    self.out.owe_ready();
                    if !self.send(Request::Ready(self.options.solver_config())) {
                        self.out.pay_ready(false);
                    }
                }
            }
            Command::SetOption { name, value } => match self.options.set(&name, value.as_deref()) {
                Err(e) => self.error(&e),
                Ok(Effect::None) => {}
                Ok(Effect::ClearHash) => {
                    self.send(Request::Clear);
                }
                Ok(Effect::DebugLog(on)) => self.debug_log(on),
            },
            Command::UsiNewGame | Command::GameOver | Command::Empty => {}
            Command::Position { start, moves } => match build_position(&start, &moves) {
                Ok(p) => self.position = Some(p),
                Err(e) => self.reject_position(&format!("position: {e}")),
            },
            Command::Go(g) => self.go(g),
            Command::Stop => {
                if let Some(s) = self.current.clone() {
                    s.request_stop(STOP_GRACE);
                }
            }
            Command::PonderHit => {
                if let Some(s) = self.current.clone() {
                    s.ponderhit();
                    if let Some(b) = self.ponder_budget.take() {
                        s.watch(b);
                    }
                }
            }
            Command::Quit => {
                if let Some(s) = &self.current {
                    s.stop.store(true, std::sync::atomic::Ordering::SeqCst);
                }
                // An `isready` sent just before is still owed its `readyok`: it goes out
                // if the searcher gets to it in time.
                self.flush_within(Some(QUIT_GRACE));
                return Flow::Quit;
            }
            Command::InvalidPosition(e) => self.reject_position(&e),
            Command::Invalid(e) => self.error(&e),
            Command::Unknown(l) => self.error(&format!("unknown command '{l}'")),
        }
        Flow::Continue
    }

    fn debug_log(&mut self, on: bool) {
        if !on {
            self.out.set_debug_log(None);
            return;
        }
        match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(DEBUG_LOG_FILE)
        {
            Ok(f) => self.out.set_debug_log(Some(f)),
            Err(e) => self.error(&format!("WriteDebugLog: cannot open {DEBUG_LOG_FILE}: {e}")),
        }
    }

    fn go(&mut self, g: Go) {
        for w in &g.warnings {
            self.error(w);
        }
        // A `go` during a search is a GUI error; close the old search properly first so
        // that every `go` still gets exactly one answer.
        if let Some(s) = self.current.take() {
            if !s.is_answered() {
                s.request_stop(STOP_GRACE);
            }
        }
        let game = g.mate.is_none();
        let Some(pos) = self.position.clone() else {
            self.error("go: no position has been set");
            self.out.line(if game {
                "bestmove resign"
            } else {
                "checkmate timeout"
            });
            return;
        };
        let nodes = match (g.nodes, self.options.nodes_limit) {
            (Some(a), 0) => Some(a),
            (Some(a), b) => Some(a.min(b)),
            (None, 0) => None,
            (None, b) => Some(b),
        };
        let (time, hold, root) = if let Some(mt) = g.mate {
            let time = match mt {
                MateTime::Infinite => None,
                MateTime::Millis(ms) => Some(Duration::from_millis(ms)),
            };
            (time, false, self.options.mate_root())
        } else {
            let budget = if g.infinite || g.ponder {
                None
            } else {
                game_budget(&g, pos.side_to_move())
            };
            self.ponder_budget = if g.ponder {
                let mut g2 = g.clone();
                g2.ponder = false;
                game_budget(&g2, pos.side_to_move())
            } else {
                None
            };
            (budget, g.infinite || g.ponder, RootMode::Attacker)
        };
        let defends = report::root_defends(root, &pos);
        let session = Session::new(game, hold, defends, self.out.clone());
        let limits = Limits {
            time,
            nodes,
            max_mate_len: None,
            root,
        };
        let job = Job {
            pos,
            limits,
            config: self.options.solver_config(),
            session: Arc::clone(&session),
            received: std::time::Instant::now(),
        };
        self.send(Request::Search(Box::new(job)));
        if let Some(t) = time {
            session.watch(t);
        }
        self.current = Some(session);
    }

    /// Waits for the searcher to get through every request sent so far, for at most
    /// `grace` if one is given.
    fn flush_within(&self, grace: Option<Duration>) {
        let (tx, rx) = crossbeam_channel::bounded(1);
        if self.searcher.send(Request::Flush(tx)).is_ok() {
            // A timeout or a vanished searcher: either way there is nothing more to wait for.
            match grace {
                Some(g) => drop(rx.recv_timeout(g)),
                None => drop(rx.recv()),
            }
        }
    }

    /// End of input: let a running search finish and print its answer, and answer an
    /// `isready` still waiting for its table.
    pub fn drain(&mut self) {
        if let Some(s) = self.current.take() {
            if s.holds() {
                // `go infinite` would never end on its own, and no `stop` can come now.
                s.request_stop(STOP_GRACE);
            }
            s.wait_done(None);
            s.force_answer();
        }
        self.flush_within(None);
    }
}

/// Serves USI on `input` until `quit` or end of input. Returns after `quit` without
/// waiting for a search; the caller should exit the process then.
pub fn run(input: impl BufRead, out: Output, identity: Identity) -> Flow {
    let mut fe = Frontend::new(out, identity);
    let mut input = input;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                log::error!("reading the GUI's input: {e}");
                break;
            }
        }
        // Bytes that are not UTF-8 cannot form a valid command; keep going on the rest.
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim_end_matches(['\n', '\r']);
        if fe.handle(line) == Flow::Quit {
            return Flow::Quit;
        }
    }
    fe.drain();
    Flow::Continue
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(line: &str) -> Go {
        match Command::parse(line) {
            Command::Go(g) => g,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn budgets_from_clocks() {
        let ms = |d: Option<Duration>| d.map(|d| d.as_millis() as u64);
        assert_eq!(
            ms(game_budget(&go("go movetime 1500"), Color::Black)),
            Some(1500)
        );
        assert_eq!(
            ms(game_budget(
                &go("go btime 0 wtime 0 byoyomi 3000"),
                Color::White
            )),
            Some(2800)
        );
        assert_eq!(
            ms(game_budget(
                &go("go btime 60000 wtime 1000 binc 1000 winc 1000"),
                Color::Black
            )),
            Some(3800)
        );
        assert_eq!(
            ms(game_budget(
                &go("go btime 60000 wtime 1000 binc 1000 winc 1000"),
                Color::White
            )),
            Some(850)
        );
        // Out of time: still a short look rather than none.
        assert_eq!(
            ms(game_budget(&go("go btime 0 wtime 0"), Color::Black)),
            Some(50)
        );
        assert_eq!(game_budget(&go("go"), Color::Black), None);
        assert_eq!(game_budget(&go("go infinite"), Color::Black), None);
    }
}
