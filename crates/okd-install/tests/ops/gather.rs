//! `okd-install gather bootstrap` against a real OpenSSH server on 127.0.0.1, running a
//! stand-in for the bootstrap host's gather script that writes a real bundle.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Mutex;

use crate::bundle::{failed_in, succeeded};
use crate::common::json_lines;
use crate::sshd::{Sshd, free_port, keygen};
use crate::support::{both, okd, stderr, stdout};

/// The gather id is the local time to the second and the stand-in writes to the login user's
/// home, so two gathers in the same second would share a remote file: run them one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A stand-in for the gather script: takes `--id ID` and control-plane hosts like the real
/// one, and leaves `$HOME/log-bundle-ID.tar.gz` with service records (release-image
/// succeeded, bootkube failed in stage cb-bootstrap) and a bootkube journal.
fn stand_in_script(dir: &Path) -> String {
    let release = serde_json::to_string(&succeeded()).unwrap();
    let bootkube = serde_json::to_string(&failed_in(
        "cb-bootstrap",
        "cluster-bootstrap gave up waiting for the API",
    ))
    .unwrap();
    let text = format!(
        r#"#!/bin/sh
# Stand-in for the bootstrap host's gather script (same arguments, same output place).
set -eu
id=
while [ $# -gt 0 ]; do
  case "$1" in
    --id) id=$2; shift 2 ;;
    *) echo "would also gather control-plane host $1"; shift ;;
  esac
done
[ -n "$id" ] || {{ echo "no --id given" >&2; exit 2; }}
stage=$(mktemp -d)
top="$stage/log-bundle-$id"
mkdir -p "$top/bootstrap/services" "$top/bootstrap/journals"
cat > "$top/bootstrap/services/release-image.json" <<'JSON'
{release}
JSON
cat > "$top/bootstrap/services/bootkube.json" <<'JSON'
{bootkube}
JSON
echo "bootkube: cluster-bootstrap gave up" > "$top/bootstrap/journals/bootkube.log"
tar -czf "$HOME/log-bundle-$id.tar.gz" -C "$stage" "log-bundle-$id"
rm -rf "$stage"
echo "bundle written for $id"
"#
    );
    let path = dir.join("installer-gather-stand-in.sh");
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// A server, the stand-in script on it, and an empty HOME for the client side.
struct Lab {
    server: Sshd,
    script: String,
    home: tempfile::TempDir,
}

impl Lab {
    fn start() -> Option<Lab> {
        let server = Sshd::start()?;
        let script = stand_in_script(server.dir.path());
        let home = tempfile::tempdir().unwrap();
        Some(Lab {
            server,
            script,
            home,
        })
    }

    /// A new key pair in the server's temp dir (not authorized yet).
    fn key(&self, name: &str) -> PathBuf {
        keygen(&self.server.dir.path().join(name), "ed25519", "", &[])
    }

    /// `gather bootstrap` into `dir` with the given extra arguments, HOME pointing to an empty
    /// directory and no SSH agent, so only keys named here (or in the state file) are offered.
    fn gather(&self, dir: &Path, port: u16, extra: &[&str]) -> Output {
        self.gather_with_env(dir, port, extra, &[])
    }

    /// [`Lab::gather`] with more environment (a test hook).
    fn gather_with_env(
        &self,
        dir: &Path,
        port: u16,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Output {
        let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
        let out = okd(dir)
            .args(["gather", "bootstrap", "--bootstrap", "127.0.0.1"])
            .args(["--port", &port.to_string(), "--user", &self.server.user])
            .args(["--remote-command", &self.script])
            .args(extra)
            .envs(env.iter().copied())
            .env("HOME", self.home.path())
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .expect("run okd-install gather bootstrap");
        self.remove_remote_bundles(dir);
        out
    }

    /// Authorizes a new key, then runs `gather bootstrap --key <it> <extra>` into a new
    /// directory, and checks that one bundle arrived: the common path of the tests that
    /// gather successfully. Returns the run's output and the key file it passed.
    fn gather_with_authorized_key(&self, extra: &[&str]) -> (Output, String) {
        let key = self.key("admin_ed25519");
        self.server.authorize(&key);
        let dir = tempfile::tempdir().unwrap();
        let key = key.display().to_string();
        let args: Vec<&str> = ["--key", key.as_str()]
            .into_iter()
            .chain(extra.iter().copied())
            .collect();
        let out = self.gather(dir.path(), self.server.port, &args);
        assert_gathered(&out, dir.path(), self);
        (out, key)
    }

    /// Deletes the bundles the stand-in left in the login user's home.
    fn remove_remote_bundles(&self, dir: &Path) {
        for name in bundles(dir) {
            let _ = std::fs::remove_file(self.server.home.join(name));
        }
    }
}

/// Names of `log-bundle-*.tar.gz` files in `dir`.
fn bundles(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.starts_with("log-bundle-") && n.ends_with(".tar.gz"))
                .collect()
        })
        .unwrap_or_default()
}

fn assert_gathered(out: &Output, dir: &Path, lab: &Lab) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\nsshd log:\n{}",
        both(out),
        lab.server.log()
    );
    let found = bundles(dir);
    assert_eq!(found.len(), 1, "one bundle in {}: {found:?}", dir.display());
    let bundle = dir.join(&found[0]);
    assert!(
        stderr(out).contains(&format!("log bundle written to {}", bundle.display())),
        "{}",
        both(out)
    );
}

const PROBLEM: &str = "Problem: bootkube.service failed at stage cb-bootstrap and could not bring up the bootstrap control plane";

#[test]
fn gathers_with_a_key_file_and_prints_the_analysis() {
    let Some(lab) = Lab::start() else { return };
    let (out, key) =
        lab.gather_with_authorized_key(&["--master", "10.0.0.10", "--log-level", "debug"]);
    let err = stderr(&out);
    let accepted = err
        .lines()
        .any(|l| l.contains(&format!("key file {key}")) && l.ends_with(": accepted"));
    assert!(accepted, "the key file logged in: {err}");
    assert!(
        err.contains("remote: would also gather control-plane host 10.0.0.10"),
        "--master reaches the remote script: {err}"
    );
    let text = stdout(&out);
    assert!(text.starts_with(PROBLEM), "{}", both(&out));
    assert!(
        text.contains("| cluster-bootstrap gave up waiting for the API"),
        "{text}"
    );
}

/// A gather killed with the bundle downloaded but not in place leaves a temporary file
/// (locked by no one once its process is dead); the next gather removes it, says which, and
/// lands its own bundle.
#[test]
fn a_gather_killed_before_its_bundle_lands_leaves_nothing_after_the_next() {
    let Some(lab) = Lab::start() else { return };
    let key = lab.key("admin_ed25519");
    lab.server.authorize(&key);
    let dir = tempfile::tempdir().unwrap();
    let key = key.display().to_string();
    let args = ["--key", key.as_str(), "--skip-analysis"];
    let temps = || -> Vec<PathBuf> {
        std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(atomic_file::TEMP_PREFIX))
            })
            .collect()
    };
    let killed = lab.gather_with_env(
        dir.path(),
        lab.server.port,
        &args,
        &[(atomic_file::fault::KILL_BEFORE_RENAME, "1")],
    );
    assert!(!killed.status.success(), "{}", both(&killed));
    let left = temps();
    assert_eq!(left.len(), 1, "the half-done download: {}", both(&killed));
    assert!(bundles(dir.path()).is_empty());
    let again = lab.gather(dir.path(), lab.server.port, &args);
    assert_gathered(&again, dir.path(), &lab);
    assert!(temps().is_empty(), "{}", both(&again));
    assert!(
        stderr(&again).contains(&left[0].display().to_string()),
        "the removed file is named: {}",
        both(&again)
    );
}

#[test]
fn skip_analysis_only_collects_the_bundle() {
    let Some(lab) = Lab::start() else { return };
    let (out, _) = lab.gather_with_authorized_key(&["--skip-analysis"]);
    assert_eq!(stdout(&out), "", "no analysis printed: {}", both(&out));
}

#[test]
fn json_output_prints_the_analysis_as_one_object() {
    let Some(lab) = Lab::start() else { return };
    let (out, _) = lab.gather_with_authorized_key(&["--output", "json"]);
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1, "{}", both(&out));
    let verdict = &lines[0]["verdict"];
    assert_eq!(verdict["kind"], "problem", "{verdict:#}");
    assert_eq!(verdict["service"], "bootkube");
    assert_eq!(verdict["stage"], "cb-bootstrap");
}

/// The stand-in at `lab`'s script with its last lines, where it writes the bundle into the
/// login directory, replaced by `tail` (a shell fragment with `$id` and `$stage` set); the
/// new script's path.
fn stand_in_ending(lab: &Lab, name: &str, tail: &str) -> String {
    let text = std::fs::read_to_string(&lab.script).unwrap();
    let cut = text
        .find("tar -czf")
        .expect("the stand-in writes its bundle with tar");
    let path = lab.server.dir.path().join(name);
    std::fs::write(&path, format!("{}{tail}", &text[..cut])).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// A host whose disk is full: its gather script cannot write the bundle into the login
/// directory, says so in the words of tar and gzip, writes it elsewhere and names that place; gather
/// downloads it from there and says why it was there.
#[test]
fn a_bundle_the_host_wrote_elsewhere_is_fetched_from_where_it_says() {
    let Some(mut lab) = Lab::start() else { return };
    let elsewhere = lab.server.dir.path().join("memory");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o777)).unwrap();
    let tail = format!(
        r#"echo "Cannot write the bundle to $HOME/log-bundle-$id.tar.gz: gzip: stdout: No space left on device"
echo "Cannot write the bundle to $HOME/log-bundle-$id.tar.gz: tar: Child returned status 1"
tar -czf "{dir}/log-bundle-$id.tar.gz" -C "$stage" "log-bundle-$id"
rm -rf "$stage"
echo "The bundle is at {dir}/log-bundle-$id.tar.gz"
"#,
        dir = elsewhere.display()
    );
    lab.script = stand_in_ending(&lab, "elsewhere.sh", &tail);
    let (out, _) = lab.gather_with_authorized_key(&[]);
    let err = stderr(&out);
    let said = format!(
        "(gzip: stdout: No space left on device; tar: Child returned status 1); it wrote it to \
         {}/log-bundle-",
        elsewhere.display()
    );
    assert!(
        err.lines().any(|l| l.contains(&said)
            && l.contains("the bootstrap host could not write its bundle to ")),
        "{err}"
    );
    assert!(stdout(&out).starts_with(PROBLEM), "{}", both(&out));
}

/// A host whose gather script leaves an empty bundle without a word (tar's file on a full
/// disk, as upstream's script leaves it): gather says the bundle is empty, not that it is a
/// broken archive, and keeps no file.
#[test]
fn an_empty_bundle_is_named_as_one_the_host_could_not_write() {
    let Some(mut lab) = Lab::start() else { return };
    let tail = r#": > "$HOME/log-bundle-$id.tar.gz"
rm -rf "$stage"
"#;
    lab.script = stand_in_ending(&lab, "empty.sh", tail);
    let key = lab.key("admin_ed25519");
    lab.server.authorize(&key);
    let dir = tempfile::tempdir().unwrap();
    let out = lab.gather(
        dir.path(),
        lab.server.port,
        &["--key", &key.display().to_string()],
    );
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let err = stderr(&out);
    assert!(
        err.contains(".tar.gz on the bootstrap host (in ")
            && err.contains("is empty: the gather command could not write its bundle there"),
        "{err}"
    );
    assert!(!err.contains("tar.gz archive"), "{err}");
    assert!(bundles(dir.path()).is_empty(), "{:?}", bundles(dir.path()));
}

/// The public half of the generated bootstrap key, from the state file of `dir`.
fn bootstrap_public_key(dir: &Path) -> String {
    let state = asset_graph::State::open(dir).expect("state file");
    state
        .get::<assets::tls::BootstrapSshKeyPair>()
        .expect("stored bootstrap key")
        .public_key
}

#[test]
fn the_generated_bootstrap_key_from_the_state_file_logs_in() {
    let Some(lab) = Lab::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = okd(dir.path())
        .args([
            "create",
            "ignition-configs",
            "--from-example",
            "compact-3-node",
        ])
        .output()
        .expect("run okd-install create");
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    lab.server.authorize_line(&bootstrap_public_key(dir.path()));
    let out = lab.gather(dir.path(), lab.server.port, &[]);
    assert_gathered(&out, dir.path(), &lab);
    let accepted = stderr(&out)
        .lines()
        .any(|l| l.contains("generated bootstrap key (state file)") && l.ends_with(": accepted"));
    assert!(
        accepted,
        "logged in with the state file's key: {}",
        both(&out)
    );
    assert!(stdout(&out).starts_with(PROBLEM), "{}", both(&out));
}

#[test]
fn a_rejected_key_fails_and_lists_what_was_tried() {
    let Some(lab) = Lab::start() else { return };
    let wrong = lab.key("not_authorized");
    let dir = tempfile::tempdir().unwrap();
    let key_arg = wrong.display().to_string();
    let out = lab.gather(dir.path(), lab.server.port, &["--key", &key_arg]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let err = stderr(&out);
    let address = format!("{}@127.0.0.1:{}", lab.server.user, lab.server.port);
    assert!(
        err.contains(&format!("cannot log in to {address}")),
        "{err}"
    );
    assert!(err.contains("tried:"), "{err}");
    let tried = err.split("tried:").nth(1).unwrap_or_default();
    assert!(
        tried.contains(&key_arg),
        "the key file is listed as tried: {err}"
    );
    assert_eq!(bundles(dir.path()), Vec::<String>::new());
}

#[test]
fn a_public_key_file_is_refused_naming_the_private_one() {
    let Some(lab) = Lab::start() else { return };
    let key = lab.key("admin_ed25519");
    lab.server.authorize(&key);
    let dir = tempfile::tempdir().unwrap();
    let public = format!("{}.pub", key.display());
    let out = lab.gather(dir.path(), lab.server.port, &["--key", &public]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let err = stderr(&out);
    assert!(err.contains(&format!("{public} is a public key")), "{err}");
    assert!(
        err.contains(&format!("--key {} instead", key.display())),
        "{err}"
    );
}

#[test]
fn a_closed_port_names_host_and_port() {
    let Some(lab) = Lab::start() else { return };
    let key = lab.key("admin_ed25519");
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let key_arg = key.display().to_string();
    let out = lab.gather(dir.path(), port, &["--key", &key_arg]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "cannot connect to the bootstrap host 127.0.0.1:{port}"
        )),
        "{err}"
    );
}

#[test]
fn without_a_bootstrap_address_it_asks_for_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = okd(dir.path())
        .args(["gather", "bootstrap"])
        .output()
        .expect("run okd-install gather bootstrap");
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let err = stderr(&out);
    assert!(
        err.contains("no bootstrap host address: pass --bootstrap <host>"),
        "{err}"
    );
    assert_eq!(bundles(dir.path()), Vec::<String>::new());
}

#[test]
fn sigint_while_the_remote_script_runs_exits_8() {
    let Some(lab) = Lab::start() else { return };
    let key = lab.key("admin_ed25519");
    lab.server.authorize(&key);
    let slow = lab.server.dir.path().join("slow-gather.sh");
    std::fs::write(&slow, "#!/bin/sh\necho gathering slowly\nsleep 5\n").unwrap();
    std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let child = std::process::Command::new(crate::support::bin_path())
        .arg("--dir")
        .arg(dir.path())
        .args(["gather", "bootstrap", "--bootstrap", "127.0.0.1", "--key"])
        .arg(&key)
        .args([
            "--port",
            &lab.server.port.to_string(),
            "--user",
            &lab.server.user,
        ])
        .arg("--remote-command")
        .arg(&slow)
        .env("HOME", lab.home.path())
        .env_remove("SSH_AUTH_SOCK")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start okd-install gather");
    let (status, seen) = crate::common::interrupt_after(child, "running ");
    assert_eq!(status.code(), Some(8), "{seen}");
    assert!(seen.contains("interrupted"), "{seen}");
    assert_eq!(bundles(dir.path()), Vec::<String>::new());
}

/// A stand-in gather script that leaves the prepared bundle `bundle` as the host's.
fn copying_stand_in(dir: &Path, bundle: &Path) -> String {
    let text = format!(
        r#"#!/bin/sh
# Stand-in for the gather script: the bundle was prepared by the test.
set -eu
id=
while [ $# -gt 0 ]; do
  case "$1" in
    --id) id=$2; shift 2 ;;
    *) shift ;;
  esac
done
cp '{}' "$HOME/log-bundle-$id.tar.gz"
"#,
        bundle.display()
    );
    let path = dir.join("installer-gather-copy.sh");
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// The payload's etcd 3.5 (zap logger) with a data directory it cannot create (run by hand
/// against the 4.19 payload, 2026-11-26).
const ETCD_DATA_DIR: &str = r#"{"level":"warn","ts":"2026-11-26T14:03:21.460Z","caller":"etcdmain/etcd.go:176","msg":"failed to start etcd","error":"cannot access data directory: mkdir /var/lib/etcd/member: read-only file system"}"#;

/// A bootstrap host whose etcd crash-loops on ETCD_DATA_DIR while bootkube waits for it.
fn etcd_start_bundle(dir: &Path) -> PathBuf {
    use testkit::gather::scenario::{
        Ending, bootkube_run, control_plane_with, crash_looping, etcd, renders_before,
    };
    let log = format!("{{\"level\":\"info\",\"msg\":\"starting etcd\"}}\n{ETCD_DATA_DIR}\n");
    let mut containers = control_plane_with(&["192.0.2.11"], crash_looping(&etcd(), 1, 4, 1, &log));
    containers.extend(renders_before(None));
    let mut bundle = crate::bundle::Bundle::new("etcd")
        .service("release-image", succeeded())
        .service("bootkube", bootkube_run("wait-for-etcd", Ending::Running));
    for c in &containers {
        let sub = match c.runtime {
            testkit::gather::evidence::Runtime::Crio => "bootstrap/containers",
            testkit::gather::evidence::Runtime::Podman => "bootstrap/pods",
        };
        bundle = bundle.container(sub, c);
    }
    bundle.write(dir, "prepared-etcd.tar.gz")
}

/// `wait-for bootstrap-complete --bootstrap HOST` against an API that never answers: with
/// `--timeout` capping the wait, it reads the host's records over SSH and names the cause.
fn wait_for_with_host(lab: &Lab, key: &Path, extra: &[&str]) -> Output {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let pki = testkit::api::TestPki::generate("ops.example.com");
    let server = format!("https://127.0.0.1:{}", free_port());
    let yaml = testkit::api::pki::kubeconfig_yaml(
        &server,
        &pki.server_ca.cert_pem(),
        &pki.admin,
        Some(&pki.api_host()),
    );
    let kubeconfig = dir.path().join("admin.kubeconfig");
    std::fs::write(&kubeconfig, yaml).unwrap();
    let port = lab.server.port.to_string();
    let key = key.display().to_string();
    let out = okd(dir.path())
        .args(["wait-for", "bootstrap-complete", "--kubeconfig"])
        .arg(&kubeconfig)
        .args([
            "--timeout",
            "3s",
            "--bootstrap",
            "127.0.0.1",
            "--ssh-port",
            &port,
        ])
        .args([
            "--ssh-user",
            &lab.server.user,
            "--remote-command",
            &lab.script,
        ])
        .args(["--key", &key])
        .args(extra)
        .env("HOME", lab.home.path())
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("run okd-install wait-for");
    lab.remove_remote_bundles(dir.path());
    out
}

#[test]
fn wait_for_reads_the_bootstrap_hosts_records_and_names_etcd() {
    let Some(mut lab) = Lab::start() else { return };
    let bundle = etcd_start_bundle(lab.server.dir.path());
    lab.script = copying_stand_in(lab.server.dir.path(), &bundle);
    let key = lab.key("admin_ed25519");
    lab.server.authorize(&key);

    let out = wait_for_with_host(&lab, &key, &[]);
    assert_eq!(out.status.code(), Some(10), "{}", both(&out));
    let err = stderr(&out);
    assert!(err.contains("Kubernetes API not done after 3.0s"), "{err}");
    let said: Vec<&str> = err
        .lines()
        .skip_while(|l| !l.starts_with("cause ("))
        .take(3)
        .collect();
    assert_eq!(
        said,
        [
            "cause (etcd-start): etcd on the bootstrap host did not start [bootkube.service, stage wait-for-etcd]".to_string(),
            format!("evidence: {ETCD_DATA_DIR}"),
            format!("what to do: {}", contract::Cause::EtcdStart.remedy()),
        ],
        "{err}"
    );

    let out = wait_for_with_host(&lab, &key, &["--output", "json"]);
    assert_eq!(out.status.code(), Some(10), "{}", both(&out));
    let lines = json_lines(&out);
    let d = lines.last().expect("events");
    assert_eq!(d["event"], "diagnosis", "{}", both(&out));
    assert_eq!(d["cause"], "etcd-start");
    assert_eq!(d["unit"], "bootkube.service");
    assert_eq!(d["stage"], "wait-for-etcd");
    assert_eq!(d["evidence"], ETCD_DATA_DIR);
    assert_eq!(d["remedy"], contract::Cause::EtcdStart.remedy());
    assert_eq!(d["exit_code"], 10);
}

/// The issue's host: every service record reads success, while cluster-bootstrap keeps
/// refusing the user's ConfigMap in a namespace nothing creates (both line shapes).
fn manifest_loop_bundle(dir: &Path) -> PathBuf {
    use testkit::gather::scenario::{
        HELDOUT_FILE, HELDOUT_ONE, HELDOUT_TWO, HELDOUT_YAML, create_loop_journal,
    };
    crate::bundle::Bundle::new("loop")
        .service("release-image", succeeded())
        .service("bootkube", succeeded())
        .asset_manifest(HELDOUT_FILE, HELDOUT_YAML)
        .file(
            "bootstrap/journals/bootkube.log",
            create_loop_journal(20, Some(HELDOUT_ONE), Some(HELDOUT_TWO)),
        )
        .write(dir, "prepared-loop.tar.gz")
}

/// wait-for says what `analyze` says of the same bundle: the same finding, line for line.
#[test]
fn wait_for_names_a_manifest_cluster_bootstrap_keeps_refusing_as_analyze_does() {
    let Some(mut lab) = Lab::start() else { return };
    let bundle = manifest_loop_bundle(lab.server.dir.path());
    lab.script = copying_stand_in(lab.server.dir.path(), &bundle);
    let key = lab.key("admin_ed25519");
    lab.server.authorize(&key);

    let analyzed = okd(lab.server.dir.path())
        .arg("analyze")
        .arg(&bundle)
        .output()
        .expect("run okd-install analyze");
    let report = stdout(&analyzed);
    let finding: Vec<&str> = report
        .lines()
        .take_while(|l| !l.starts_with("Not complete"))
        .collect();
    assert!(
        finding[0].starts_with(
            "cause (manifest-namespace): cluster-bootstrap cannot create 99-heldout-probe.yaml"
        ),
        "{report}"
    );
    assert!(finding.len() >= 4, "{report}");

    let out = wait_for_with_host(&lab, &key, &[]);
    assert_eq!(out.status.code(), Some(10), "{}", both(&out));
    let err = stderr(&out);
    let said: Vec<&str> = err
        .lines()
        .skip_while(|l| !l.starts_with("cause ("))
        .take(finding.len())
        .collect();
    assert_eq!(said, finding, "{err}");

    let out = wait_for_with_host(&lab, &key, &["--output", "json"]);
    let lines = json_lines(&out);
    let d = lines.last().expect("events");
    assert_eq!(d["event"], "diagnosis", "{}", both(&out));
    assert_eq!(d["cause"], "manifest-namespace");
    assert_eq!(d["exit_code"], 10);
    assert!(
        d["details"][0]
            .as_str()
            .is_some_and(|s| s.starts_with("refused 20 time(s) from Nov 28 08:00:05")),
        "{d}"
    );
}
