//! Failures of the waits and what to do about them.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use contract::cause::Finding;

use crate::conditions::UnhealthyCondition;
use crate::phase::{Phase, human_duration};

/// Addresses the caller knows, used to spell out the `gather bootstrap` command. Unknown ones
/// become `<placeholders>` so the command is still copy-paste-and-edit ready.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GatherHint {
    /// The installation directory (`--dir`).
    pub dir: PathBuf,
    /// Bootstrap host address, if known.
    pub bootstrap: Option<String>,
    /// Control-plane host addresses, if known.
    pub masters: Vec<String>,
}

/// Quote a word for a POSIX shell only when it needs it.
pub(crate) fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@,+%".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

impl GatherHint {
    /// `okd-install gather bootstrap --dir D --bootstrap B --master M...`
    pub fn gather_command(&self) -> String {
        let mut cmd = format!(
            "okd-install gather bootstrap --dir {}",
            shell_word(&self.dir.display().to_string())
        );
        let bootstrap = self.bootstrap.as_deref().unwrap_or("<bootstrap-address>");
        cmd.push_str(&format!(" --bootstrap {}", shell_arg(bootstrap)));
        if self.masters.is_empty() {
            cmd.push_str(" --master <master-address>");
        }
        for m in &self.masters {
            cmd.push_str(&format!(" --master {}", shell_arg(m)));
        }
        cmd
    }

    /// `okd-install wait-for install-complete --dir D`
    pub fn install_complete_command(&self) -> String {
        format!(
            "okd-install wait-for install-complete --dir {}",
            shell_word(&self.dir.display().to_string())
        )
    }
}

fn shell_arg(s: &str) -> String {
    if s.starts_with('<') && s.ends_with('>') {
        s.to_string()
    } else {
        shell_word(s)
    }
}

/// Everything known when a wait failed, phrased for the person at the terminal.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnosis {
    /// The phase that failed.
    pub phase: Phase,
    /// The cause in the catalogue `gather` names too, when this machine's own evidence (name
    /// resolution, the TLS handshake, the API's events) names one.
    pub finding: Option<Finding>,
    /// The last thing the cluster (or the network) said.
    pub last_seen: Option<String>,
    /// Every ClusterOperator condition that is not healthy (empty when the API was not
    /// reachable or nothing is unhealthy).
    pub unhealthy_operators: Vec<UnhealthyCondition>,
    /// The most likely cause, in plain words.
    pub likely_cause: String,
    /// The exact command to run next.
    pub next_command: String,
}

impl fmt::Display for Diagnosis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let evidence = self.finding.as_ref().map(|f| f.evidence.as_str());
        if let Some(seen) = self.last_seen.as_deref().filter(|s| Some(*s) != evidence) {
            writeln!(f, "last seen: {seen}")?;
        }
        for c in &self.unhealthy_operators {
            writeln!(f, "{c}")?;
        }
        match &self.finding {
            Some(finding) => {
                for line in finding.lines() {
                    writeln!(f, "{line}")?;
                }
            }
            None => writeln!(f, "likely cause: {}", self.likely_cause)?,
        }
        write!(f, "next: {}", self.next_command)
    }
}

/// Exit code of a bootstrap that failed for a cause okd-install names (a [`Finding`]): waiting
/// longer will not help, the diagnosis says what will.
pub const EXIT_CAUSE_NAMED: i32 = 10;

/// Why a wait did not succeed. [`WaitError::exit_code`] maps each case to the documented exit
/// codes: 5 bootstrap phases, 10 bootstrap phases with a named cause, 6 install phases, 7
/// operators not stable, 8 interrupted, 1 for a kubeconfig the client cannot be built from.
#[derive(Debug, thiserror::Error)]
pub enum WaitError {
    /// The kubeconfig could not be read or is not usable for a client-certificate connection.
    #[error("loading kubeconfig {path}: {reason}")]
    Kubeconfig {
        /// The file.
        path: PathBuf,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// A phase ran out of time. What was last seen is the diagnosis' first line, not part of
    /// this message, so that a caller printing both says it once.
    #[error("{phase} not done after {}", human_duration(*timeout))]
    Timeout {
        /// The phase.
        phase: Phase,
        /// Its budget.
        timeout: Duration,
        /// What to do about it.
        diagnosis: Box<Diagnosis>,
    },
    /// The caller's cancellation future fired (Ctrl-C).
    #[error("interrupted during {phase} after {}", human_duration(*elapsed))]
    Interrupted {
        /// The phase that was running.
        phase: Phase,
        /// Time spent in it.
        elapsed: Duration,
        /// What had been seen so far.
        diagnosis: Box<Diagnosis>,
    },
    /// A phase failed for a reason waiting longer will not fix.
    #[error("{phase} failed: {message}")]
    Failed {
        /// The phase.
        phase: Phase,
        /// What went wrong.
        message: String,
        /// What to do about it.
        diagnosis: Box<Diagnosis>,
    },
}

impl WaitError {
    /// The process exit code for this failure.
    pub fn exit_code(&self) -> i32 {
        match self {
            WaitError::Kubeconfig { .. } => 1,
            WaitError::Interrupted { .. } => 8,
            WaitError::Timeout {
                phase, diagnosis, ..
            }
            | WaitError::Failed {
                phase, diagnosis, ..
            } => match phase.exit_code() {
                5 if diagnosis.finding.is_some() => EXIT_CAUSE_NAMED,
                code => code,
            },
        }
    }

    /// The diagnosis, for every failure that happened while talking to the cluster.
    pub fn diagnosis(&self) -> Option<&Diagnosis> {
        match self {
            WaitError::Kubeconfig { .. } => None,
            WaitError::Timeout { diagnosis, .. }
            | WaitError::Interrupted { diagnosis, .. }
            | WaitError::Failed { diagnosis, .. } => Some(diagnosis),
        }
    }

    /// The phase that failed, if any.
    pub fn phase(&self) -> Option<Phase> {
        self.diagnosis().map(|d| d.phase)
    }

    pub(crate) fn kubeconfig(path: &Path, reason: impl Into<String>) -> Self {
        WaitError::Kubeconfig {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// The next command is pasted into a shell: every directory name must survive it.
        #[test]
        fn shell_word_survives_a_real_shell(s in "[ -~]{1,24}") {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {}", shell_word(&s)))
                .output()
                .expect("run sh");
            prop_assert_eq!(String::from_utf8_lossy(&out.stdout), s);
        }
    }

    #[test]
    fn gather_command_uses_known_addresses_and_placeholders() {
        let hint = GatherHint {
            dir: PathBuf::from("/tmp/my cluster"),
            bootstrap: Some("10.0.0.5".into()),
            masters: vec!["10.0.0.10".into(), "10.0.0.11".into()],
        };
        assert_eq!(
            hint.gather_command(),
            "okd-install gather bootstrap --dir '/tmp/my cluster' --bootstrap 10.0.0.5 \
             --master 10.0.0.10 --master 10.0.0.11"
        );
        let unknown = GatherHint {
            dir: PathBuf::from("ocp"),
            ..Default::default()
        };
        assert_eq!(
            unknown.gather_command(),
            "okd-install gather bootstrap --dir ocp --bootstrap <bootstrap-address> \
             --master <master-address>"
        );
    }

    #[test]
    fn exit_codes_follow_the_phase() {
        let d = |phase| Diagnosis {
            phase,
            finding: None,
            last_seen: None,
            unhealthy_operators: vec![],
            likely_cause: String::new(),
            next_command: String::new(),
        };
        let t = |phase| WaitError::Timeout {
            phase,
            timeout: Duration::from_secs(1),
            diagnosis: Box::new(d(phase)),
        };
        assert_eq!(t(Phase::Api).exit_code(), 5);
        assert_eq!(t(Phase::EtcdBootstrapMemberRemoved).exit_code(), 5);
        assert_eq!(t(Phase::ClusterInitialized).exit_code(), 6);
        assert_eq!(t(Phase::OperatorsStable).exit_code(), 7);
        let i = WaitError::Interrupted {
            phase: Phase::Api,
            elapsed: Duration::ZERO,
            diagnosis: Box::new(d(Phase::Api)),
        };
        assert_eq!(i.exit_code(), 8);
    }
}
