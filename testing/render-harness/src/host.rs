//! A scratch bootstrap host: the files of an Ignition config under a directory.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Result;
use crate::error::Error;

/// Where Debian's `ignition` package keeps the Ignition binary; it runs as `ignition-apply`
/// when started under that name.
const DEBIAN_IGNITION: &str = "/usr/lib/dracut/modules.d/30ignition/ignition";

/// The directories of a scratch bootstrap host.
#[derive(Debug, Clone)]
pub struct Host {
    /// The node's root: `/opt/openshift`, `/usr/local/bin`, `/etc` live below it.
    pub root: PathBuf,
    /// Service records (`/var/log/openshift` on a real host).
    pub records: PathBuf,
    /// bootkube.sh's output.
    pub log: PathBuf,
}

impl Host {
    /// A host laid out under `dir` (nothing is created yet).
    pub fn new(dir: &Path) -> Host {
        Host {
            root: dir.join("root"),
            records: dir.join("records"),
            log: dir.join("bootkube.log"),
        }
    }

    /// `/opt/openshift` of the host.
    pub fn assets(&self) -> PathBuf {
        self.root.join("opt/openshift")
    }

    /// Where the podman wrapper notes bootkube.sh's podman calls.
    pub fn calls_file(&self) -> PathBuf {
        self.log.with_file_name("podman-calls")
    }

    /// A path of the node, e.g. `/etc/kubernetes/manifests`.
    pub fn path(&self, node_path: &str) -> PathBuf {
        self.root.join(node_path.trim_start_matches('/'))
    }
}

/// Writes the files, directories and links of the Ignition config `ign` under `host.root`
/// with the real Ignition (`ignition-apply --root`). Units and users are left out: a scratch
/// root has no systemd or passwd database to change, and the harness runs the scripts itself.
pub fn materialize(ign: &Path, host: &Host) -> Result<()> {
    let apply = ignition_apply()?;
    seed_accounts(&host.root)?;
    let files_only = files_only_config(ign, &host.root)?;
    let mut cmd = Command::new(&apply.0);
    cmd.arg("--offline")
        .arg("--root")
        .arg(&host.root)
        .arg(&files_only);
    output_of(&mut cmd).map(|_| ())
}

/// Ignition sets file owners by name from the root's own account database: give the scratch
/// root one that knows `root`.
pub(crate) fn seed_accounts(root: &Path) -> Result<()> {
    let etc = root.join("etc");
    std::fs::create_dir_all(&etc).map_err(Error::io(&etc))?;
    for (file, line) in [
        ("passwd", "root:x:0:0:root:/root:/bin/bash\n"),
        ("group", "root:x:0:\n"),
    ] {
        let path = etc.join(file);
        if !path.exists() {
            std::fs::write(&path, line).map_err(Error::io(&path))?;
        }
    }
    Ok(())
}

/// The config at `ign` with only its storage section, written next to `root`.
fn files_only_config(ign: &Path, root: &Path) -> Result<PathBuf> {
    let text = std::fs::read_to_string(ign).map_err(Error::io(ign))?;
    let mut config: serde_json::Value = serde_json::from_str(&text).map_err(|e| Error::Io {
        path: ign.to_path_buf(),
        error: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
    })?;
    if let Some(map) = config.as_object_mut() {
        map.remove("systemd");
        map.remove("passwd");
    }
    let out = root.with_extension("files-only.ign");
    std::fs::write(&out, config.to_string()).map_err(Error::io(&out))?;
    Ok(out)
}

/// `ignition-apply` from PATH, or Debian's Ignition binary linked under that name. The
/// second value keeps the temporary link alive.
pub(crate) fn ignition_apply() -> Result<(PathBuf, Option<tempfile::TempDir>)> {
    if let Some(found) = which("ignition-apply") {
        return Ok((found, None));
    }
    if Path::new(DEBIAN_IGNITION).is_file() {
        let dir = tempfile::tempdir().map_err(Error::io(std::env::temp_dir()))?;
        let link = dir.path().join("ignition-apply");
        std::os::unix::fs::symlink(DEBIAN_IGNITION, &link).map_err(Error::io(&link))?;
        return Ok((link, Some(dir)));
    }
    Err(Error::MissingTool {
        program: "ignition-apply",
        hint: "install Debian's `ignition` package (apt-get install ignition)",
    })
}

/// A program on PATH.
pub(crate) fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

pub(crate) use testkit::run::command_line;

/// Runs `cmd`; its stdout when it succeeds, an error with the end of its output otherwise.
pub(crate) fn output_of(cmd: &mut Command) -> Result<String> {
    testkit::run::output_of(cmd, 30).map_err(|e| match e {
        testkit::run::RunError::Spawn { command, source } => Error::Spawn { command, source },
        testkit::run::RunError::Failed {
            command,
            status,
            output,
        } => Error::Command {
            command,
            status,
            output,
        },
    })
}
