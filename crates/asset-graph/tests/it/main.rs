//! Behaviour of the engine through its public API: graph checks, scheduling, reuse rules,
//! on-disk overrides, state file and output files.

mod assets;
mod graph;
mod lock;
mod read;
mod sched;
mod store;

use std::path::Path;

use asset_graph::{Clock, Context, RunReport, Source, Store};

use assets::{Opts, full_graph};

/// Fixed start time of the test clock.
const T0: u64 = 1_700_000_000;

/// Deterministic context at `secs`.
fn ctx(secs: u64) -> Context {
    Context::seeded([9; 32], Clock::fixed_unix(secs))
}

/// A store over `dir` with the full test graph, clock at `secs` and the given option name.
fn open(dir: &Path, secs: u64, name: &str) -> Store {
    let mut store = Store::open(full_graph(), dir, ctx(secs)).expect("open store");
    store
        .provide(Opts {
            name: name.to_string(),
        })
        .expect("provide options");
    store
}

/// An error and its causes as one line, `a: b: c`, the way a caller that prints the chain
/// shows it.
fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// The ids generated in a run, in report order.
fn generated(report: &RunReport) -> Vec<&'static str> {
    report.generated().map(|a| a.id).collect()
}

/// Source and reason text of one asset in a run.
fn outcome(report: &RunReport, id: &str) -> (Source, String) {
    let a = report
        .asset(id)
        .unwrap_or_else(|| panic!("{id} missing from report:\n{report}"));
    (
        a.source,
        a.reason
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
    )
}
