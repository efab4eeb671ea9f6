//! The one writer of protocol lines.
//!
//! Every thread that answers the GUI (front end, searcher, progress callback, watchdog)
//! goes through one `Output`, which writes and flushes whole groups of lines under a
//! lock. That is what keeps `info` lines from being cut in half by a `checkmate`
//! written from another thread.

use std::fs::File;
use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard};

struct Sink {
    out: Box<dyn Write + Send>,
    /// The USI conversation log of `WriteDebugLog`, both directions.
    debug_log: Option<File>,
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
        let mut sink = self.lock();
        let mut text = String::new();
        for l in lines {
            text.push_str(l.as_ref());
            text.push('\n');
        }
        // A closed stdout means the GUI is gone; there is nobody left to tell.
        let _ = sink.out.write_all(text.as_bytes());
        let _ = sink.out.flush();
        if let Some(f) = sink.debug_log.as_mut() {
            for l in lines {
                let _ = writeln!(f, "< {}", l.as_ref());
            }
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
}
