//! `gather_bootstrap` against a real OpenSSH server on 127.0.0.1.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gather::{GatherError, GatherEvent, GatherOptions, RemoteStream, gather_bootstrap};

use crate::sshd::{Agent, Sshd, fingerprint, free_port, keygen};

/// Removes the bundle the stand-in script leaves in the remote user's home.
struct RemoteBundle(PathBuf);

impl Drop for RemoteBundle {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A gather id unique to this test process and case, so parallel tests never share a file.
fn unique_id(case: &str) -> String {
    format!("it-{}-{case}", std::process::id())
}

const RECORDS: &str = r#"mkdir -p "$work/log-bundle-$ID/bootstrap/services" "$work/log-bundle-$ID/bootstrap/journals"
printf '%s' '[{"timestamp":"2026-01-01T00:00:00Z","phase":"service start"},{"timestamp":"2026-01-01T00:01:00Z","phase":"service end","result":"success"}]' > "$work/log-bundle-$ID/bootstrap/services/release-image.json"
printf '%s' '[{"timestamp":"2026-01-01T00:02:00Z","phase":"service start"},{"timestamp":"2026-01-01T00:02:01Z","phase":"stage start","stage":"cb-bootstrap"},{"timestamp":"2026-01-01T00:12:00Z","phase":"stage end","stage":"cb-bootstrap","result":"failure","errorMessage":"timed out waiting for the API"},{"timestamp":"2026-01-01T00:12:01Z","phase":"service end","result":"failure"}]' > "$work/log-bundle-$ID/bootstrap/services/bootkube.json"
echo "bootkube journal line" > "$work/log-bundle-$ID/bootstrap/journals/bootkube.log"
"#;

/// Writes a stand-in for installer-gather.sh; `body` runs after argument parsing.
fn script(server: &Sshd, name: &str, body: &str) -> String {
    let path = server.dir.path().join(name);
    let text = format!(
        "#!/bin/sh\nset -eu\nID=\nwhile [ $# -gt 0 ]; do\n  case \"$1\" in\n    --id) ID=\"$2\"; shift 2 ;;\n    *) echo \"master: $1\"; shift ;;\n  esac\ndone\necho \"gathering $ID\"\n{body}"
    );
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// A stand-in that writes a real bundle to $HOME, as the real script does.
fn bundle_script(server: &Sshd, extra: &str) -> String {
    let body = format!(
        "{extra}\necho 'a line on stderr' >&2\nwork=$(mktemp -d)\n{RECORDS}tar -czf \"$HOME/log-bundle-$ID.tar.gz\" -C \"$work\" \"log-bundle-$ID\"\nrm -rf \"$work\"\n"
    );
    script(server, "gather-ok.sh", &body)
}

fn options(server: &Sshd, case: &str, remote_command: String) -> (GatherOptions, RemoteBundle) {
    let id = unique_id(case);
    let mut opts = GatherOptions::new("127.0.0.1", server.subdir("out"), id.clone());
    opts.port = server.port;
    opts.user = server.user.clone();
    opts.home_ssh_dir = Some(server.subdir("empty-ssh-dir"));
    opts.remote_command = remote_command;
    opts.connect_timeout = Duration::from_secs(10);
    let remote = RemoteBundle(server.home.join(format!("log-bundle-{id}.tar.gz")));
    (opts, remote)
}

async fn gather(
    opts: &GatherOptions,
) -> (Result<gather::GatherOutcome, GatherError>, Vec<GatherEvent>) {
    let mut events = Vec::new();
    let result = gather_bootstrap(opts, &mut |e| events.push(e)).await;
    (result, events)
}

fn remote_lines(events: &[GatherEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            GatherEvent::RemoteLine { line, .. } => Some(line.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn ed25519_key_file_gathers_and_the_bundle_analyses() {
    let Some(server) = Sshd::start() else { return };
    let key = keygen(&server.dir.path().join("user_ed25519"), "ed25519", "", &[]);
    server.authorize(&key);
    let (mut opts, _remote) = options(
        &server,
        "ed25519",
        bundle_script(&server, "ssh-add -l || true"),
    );
    opts.keys = vec![key.clone()];
    opts.masters = vec!["10.0.0.5".into(), "$(id)".into()];
    let (result, events) = gather(&opts).await;
    let outcome = result.unwrap_or_else(|e| panic!("{e}\n{}", server.log()));
    assert_eq!(outcome.bundle_path, opts.out_dir.join(opts.bundle_name()));
    assert_eq!(outcome.host_key_fingerprint, server.host_fingerprint());
    assert!(
        outcome.auth_method.contains("user_ed25519"),
        "{}",
        outcome.auth_method
    );
    let lines = remote_lines(&events);
    assert!(
        lines.contains(&format!("gathering {}", opts.gather_id)),
        "{lines:?}"
    );
    assert!(lines.contains(&"master: 10.0.0.5".to_string()), "{lines:?}");
    assert!(
        lines.contains(&"master: $(id)".to_string()),
        "quoting: {lines:?}"
    );
    // The in-process keyring is forwarded: the remote side lists the key we logged in with.
    let key_fp = fingerprint(&key);
    assert!(
        lines.iter().any(|l| l.contains(&key_fp)),
        "forwarded keys: {lines:?}"
    );
    assert!(events.iter().any(|e| matches!(e, GatherEvent::RemoteLine { stream: RemoteStream::Stderr, line } if line == "a line on stderr")));
    assert!(events.iter().any(|e| matches!(e, GatherEvent::HostKey { fingerprint, .. } if fingerprint.starts_with("SHA256:"))));
    let leftovers: Vec<_> = std::fs::read_dir(&opts.out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        leftovers.len(),
        1,
        "only the bundle, no temp file: {leftovers:?}"
    );
    let analysis = bundle_analysis::analyze_bundle(&outcome.bundle_path).unwrap();
    match analysis.verdict {
        bundle_analysis::Verdict::Problem(p) => {
            assert_eq!(p.stage.as_deref(), Some("cb-bootstrap"))
        }
        other => panic!("unexpected verdict {other:?}"),
    }
}

#[tokio::test]
async fn rsa_pem_key_file_logs_in() {
    let Some(server) = Sshd::start() else { return };
    let key = keygen(
        &server.dir.path().join("user_rsa"),
        "rsa",
        "",
        &["-b", "2048", "-m", "PEM"],
    );
    assert!(
        std::fs::read_to_string(&key)
            .unwrap()
            .starts_with("-----BEGIN RSA PRIVATE KEY-----")
    );
    server.authorize(&key);
    let script = bundle_script(&server, "ssh-add -l >/dev/null 2>&1 || echo no-agent-here");
    let (mut opts, _remote) = options(&server, "rsa", script);
    opts.keys = vec![key];
    opts.forward_agent = false;
    let (result, events) = gather(&opts).await;
    let outcome = result.unwrap_or_else(|e| panic!("{e}\n{}", server.log()));
    assert!(
        outcome.auth_method.contains("RSA SHA256:"),
        "{}",
        outcome.auth_method
    );
    assert!(outcome.bundle_path.is_file());
    // Forwarding switched off: the remote side has no agent.
    assert!(remote_lines(&events).contains(&"no-agent-here".to_string()));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, GatherEvent::AgentForwarding { .. }))
    );
}

#[tokio::test]
async fn agent_login_and_forwarding_merge_agent_and_loaded_keys() {
    let Some(server) = Sshd::start() else { return };
    let agent = Agent::start(server.dir.path());
    let in_agent = keygen(&server.dir.path().join("agent_key"), "ed25519", "", &[]);
    agent.add(&in_agent);
    server.authorize(&in_agent);
    // A loaded key the server does not accept: tried first, rejected, still forwarded.
    let loaded = keygen(&server.dir.path().join("loaded_key"), "ed25519", "", &[]);
    // The remote side hops back into the same server with the forwarded agent, as the real
    // script does to reach the masters; that needs a signature through our proxy.
    let hop = format!(
        "ssh-add -l || true\nssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -p {} {}@127.0.0.1 echo hop-ok",
        server.port, server.user
    );
    let (mut opts, _remote) = options(&server, "agent", bundle_script(&server, &hop));
    opts.agent_socket = Some(agent.socket.clone());
    opts.extra_keys = vec![(
        "generated bootstrap key".into(),
        std::fs::read_to_string(&loaded).unwrap(),
    )];
    let (result, events) = gather(&opts).await;
    let outcome = result.unwrap_or_else(|e| panic!("{e}\n{}", server.log()));
    assert!(
        outcome.auth_method.starts_with("ssh-agent key"),
        "{}",
        outcome.auth_method
    );
    let attempts: Vec<(String, bool)> = events
        .iter()
        .filter_map(|e| match e {
            GatherEvent::AuthAttempt { method, accepted } => Some((method.clone(), *accepted)),
            _ => None,
        })
        .collect();
    assert_eq!(attempts.len(), 2, "{attempts:?}");
    assert!(attempts[0].0.starts_with("generated bootstrap key") && !attempts[0].1);
    let lines = remote_lines(&events);
    assert!(
        lines.iter().any(|l| l.contains(&fingerprint(&in_agent))),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains(&fingerprint(&loaded))),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"hop-ok".to_string()),
        "{lines:?}\n{}",
        server.log()
    );
}

#[tokio::test]
async fn a_wrong_key_lists_what_was_tried_and_what_the_server_accepts() {
    let Some(server) = Sshd::start() else { return };
    let right = keygen(&server.dir.path().join("right"), "ed25519", "", &[]);
    server.authorize(&right);
    let wrong = keygen(&server.dir.path().join("wrong"), "ed25519", "", &[]);
    let (mut opts, _remote) = options(&server, "wrong", bundle_script(&server, ""));
    opts.keys = vec![wrong.clone()];
    let (result, _) = gather(&opts).await;
    let err = result.unwrap_err();
    assert!(matches!(err, GatherError::AuthFailed { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains(&format!(
            "key file {} (ED25519 {}): rejected",
            wrong.display(),
            fingerprint(&wrong)
        )),
        "{text}"
    );
    assert!(text.contains("the server accepts: publickey"), "{text}");
    assert!(
        text.contains(&format!("{}@127.0.0.1:{}", server.user, server.port)),
        "{text}"
    );
}

#[tokio::test]
async fn a_public_key_as_key_names_the_private_file() {
    if !crate::sshd::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let private = keygen(&dir.path().join("id_ed25519"), "ed25519", "", &[]);
    let mut opts = GatherOptions::new("127.0.0.1", dir.path().join("out"), "1");
    opts.keys = vec![dir.path().join("id_ed25519.pub")];
    let err = gather(&opts).await.0.unwrap_err().to_string();
    assert!(err.contains("is a public key"), "{err}");
    assert!(
        err.contains(&format!("pass --key {} instead", private.display())),
        "{err}"
    );
    // A public key without its private half next to it, under a name without .pub.
    let lone = dir.path().join("lone-key");
    std::fs::copy(dir.path().join("id_ed25519.pub"), &lone).unwrap();
    let lone_pub = dir.path().join("other.pub");
    std::fs::copy(&lone, &lone_pub).unwrap();
    opts.keys = vec![lone_pub];
    let err = gather(&opts).await.0.unwrap_err().to_string();
    assert!(err.contains("other (which does not exist here)"), "{err}");
    opts.keys = vec![lone];
    let err = gather(&opts).await.0.unwrap_err().to_string();
    assert!(err.contains("lone-key is a public key"), "{err}");
}

#[tokio::test]
async fn an_encrypted_key_in_ssh_dir_is_skipped_with_one_line() {
    let Some(server) = Sshd::start() else { return };
    let ssh_dir = server.subdir("fake-home-ssh");
    keygen(
        &ssh_dir.join("id_ed25519"),
        "ed25519",
        "secret passphrase",
        &[],
    );
    let working = keygen(&ssh_dir.join("id_rsa"), "rsa", "", &["-b", "2048"]);
    std::fs::write(ssh_dir.join("known_hosts"), "not a key\n").unwrap();
    std::fs::write(ssh_dir.join("config"), "Host *\n").unwrap();
    server.authorize(&working);
    let (mut opts, _remote) = options(&server, "encrypted", bundle_script(&server, ""));
    opts.home_ssh_dir = Some(ssh_dir.clone());
    let (result, events) = gather(&opts).await;
    let outcome = result.unwrap_or_else(|e| panic!("{e}\n{}", server.log()));
    assert!(
        outcome.auth_method.contains("id_rsa"),
        "{}",
        outcome.auth_method
    );
    let skipped: Vec<String> = events
        .iter()
        .filter(|e| matches!(e, GatherEvent::KeySkipped { .. }))
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        skipped,
        vec![format!(
            "skipping {0}: it is passphrase-protected; add it to ssh-agent (ssh-add {0}) to use it",
            ssh_dir.join("id_ed25519").display()
        )]
    );
}

#[tokio::test]
async fn a_failing_remote_script_reports_status_and_last_lines() {
    let Some(server) = Sshd::start() else { return };
    let key = keygen(&server.dir.path().join("k"), "ed25519", "", &[]);
    server.authorize(&key);
    let failing = script(
        &server,
        "gather-fail.sh",
        "echo 'collecting journals'\necho 'no space left on device' >&2\nexit 3\n",
    );
    let (mut opts, _remote) = options(&server, "fail", failing);
    opts.keys = vec![key];
    let err = gather(&opts).await.0.unwrap_err();
    let GatherError::RemoteFailed { status, last_lines } = &err else {
        panic!("unexpected {err:?}");
    };
    assert_eq!(status, "exited with status 3");
    assert_eq!(
        last_lines.last().map(String::as_str),
        Some("no space left on device")
    );
    assert!(err.to_string().contains("  collecting journals"), "{err}");
    assert_eq!(std::fs::read_dir(&opts.out_dir).unwrap().count(), 0);
}

#[tokio::test]
async fn a_missing_tarball_is_a_clear_error() {
    let Some(server) = Sshd::start() else { return };
    let key = keygen(&server.dir.path().join("k"), "ed25519", "", &[]);
    server.authorize(&key);
    let silent = script(
        &server,
        "gather-nothing.sh",
        "echo 'forgot to write the bundle'\n",
    );
    let (mut opts, _remote) = options(&server, "missing", silent);
    opts.keys = vec![key];
    let err = gather(&opts).await.0.unwrap_err();
    assert!(matches!(err, GatherError::BundleMissing { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&format!(
            "log-bundle-{}.tar.gz does not exist",
            opts.gather_id
        )),
        "{err}"
    );
}

#[tokio::test]
async fn a_closed_port_names_host_and_port() {
    if !crate::sshd::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(&dir.path().join("k"), "ed25519", "", &[]);
    let port = free_port();
    let mut opts = GatherOptions::new("127.0.0.1", dir.path().join("out"), "20260101000000");
    opts.port = port;
    opts.keys = vec![key];
    let err = gather(&opts).await.0.unwrap_err();
    assert!(matches!(err, GatherError::Connect { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
    assert!(text.contains("connection refused"), "{text}");
}

#[tokio::test]
async fn an_empty_gather_id_is_rejected_before_connecting() {
    let opts = GatherOptions::new("127.0.0.1", Path::new("/nonexistent"), "");
    let err = gather(&opts).await.0.unwrap_err().to_string();
    assert!(err.contains("gather_id"), "{err}");
}

#[tokio::test]
async fn a_broken_off_download_keeps_the_part_received() {
    let Some(server) = Sshd::start() else { return };
    let key = keygen(&server.dir.path().join("k"), "ed25519", "", &[]);
    server.authorize(&key);
    // A large sparse "bundle": the connection is cut as soon as the first bytes arrive.
    let body = "truncate -s 1G \"$HOME/log-bundle-$ID.tar.gz\"\n";
    let (mut opts, _remote) = options(&server, "partial", script(&server, "gather-big.sh", body));
    opts.keys = vec![key];
    let cutter =
        server.cut_sessions_when_file_grows(opts.out_dir.clone(), atomic_file::TEMP_PREFIX);
    let err = gather(&opts).await.0.unwrap_err();
    assert!(
        cutter.join().unwrap(),
        "the connection was cut during the download"
    );
    let GatherError::Download { partial, .. } = &err else {
        panic!("unexpected {err:?}");
    };
    let partial = partial
        .clone()
        .unwrap_or_else(|| panic!("the part received is kept: {err}"));
    assert_eq!(
        partial,
        opts.out_dir.join(format!("{}.partial", opts.bundle_name()))
    );
    assert!(std::fs::metadata(&partial).unwrap().len() > 0);
    assert!(err.to_string().contains("kept as"), "{err}");
    assert!(!opts.out_dir.join(opts.bundle_name()).exists());
}

#[tokio::test]
async fn a_silent_port_times_out_with_a_hint() {
    if !crate::sshd::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(&dir.path().join("k"), "ed25519", "", &[]);
    // Accepts TCP connections (the kernel does) but never speaks SSH.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let mut opts = GatherOptions::new("127.0.0.1", dir.path().join("out"), "20260101000000");
    opts.port = port;
    opts.keys = vec![key];
    opts.connect_timeout = Duration::from_millis(500);
    let err = gather(&opts).await.0.unwrap_err().to_string();
    assert!(err.contains(&format!("127.0.0.1:{port}")), "{err}");
    assert!(err.contains("no SSH greeting within 0.5s"), "{err}");
    assert!(err.contains("finished booting"), "{err}");
}

#[tokio::test]
async fn a_server_that_gives_up_early_is_explained() {
    let Some(server) = Sshd::start_with("MaxAuthTries 2\n") else {
        return;
    };
    let right = keygen(&server.dir.path().join("right"), "ed25519", "", &[]);
    server.authorize(&right);
    let wrong: Vec<PathBuf> = (0..3)
        .map(|i| {
            keygen(
                &server.dir.path().join(format!("wrong{i}")),
                "ed25519",
                "",
                &[],
            )
        })
        .collect();
    let (mut opts, _remote) = options(&server, "maxauth", bundle_script(&server, ""));
    opts.keys = wrong.into_iter().chain([right]).collect();
    let err = gather(&opts).await.0.unwrap_err();
    let GatherError::AuthFailed {
        closed_early,
        tried,
        ..
    } = &err
    else {
        panic!("unexpected {err:?}");
    };
    assert!(closed_early, "{err}");
    assert!(tried.len() < 4, "{tried:?}");
    assert!(err.to_string().contains("too many attempts"), "{err}");
}

#[tokio::test]
async fn an_empty_agent_and_no_keys_say_what_was_looked_at() {
    if !crate::sshd::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    let ssh_dir = dir.path().join("ssh");
    std::fs::create_dir(&ssh_dir).unwrap();
    keygen(&ssh_dir.join("id_ecdsa"), "ecdsa", "pass phrase", &[]);
    let mut opts = GatherOptions::new("127.0.0.1", dir.path().join("out"), "20260101000000");
    opts.agent_socket = Some(agent.socket.clone());
    opts.home_ssh_dir = Some(ssh_dir);
    let err = gather(&opts).await.0.unwrap_err();
    assert!(matches!(err, GatherError::NoKeys { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("it holds no keys"), "{text}");
    assert!(
        text.contains("id_ecdsa: it is passphrase-protected"),
        "{text}"
    );
}
