//! A loop on a thread of its own that keeps a journal: what the kubelet and API stand-ins
//! are built on.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Lines of what a background loop did, in order, also appended to a file when it has one.
#[derive(Clone)]
pub(crate) struct Journal {
    lines: Arc<Mutex<Vec<String>>>,
    file: Option<PathBuf>,
}

impl Journal {
    pub(crate) fn new(file: Option<PathBuf>) -> Journal {
        Journal {
            lines: Arc::new(Mutex::new(Vec::new())),
            file,
        }
    }

    /// Adds `line` unless it repeats the last one (a loop that waits says so once).
    pub(crate) fn note(&self, line: String) {
        let Ok(mut lines) = self.lines.lock() else {
            return;
        };
        if lines.last() == Some(&line) {
            return;
        }
        if let Some(file) = &self.file {
            append_line(file, &line);
        }
        lines.push(line);
    }

    pub(crate) fn lines(&self) -> Vec<String> {
        self.lines.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

/// A loop running `tick` every `every` until stopped (or dropped).
pub(crate) struct Background {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    journal: Journal,
}

impl Background {
    pub(crate) fn spawn(
        journal: Journal,
        every: Duration,
        mut tick: impl FnMut() + Send + 'static,
    ) -> Background {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                tick();
                std::thread::sleep(every);
            }
        });
        Background {
            stop,
            thread: Some(thread),
            journal,
        }
    }

    /// What the loop did so far.
    pub(crate) fn journal(&self) -> Vec<String> {
        self.journal.lines()
    }

    /// Ends the loop (after its current round) and returns its journal.
    pub(crate) fn stop(mut self) -> Vec<String> {
        self.halt();
        self.journal()
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.halt();
    }
}

/// Appends `line` to `file` (a journal a person can follow while the run goes on).
pub(crate) fn append_line(file: &std::path::Path, line: &str) {
    use std::io::Write as _;
    if let Ok(mut out) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
    {
        let _ = writeln!(out, "{line}");
    }
}
