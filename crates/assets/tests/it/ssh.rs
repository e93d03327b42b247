//! The bootstrap SSH key pair, checked with the real `ssh-keygen`.

use std::os::unix::fs::PermissionsExt as _;

use crate::common::{pki, run};

#[test]
fn ssh_keygen_reads_the_public_key_and_derives_it_from_the_private_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let key = pki().bootstrap_ssh();
    std::fs::write(dir.path().join("id.pub"), &key.public_key).unwrap();
    let Some(out) = run(
        "ssh-keygen",
        "openssh-client",
        &["-l", "-f", "id.pub"],
        dir.path(),
    ) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with("2048 SHA256:") && stdout.trim_end().ends_with("(RSA)"),
        "{stdout}"
    );

    let private = dir.path().join("id");
    std::fs::write(&private, &key.key_pem).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    let Some(out) = run(
        "ssh-keygen",
        "openssh-client",
        &["-y", "-f", "id"],
        dir.path(),
    ) else {
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let derived = String::from_utf8_lossy(&out.stdout);
    let body = |s: &str| s.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
    assert_eq!(body(&derived), body(&key.public_key));
}
