//! `okd-install verify`: check an asset directory before booting anything with it.

use std::io::Write as _;
use std::path::Path;

use anyhow::anyhow;
use time::{Duration, OffsetDateTime};

use crate::cli::{OnlineChecks, OutputFormat, VerifyArgs};
use crate::exit::{self, Exit};

/// Verifies `dir`, prints the report, and fails with exit code 9 when any check is an error.
pub(crate) fn run(dir: &Path, args: &VerifyArgs) -> Result<(), Exit> {
    if !dir.is_dir() {
        return Err(Exit::code(
            exit::GENERIC,
            anyhow!(
                "{} is not a directory; pass the asset directory with --dir",
                dir.display()
            ),
        ));
    }
    let mut opts = verify::Options::at(OffsetDateTime::now_utc());
    // The range check above keeps this far from overflow.
    opts.expiry_warning = Duration::hours(args.expiry_warning_hours as i64);
    opts.online = args.online.is_some();
    opts.online_checks = match args.online {
        Some(OnlineChecks::Endpoints) => verify::OnlineChecks::Endpoints,
        Some(OnlineChecks::Pulls) => verify::OnlineChecks::Pulls,
        Some(OnlineChecks::All) | None => verify::OnlineChecks::All,
    };
    opts.pull_connections = usize::from(args.pull_connections);
    opts.endpoints = args.resolve.iter().cloned().collect();
    opts.platform = args.user_data_platform.clone();
    let report = verify::verify(dir, &opts);
    let text = match args.output {
        OutputFormat::Json => report.to_json() + "\n",
        OutputFormat::Text => report.render_text(),
    };
    // A closed pipe (`verify | head`) is not a failure of the verification.
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    if report.exit_ok() {
        return Ok(());
    }
    Err(Exit::code(
        exit::VERIFY_FAILED,
        anyhow!(
            "verify found {} error(s) in {}; fix them before booting any machine with these files",
            report.summary().errors,
            dir.display()
        ),
    ))
}
