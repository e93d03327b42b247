//! The result of a verification: a flat list of checks, rendered for people or as JSON.

use std::fmt::Write as _;

use serde::Serialize;

/// How a check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Nothing to fix.
    Ok,
    /// Works today but needs attention soon (e.g. a certificate close to expiry).
    Warning,
    /// The installation would fail or misbehave with these files.
    Error,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warning => "warning",
            Status::Error => "error",
        }
    }
}

/// One finding: what was checked, on which file or asset, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// Dotted check name, such as `cert.chain` or `pointer.ca`; the part before the first dot
    /// is the group the human output lists it under.
    pub id: String,
    /// The file or asset checked, such as `tls/root-ca.crt` or `master.ign`.
    pub subject: String,
    /// Outcome.
    pub status: Status,
    /// What was found; for warnings and errors also how to fix it.
    pub message: String,
}

impl Check {
    /// A check with the given outcome.
    pub fn new(
        id: impl Into<String>,
        subject: impl Into<String>,
        status: Status,
        message: impl Into<String>,
    ) -> Self {
        Check {
            id: id.into(),
            subject: subject.into(),
            status,
            message: message.into(),
        }
    }

    /// The group (the id up to the first dot).
    pub fn group(&self) -> &str {
        self.id.split('.').next().unwrap_or(&self.id)
    }
}

/// Counts per status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Checks that passed.
    pub ok: usize,
    /// Checks with warnings.
    pub warnings: usize,
    /// Checks with errors.
    pub errors: usize,
}

/// Every check of one verification, in the order they ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The checks.
    pub checks: Vec<Check>,
}

impl Report {
    /// Adds a check.
    pub fn push(&mut self, check: Check) {
        self.checks.push(check);
    }

    /// Adds a check built from its parts.
    pub fn add(&mut self, id: &str, subject: &str, status: Status, message: impl Into<String>) {
        self.push(Check::new(id, subject, status, message));
    }

    /// Shorthand for an ok check.
    pub fn ok(&mut self, id: &str, subject: &str, message: impl Into<String>) {
        self.add(id, subject, Status::Ok, message);
    }

    /// Shorthand for a warning.
    pub fn warn(&mut self, id: &str, subject: &str, message: impl Into<String>) {
        self.add(id, subject, Status::Warning, message);
    }

    /// Shorthand for an error.
    pub fn error(&mut self, id: &str, subject: &str, message: impl Into<String>) {
        self.add(id, subject, Status::Error, message);
    }

    /// True when no check is an error (warnings do not fail a verification).
    pub fn exit_ok(&self) -> bool {
        self.checks.iter().all(|c| c.status != Status::Error)
    }

    /// Counts per status.
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for c in &self.checks {
            match c.status {
                Status::Ok => s.ok += 1,
                Status::Warning => s.warnings += 1,
                Status::Error => s.errors += 1,
            }
        }
        s
    }

    /// Human output: checks grouped by their id's first part (groups in first-seen order),
    /// one line per check, then the counts.
    pub fn render_text(&self) -> String {
        let mut groups: Vec<&str> = Vec::new();
        for c in &self.checks {
            if !groups.contains(&c.group()) {
                groups.push(c.group());
            }
        }
        let mut out = String::new();
        for group in groups {
            let _ = writeln!(out, "{group}:");
            for c in self.checks.iter().filter(|c| c.group() == group) {
                let _ = writeln!(
                    out,
                    "  {:<7} {}: {}",
                    c.status.label(),
                    c.subject,
                    c.message
                );
            }
        }
        let s = self.summary();
        let verdict = if self.exit_ok() { "passed" } else { "FAILED" };
        let _ = writeln!(
            out,
            "verify {verdict}: {} ok, {} warnings, {} errors",
            s.ok, s.warnings, s.errors
        );
        out
    }

    /// JSON output: `{"checks":[...],"summary":{...},"ok":bool}`.
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "checks": self.checks,
            "summary": self.summary(),
            "ok": self.exit_ok(),
        })
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_lines_and_counts() {
        let mut r = Report::default();
        r.ok("cert.chain", "tls/a.crt", "signed by b");
        r.warn("ignition.size", "bootstrap.ign", "big");
        r.error("cert.expiry", "tls/a.crt", "expired");
        let text = r.render_text();
        let cert = text.find("cert:").expect("cert group");
        let ign = text.find("ignition:").expect("ignition group");
        assert!(cert < ign, "{text}");
        assert!(text.contains("  error   tls/a.crt: expired"), "{text}");
        assert!(
            text.ends_with("verify FAILED: 1 ok, 1 warnings, 1 errors\n"),
            "{text}"
        );
        assert!(!r.exit_ok());
        let json: serde_json::Value = serde_json::from_str(&r.to_json()).expect("json");
        assert_eq!(json["summary"]["errors"], 1);
        assert_eq!(json["checks"][1]["status"], "warning");
        assert_eq!(json["ok"], false);
    }
}
