//! `okd-install wait-for bootstrap-complete | install-complete`.

use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use assets::AssetDir;
use contract::registry_error::MirrorRule;
use indicatif::{HumanDuration, ProgressBar, ProgressDrawTarget, ProgressStyle};
use wait_for::{
    BootstrapWaitOptions, Cluster, Event, GatherHint, InstallWaitOptions, Summary, WaitError,
};

use crate::cli::{OutputFormat, WaitArgs, WaitForCommand};
use crate::console;
use crate::exit::Exit;

/// Runs a wait; the returned [`Exit`] carries the documented exit code on failure.
pub(crate) fn run(dir: &Path, cmd: &WaitForCommand) -> Result<(), Exit> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| Exit::other(e.into()))?;
    let assets = AssetDir::new(dir);
    runtime.block_on(async {
        match cmd {
            WaitForCommand::BootstrapComplete(args) => bootstrap(&assets, args).await,
            WaitForCommand::InstallComplete(args) => install(&assets, args).await,
        }
    })
}

fn minutes(value: Option<f64>, default: Duration) -> Duration {
    value.map_or(default, |m| Duration::from_secs_f64(m.max(0.0) * 60.0))
}

/// Platform and pivot mode from the install-config kept in the asset directory.
fn cluster_facts(assets: &AssetDir) -> (Option<installconfig::Platform>, bool) {
    match assets.install_config() {
        Some(ic) => (ic.platform_kind(), ic.bootstrap_pivot.is_some()),
        None => (None, false),
    }
}

fn hint(dir: &Path, args: &WaitArgs) -> GatherHint {
    GatherHint {
        dir: dir.to_path_buf(),
        bootstrap: args.bootstrap.clone(),
        masters: args.masters.clone(),
    }
}

/// The cluster's mirror rules from the install-config kept in the asset directory, as the
/// nodes' ImageDigestMirrorSet has them: a pull error the kubelet reports names the image, not
/// the mirror it was pulled from.
fn mirror_rules(assets: &AssetDir) -> Vec<MirrorRule> {
    let Some(ic) = assets.install_config() else {
        return Vec::new();
    };
    assets::manifests::mirror_sources(ic)
        .into_iter()
        .map(|s| MirrorRule {
            source: s.source,
            mirrors: s.mirrors,
            // imageDigestSources become an ImageDigestMirrorSet: digests only.
            digest_only: true,
        })
        .collect()
}

async fn connect(assets: &AssetDir, args: &WaitArgs) -> Result<Cluster, Exit> {
    let path = args
        .kubeconfig
        .clone()
        .unwrap_or_else(|| wait_for::kubeconfig::default_path(assets.path()));
    Cluster::from_kubeconfig(&path)
        .await
        .map(|c| c.with_mirror_rules(mirror_rules(assets)))
        .map_err(|e| Exit::code(1, e.into()))
}

async fn bootstrap(assets: &AssetDir, args: &WaitArgs) -> Result<(), Exit> {
    let dir = assets.path();
    let (platform, pivot) = cluster_facts(assets);
    let budgets = installconfig::WaitBudgets::for_platform(platform);
    let mut opts = BootstrapWaitOptions::new(budgets.bootstrap, hint(dir, args));
    opts.pivot = pivot;
    opts.api_timeout = minutes(args.api_timeout, opts.api_timeout);
    opts.bootstrap_timeout = minutes(args.bootstrap_timeout, opts.bootstrap_timeout);
    opts.etcd_timeout = minutes(args.etcd_timeout, opts.etcd_timeout);
    opts.total = args.timeout;
    let cluster = connect(assets, args).await?;
    let display = Display::new(args.output);
    let result =
        wait_for::wait_bootstrap_complete(&cluster, &opts, &|e| display.event(&e), ctrl_c()).await;
    display.finish();
    let summary = match result {
        Ok(summary) => summary,
        Err(e) => return Err(bootstrap_failure(assets, args, e).await),
    };
    print_timings(&summary, args.output);
    if args.output == OutputFormat::Text {
        print_bootstrap_done(&summary, pivot);
    }
    Ok(())
}

fn print_bootstrap_done(summary: &Summary, pivot: bool) {
    if !pivot {
        tracing::info!(
            "bootstrap is complete: the bootstrap machine and its load-balancer entries can \
             now be removed"
        );
        return;
    }
    if let Some(stage) = &summary.pivot_stage {
        tracing::info!("bootstrap pivot: last stage reported was {stage}");
    }
    for csr in &summary.approved_csrs {
        tracing::info!("approved certificate signing request {csr} of the pivoted host");
    }
    if summary.etcd_override_removed {
        tracing::info!("removed the temporary etcd override that allowed fewer members");
    }
    tracing::info!(
        "bootstrap is complete: the former bootstrap host is now the third control-plane node; \
         keep it in the API (6443) and machine-config (22623) load-balancer pools"
    );
}

async fn install(assets: &AssetDir, args: &WaitArgs) -> Result<(), Exit> {
    let dir = assets.path();
    let (platform, _) = cluster_facts(assets);
    let budgets = installconfig::WaitBudgets::for_platform(platform);
    let mut opts = InstallWaitOptions::new(budgets.cluster_initialization, hint(dir, args));
    opts.cluster_timeout = minutes(args.cluster_timeout, opts.cluster_timeout);
    opts.operators_timeout = minutes(args.operators_timeout, opts.operators_timeout);
    opts.console_timeout = minutes(args.console_timeout, opts.console_timeout);
    if let Some(s) = args.settle_seconds {
        opts.settle = Duration::from_secs_f64(s.max(0.0));
    }
    let cluster = connect(assets, args).await?;
    let display = Display::new(args.output);
    let result =
        wait_for::wait_install_complete(&cluster, &opts, &|e| display.event(&e), ctrl_c()).await;
    display.finish();
    let summary = result.map_err(|e| failure(e, args.output))?;
    print_timings(&summary, args.output);
    if args.output == OutputFormat::Text {
        print_install_done(
            dir,
            cluster.kubeconfig_path(),
            &summary,
            args.print_password,
        );
    }
    Ok(())
}

fn print_install_done(dir: &Path, kubeconfig: &Path, summary: &Summary, print_password: bool) {
    for w in &summary.warnings {
        tracing::warn!("{w}");
    }
    let abs = std::fs::canonicalize(kubeconfig).unwrap_or_else(|_| kubeconfig.to_path_buf());
    tracing::info!("the cluster is installed");
    tracing::info!(
        "to use it with oc or kubectl: export KUBECONFIG={}",
        abs.display()
    );
    if let Some(url) = &summary.console_url {
        tracing::info!("web console: {url}");
    }
    let pw_path = dir.join(assets::layout::KUBEADMIN_PASSWORD);
    // Read as data: a link out of DIR or a FIFO in its place is never followed or waited on.
    let password = atomic_file::input::read_in_dir(
        dir,
        std::path::Path::new(assets::layout::KUBEADMIN_PASSWORD),
        4096,
    );
    match (print_password, password.map(String::from_utf8)) {
        (true, Ok(Ok(pw))) => tracing::info!("log in as kubeadmin with password: {}", pw.trim()),
        _ => tracing::info!(
            "the kubeadmin password is in {} (add --print-password to show it)",
            pw_path.display()
        ),
    }
}

async fn ctrl_c() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// A failed bootstrap as the process ends with it. When the API alone did not name the cause
/// and `--bootstrap` says where the host is, the host's own records name it (read over SSH
/// with gather's code). A named cause ends with exit code 10 and, in JSON, a `diagnosis`
/// event; an unknown one with 5 and the gather command to run.
async fn bootstrap_failure(assets: &AssetDir, args: &WaitArgs, err: WaitError) -> Exit {
    let Some(mut diagnosis) = err.diagnosis().cloned() else {
        return failure(err, args.output);
    };
    let mut code = err.exit_code();
    let from_host = match (&args.bootstrap, code) {
        (Some(host), 5 | wait_for::EXIT_CAUSE_NAMED) => host_finding(assets, args, host).await,
        _ => None,
    };
    // The API name not resolving here is this machine's problem, whatever the host says.
    let local = diagnosis
        .finding
        .as_ref()
        .is_some_and(|f| f.cause == contract::Cause::ApiDns);
    if let Some(found) = from_host.filter(|_| !local) {
        diagnosis.finding = Some(found);
    }
    if code == 5 && diagnosis.finding.is_some() {
        code = wait_for::EXIT_CAUSE_NAMED;
    }
    if code == 5 {
        diagnosis.likely_cause = format!(
            "{}; the API alone cannot tell why: the bootstrap host's records can (pass \
             --bootstrap HOST, or run the gather command below)",
            diagnosis.likely_cause
        );
    }
    if args.output == OutputFormat::Json {
        let line = match &diagnosis.finding {
            Some(f) => crate::diagnosis_output::diagnosis_event(f, Some(code)),
            None => serde_json::json!({
                "event": "diagnosis", "cause": null, "exit_code": code,
                "next": diagnosis.next_command,
            })
            .to_string(),
        };
        println!("{line}");
        return Exit::code(code, err.into());
    }
    Exit::code(code, err.into()).with_detail(Some(diagnosis.to_string()))
}

/// The cause the bootstrap host's log bundle names, gathered over SSH; `None` (with a warning
/// saying why) when the host cannot be reached or names none.
async fn host_finding(
    assets: &AssetDir,
    args: &WaitArgs,
    host: &str,
) -> Option<contract::cause::Finding> {
    let mut opts = match crate::bootstrap_host::host_options(assets, host.to_string(), &args.keys) {
        Ok(opts) => opts,
        Err(e) => {
            tracing::warn!("cannot read the bootstrap host's records: {e:#}");
            return None;
        }
    };
    opts.masters = args.masters.clone();
    opts.port = args.ssh_port;
    opts.user = args.ssh_user.clone();
    opts.remote_command = args.remote_command.clone();
    tracing::info!("reading the bootstrap host's service records over SSH ({host})");
    let gathered = tokio::time::timeout(
        HOST_GATHER_LIMIT,
        gather::gather_bootstrap(&opts, &mut |e| {
            tracing::debug!("{}", bundle_analysis::escape_controls(&e.to_string()))
        }),
    )
    .await;
    let outcome = match gathered {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(e)) => {
            tracing::warn!("cannot read the bootstrap host's records: {e}");
            return None;
        }
        Err(_) => {
            tracing::warn!(
                "the bootstrap host's records did not arrive within {HOST_GATHER_LIMIT:?}"
            );
            return None;
        }
    };
    tracing::info!("log bundle written to {}", outcome.bundle_path.display());
    match bundle_analysis::analyze_bundle(&outcome.bundle_path) {
        Ok(analysis) => {
            if matches!(
                analysis.verdict,
                bundle_analysis::Verdict::UnreadableRecords { .. }
            ) {
                tracing::warn!(
                    "the bootstrap host's service records could not be read (see `okd-install \
                     analyze {}`)",
                    outcome.bundle_path.display()
                );
            }
            // No cause named: what the host repeated most is where to look, as analyze says.
            if analysis.finding.is_none()
                && let Some(top) = analysis.repeated_errors.first()
            {
                tracing::warn!(
                    "the bootstrap host's records name no cause; the error line it repeated \
                     most ({} time(s), see `okd-install analyze {}`): {}",
                    top.count,
                    outcome.bundle_path.display(),
                    bundle_analysis::escape_controls(&top.line)
                );
            }
            analysis.finding
        }
        Err(e) => {
            tracing::warn!("cannot analyse {}: {e}", outcome.bundle_path.display());
            None
        }
    }
}

/// Longest the host's records may take after a failed wait (the gather script runs there).
const HOST_GATHER_LIMIT: Duration = Duration::from_secs(300);

/// The failure as the process ends with it: its message, and in text mode the diagnosis
/// below it (in JSON mode the `failed` event already carried the diagnosis).
fn failure(err: WaitError, output: OutputFormat) -> Exit {
    let code = err.exit_code();
    let detail = match (output, err.diagnosis()) {
        (OutputFormat::Text, Some(d)) => Some(d.to_string()),
        _ => None,
    };
    Exit::code(code, err.into()).with_detail(detail)
}

fn print_timings(summary: &Summary, output: OutputFormat) {
    if output == OutputFormat::Json {
        if let Ok(line) =
            serde_json::to_string(&serde_json::json!({"event": "summary", "summary": summary}))
        {
            println!("{line}");
        }
        return;
    }
    for p in &summary.phases {
        tracing::info!("  {}: {}", p.phase.title(), HumanDuration(p.elapsed));
    }
    tracing::info!("time elapsed: {}", HumanDuration(summary.total()));
}

/// A spinner per phase with its elapsed time and the last status, or JSON lines.
///
/// The wait sends a `Status` only when what it sees changes, so a failure retried every two
/// seconds is one line here (and one JSON event), and the spinner shows it as "last seen"
/// meanwhile. A failure is not printed here: the command ends with it, said once.
struct Display {
    output: OutputFormat,
}

impl Display {
    fn new(output: OutputFormat) -> Self {
        Display { output }
    }

    fn event(&self, e: &Event) {
        if self.output == OutputFormat::Json {
            if let Ok(line) = serde_json::to_string(e) {
                println!("{line}");
            }
            return;
        }
        match e {
            Event::PhaseStarted { phase, timeout } => {
                // The spinner is the console's active bar until the phase ends.
                let b = spinner(phase.title());
                let waiting = format!("waiting up to {}", HumanDuration(*timeout));
                b.set_message(waiting.clone());
                tracing::info!("{}: {waiting}", phase.title());
            }
            Event::Status { phase, message, .. } => {
                tracing::info!("{}: {message}", phase.title());
                console::set_message(format!("last seen: {message}"));
            }
            Event::PhaseDone {
                phase,
                elapsed,
                detail,
            } => {
                console::hide();
                tracing::info!(
                    "{}: {detail} after {}",
                    phase.title(),
                    HumanDuration(*elapsed)
                );
            }
            Event::Failed { .. } => console::hide(),
        }
    }

    fn finish(&self) {
        console::hide();
    }
}

/// The spinner of one phase, drawn only on a terminal; log lines step around it.
fn spinner(title: &str) -> ProgressBar {
    let b = ProgressBar::new_spinner();
    if !std::io::stderr().is_terminal() {
        b.set_draw_target(ProgressDrawTarget::hidden());
    }
    b.set_style(
        ProgressStyle::with_template("{spinner} {prefix} [{elapsed}] {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    b.set_prefix(title.to_string());
    b.enable_steady_tick(Duration::from_millis(120));
    console::show(&b);
    b
}
