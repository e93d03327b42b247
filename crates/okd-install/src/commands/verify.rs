//! `okd-install verify`: check an asset directory before booting anything with it.

use std::io::Write as _;
use std::path::Path;

use anyhow::anyhow;
use clap::Args;
use time::{Duration, OffsetDateTime};

use crate::cli::OutputFormat;
use crate::exit::{self, Exit};

/// Flags of `okd-install verify`.
#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    /// Also resolve api., api-int. and *.apps names and check the certificates served on
    /// api:6443, api-int:6443 and api-int:22623 against this directory's CAs.
    #[arg(long)]
    pub online: bool,
    /// Warn about certificates that expire within this many hours (24-hour certificates
    /// warn only once half their lifetime is gone).
    #[arg(
        long,
        value_name = "HOURS",
        default_value_t = 24,
        value_parser = clap::value_parser!(u64).range(0..=876_000)
    )]
    pub expiry_warning_hours: u64,
    /// Judge .ign sizes against this platform's user-data limit instead of the
    /// install-config's (e.g. aws when the configs go into EC2 user data).
    #[arg(long, value_name = "PLATFORM")]
    pub user_data_platform: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub output: OutputFormat,
}

/// Verifies `dir`, prints the report, and fails with exit code 9 when any check is an error.
pub fn run(dir: &Path, args: &VerifyArgs) -> Result<(), Exit> {
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
    opts.online = args.online;
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
