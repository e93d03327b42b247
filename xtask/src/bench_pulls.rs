//! `cargo xtask bench-pulls [IMAGES] [ROUNDS]`: `okd-install verify --online=pulls` against a
//! `skopeo inspect --raw` loop over the same images, in the same run, on the same registry:
//! the lab's Debian docker-registry (TLS, htpasswd) holding IMAGES component images (200 by
//! default) and a release image naming them, reached through the disconnected-mirror
//! example's mirror rules. Wall time, medians over ROUNDS (3) after one warm-up round each,
//! and the ratio. Needs root (the lab is a network namespace) and skopeo.
//!
//! skopeo asks only for manifests, a `GET` per image in a new process with its own
//! connection and login; the preflight asks for the manifests over a few kept connections and
//! then for every blob their pulls fetch (a `HEAD` each, a blob shared by many images once).
//! The time of those added blob checks is printed apart, from the preflight's own count
//! (its `pull.blobs` finding). okd-install is the dev build (its dependencies are optimised
//! in that profile too).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use real_host::mirror::{CONTENT_PATH, Mirror, RELEASE_VERSION, SiteConfig};
use real_host::registry::RegistrySpec;

use crate::{root, run_checked};

pub(crate) fn run(args: &[&str]) -> Result<()> {
    let images: usize = match args.first() {
        Some(n) => n.parse().context("IMAGES must be a number")?,
        None => 200,
    };
    let rounds: usize = match args.get(1) {
        Some(n) => n.parse().context("ROUNDS must be a number")?,
        None => 3,
    };
    ensure!(
        images > 0 && rounds > 0,
        "IMAGES and ROUNDS must be at least 1"
    );
    let mut missing = real_host::registry::missing();
    if Command::new("skopeo").arg("--version").output().is_err() {
        missing.push("skopeo (apt-get install skopeo)".into());
    }
    if !missing.is_empty() {
        bail!("bench-pulls needs: {}", missing.join("; "));
    }
    let okd = crate::build_okd_install()?;
    let work = tempfile::tempdir()?;
    let spec = RegistrySpec {
        name: "registry.example.com".into(),
        user: "bench".into(),
        password: "bench-password".into(),
    };
    let names: Vec<String> = (0..images).map(|i| format!("component-{i:03}")).collect();
    println!("starting the lab's registry and pushing {images} component images");
    let mirror = Mirror::start("bench-pulls", spec, &names, work.path())?;
    let release = mirror.push_release(&mirror.components, &work.path().join("release"))?;
    let dir = work.path().join("cluster");
    std::fs::create_dir_all(&dir)?;
    let example = std::fs::read_to_string(root().join("examples/disconnected-mirror.yaml"))?;
    std::fs::write(
        dir.join(assets::layout::INSTALL_CONFIG),
        mirror.install_config(&example, &SiteConfig::default()),
    )?;
    run_checked(
        Command::new(&okd)
            .arg("--dir")
            .arg(&dir)
            .args(["create", "ignition-configs", "--release-image", &release])
            .args(["--release-version", RELEASE_VERSION])
            .stdout(Stdio::null()),
        "okd-install create ignition-configs",
    )?;
    let ours = || {
        let mut cmd = mirror.command(&okd);
        cmd.arg("--dir")
            .arg(&dir)
            .args(["verify", "--online=pulls"]);
        cmd
    };
    let script = skopeo_loop(&mirror, &release, work.path())?;
    let theirs = || {
        let mut cmd = mirror.command("sh");
        cmd.arg(&script);
        cmd
    };
    let blobs = blob_checks(ours())?;
    let ours = median(rounds, ours, "okd-install verify --online=pulls")?;
    let theirs = median(rounds, theirs, "the skopeo inspect loop")?;
    let total = images + 1;
    println!(
        "{total} images (the release and {images} components), median of {rounds} rounds:\n  \
         okd-install verify --online=pulls: {:.2} s\n  skopeo inspect --raw, one per image: {:.2} s\n  \
         ratio skopeo/okd-install: {:.1}",
        ours.as_secs_f64(),
        theirs.as_secs_f64(),
        theirs.as_secs_f64() / ours.as_secs_f64().max(1e-6)
    );
    println!("  the preflight's blob checks (one run): {blobs}");
    Ok(())
}

/// What the preflight says of its blob checks (their count and time), from one run of
/// `verify` with JSON output.
fn blob_checks(mut verify: Command) -> Result<String> {
    let out = verify
        .args(["--output", "json"])
        .stdin(Stdio::null())
        .output()
        .context("starting okd-install verify")?;
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).context("verify's JSON output")?;
    json["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["id"] == "pull.blobs")
        .and_then(|c| c["message"].as_str())
        .map(str::to_string)
        .context("verify reported no pull.blobs finding")
}

/// A shell script asking skopeo for every manifest the preflight checks, at the mirror
/// (where the mirror rules send them), trusting the registry's CA, logged in.
fn skopeo_loop(mirror: &Mirror, release: &str, work: &Path) -> Result<std::path::PathBuf> {
    let certs = work.join("skopeo-certs");
    std::fs::create_dir_all(&certs)?;
    std::fs::write(certs.join("ca.crt"), &mirror.registry.ca_pem)?;
    let registry = mirror.registry.host_port();
    let digest = |spec: &str| spec.rsplit_once('@').map(|(_, d)| d.to_string());
    let mut refs = vec![format!(
        "{registry}/{}@{}",
        real_host::mirror::RELEASE_PATH,
        digest(release).context("the release is pinned by digest")?
    )];
    for c in &mirror.components {
        refs.push(format!(
            "{registry}/{CONTENT_PATH}@{}",
            digest(&c.pull_spec).context("components are pinned by digest")?
        ));
    }
    let spec = &mirror.registry.spec;
    let mut script = String::from("set -e\n");
    for r in refs {
        script.push_str(&format!(
            "skopeo inspect --raw --cert-dir '{}' --creds '{}:{}' 'docker://{r}' >/dev/null\n",
            certs.display(),
            spec.user,
            spec.password
        ));
    }
    let path = work.join("skopeo-loop.sh");
    std::fs::write(&path, script)?;
    Ok(path)
}

/// The median wall time of `rounds` runs after one warm-up run; every run must succeed.
fn median(rounds: usize, make: impl Fn() -> Command, what: &str) -> Result<Duration> {
    let mut times = Vec::new();
    for round in 0..=rounds {
        let start = Instant::now();
        let out = make()
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("starting {what}"))?;
        let took = start.elapsed();
        ensure!(
            out.status.success(),
            "{what} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if round > 0 {
            times.push(took);
        }
    }
    times.sort();
    Ok(times[times.len() / 2])
}
