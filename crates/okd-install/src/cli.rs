//! Command-line types. The doc comments are the help text, so they are written for the
//! administrator reading `okd-install <cmd> --help`, not for developers.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Exit codes, shared by every command (printed in `--help`).
pub(crate) const EXIT_CODES_HELP: &str = "\
Exit codes:
  0  success
  1  any other error
  3  invalid input: install-config, image-mode manifests, release, boot media
  5  bootstrap did not complete (wait-for bootstrap-complete)
  6  the cluster did not finish installing (wait-for install-complete)
  7  cluster operators did not become stable
  8  interrupted (Ctrl-C)
  9  verify found at least one error
  10 bootstrap did not complete and wait-for names its cause";

/// Create the Ignition configs of an OKD cluster, wait for it to form, and
/// collect bootstrap logs when it does not.
#[derive(Debug, Parser)]
#[command(name = "okd-install", version, after_help = EXIT_CODES_HELP)]
pub(crate) struct Cli {
    /// Asset directory: install-config.yaml goes in, generated files come out.
    #[arg(long, global = true, default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,

    /// Console log level; the log file .okd-install.log in DIR always gets debug.
    #[arg(long, global = true, value_enum, default_value_t = LogLevel::Info)]
    pub log_level: LogLevel,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Console verbosity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LogLevel {
    /// Only errors.
    Error,
    /// Errors and warnings.
    #[value(alias = "warning")]
    Warn,
    /// Progress of each step (default).
    Info,
    /// Every decision of the asset engine and every status change.
    Debug,
    /// Everything.
    Trace,
}

/// Output style for machine readers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum OutputFormat {
    /// Human-readable lines and spinners.
    #[default]
    Text,
    /// One JSON object per line (stable for CI scripts).
    Json,
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Create install-config.yaml, manifests, Ignition configs, the PKI or a secrets bundle.
    #[command(subcommand)]
    Create(CreateCommand),
    /// Show the type, default, allowed values and meaning of an install-config field, or
    /// the supported OKD releases and what each changes (`releases`).
    ///
    /// Example: okd-install explain installconfig.networking.clusterNetwork
    Explain {
        /// `installconfig`, a dotted path below it, or `releases`.
        resource: String,
    },
    /// Print an Ignition file readably: every file decoded with its path and mode.
    ExplainIgnition {
        /// The .ign file to print.
        file: PathBuf,
    },
    /// Print the asset graph (what each generated file is made from).
    Graph {
        /// Graphviz dot instead of an indented tree.
        #[arg(long)]
        dot: bool,
    },
    /// Wait for the cluster to reach a milestone.
    #[command(subcommand)]
    WaitFor(WaitForCommand),
    /// Collect logs from a cluster that failed to install.
    #[command(subcommand)]
    Gather(GatherCommand),
    /// Diagnose an existing log bundle (log-bundle-*.tar.gz) without connecting anywhere.
    Analyze {
        /// The bundle written by `gather bootstrap`.
        bundle: PathBuf,
        /// Output style.
        #[arg(long, value_enum, default_value_t)]
        output: OutputFormat,
    },
    /// Check an asset directory before booting anything: certificate chains and expiry,
    /// pointer configs, kubeconfigs, Ignition files, and files left from another cluster.
    Verify(VerifyArgs),
    /// The release's CoreOS boot images: print its stream metadata, or download its live
    /// ISO and PXE files into the cache.
    #[command(subcommand)]
    Coreos(CoreosCommand),
    /// Print the version and the release image that would be installed.
    Version,
    /// Print a shell completion script (e.g. `source <(okd-install completion bash)`).
    Completion {
        /// Target shell.
        shell: clap_complete::Shell,
    },
}

/// Options shared by every `create` target.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct CreateOpts {
    /// Start from a shipped example install-config (see `examples/`), copied into DIR
    /// when DIR has no install-config.yaml yet.
    #[arg(long, value_name = "NAME")]
    pub from_example: Option<String>,
    /// Reuse every key, signer and the kubeadmin password from this bundle
    /// (written by `create secrets`) instead of generating new ones.
    #[arg(long, value_name = "FILE")]
    pub with_secrets: Option<PathBuf>,
    /// The release to install.
    #[command(flatten)]
    pub release: ReleaseArgs,
    /// Regenerate certificates that expire within this many hours.
    #[arg(long, default_value_t = 12, value_name = "HOURS")]
    pub expiry_margin_hours: u64,
    /// Load user-supplied certificates and keys from DIR/tls/ instead of generating them.
    #[arg(long, env = "OPENSHIFT_INSTALL_LOAD_CLUSTER_CERTS", value_parser = clap::builder::BoolishValueParser::new())]
    pub load_cluster_certs: bool,
    /// Store file contents gzip-compressed inside .ign files where that is smaller.
    #[arg(long)]
    pub compress: bool,
    /// Recorded as the invoker in the openshift-install-manifests ConfigMap.
    #[arg(long, env = "OPENSHIFT_INSTALL_INVOKER", value_name = "NAME")]
    pub invoker: Option<String>,
    /// Explicit node IP for the bootstrap kubelet.
    #[arg(long, env = "OPENSHIFT_INSTALL_BOOTSTRAP_NODE_IP", value_name = "IP")]
    pub bootstrap_node_ip: Option<String>,
    /// Cluster profile passed to the release payload's render step.
    #[arg(
        long,
        env = "OPENSHIFT_INSTALL_EXPERIMENTAL_CLUSTER_PROFILE",
        value_name = "NAME"
    )]
    pub cluster_profile: Option<String>,
    /// Output style.
    #[arg(long, value_enum, default_value_t)]
    pub output: OutputFormat,
}

/// Which release a command is about (the default: the release okd-install installs);
/// resolved in one place, `release::choose`.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct ReleaseArgs {
    /// Release image (default: the OKD release built into okd-install).
    #[arg(
        long,
        env = "OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE",
        value_name = "PULLSPEC"
    )]
    pub release_image: Option<String>,
    /// Release version of the release image when its tag names none (an image pinned by
    /// digest): 4.22 or 4.22.0-okd-scos.7. It decides the bootstrap content; for `coreos`,
    /// alone it names the release.
    #[arg(long, value_name = "VERSION")]
    pub release_version: Option<String>,
}

/// `coreos` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum CoreosCommand {
    /// Print the CoreOS stream metadata of the release (boot image URLs and sha256 per
    /// architecture), as that release's openshift-install embeds it.
    PrintStreamJson(ReleaseArgs),
    /// Download the release's live ISO or PXE files into the cache, to use them offline
    /// later; prints each cached file's path.
    Download {
        /// Release to download for.
        #[command(flatten)]
        release: ReleaseArgs,
        /// What to download.
        #[arg(long, value_enum, default_value_t = CoreosArtifact::Iso)]
        artifact: CoreosArtifact,
        /// Architecture (x86_64, aarch64, ppc64le, s390x, or amd64/arm64; default: this
        /// machine's).
        #[arg(long, value_name = "ARCH")]
        arch: Option<String>,
        /// Cache location and offline mode.
        #[command(flatten)]
        cache: CacheArgs,
    },
}

/// Boot image files of a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CoreosArtifact {
    /// The live ISO.
    Iso,
    /// The PXE kernel, initramfs and rootfs.
    Pxe,
    /// The ISO and the PXE files.
    All,
}

/// `create` targets.
#[derive(Debug, Subcommand)]
pub(crate) enum CreateCommand {
    /// Write install-config.yaml (asks questions when run in a terminal).
    InstallConfig(CreateOpts),
    /// Write manifests/ and openshift/ for review and customisation.
    Manifests(CreateOpts),
    /// Write bootstrap.ign, master.ign, worker.ign, metadata.json and auth/.
    IgnitionConfigs(CreateOpts),
    /// Write bootstrap-in-place-for-live-iso.ign (single node), worker.ign, metadata.json, auth/.
    SingleNodeIgnitionConfig(CreateOpts),
    /// Write every certificate and key into DIR/tls/ plus auth/ for inspection.
    Pki(CreateOpts),
    /// Write DIR/ROLE.iso: a copy of the CoreOS live ISO that boots with ROLE's Ignition
    /// config (and with --dest-device installs it to a disk and reboots).
    LiveIso(LiveIsoArgs),
    /// Write DIR/ROLE.ign.img (the config as an extra initrd) and DIR/ROLE.ipxe (an iPXE
    /// script booting the live system with it).
    PxeFiles(PxeArgs),
    /// Write a secrets bundle (every key, signer and the kubeadmin password) to reuse
    /// with --with-secrets.
    Secrets {
        /// Shared create options.
        #[command(flatten)]
        opts: CreateOpts,
        /// Where to write the bundle (mode 0600).
        #[arg(long, default_value = "secrets.yaml", value_name = "FILE")]
        output_file: PathBuf,
    },
}

/// What both media take: the role, and what the machine does with the config.
#[derive(Debug, Clone, Args)]
pub(crate) struct RoleArgs {
    /// Machine role: single-node (bootstrap-in-place-for-live-iso.ign), bootstrap
    /// (bootstrap.ign), master (master.ign) or worker (worker.ign), read from DIR.
    #[arg(long, value_name = "ROLE")]
    pub role: String,
    /// Install to this disk with the role's config and reboot, without asking (bootstrap,
    /// master, worker; single-node takes install-config's bootstrapInPlace disk).
    #[arg(long, value_name = "DEVICE")]
    pub dest_device: Option<String>,
    /// Kernel argument for the installed system (with --dest-device); repeatable.
    #[arg(long, value_name = "ARG", requires = "dest_device")]
    pub dest_karg_append: Vec<String>,
    /// NetworkManager keyfile for the live system, and with --dest-device for the installed
    /// one too; repeatable.
    #[arg(long, value_name = "FILE")]
    pub network_keyfile: Vec<PathBuf>,
}

/// Flags of `create live-iso`.
#[derive(Debug, Clone, Args)]
pub(crate) struct LiveIsoArgs {
    /// Role, destination disk, keyfiles.
    #[command(flatten)]
    pub role: RoleArgs,
    /// The CoreOS live ISO to start from; it is copied, never changed (default: the live ISO
    /// of the configs' release, downloaded into the cache and checked).
    #[arg(long, value_name = "FILE")]
    pub iso: Option<PathBuf>,
    /// Where the release's live ISO comes from when --iso is not given.
    #[command(flatten)]
    pub stream: StreamArgs,
    /// Add a kernel argument to the live system; repeatable.
    #[arg(long, value_name = "ARG")]
    pub karg: Vec<String>,
    /// Remove a kernel argument of the live system (exact match); repeatable.
    #[arg(long, value_name = "ARG")]
    pub delete_karg: Vec<String>,
}

/// Flags of `create pxe-files`.
#[derive(Debug, Clone, Args)]
pub(crate) struct PxeArgs {
    /// Role, destination disk, keyfiles.
    #[command(flatten)]
    pub role: RoleArgs,
    /// Which release stream's kernel, initramfs and rootfs URLs to use when no flag names
    /// them.
    #[command(flatten)]
    pub stream: StreamArgs,
    /// Where all parts are served: BASE/kernel, BASE/initramfs.img, BASE/rootfs.img and
    /// BASE/ROLE.ign.img, unless a flag below names one.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// URL of the live kernel.
    #[arg(long, value_name = "URL")]
    pub kernel_url: Option<String>,
    /// URL of the live initramfs.
    #[arg(long, value_name = "URL")]
    pub initramfs_url: Option<String>,
    /// URL of the live root file system.
    #[arg(long, value_name = "URL")]
    pub rootfs_url: Option<String>,
    /// URL where you serve DIR/ROLE.ign.img.
    #[arg(long, value_name = "URL")]
    pub config_url: Option<String>,
    /// Add a kernel argument to the live system; repeatable.
    #[arg(long, value_name = "ARG")]
    pub karg: Vec<String>,
    /// Also put the release stream's kernel, initramfs and rootfs into DIR as kernel,
    /// initramfs.img and rootfs.img (downloaded into the cache once, checked against their
    /// sha256), so that DIR can be served as it is. Without URL flags, ROLE.ipxe then names
    /// them beside itself, the rootfs as one more initrd (the machine needs 4 GiB of memory).
    #[arg(long)]
    pub download: bool,
}

/// Which stream artifacts to use when no flag names a file or URL.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct StreamArgs {
    /// Architecture of the machines (x86_64, aarch64, ...; default: this machine's).
    #[arg(long, value_name = "ARCH")]
    pub arch: Option<String>,
    /// Download cache.
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// Where downloaded boot images are kept, and whether to download at all.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct CacheArgs {
    /// Directory of downloaded boot images (default: $XDG_CACHE_HOME/okd-install/coreos,
    /// else ~/.cache/okd-install/coreos).
    #[arg(long, env = "OKD_INSTALL_CACHE_DIR", value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Use only boot images already in the cache; never connect anywhere.
    #[arg(long)]
    pub offline: bool,
}

/// `wait-for` milestones.
#[derive(Debug, Subcommand)]
pub(crate) enum WaitForCommand {
    /// Wait until the bootstrap machine can be removed.
    BootstrapComplete(WaitArgs),
    /// Wait until the cluster has finished installing and is usable.
    InstallComplete(WaitArgs),
}

/// Options of both waits.
#[derive(Debug, Args, Clone)]
pub(crate) struct WaitArgs {
    /// Kubeconfig to use (default: DIR/auth/kubeconfig).
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// Output style.
    #[arg(long, value_enum, default_value_t)]
    pub output: OutputFormat,
    /// Minutes to wait for the Kubernetes API.
    #[arg(long, value_name = "MIN")]
    pub api_timeout: Option<f64>,
    /// Minutes to wait for bootstrapping (default 45, 60 on baremetal and vsphere).
    #[arg(long, value_name = "MIN")]
    pub bootstrap_timeout: Option<f64>,
    /// Minutes to wait for the bootstrap etcd member to be removed.
    #[arg(long, value_name = "MIN")]
    pub etcd_timeout: Option<f64>,
    /// Minutes to wait for the cluster version to become available (default 40, 60 on baremetal).
    #[arg(long, value_name = "MIN")]
    pub cluster_timeout: Option<f64>,
    /// Minutes to wait for cluster operators to settle.
    #[arg(long, value_name = "MIN")]
    pub operators_timeout: Option<f64>,
    /// Seconds an operator must stay not-progressing to count as stable.
    #[arg(long, value_name = "SEC")]
    pub settle_seconds: Option<f64>,
    /// Minutes to wait for the console route.
    #[arg(long, value_name = "MIN")]
    pub console_timeout: Option<f64>,
    /// Print the kubeadmin password at the end of install-complete.
    #[arg(long)]
    pub print_password: bool,
    /// Bootstrap host address, used in the gather command suggested on failure.
    #[arg(long, value_name = "HOST")]
    pub bootstrap: Option<String>,
    /// Control-plane host addresses, used in the gather command suggested on failure.
    #[arg(long = "master", value_name = "HOST")]
    pub masters: Vec<String>,
    /// Cap on the whole wait, e.g. 90s, 10m, 1h30m (default: each phase's own budget).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub timeout: Option<std::time::Duration>,
    /// SSH private key for reading the bootstrap host's records on failure (with --bootstrap);
    /// repeat to try several.
    #[arg(long = "key", value_name = "FILE")]
    pub keys: Vec<PathBuf>,
    /// SSH port of the bootstrap host.
    #[arg(long, default_value_t = 22, hide = true)]
    pub ssh_port: u16,
    /// SSH user on the bootstrap host.
    #[arg(long, default_value = "core", hide = true)]
    pub ssh_user: String,
    /// Remote gather script (for labs with a custom image).
    #[arg(long, default_value = contract::GATHER_SCRIPT, hide = true)]
    pub remote_command: String,
}

/// `90s`, `10m`, `1h30m`, `2h`, or plain seconds: the duration `--timeout` takes.
pub(crate) fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let bad = || format!("{text:?} is not a duration: write e.g. 90s, 10m or 1h30m");
    if let Ok(secs) = text.parse::<f64>() {
        return (secs >= 0.0)
            .then(|| std::time::Duration::from_secs_f64(secs))
            .ok_or_else(bad);
    }
    let mut total = 0.0;
    let mut number = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() || c == '.' {
            number.push(c);
            continue;
        }
        let unit = match c {
            'h' => 3600.0,
            'm' => 60.0,
            's' => 1.0,
            _ => return Err(bad()),
        };
        total += number.parse::<f64>().map_err(|_| bad())? * unit;
        number.clear();
    }
    if !number.is_empty() || total <= 0.0 && text.is_empty() {
        return Err(bad());
    }
    Ok(std::time::Duration::from_secs_f64(total))
}

/// `gather` sources.
#[derive(Debug, Subcommand)]
pub(crate) enum GatherCommand {
    /// Collect the bootstrap host's logs over SSH (as user core) into DIR.
    Bootstrap(GatherArgs),
}

/// Options of `gather bootstrap`.
#[derive(Debug, Args, Clone)]
pub(crate) struct GatherArgs {
    /// Bootstrap host name or IP (default: the address given at create time).
    #[arg(long, value_name = "HOST")]
    pub bootstrap: Option<String>,
    /// Control-plane host; repeat for each master.
    #[arg(long = "master", value_name = "HOST")]
    pub masters: Vec<String>,
    /// SSH private key file; repeat to try several (a .pub file is refused).
    #[arg(long = "key", value_name = "FILE")]
    pub keys: Vec<PathBuf>,
    /// SSH port of the bootstrap host.
    #[arg(long, default_value_t = 22)]
    pub port: u16,
    /// SSH user on the bootstrap host.
    #[arg(long, default_value = "core", hide = true)]
    pub user: String,
    /// Remote gather script (for labs with a custom image).
    #[arg(
        long,
        default_value = contract::GATHER_SCRIPT,
        hide = true
    )]
    pub remote_command: String,
    /// Only collect the bundle; do not print a diagnosis.
    #[arg(long, alias = "skipAnalysis")]
    pub skip_analysis: bool,
    /// Output style of the analysis.
    #[arg(long, value_enum, default_value_t)]
    pub output: OutputFormat,
}

/// Flags of `okd-install verify`.
#[derive(Debug, Clone, Args)]
pub(crate) struct VerifyArgs {
    /// Also check over the network. `pulls` (before you boot): ask the registries whether
    /// the bootstrap host can pull the release image and every image it names, through its
    /// mirror rules, trust bundle, proxy and pull secret. `endpoints` (after boot): resolve
    /// api., api-int. and *.apps names and check the certificates served on api:6443,
    /// api-int:6443 and api-int:22623 against this directory's CAs. `--online` alone: both.
    #[arg(long, value_enum, value_name = "CHECKS", num_args = 0..=1, require_equals = true,
          default_missing_value = "all")]
    pub online: Option<OnlineChecks>,
    /// With --online: registry requests in flight at once in the pull checks.
    #[arg(long, value_name = "N", default_value_t = 16, requires = "online",
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub pull_connections: u16,
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

/// What `verify --online` checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OnlineChecks {
    /// Both.
    All,
    /// The certificates the cluster's endpoints serve.
    Endpoints,
    /// The bootstrap host's pulls.
    Pulls,
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
    use std::time::Duration;

    use clap::CommandFactory;

    use super::{Cli, EXIT_CODES_HELP, parse_duration, parse_resolve};

    /// The README, whose lists of exit codes and `create` options the tests below hold to the
    /// code.
    fn readme_section(heading: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
        let readme = std::fs::read_to_string(path).expect("README.md");
        let start = readme
            .find(heading)
            .unwrap_or_else(|| panic!("README.md has no {heading:?}"));
        let rest = &readme[start + heading.len()..];
        let end = rest.find("\n#").unwrap_or(rest.len());
        rest[..end].to_string()
    }

    #[test]
    fn the_readme_lists_the_exit_codes_help_prints() {
        let table = readme_section("## Exit codes");
        let in_readme: Vec<&str> = table
            .lines()
            .filter_map(|l| l.strip_prefix("| ")?.split(' ').next())
            .filter(|code| code.parse::<u8>().is_ok())
            .collect();
        let in_help: Vec<&str> = EXIT_CODES_HELP
            .lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(
            in_readme, in_help,
            "README.md's exit-code table and --help differ"
        );
    }

    #[test]
    fn the_readme_names_every_create_option() {
        let section = readme_section("### create");
        let start = section
            .find("Options of every `create`:")
            .expect("README.md lists the options of every create");
        let list = &section[start
            ..section[start..]
                .find("\n\n")
                .map_or(section.len(), |e| start + e)];
        let cli = Cli::command();
        let create = cli
            .find_subcommand("create")
            .and_then(|c| c.find_subcommand("manifests"))
            .expect("create manifests");
        let longs: Vec<&str> = create
            .get_arguments()
            .filter(|a| !a.is_global_set())
            .filter_map(|a| a.get_long())
            .collect();
        assert!(longs.contains(&"release-image"), "{longs:?}");
        for long in longs {
            assert!(
                list.contains(&format!("`--{long}")),
                "README.md's options of every create do not name --{long}"
            );
        }
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("2.5"), Ok(Duration::from_millis(2500)));
        assert!(parse_duration("10").is_ok());
        assert!(parse_duration("10x").is_err());
        assert!(parse_duration("m").is_err());
        assert!(parse_duration("5m3").is_err());
    }

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
