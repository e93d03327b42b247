//! The problem the analysis names first: which service, what went wrong, what to look at.

use serde::Serialize;

use super::records::ServiceStatus;

/// The first problem the ordered checks found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Service name without `.service`.
    pub service: String,
    /// One sentence saying what went wrong.
    pub summary: String,
    /// Status of the service when the logs were gathered (`not-started` when its record
    /// file is missing).
    pub status: ServiceStatus,
    /// How often the service started.
    pub starts: usize,
    /// The failing stage (or the stage it was still in).
    pub stage: Option<String>,
    /// The last error lines the service recorded.
    pub error_lines: Vec<String>,
    /// What to look at next.
    pub hint: String,
}
