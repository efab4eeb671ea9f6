//! The one writer of protocol lines.
//!
//! Every thread that answers the GUI (front end, searcher, progress callback, watchdog)
//! goes through one `Output`, which writes and flushes whole groups of lines under a
//! lock. That is what keeps `info` lines from being cut in half by a `checkmate`
//! written from another thread.
//!
//! It also keeps the answers in the order of the commands. An `isready` is answered by
//! the searcher thread once the table is set up, which can take seconds; a `go` sent
//! before its `readyok` (GUIs wait, scripts may not) can be answered meanwhile by the
//! watchdog or a `stop`. Such an answer is held until that `readyok` is out.

use std::fs::File;
use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard};

struct Sink {
    out: Box<dyn Write + Send>,
    /// The USI conversation log of `WriteDebugLog`, both directions.
    debug_log: Option<File>,
    /// `readyok` answers owed since the start, and those paid (printed, or given up).
    ready_owed: u64,
    ready_paid: u64,
    /// Answers waiting for a `readyok`: each with the count of paid ones it must follow.
    held: Vec<(u64, Vec<String>)>,
}

impl Sink {
    fn write(&mut self, lines: &[impl AsRef<str>]) {
        let mut text = String::new();
        for l in lines {
            text.push_str(l.as_ref());
            text.push('\n');
        }
        // A closed stdout means the GUI is gone; there is nobody left to tell.
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
        if let Some(f) = self.debug_log.as_mut() {
            for l in lines {
                let _ = writeln!(f, "< {}", l.as_ref());
            }
        }
    }
}

/// A shared, line-atomic writer for the USI stream.
#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Sink>>,
}

impl Output {
    /// Writes to the process's standard output.
    pub fn stdout() -> Output {
        Output::new(Box::new(std::io::stdout()))
    }

    /// Writes to any sink (tests use an in-memory buffer).
    pub fn new(out: Box<dyn Write + Send>) -> Output {
        Output {
            sink: Arc::new(Mutex::new(Sink {
                out,
                debug_log: None,
                ready_owed: 0,
                ready_paid: 0,
                held: Vec::new(),
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Sink> {
        // A panic elsewhere while holding the lock must not silence the engine.
        self.sink.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes one line and flushes.
    pub fn line(&self, line: &str) {
        self.lines(std::slice::from_ref(&line));
    }

    /// Writes several lines back to back, with nothing from other threads between them.
    pub fn lines<S: AsRef<str>>(&self, lines: &[S]) {
        self.lock().write(lines);
    }

    /// An `isready` was passed on to the searcher: one more `readyok` is owed. Returns how
    /// many have been owed in all, which a later answer gives [`Output::answer_after`].
    pub fn owe_ready(&self) -> u64 {
        let mut sink = self.lock();
        sink.ready_owed += 1;
        sink.ready_owed
    }

    /// How many `readyok` answers have been owed in all: what a command arriving now
    /// must follow.
    pub fn ready_owed(&self) -> u64 {
        self.lock().ready_owed
    }

    /// Pays the oldest `readyok` owed, printing it if `print`, then any answers that were
    /// waiting for it.
    pub fn pay_ready(&self, print: bool) {
        let mut sink = self.lock();
        if print {
            sink.write(&["readyok"]);
        }
        sink.ready_paid += 1;
        let paid = sink.ready_paid;
        let held = std::mem::take(&mut sink.held);
        let (now, later): (Vec<_>, Vec<_>) = held.into_iter().partition(|(n, _)| *n <= paid);
        sink.held = later;
        for (_, lines) in now {
            sink.write(&lines);
        }
    }

    /// Writes the answer to a command that arrived when `after` `readyok` answers had been
    /// owed: now if they have all been paid, else right after the last of them.
    pub fn answer_after<S: AsRef<str>>(&self, after: u64, lines: &[S]) {
        let mut sink = self.lock();
        if sink.ready_paid >= after {
            sink.write(lines);
        } else {
            let lines = lines.iter().map(|l| l.as_ref().to_string()).collect();
            sink.held.push((after, lines));
        }
    }

    /// Records a line received from the GUI in the debug log, if one is open.
    pub fn log_input(&self, line: &str) {
        let mut sink = self.lock();
        if let Some(f) = sink.debug_log.as_mut() {
            let _ = writeln!(f, "> {line}");
        }
    }

    /// Starts or stops the conversation log.
    pub fn set_debug_log(&self, file: Option<File>) {
        self.lock().debug_log = file;
    }
}

/// A writer that keeps what it is given, for tests that read an [`Output`] back.
#[cfg(test)]
#[derive(Clone, Default)]
pub(crate) struct Captured(Arc<Mutex<Vec<u8>>>);

#[cfg(test)]
impl Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
impl Captured {
    /// Everything written so far.
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_from_many_threads_stay_whole() {
        let buf = Captured::default();
        let out = Output::new(Box::new(buf.clone()));
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let out = out.clone();
                std::thread::spawn(move || {
                    for i in 0..200 {
                        out.lines(&[format!("info thread {t} line {i}"), format!("end {t} {i}")]);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let text = buf.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1600);
        for pair in lines.chunks(2) {
            let a: Vec<&str> = pair[0].split(' ').collect();
            assert_eq!(pair[1], format!("end {} {}", a[2], a[4]));
        }
    }

    /// `isready`, `go`, `isready`: an answer to the `go` given before the first `readyok`
    /// waits for it and no longer; one given after it goes out at once.
    #[test]
    fn answers_follow_the_readyok_owed_before_them() {
        let buf = Captured::default();
        let out = Output::new(Box::new(buf.clone()));
        out.answer_after(out.ready_owed(), &["checkmate nomate"]);
        let first = out.owe_ready();
        out.owe_ready();
        out.answer_after(first, &["checkmate timeout"]);
        assert_eq!(buf.text(), "checkmate nomate\n");
        out.pay_ready(true);
        assert_eq!(buf.text(), "checkmate nomate\nreadyok\ncheckmate timeout\n");
        out.answer_after(first, &["late"]);
        out.pay_ready(false);
        assert_eq!(
            buf.text(),
            "checkmate nomate\nreadyok\ncheckmate timeout\nlate\n"
        );
    }
}
