//! Running the gather script on the bootstrap host and following its output.

use std::collections::VecDeque;

use russh::ChannelMsg;
use russh::client::Handle;

use crate::connection::{Client, address};
use crate::events::RemoteStream;
use crate::{GatherError, GatherEvent, GatherOptions};

/// How many trailing output lines a remote failure reports.
const LAST_LINES: usize = 20;

/// Quotes one argument for a POSIX shell, leaving plain words alone.
pub(crate) fn shell_quote(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:=@,+%".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// The remote command line: the configured command followed by quoted arguments.
pub(crate) fn command_line(opts: &GatherOptions) -> String {
    let mut line = format!(
        "{} --id {}",
        opts.remote_command.trim(),
        shell_quote(&opts.gather_id)
    );
    for master in &opts.masters {
        line.push(' ');
        line.push_str(&shell_quote(master));
    }
    line
}

/// Splits the output streams into lines, reports each, and remembers the last few.
#[derive(Default)]
struct Lines {
    partial: [Vec<u8>; 2],
    last: VecDeque<String>,
}

impl Lines {
    fn push(&mut self, stream: RemoteStream, data: &[u8], log: &mut dyn FnMut(GatherEvent)) {
        let index = stream as usize;
        self.partial[index].extend_from_slice(data);
        while let Some(pos) = self.partial[index].iter().position(|b| *b == b'\n') {
            let rest = self.partial[index].split_off(pos + 1);
            let line = std::mem::replace(&mut self.partial[index], rest);
            self.emit(stream, &line, log);
        }
    }

    fn flush(&mut self, log: &mut dyn FnMut(GatherEvent)) {
        for stream in [RemoteStream::Stdout, RemoteStream::Stderr] {
            let line = std::mem::take(&mut self.partial[stream as usize]);
            if !line.is_empty() {
                self.emit(stream, &line, log);
            }
        }
    }

    fn emit(&mut self, stream: RemoteStream, raw: &[u8], log: &mut dyn FnMut(GatherEvent)) {
        let line = String::from_utf8_lossy(raw)
            .trim_end_matches(['\n', '\r'])
            .to_string();
        if self.last.len() == LAST_LINES {
            self.last.pop_front();
        }
        self.last.push_back(line.clone());
        log(GatherEvent::RemoteLine { stream, line });
    }
}

/// What the channel told us so far.
struct Run<'a> {
    lines: Lines,
    /// Replies to our requests arrive in order: agent forwarding (if asked), then exec.
    pending: VecDeque<&'static str>,
    failure: Option<String>,
    exit_code: Option<u32>,
    forward_detail: &'a str,
}

impl Run<'_> {
    fn handle(&mut self, msg: ChannelMsg, log: &mut dyn FnMut(GatherEvent)) {
        match msg {
            ChannelMsg::Success => self.reply(true, log),
            ChannelMsg::Failure => self.reply(false, log),
            ChannelMsg::Data { data } => self.lines.push(RemoteStream::Stdout, &data, log),
            ChannelMsg::ExtendedData { data, ext: 1 } => {
                self.lines.push(RemoteStream::Stderr, &data, log)
            }
            ChannelMsg::ExitStatus { exit_status } => self.exit_code = Some(exit_status),
            ChannelMsg::ExitSignal {
                signal_name,
                error_message,
                ..
            } => {
                let text = format!("was killed by signal {signal_name:?} {error_message}");
                self.failure = Some(text.trim_end().to_string());
            }
            _ => {}
        }
    }

    fn reply(&mut self, ok: bool, log: &mut dyn FnMut(GatherEvent)) {
        match self.pending.pop_front() {
            Some("agent") => {
                let detail = if ok {
                    self.forward_detail.to_string()
                } else {
                    "refused by the bootstrap host (AllowAgentForwarding no?); it cannot log in \
                     to the masters with our keys, so their logs will be missing"
                        .to_string()
                };
                log(GatherEvent::AgentForwarding { detail });
            }
            Some(_) if !ok => self.failure = Some("was refused by the SSH server".to_string()),
            _ => {}
        }
    }

    fn finish(mut self, log: &mut dyn FnMut(GatherEvent)) -> Result<Vec<String>, GatherError> {
        self.lines.flush(log);
        let last_lines: Vec<String> = self.lines.last.into_iter().collect();
        let status = match (self.failure, self.exit_code) {
            (Some(failure), _) => failure,
            (None, Some(0)) => return Ok(last_lines),
            (None, Some(code)) => format!("exited with status {code}"),
            (None, None) => "ended without an exit status (connection lost?)".to_string(),
        };
        Err(GatherError::RemoteFailed { status, last_lines })
    }
}

/// Runs the gather script (with agent forwarding when `forward_detail` is set) and returns
/// its last output lines.
pub(crate) async fn run_gather(
    handle: &Handle<Client>,
    opts: &GatherOptions,
    forward_detail: Option<&str>,
    log: &mut dyn FnMut(GatherEvent),
) -> Result<Vec<String>, GatherError> {
    let session_error = |doing: &str, e: russh::Error| GatherError::Session {
        address: address(opts),
        doing: doing.to_string(),
        reason: e.to_string(),
    };
    let mut channel = handle
        .channel_open_session()
        .await
        .map_err(|e| session_error("opening a session", e))?;
    let mut pending = VecDeque::new();
    if forward_detail.is_some() {
        channel
            .agent_forward(true)
            .await
            .map_err(|e| session_error("requesting agent forwarding", e))?;
        pending.push_back("agent");
    }
    let command = command_line(opts);
    log(GatherEvent::Running {
        command: command.clone(),
    });
    channel
        .exec(true, command.as_bytes())
        .await
        .map_err(|e| session_error("starting the gather command", e))?;
    pending.push_back("exec");
    let mut run = Run {
        lines: Lines::default(),
        pending,
        failure: None,
        exit_code: None,
        forward_detail: forward_detail.unwrap_or_default(),
    };
    while let Some(msg) = channel.wait().await {
        run.handle(msg, log);
    }
    run.finish(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_quoted_only_when_needed() {
        assert_eq!(shell_quote("10.0.0.5"), "10.0.0.5");
        assert_eq!(shell_quote("master-0.example.com"), "master-0.example.com");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("x'; rm -rf /"), r"'x'\''; rm -rf /'");
        let mut opts = GatherOptions::new("h", "/tmp", "20260101000000");
        opts.masters = vec!["10.0.0.5".into(), "$(id)".into()];
        assert_eq!(
            command_line(&opts),
            "/usr/local/bin/installer-gather.sh --id 20260101000000 10.0.0.5 '$(id)'"
        );
    }

    #[test]
    fn lines_are_split_across_chunks_and_the_tail_is_kept() {
        let mut lines = Lines::default();
        let mut seen = Vec::new();
        let mut log = |e: GatherEvent| seen.push(e.to_string());
        lines.push(RemoteStream::Stdout, b"one\ntw", &mut log);
        lines.push(RemoteStream::Stderr, b"err\r\n", &mut log);
        lines.push(RemoteStream::Stdout, b"o\nthree", &mut log);
        lines.flush(&mut log);
        assert_eq!(
            seen,
            vec![
                "remote: one",
                "remote stderr: err",
                "remote: two",
                "remote: three"
            ]
        );
        for i in 0..30 {
            lines.push(
                RemoteStream::Stdout,
                format!("{i}\n").as_bytes(),
                &mut |_| {},
            );
        }
        assert_eq!(lines.last.len(), LAST_LINES);
        assert_eq!(lines.last.back().map(String::as_str), Some("29"));
    }
}
