//! Command-line types. The doc comments are the help text, so they are written for the
//! administrator reading `okd-install <cmd> --help`, not for developers.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Exit codes, shared by every command (printed in `--help`).
pub(crate) const EXIT_CODES_HELP: &str = "\
Exit codes:
  0  success
  1  any other error
  3  install-config.yaml invalid, image-mode manifests unready, release unknown,
     boot media input unusable (not a live ISO, config too large, missing .ign)
  5  bootstrap did not complete (wait-for bootstrap-complete)
  6  the cluster did not finish installing (wait-for install-complete)
  7  cluster operators did not become stable
  8  interrupted (Ctrl-C)
  9  verify found at least one error";

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
    Verify(crate::commands::verify::VerifyArgs),
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
    /// Release image to install (default: the OKD release built into okd-install).
    #[arg(
        long,
        env = "OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE",
        value_name = "PULLSPEC"
    )]
    pub release_image: Option<String>,
    /// Release version of the release image when its tag names none (an image pinned
    /// by digest): 4.22 or 4.22.0-okd-scos.7. It decides the bootstrap content.
    #[arg(long, value_name = "VERSION")]
    pub release_version: Option<String>,
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
    LiveIso(crate::commands::media::LiveIsoArgs),
    /// Write DIR/ROLE.ign.img (the config as an extra initrd) and DIR/ROLE.ipxe (an iPXE
    /// script booting the live system with it).
    PxeFiles(crate::commands::media::PxeArgs),
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
