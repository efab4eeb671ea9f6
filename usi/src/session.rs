//! One search as the GUI sees it: started by `go`, closed by exactly one final line.
//!
//! Three parties may want to close a search: the searcher when the solver returns, the
//! front end on `stop`, and a watchdog when the time is up. Whoever comes first under the
//! state lock answers; the others find the session answered and stay silent. That is
//! how `stop` gets exactly one `checkmate` within 100 ms even if the solver is slow to
//! notice the stop flag, and why no `info` line can follow the answer.

use crate::output::Output;
use crate::report;
use crossbeam_channel::{bounded, Receiver, RecvTimeoutError, Sender};
use kanju_engine::Move;
use kanju_tsume::Progress;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

enum State {
    /// Searching; `best` is the latest verified mate from the progress reports, `bound`
    /// the last length bound announced.
    Running {
        best: Option<Vec<Move>>,
        bound: Option<u32>,
    },
    /// The result of a `go infinite`/`go ponder` search that finished before `stop`:
    /// USI forbids `bestmove` until the GUI asks.
    Held(Vec<String>),
    /// The final line has been written.
    Answered,
}

/// A search in progress, shared by the front end, the searcher and the watchdog.
pub struct Session {
    /// Raised to make the solver return early.
    pub stop: AtomicBool,
    /// The GUI sent `stop` (as opposed to a watchdog raising `stop`).
    stop_requested: AtomicBool,
    /// `go infinite` or `go ponder`: hold `bestmove` until `stop`/`ponderhit`.
    hold: AtomicBool,
    /// Answered with `checkmate` (go mate) rather than `bestmove`.
    game: bool,
    /// The root player is the defender: mate scores are negative.
    defends: bool,
    state: Mutex<State>,
    /// Dropped by the searcher when the solver has returned; receivers then see a disconnect.
    done_tx: Mutex<Option<Sender<()>>>,
    done_rx: Receiver<()>,
    out: Output,
    /// The `readyok` answers owed when `go` arrived: the answer follows them.
    after_ready: u64,
}

impl Session {
    /// A new, running session, answered after every `readyok` owed by now.
    pub fn new(game: bool, hold: bool, defends: bool, out: Output) -> Arc<Session> {
        let after_ready = out.ready_owed();
        let (tx, rx) = bounded(0);
        Arc::new(Session {
            stop: AtomicBool::new(false),
            stop_requested: AtomicBool::new(false),
            hold: AtomicBool::new(hold),
            game,
            defends,
            state: Mutex::new(State::Running {
                best: None,
                bound: None,
            }),
            done_tx: Mutex::new(Some(tx)),
            done_rx: rx,
            out,
            after_ready,
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// True for a `go` (bestmove) search, false for `go mate`.
    pub fn is_game(&self) -> bool {
        self.game
    }

    /// True while the answer must wait for `stop` (`go infinite`, `go ponder`).
    pub fn holds(&self) -> bool {
        self.hold.load(Ordering::SeqCst)
    }

    /// True if the root player defends.
    pub fn defends(&self) -> bool {
        self.defends
    }

    /// A progress report from the solver: print it unless the search is already answered.
    pub fn progress(&self, p: &Progress) {
        let mut st = self.state();
        if let State::Running { best, bound } = &mut *st {
            if p.mate_len.is_some() && !p.pv.is_empty() {
                *best = Some(p.pv.clone());
            }
            self.out.line(&report::progress_line(p, self.defends));
            // Announced once per bound, as it falls.
            if let Some(n) = p.length_bound.filter(|&n| Some(n) != *bound) {
                *bound = Some(n);
                self.out.line(&report::bound_line(n));
            }
        }
    }

    /// The solver returned; `lines` end with the final answer.
    pub fn finish(&self, lines: Vec<String>) {
        {
            let mut st = self.state();
            if let State::Running { .. } = *st {
                if self.game
                    && self.hold.load(Ordering::SeqCst)
                    && !self.stop_requested.load(Ordering::SeqCst)
                {
                    *st = State::Held(lines);
                } else {
                    self.out.answer_after(self.after_ready, &lines);
                    *st = State::Answered;
                }
            }
        }
        self.done_tx
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
    }

    /// Answers now with what is known, unless someone already has.
    pub fn force_answer(&self) {
        let mut st = self.state();
        match std::mem::replace(&mut *st, State::Answered) {
            State::Running { best, .. } => self.out.answer_after(
                self.after_ready,
                &report::forced_answer(best.as_deref(), self.game, self.defends),
            ),
            State::Held(lines) => self.out.answer_after(self.after_ready, &lines),
            State::Answered => {}
        }
    }

    /// The GUI's `stop`: ask the solver to return, give it `grace` to do so with its own
    /// answer, then answer on its behalf.
    pub fn request_stop(&self, grace: Duration) {
        self.stop_requested.store(true, Ordering::SeqCst);
        self.stop.store(true, Ordering::SeqCst);
        let held = matches!(*self.state(), State::Held(_));
        if !held {
            self.wait_done(Some(grace));
        }
        self.force_answer();
    }

    /// `ponderhit`: from now on the result may be sent as soon as it exists.
    pub fn ponderhit(&self) {
        self.hold.store(false, Ordering::SeqCst);
        let held = matches!(*self.state(), State::Held(_));
        if held {
            self.force_answer();
        }
    }

    /// True once the final line is out.
    pub fn is_answered(&self) -> bool {
        matches!(*self.state(), State::Answered)
    }

    /// True once the solver has returned (the searcher is free again).
    pub fn is_done(&self) -> bool {
        matches!(
            self.done_rx.try_recv(),
            Err(crossbeam_channel::TryRecvError::Disconnected)
        )
    }

    /// Waits until the solver has returned, at most `timeout` (`None`: forever).
    /// Returns true if it has.
    pub fn wait_done(&self, timeout: Option<Duration>) -> bool {
        match timeout {
            None => {
                let _ = self.done_rx.recv();
                true
            }
            Some(t) => !matches!(self.done_rx.recv_timeout(t), Err(RecvTimeoutError::Timeout)),
        }
    }

    /// Enforces a deadline from outside the solver: raise `stop` a little after it, and
    /// answer on the solver's behalf if it still has not returned shortly after that.
    pub fn watch(self: &Arc<Session>, deadline: Duration) {
        let s = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("kanju-watchdog".into())
            .spawn(move || {
                if s.wait_done(Some(deadline + Duration::from_millis(50))) {
                    return;
                }
                s.stop.store(true, Ordering::SeqCst);
                if !s.wait_done(Some(Duration::from_millis(200))) {
                    log::warn!("solver overran its deadline; answering without it");
                    s.force_answer();
                }
            });
        if let Err(e) = spawned {
            log::warn!("no watchdog thread: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Captured;

    #[test]
    fn stop_answers_once_even_if_the_solver_answers_later() {
        let buf = Captured::default();
        let s = Session::new(false, false, false, Output::new(Box::new(buf.clone())));
        s.request_stop(Duration::from_millis(10));
        s.finish(vec!["checkmate nomate".into()]);
        assert_eq!(buf.text(), "checkmate timeout\n");
        assert!(s.is_done());
    }

    #[test]
    fn solver_answer_wins_when_first() {
        let buf = Captured::default();
        let s = Session::new(false, false, false, Output::new(Box::new(buf.clone())));
        s.finish(vec!["checkmate G*5b".into()]);
        s.request_stop(Duration::from_millis(10));
        s.force_answer();
        assert_eq!(buf.text(), "checkmate G*5b\n");
    }

    #[test]
    fn infinite_game_search_holds_bestmove_until_stop() {
        let buf = Captured::default();
        let s = Session::new(true, true, false, Output::new(Box::new(buf.clone())));
        s.finish(vec!["bestmove 7g7f".into()]);
        assert_eq!(buf.text(), "");
        s.request_stop(Duration::from_millis(10));
        assert_eq!(buf.text(), "bestmove 7g7f\n");
    }

    #[test]
    fn watchdog_answers_for_a_stuck_solver() {
        let buf = Captured::default();
        let s = Session::new(false, false, false, Output::new(Box::new(buf.clone())));
        s.watch(Duration::from_millis(10));
        std::thread::sleep(Duration::from_millis(600));
        assert!(s.stop.load(Ordering::SeqCst));
        assert_eq!(buf.text(), "checkmate timeout\n");
    }
}
