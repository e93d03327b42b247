//! The interactive `create install-config` survey: inquire prompts in front of the install
//! config crate's question logic (which validates every answer and is tested without a
//! terminal).

use std::path::PathBuf;

use anyhow::{Context, Result};
use installconfig::survey::{Prompter, SurveyError, Validator};

/// Answers survey questions in the terminal.
struct Terminal;

impl Prompter for Terminal {
    fn select(&mut self, message: &str, options: &[String]) -> Result<String, SurveyError> {
        inquire::Select::new(message, options.to_vec())
            .prompt()
            .map_err(prompt_error)
    }

    fn text(
        &mut self,
        message: &str,
        default: Option<String>,
        validator: Validator<'_>,
    ) -> Result<String, SurveyError> {
        ask_until_valid(validator, || {
            let mut prompt = inquire::Text::new(message);
            if let Some(d) = default.as_deref() {
                prompt = prompt.with_default(d);
            }
            prompt.prompt()
        })
    }

    fn secret(&mut self, message: &str, validator: Validator<'_>) -> Result<String, SurveyError> {
        ask_until_valid(validator, || {
            inquire::Password::new(message)
                .without_confirmation()
                .with_display_mode(inquire::PasswordDisplayMode::Masked)
                .prompt()
        })
    }
}

/// Asks again, after saying what is wrong, until the validator accepts the answer. (inquire's
/// own validators must be `'static`, the survey's borrow the config being built.)
fn ask_until_valid(
    validator: Validator<'_>,
    mut ask: impl FnMut() -> Result<String, inquire::InquireError>,
) -> Result<String, SurveyError> {
    loop {
        let answer = ask().map_err(prompt_error)?;
        match validator(&answer) {
            Ok(()) => return Ok(answer),
            Err(why) => eprintln!("  {why}"),
        }
    }
}

/// Esc and Ctrl-C cancel the survey; anything else is a prompt failure.
fn prompt_error(e: inquire::InquireError) -> SurveyError {
    match e {
        inquire::InquireError::OperationCanceled | inquire::InquireError::OperationInterrupted => {
            SurveyError::Cancelled
        }
        other => SurveyError::Prompt(other.to_string()),
    }
}

/// Public keys in `~/.ssh` offered as answers.
fn found_ssh_keys() -> Vec<(PathBuf, String)> {
    let Some(home) = std::env::var_os("HOME") else {
        return Vec::new();
    };
    let dir = PathBuf::from(home).join(".ssh");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut keys: Vec<(PathBuf, String)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pub"))
        .filter_map(|p| {
            Some((
                p.clone(),
                // Regular files only (a FIFO named *.pub must not hang the survey), capped.
                String::from_utf8(atomic_file::input::read_named(&p, 64 << 10).ok()?)
                    .ok()?
                    .trim()
                    .to_string(),
            ))
        })
        .collect();
    keys.sort();
    keys
}

/// Asks the questions and returns the install-config YAML to write.
pub(crate) fn run_interactive() -> Result<String> {
    let config = installconfig::survey::run_survey(&mut Terminal, found_ssh_keys())
        .context("install-config survey")?;
    Ok(config.to_yaml())
}
