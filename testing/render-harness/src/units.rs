//! The systemd stand-in: the bootstrap units' scripts run in the sandbox as their units
//! start them, restarted after a failure as `Restart=on-failure` does.

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::Sandbox;
use crate::error::Error;

/// How a unit ended or where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UnitState {
    /// Still running (or waiting to be restarted).
    Running,
    /// Its script exited 0.
    Succeeded,
    /// It failed more often than the harness allows.
    GaveUp,
    /// Its start condition said no (the marker of a finished run exists).
    Skipped,
}

/// One unit's script run by the stand-in.
#[derive(Debug, Clone)]
pub(crate) struct UnitSpec {
    /// The unit's name, for messages.
    pub name: &'static str,
    /// Its `ExecStart`: the script and its arguments (node paths).
    pub exec: Vec<String>,
    /// Its `WorkingDirectory`, if any.
    pub workdir: Option<&'static str>,
    /// A node path whose existence means "do not start" (`ConditionPathExists=!`).
    pub unless: Option<&'static str>,
    /// Failures tolerated before the harness stops restarting it (systemd never would; a test
    /// must end).
    pub max_failures: u32,
    /// A file (machine path) whose existence means the units it comes after succeeded
    /// (`After=` + `Requires=`): not started before.
    pub after: Option<PathBuf>,
}

/// A unit being run; dropped or [`Unit::stop`]ped, its process group is ended.
pub(crate) struct Unit {
    /// The unit's name.
    pub name: &'static str,
    /// Its combined output over every run.
    pub log: PathBuf,
    state: Arc<Mutex<(UnitState, u32)>>,
    stop: Arc<AtomicBool>,
    child: Arc<Mutex<Option<Child>>>,
    thread: Option<JoinHandle<()>>,
}

impl Unit {
    /// Starts `spec` in `sandbox` with `env`, its output appended to `log`. `host_root` is
    /// where the sandbox's node paths live, to test the start condition.
    pub(crate) fn start(
        spec: UnitSpec,
        sandbox: &Sandbox,
        env: Vec<(String, String)>,
        log: &Path,
        host_root: &Path,
    ) -> Result<Unit, Error> {
        // Appended to: a unit started again (systemctl restart) keeps one journal.
        File::options()
            .create(true)
            .append(true)
            .open(log)
            .map_err(Error::io(log))?;
        let state = Arc::new(Mutex::new((UnitState::Running, 0)));
        let stop = Arc::new(AtomicBool::new(false));
        let child: Arc<Mutex<Option<Child>>> = Arc::new(Mutex::new(None));
        let runner = Runner {
            spec: spec.clone(),
            sandbox: sandbox.clone(),
            env,
            log: log.to_path_buf(),
            unless: spec
                .unless
                .map(|p| host_root.join(p.trim_start_matches('/'))),
            state: state.clone(),
            stop: stop.clone(),
            child: child.clone(),
        };
        let thread = std::thread::spawn(move || runner.run());
        Ok(Unit {
            name: spec.name,
            log: log.to_path_buf(),
            state,
            stop,
            child,
            thread: Some(thread),
        })
    }

    /// Where the unit is, and how many times its script failed.
    pub(crate) fn state(&self) -> (UnitState, u32) {
        self.state
            .lock()
            .map(|s| s.clone())
            .unwrap_or((UnitState::GaveUp, 0))
    }

    /// Ends the script's process group and stops restarting it.
    pub(crate) fn stop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Ok(mut child) = self.child.lock()
            && let Some(child) = child.as_mut()
        {
            kill_group(child);
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Unit {
    fn drop(&mut self) {
        self.stop();
    }
}

struct Runner {
    spec: UnitSpec,
    sandbox: Sandbox,
    env: Vec<(String, String)>,
    log: PathBuf,
    unless: Option<PathBuf>,
    state: Arc<Mutex<(UnitState, u32)>>,
    stop: Arc<AtomicBool>,
    child: Arc<Mutex<Option<Child>>>,
}

impl Runner {
    fn set(&self, state: UnitState, failures: u32) {
        if let Ok(mut s) = self.state.lock() {
            *s = (state, failures);
        }
    }

    fn run(self) {
        let mut failures = 0;
        if let Some(after) = &self.spec.after {
            while !after.exists() {
                if self.stop.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            if self.unless.as_ref().is_some_and(|p| p.exists()) {
                self.set(UnitState::Skipped, failures);
                return;
            }
            let Some(status) = self.run_once() else {
                self.set(UnitState::GaveUp, failures);
                return;
            };
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            if status {
                self.set(UnitState::Succeeded, failures);
                return;
            }
            failures += 1;
            if failures > self.spec.max_failures {
                self.set(UnitState::GaveUp, failures);
                return;
            }
            self.set(UnitState::Running, failures);
            std::thread::sleep(Duration::from_secs(5));
        }
    }

    /// One run of the script: `Some(succeeded)`, or `None` when it could not be started.
    fn run_once(&self) -> Option<bool> {
        let out = File::options().append(true).open(&self.log).ok()?;
        let err = out.try_clone().ok()?;
        let mut cmd: Command = self.sandbox.command("bash");
        if let Some(dir) = self.spec.workdir {
            cmd.args(["-c", "cd \"$1\" && shift && exec bash \"$@\"", "unit"])
                .arg(dir);
        }
        cmd.args(&self.spec.exec)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0);
        let child = cmd.spawn().ok()?;
        if let Ok(mut slot) = self.child.lock() {
            *slot = Some(child);
        }
        loop {
            let finished = self
                .child
                .lock()
                .ok()
                .and_then(|mut c| c.as_mut().and_then(|c| c.try_wait().ok().flatten()));
            if let Some(status) = finished {
                return Some(status.success());
            }
            if self.stop.load(Ordering::Relaxed) {
                return Some(false);
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    }
}

/// TERM to the child's process group, then KILL after a few seconds.
fn kill_group(child: &mut Child) {
    let group = format!("-{}", child.id());
    let _ = Command::new("kill")
        .args(["-TERM", "--", &group])
        .stderr(Stdio::null())
        .status();
    for _ in 0..20 {
        if child.try_wait().ok().flatten().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    let _ = Command::new("kill")
        .args(["-KILL", "--", &group])
        .stderr(Stdio::null())
        .status();
    let _ = child.wait();
}
