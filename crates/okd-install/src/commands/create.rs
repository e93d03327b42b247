//! `okd-install create <target>`: prepare the inputs, run the asset graph, report.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, Result, bail};
use asset_graph::{Event, FileAction, RunReport, Source};
use assets::{CertPolicy, IgnitionOptions, ReleaseOptions, RunSettings, targets};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::{CreateCommand, CreateOpts, OutputFormat};
use crate::console;
use crate::examples;
use crate::survey;

/// Runs one `create` subcommand.
pub(crate) fn run(dir: &Path, cmd: &CreateCommand) -> Result<()> {
    match cmd {
        CreateCommand::InstallConfig(opts) => install_config(dir, opts),
        CreateCommand::Manifests(opts) => target(dir, opts, targets::MANIFESTS),
        CreateCommand::IgnitionConfigs(opts) => target(dir, opts, targets::IGNITION_CONFIGS),
        CreateCommand::SingleNodeIgnitionConfig(opts) => target(dir, opts, targets::SINGLE_NODE),
        CreateCommand::Pki(opts) => target(dir, opts, targets::PKI),
        CreateCommand::Secrets { opts, output_file } => secrets(dir, opts, output_file),
        CreateCommand::LiveIso(args) => super::media::live_iso(dir, args),
        CreateCommand::PxeFiles(args) => super::media::pxe_files(dir, args),
    }
}

/// `create install-config`: an example, the survey, or validation of an existing file.
fn install_config(dir: &Path, opts: &CreateOpts) -> Result<()> {
    let path = dir.join(assets::layout::INSTALL_CONFIG);
    if !path.exists() {
        if opts.from_example.is_some() {
            prepare_inputs(dir, opts)?;
        } else if std::io::stdin().is_terminal() {
            let yaml = survey::run_interactive()?;
            std::fs::create_dir_all(dir)?;
            write_secret_atomic(&path, yaml.as_bytes())?;
            tracing::info!("wrote {}", path.display());
        } else {
            bail!(
                "{} does not exist and standard input is not a terminal, so there is nobody \
                 to ask: write the file yourself (see `okd-install explain installconfig`), or \
                 pass --from-example NAME (one of: {})",
                path.display(),
                examples::names().join(", ")
            );
        }
    }
    target(dir, opts, targets::INSTALL_CONFIG)
}

/// Copies `--from-example` into the asset directory unless an install-config is there.
fn prepare_inputs(dir: &Path, opts: &CreateOpts) -> Result<()> {
    let Some(name) = &opts.from_example else {
        return Ok(());
    };
    let path = dir.join(assets::layout::INSTALL_CONFIG);
    if path.exists() {
        tracing::info!(
            "{} already exists; --from-example {name} is not applied over it",
            path.display()
        );
        return Ok(());
    }
    let text = examples::get(name)?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    write_secret_atomic(&path, text.as_bytes())?;
    tracing::info!("copied example {name:?} to {}", path.display());
    Ok(())
}

/// The settings of a run from the flags and environment.
pub(crate) fn settings(opts: &CreateOpts) -> Result<RunSettings> {
    let chosen = opts.release.choose()?;
    let release = chosen.resolved.release;
    if !chosen.is_default {
        tracing::warn!(
            "installing release image {} instead of the built-in default",
            chosen.image
        );
    }
    tracing::info!(
        "release image {} is OKD {} (version {} from {}): generating its bootstrap",
        chosen.image,
        release.version,
        chosen.resolved.version,
        chosen.resolved.from
    );
    let secrets = match &opts.with_secrets {
        Some(path) => {
            let bytes = atomic_file::input::read_named(path, 16 << 20)
                .with_context(|| format!("reading secrets bundle {}", path.display()))?;
            let text = String::from_utf8(bytes)
                .with_context(|| format!("secrets bundle {} is not UTF-8 text", path.display()))?;
            Some(pki::SecretsBundle::from_yaml(
                &text,
                &path.display().to_string(),
            )?)
        }
        None => None,
    };
    let fixed_time = match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(v) => Some(v.trim().parse::<u64>().with_context(|| {
            format!("SOURCE_DATE_EPOCH={v:?} is not a number of seconds since 1970")
        })?),
        Err(_) => None,
    };
    if fixed_time.is_some() && secrets.is_none() {
        tracing::warn!(
            "SOURCE_DATE_EPOCH is set but no --with-secrets bundle: keys stay random, so the \
             output is not reproducible"
        );
    }
    Ok(RunSettings {
        release: ReleaseOptions {
            release_image: chosen.image.clone(),
            channel: release.channel.clone(),
            upstream: releases::table().default.upstream.clone(),
            invoker: opts.invoker.clone().unwrap_or_else(|| "user".into()),
            cluster_profile: opts.cluster_profile.clone().unwrap_or_default(),
            bootstrap_node_ip: bootstrap_node_ip(opts),
            installer_version: chosen.resolved.version.clone(),
            release,
        },
        ignition: IgnitionOptions {
            compress: opts.compress,
        },
        secrets,
        policy: CertPolicy {
            margin_hours: opts.expiry_margin_hours,
            load_user_certs: opts.load_cluster_certs,
            ..CertPolicy::default()
        },
        fixed_time,
    })
}

fn bootstrap_node_ip(opts: &CreateOpts) -> String {
    match &opts.bootstrap_node_ip {
        Some(ip) if ip.parse::<std::net::IpAddr>().is_ok() => ip.clone(),
        Some(ip) => {
            tracing::warn!("ignoring bootstrap node IP {ip:?}: it is not an IP address");
            String::new()
        }
        None => String::new(),
    }
}

/// Runs target `name` in `dir` with a progress display, then reports (with the size of each
/// .ign file written against the platform's user-data limit).
fn target(dir: &Path, opts: &CreateOpts, name: &str) -> Result<()> {
    prepare_inputs(dir, opts)?;
    let settings = settings(opts)?;
    let mut store = assets::open_store(dir, &settings)?;
    let bar = progress_bar(opts.output);
    let observer_bar = bar.clone();
    let json = opts.output == OutputFormat::Json;
    store.set_observer(move |e: &Event<'_>| observe(&observer_bar, json, e));
    let result = store.run(name);
    console::hide();
    let report = result?;
    print_input_warnings(&store, &report);
    print_report(dir, name, &report, opts.output);
    let platform = store
        .get::<assets::config::InstallConfigAsset>()
        .map(|ic| ic.config.platform_name().to_string())
        .unwrap_or_default();
    print_sizes(dir, &report, &platform, opts);
    Ok(())
}

/// Warnings about the user's inputs (install-config, manifests), shown on the run that read
/// or made them.
fn print_input_warnings(store: &asset_graph::Store, report: &RunReport) {
    let fresh = |id: &str| {
        report
            .asset(id)
            .is_some_and(|a| matches!(a.source, Source::Generated | Source::Disk))
    };
    use asset_graph::Asset;
    use assets::{config::InstallConfigAsset, manifests::ManifestsAsset};
    if let Some(ic) = store
        .get::<InstallConfigAsset>()
        .filter(|_| fresh(InstallConfigAsset::ID))
    {
        ic.warnings
            .iter()
            .for_each(|w| tracing::warn!("install-config.yaml: {w}"));
    }
    if let Some(m) = store
        .get::<ManifestsAsset>()
        .filter(|_| fresh(ManifestsAsset::ID))
    {
        m.warnings.iter().for_each(|w| tracing::warn!("{w}"));
    }
}

fn progress_bar(output: OutputFormat) -> Arc<ProgressBar> {
    let bar = ProgressBar::new(0);
    if output == OutputFormat::Json || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{pos}/{len}] {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    console::show(&bar);
    Arc::new(bar)
}

fn observe(bar: &ProgressBar, json: bool, event: &Event<'_>) {
    match event {
        Event::Planned { total } => bar.set_length(*total as u64),
        Event::Generating { name, reason } => {
            bar.set_message(format!("generating {name}"));
            tracing::debug!("generating {name}: {reason}");
        }
        Event::Resolved {
            name,
            source,
            reason,
        } => {
            bar.inc(1);
            if json {
                let line = serde_json::json!({
                    "event": "asset", "name": name, "source": source.to_string(),
                    "reason": reason.map(ToString::to_string),
                });
                println!("{line}");
            }
        }
        Event::File { path, action } => {
            tracing::debug!("{}: {action:?}", path.display());
        }
    }
}

/// The end-of-run summary: what was regenerated and why, what was written.
fn print_report(dir: &Path, target: &str, report: &RunReport, output: OutputFormat) {
    if output == OutputFormat::Json {
        if let Ok(line) = serde_json::to_string(
            &serde_json::json!({"event": "done", "target": target, "report": report}),
        ) {
            println!("{line}");
        }
        return;
    }
    for a in report
        .assets
        .iter()
        .filter(|a| a.source != Source::Provided)
    {
        // Certificates and assets that own output files are worth a line; internal
        // intermediates (bundles, the TLS tree, an absent variant) only in the debug log.
        let visible = a.id.starts_with("tls/") || report.files.iter().any(|f| f.asset == a.name);
        match (&a.source, &a.reason) {
            (Source::Generated, Some(reason))
                if visible && !matches!(reason, asset_graph::Reason::NotInState) =>
            {
                tracing::info!("regenerated {}: {reason}", a.name)
            }
            (Source::Disk, Some(reason)) => tracing::info!("using your {} ({reason})", a.name),
            _ => tracing::debug!("{}: {}", a.name, a.source),
        }
    }
    for w in &report.warnings {
        tracing::warn!("{w}");
    }
    let written: Vec<String> = report
        .written()
        .map(|f| f.path.display().to_string())
        .collect();
    for f in &report.files {
        if let FileAction::Written { backup: Some(b) } = &f.action {
            tracing::warn!(
                "{} was edited by hand; your version is kept as {}",
                f.path.display(),
                b.display()
            );
        }
    }
    if written.is_empty() {
        tracing::info!(
            "{target}: nothing changed in {}, no file written",
            dir.display()
        );
    } else {
        tracing::info!(
            "{target}: wrote {} in {}",
            written.join(", "),
            dir.display()
        );
    }
}

/// Sizes of the written .ign files against the platform's user-data limit.
fn print_sizes(dir: &Path, report: &RunReport, platform: &str, opts: &CreateOpts) {
    for f in report
        .files
        .iter()
        .filter(|f| f.path.extension().is_some_and(|e| e == "ign"))
    {
        let path: PathBuf = dir.join(&f.path);
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let line = ignition::size_report(&f.path.display().to_string(), bytes, platform);
        if line.over {
            tracing::warn!("{line}");
        } else if opts.output == OutputFormat::Text {
            tracing::info!("{line}");
        }
    }
}

/// Writes `data` to `path` through a temporary file in the same directory, with mode 0600
/// (the examples copied into DIR, the survey's install-config, secrets bundles).
fn write_secret_atomic(path: &Path, data: &[u8]) -> Result<()> {
    atomic_file::write(path, data, 0o600).with_context(|| format!("writing {}", path.display()))
}

/// `create secrets`: every key, signer and the password into one 0600 file.
///
/// An existing file is never overwritten. When it already holds exactly this bundle (a run
/// killed after writing it, or run twice) the command is done; else it stops, and the
/// check comes first when there is no state to make the bundle from without new keys.
fn secrets(dir: &Path, opts: &CreateOpts, output_file: &Path) -> Result<()> {
    let path = if output_file.is_absolute() {
        output_file.to_path_buf()
    } else {
        // A path of DIR is an output of DIR: never through a directory link out of it (an
        // absolute path is the user's own choice of place).
        atomic_file::input::output_dirs_inside(dir, output_file)?;
        dir.join(output_file)
    };
    let exists = || std::fs::symlink_metadata(&path).is_ok();
    let refuse = || {
        anyhow::anyhow!(
            "{} already exists; okd-install never overwrites a secrets bundle: move it away or \
             pass --output-file",
            path.display()
        )
    };
    if exists() && !dir.join(assets::layout::STATE_FILE).exists() {
        return Err(refuse());
    }
    prepare_inputs(dir, opts)?;
    let settings = settings(opts)?;
    let mut store = assets::open_store(dir, &settings)?;
    store.run(targets::SECRETS)?;
    let export = store
        .get::<assets::export::SecretsExport>()
        .context("the secrets bundle was not produced")?;
    if exists() {
        let same = atomic_file::input::read_named(&path, 16 << 20)
            .is_ok_and(|bytes| bytes == export.yaml.as_bytes());
        if !same {
            return Err(refuse());
        }
        tracing::info!("{} already holds this secrets bundle", path.display());
        return Ok(());
    }
    // A killed run's temporary copy of a bundle (secrets, 0600) beside a file outside DIR,
    // where no other command's cleaner looks.
    for leftover in atomic_file::remove_abandoned_beside(&path) {
        tracing::info!(
            "removed {}, left over from an interrupted write",
            leftover.display()
        );
    }
    write_secret_atomic(&path, export.yaml.as_bytes())?;
    tracing::info!("wrote secrets bundle {} (mode 0600)", path.display());
    Ok(())
}
