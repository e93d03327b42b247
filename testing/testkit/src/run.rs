//! Running a command and keeping what it said, for the test tools (`real-host`), which map
//! [`RunError`] into their own error type.

use std::process::Command;

/// Why [`output_of`] returned no output.
#[derive(Debug)]
pub enum RunError {
    /// The program could not be started.
    Spawn {
        /// The command line.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// It ran and exited with a failure.
    Failed {
        /// The command line.
        command: String,
        /// Its exit status.
        status: String,
        /// The last lines of both streams.
        output: String,
    },
}

/// A command as a person would type it, for messages.
pub fn command_line(cmd: &Command) -> String {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `cmd`; its standard output when it exits 0, else the last `tail_lines` lines of
/// both streams.
pub fn output_of(cmd: &mut Command, tail_lines: usize) -> Result<String, RunError> {
    let out = cmd.output().map_err(|source| RunError::Spawn {
        command: command_line(cmd),
        source,
    })?;
    if !out.status.success() {
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        return Err(RunError::Failed {
            command: command_line(cmd),
            status: out.status.to_string(),
            output: tail(&text, tail_lines),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The last `lines` lines of `text`.
pub fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
