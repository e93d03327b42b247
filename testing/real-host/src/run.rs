//! Running a command and keeping what it said, for error messages.

use std::process::Command;

use crate::error::{Error, Result};

/// A command as a person would type it.
pub(crate) fn command_line(cmd: &Command) -> String {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `cmd`; its standard output when it exits 0, else an error with the end of both
/// streams.
pub(crate) fn output_of(cmd: &mut Command) -> Result<String> {
    let out = cmd.output().map_err(|source| Error::Spawn {
        command: command_line(cmd),
        source,
    })?;
    if !out.status.success() {
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        return Err(Error::Command {
            command: command_line(cmd),
            status: out.status.to_string(),
            output: tail(&text, 40),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The last `lines` lines of `text`.
pub(crate) fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
