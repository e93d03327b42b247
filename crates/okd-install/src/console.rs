//! The terminal's standard error, shared by log lines and the one progress bar or spinner.
//!
//! indicatif redraws its bar in place; a log line written straight to stderr while a bar is
//! drawn would be overwritten or leave half a bar behind. Every console line therefore goes
//! through [`Stderr`], which hides the active bar while the line is written.

use std::io::Write;
use std::sync::Mutex;

use indicatif::ProgressBar;
use tracing_subscriber::fmt::MakeWriter;

/// The bar currently drawn on stderr, if any.
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Makes `bar` the one that log lines step around, until [`hide`]. A bar shown before is
/// cleared from the terminal: there is one line for progress.
pub(crate) fn show(bar: &ProgressBar) {
    let previous = ACTIVE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .replace(bar.clone());
    if let Some(previous) = previous {
        previous.finish_and_clear();
    }
}

/// Clears the active bar from the terminal and forgets it.
pub(crate) fn hide() {
    if let Some(bar) = ACTIVE.lock().unwrap_or_else(|p| p.into_inner()).take() {
        bar.finish_and_clear();
    }
}

/// Sets the message of the active bar, if one is shown.
pub(crate) fn set_message(message: String) {
    if let Some(bar) = ACTIVE.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
        bar.set_message(message);
    }
}

/// Writes `text` to stderr with the active bar hidden meanwhile.
fn write_around_bar(text: &[u8]) {
    let active = ACTIVE.lock().unwrap_or_else(|p| p.into_inner());
    // A console that went away (closed pipe) is no reason to fail the command.
    let write = || {
        let _ = std::io::stderr().lock().write_all(text);
    };
    match active.as_ref() {
        Some(bar) => bar.suspend(write),
        None => write(),
    }
}

/// `MakeWriter` for the console layer: one buffer per log line, written in one piece.
#[derive(Clone, Copy, Default)]
pub(crate) struct Stderr;

/// One log line being formatted; written out when dropped.
pub(crate) struct Line(Vec<u8>);

impl Write for Line {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        if !self.0.is_empty() {
            write_around_bar(&self.0);
        }
    }
}

impl<'a> MakeWriter<'a> for Stderr {
    type Writer = Line;

    fn make_writer(&'a self) -> Line {
        Line(Vec::new())
    }
}

/// Writes `text` to stdout; a closed pipe (`| head`) ends the output quietly instead of
/// panicking.
pub(crate) fn emit(text: &str) -> anyhow::Result<()> {
    use anyhow::Context as _;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to standard output"),
    }
}
