//! `cargo xtask signers [KIND...]`: the whole bootstrap of compact-3-node on the payload's
//! real control plane (OKD 4.19) with signer keys other than RSA-2048.
//!
//! `pki.signerCertificates.key` exists on OKD 5.0 only, and the only payload here is 4.19.
//! A 4.19 cluster can still run on such signers the way a user gives them: okd-install makes
//! the signers of a 5.0 install-config that chose KIND, and the 4.19 directory takes them
//! with `create ignition-configs --load-cluster-certs` (every other certificate, signed by
//! them, is made there). The real etcd, API server, controller manager, scheduler,
//! cluster-bootstrap and machine-config server then use them.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, ensure};

/// The kinds this task runs: its name, the install-config key, and the key kind the root
/// CA must end up with.
const KINDS: &[(&str, &str, pki::KeyKind)] = &[
    (
        "ecdsa-p384",
        "{algorithm: ECDSA, ecdsa: {curve: P384}}",
        pki::KeyKind::Ecdsa(pki::Curve::P384),
    ),
    (
        "rsa-4096",
        "{algorithm: RSA, rsa: {keySize: 4096}}",
        pki::KeyKind::Rsa { bits: 4096 },
    ),
];

const EXAMPLE: &str = "compact-3-node";

/// Runs every kind named (all without names); fails unless each bootstrap completed.
pub(crate) fn run(names: &[&str]) -> Result<()> {
    let chosen: Vec<_> = if names.is_empty() {
        KINDS.iter().collect()
    } else {
        names
            .iter()
            .map(|n| {
                KINDS.iter().find(|k| k.0 == *n).with_context(|| {
                    let all: Vec<_> = KINDS.iter().map(|k| k.0).collect();
                    format!("no signer kind {n}; the kinds are: {}", all.join(", "))
                })
            })
            .collect::<Result<_>>()?
    };
    let binary = crate::build_okd_install()?;
    let payload = crate::load()?;
    let mut lines = Vec::new();
    for (name, key, kind) in chosen {
        let line = match one(&binary, &payload, name, key, *kind) {
            Ok(()) => format!("PASS {name}: the bootstrap completed on {name} signers"),
            Err(e) => format!("FAIL {name}: {e:#}"),
        };
        println!("{line}");
        lines.push(line);
    }
    ensure!(
        lines.iter().all(|l| l.starts_with("PASS")),
        "some signer kinds failed"
    );
    Ok(())
}

/// One kind: the signers made for 5.0, loaded into a 4.19 directory, bootstrapped.
fn one(
    binary: &Path,
    payload: &render_harness::Payload,
    name: &str,
    key: &str,
    kind: pki::KeyKind,
) -> Result<()> {
    let work = crate::work_dir("signers", name)?;
    println!("signers {name}: work in {}", work.display());
    let made = work.join("made-for-5.0");
    let extra =
        format!("featureSet: TechPreviewNoUpgrade\npki:\n  signerCertificates:\n    key: {key}\n");
    install_config(binary, &made, &extra)?;
    okd(binary, &made, &["create", "pki"])?;
    let root_key = std::fs::read_to_string(made.join("tls/root-ca.key"))?;
    let made_kind = pki::KeyPem::from_pem(&root_key, "tls/root-ca.key")?.kind();
    ensure!(
        made_kind == kind,
        "create pki made a {made_kind:?} root CA, not {kind:?}"
    );

    let dir = work.join("install");
    install_config(binary, &dir, "")?;
    copy_signers(&made, &dir)?;
    okd(
        binary,
        &dir,
        &[
            "create",
            "ignition-configs",
            "--load-cluster-certs",
            "--release-image",
            &payload.release_image,
        ],
    )?;
    let options = render_harness::BootstrapOptions {
        dir: Some(dir.clone()),
        ..Default::default()
    };
    let report = render_harness::bootstrap_example(binary, EXAMPLE, payload, &work, &options)?;
    // The bootstrap host must have run on the signers made for 5.0, not on new ones.
    let ran = report.host.path("/opt/openshift/tls/root-ca.crt");
    ensure!(
        std::fs::read(&ran)? == std::fs::read(made.join("tls/root-ca.crt"))?,
        "the bootstrap host's root CA is not the {name} one made for 5.0"
    );
    ensure!(
        report.findings.is_empty(),
        "{}",
        crate::findings_line(&report)
    );
    Ok(())
}

/// `create install-config --from-example` into `dir`, with `extra` appended to it.
fn install_config(binary: &Path, dir: &Path, extra: &str) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    okd(
        binary,
        dir,
        &["create", "install-config", "--from-example", EXAMPLE],
    )?;
    let path = dir.join("install-config.yaml");
    let text = std::fs::read_to_string(&path)?;
    std::fs::write(&path, format!("{text}\n{extra}"))?;
    Ok(())
}

/// Every signer's certificate and key of `from`'s `tls/` into `to`'s.
fn copy_signers(from: &Path, to: &Path) -> Result<()> {
    for id in pki::CertId::ALL {
        if !id.spec().is_signer() {
            continue;
        }
        for file in [id.cert_path(), id.key_path()] {
            let target = to.join(file);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::copy(from.join(file), &target).with_context(|| format!("copying {file}"))?;
        }
    }
    Ok(())
}

fn okd(binary: &Path, dir: &Path, args: &[&str]) -> Result<()> {
    let out = Command::new(binary)
        .args(args)
        .arg("--dir")
        .arg(dir)
        .output()?;
    ensure!(
        out.status.success(),
        "okd-install {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}
