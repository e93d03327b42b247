//! Running the host's bootkube.sh until its render stages are done.

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::{Error, tail};
use crate::host::which;
use crate::{Host, Payload, Result, render_stages};

/// What a run of bootkube.sh did.
#[derive(Debug, Clone)]
pub struct RenderRun {
    /// Stages with a `.done` marker, in [`render_stages`] order.
    pub stages_done: Vec<String>,
    /// bootkube.sh's output.
    pub log: String,
    /// Every podman command bootkube.sh ran, as argument lists, in order.
    pub podman_calls: Vec<Vec<String>>,
}

/// Runs `bootkube.sh` of `host` with real podman until the last render stage is done, then
/// stops it: the next stage waits for an etcd member that the payload's placeholder cannot
/// run. Fails when the script exits first (a render failed) or `limit` passes.
///
/// Render containers have fixed names (`--name api-render`, ...), as on a bootstrap host, so
/// two runs must not overlap on one machine.
pub fn run_renders(host: &Host, payload: &Payload, limit: Duration) -> Result<RenderRun> {
    std::fs::create_dir_all(&host.records).map_err(Error::io(&host.records))?;
    let mut child = spawn(host, payload)?;
    let stages = render_stages();
    let last = host
        .assets()
        .join(format!("{}.done", stages[stages.len() - 1]));
    let started = Instant::now();
    let outcome = loop {
        if last.exists() {
            break Ok(());
        }
        match child.try_wait() {
            Ok(Some(_)) => break Err("exited"),
            Ok(None) if started.elapsed() > limit => break Err("timeout"),
            _ => std::thread::sleep(Duration::from_millis(300)),
        }
    };
    stop(&mut child, payload);
    let log = std::fs::read_to_string(&host.log).unwrap_or_default();
    let stages_done = done_stages(host);
    let podman_calls = read_calls(host);
    match outcome {
        Ok(()) => Ok(RenderRun {
            stages_done,
            log,
            podman_calls,
        }),
        Err("timeout") => Err(Error::Timeout {
            seconds: limit.as_secs(),
            log: host.log.clone(),
            tail: tail(&log, 40),
        }),
        Err(_) => Err(Error::BootkubeFailed {
            last_done: stages_done.last().cloned().unwrap_or_else(|| "none".into()),
            log: host.log.clone(),
            tail: tail(&log, 40),
        }),
    }
}

/// `bash /usr/local/bin/bootkube.sh` with every location pointed into the scratch root, and
/// podman observed: a wrapper first on PATH notes each command line, then runs the real
/// podman with it.
fn spawn(host: &Host, payload: &Payload) -> Result<Child> {
    let shim = write_podman_shim(host)?;
    let path = format!(
        "{}:{}",
        shim.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let log = File::create(&host.log).map_err(Error::io(&host.log))?;
    let err = log.try_clone().map_err(Error::io(&host.log))?;
    let mut cmd = Command::new("bash");
    cmd.arg(host.path("/usr/local/bin/bootkube.sh"))
        .current_dir(host.assets())
        .env("OPENSHIFT_ROOT", host.assets())
        .env("ETC_KUBERNETES", host.path("/etc/kubernetes"))
        .env("HOST_ETC", host.path("/etc"))
        .env("BOOTSTRAP_BIN_DIR", host.path("/usr/local/bin"))
        .env("SERVICE_RECORDS_DIR", &host.records)
        .env("SERVICE_NAME", "bootkube")
        .env("CONTAINERS_CONF", &payload.containers_conf)
        .env("PATH", path)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err)
        .process_group(0);
    cmd.spawn().map_err(|source| Error::Spawn {
        command: "bash bootkube.sh".into(),
        source,
    })
}

/// Writes the podman wrapper into a directory of the host's work area and returns it.
fn write_podman_shim(host: &Host) -> Result<std::path::PathBuf> {
    let real = which("podman").ok_or(Error::MissingTool {
        program: "podman",
        hint: "the payload's load.sh installs it (apt-get install podman runc)",
    })?;
    let dir = host.calls_file().with_file_name("shim");
    std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
    let script = format!(
        "#!/usr/bin/env bash\n\
         # Notes the command line (arguments NUL-separated, one call a line), then runs podman.\n\
         {{ printf '%s\\0' \"$@\"; printf '\\n'; }} >>'{calls}'\n\
         exec '{real}' \"$@\"\n",
        calls = host.calls_file().display(),
        real = real.display()
    );
    let path = dir.join("podman");
    std::fs::write(&path, script).map_err(Error::io(&path))?;
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .map_err(Error::io(&path))?;
    let _ = std::fs::remove_file(host.calls_file());
    Ok(dir)
}

/// The podman calls the wrapper noted.
fn read_calls(host: &Host) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(host.calls_file()).unwrap_or_default();
    text.lines()
        .map(|line| {
            line.split('\0')
                .filter(|a| !a.is_empty())
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// Ends the script's process group and any container it left running.
fn stop(child: &mut Child, payload: &Payload) {
    let group = format!("-{}", child.id());
    // The group may be gone already (bootkube.sh ended on its own): not worth a line.
    let _ = Command::new("kill")
        .args(["-TERM", "--", &group])
        .stderr(Stdio::null())
        .status();
    if child.wait().is_err() {
        let _ = child.kill();
    }
    let _ = payload
        .podman()
        .args(["rm", "--force", "--ignore", "etcdctl"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// The stages whose marker exists.
fn done_stages(host: &Host) -> Vec<String> {
    render_stages()
        .iter()
        .filter(|s| host.assets().join(format!("{s}.done")).exists())
        .map(|s| s.to_string())
        .collect()
}
