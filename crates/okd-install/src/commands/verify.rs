//! `okd-install verify`: check an asset directory before booting anything with it.

use std::io::Write as _;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;

use anyhow::anyhow;
use clap::Args;
use time::{Duration, OffsetDateTime};

use crate::cli::OutputFormat;
use crate::exit::{self, Exit};

/// Flags of `okd-install verify`.
#[derive(Debug, Clone, Args)]
pub(crate) struct VerifyArgs {
    /// Also resolve api., api-int. and *.apps names and check the certificates served on
    /// api:6443, api-int:6443 and api-int:22623 against this directory's CAs.
    #[arg(long)]
    pub online: bool,
    /// With --online: connect to ADDRESS instead of what DNS says for NAME, e.g. to check the
    /// bootstrap host before the load balancer or DNS exist. NAME is a host
    /// (api-int.mycluster.example.com=192.0.2.10) or host:port for one endpoint
    /// (api-int.mycluster.example.com:22623=127.0.0.1:8443). Repeatable.
    #[arg(long, value_name = "NAME=ADDRESS", requires = "online", value_parser = parse_resolve)]
    pub resolve: Vec<(String, SocketAddr)>,
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
    opts.online = args.online;
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

/// `NAME=ADDRESS` of `--resolve`. A bare IP address keeps the port of the endpoint being
/// checked (port 0 here, replaced when connecting); `host:port` names need `ip:port` or an IP
/// whose port is then the name's own.
fn parse_resolve(value: &str) -> Result<(String, SocketAddr), String> {
    let (name, address) = value.split_once('=').ok_or_else(|| {
        format!("{value}: write NAME=ADDRESS, e.g. api-int.mycluster.example.com=192.0.2.10")
    })?;
    if name.is_empty() {
        return Err(format!("{value}: the name before '=' is empty"));
    }
    let name_port = name
        .rsplit_once(':')
        .and_then(|(_, port)| port.parse::<u16>().ok());
    let addr = match (address.parse::<SocketAddr>(), address.parse::<IpAddr>()) {
        (Ok(addr), _) => addr,
        (_, Ok(ip)) => SocketAddr::new(ip, name_port.unwrap_or(0)),
        _ => {
            return Err(format!(
                "{value}: {address} is not an IP address (or IP:port; IPv6 with a port as [::1]:22623)"
            ));
        }
    };
    Ok((name.to_string(), addr))
}

#[cfg(test)]
mod tests {
    use super::parse_resolve;

    #[test]
    fn resolve_overrides_take_a_host_or_one_endpoint() {
        let (name, addr) = parse_resolve("api-int.c.example.com=192.0.2.10").unwrap();
        assert_eq!(
            (name.as_str(), addr.to_string().as_str()),
            ("api-int.c.example.com", "192.0.2.10:0")
        );
        let (name, addr) = parse_resolve("api-int.c.example.com:22623=127.0.0.1").unwrap();
        assert_eq!(
            (name.as_str(), addr.port()),
            ("api-int.c.example.com:22623", 22623)
        );
        let (_, addr) = parse_resolve("api.c.example.com:6443=[::1]:16443").unwrap();
        assert_eq!(addr.to_string(), "[::1]:16443");
        let err = parse_resolve("api.c.example.com").unwrap_err();
        assert!(err.contains("NAME=ADDRESS"), "{err}");
        let err = parse_resolve("api.c.example.com=bootstrap.local").unwrap_err();
        assert!(err.contains("not an IP address"), "{err}");
    }
}
