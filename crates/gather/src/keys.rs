//! Finding the private keys to offer, in a fixed order, with one clear line per unusable key.
//!
//! Order: `--key` files, in-memory keys (the generated bootstrap key), then (tried by the
//! session after the agent) private keys in `~/.ssh`. Encrypted keys are skipped with one
//! line instead of prompting or printing a parse error per format.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use russh::keys::ssh_key::public::KeyData;
use russh::keys::{HashAlg, PrivateKey, decode_secret_key};

use crate::{GatherError, GatherEvent, GatherOptions};

/// Key files larger than this are not keys (an RSA-16384 OpenSSH key is about 12 KiB).
const MAX_KEY_FILE: u64 = 64 * 1024;

/// A private key ready to offer, with the label used in messages.
#[derive(Clone)]
pub(crate) struct Candidate {
    pub label: String,
    pub key: Arc<PrivateKey>,
}

impl Candidate {
    fn new(label: String, key: PrivateKey) -> Self {
        let label = format!("{label} ({})", describe_key(key.public_key().key_data()));
        Candidate {
            label,
            key: Arc::new(key),
        }
    }
}

/// `ED25519 SHA256:...`, as `ssh-keygen -l` would name a key.
pub(crate) fn describe_key(key: &KeyData) -> String {
    let kind = key
        .algorithm()
        .as_str()
        .trim_start_matches("ssh-")
        .to_uppercase();
    format!("{kind} {}", key.fingerprint(HashAlg::Sha256))
}

/// The keys found, split by their place in the order.
#[derive(Default)]
pub(crate) struct KeySet {
    /// `--key` files, then in-memory keys.
    pub first: Vec<Candidate>,
    /// Keys from the `~/.ssh` scan.
    pub home: Vec<Candidate>,
    /// One line per key that was found but cannot be used.
    pub skipped: Vec<String>,
}

impl KeySet {
    /// Every loaded key, in order.
    pub(crate) fn all(&self) -> impl Iterator<Item = &Candidate> {
        self.first.iter().chain(self.home.iter())
    }
}

/// What a file holds.
enum Parsed {
    Private(Box<PrivateKey>),
    Encrypted,
    Public,
    Invalid(String),
}

fn parse_key_text(text: &str) -> Parsed {
    if text.contains("Proc-Type: 4,ENCRYPTED") || text.contains("BEGIN ENCRYPTED PRIVATE KEY") {
        return Parsed::Encrypted;
    }
    let first_line = text.trim_start().lines().next().unwrap_or_default();
    if text.contains("PUBLIC KEY-----")
        || russh::keys::ssh_key::PublicKey::from_openssh(first_line).is_ok()
    {
        return Parsed::Public;
    }
    match decode_secret_key(text, None) {
        Ok(key) => Parsed::Private(Box::new(key)),
        Err(russh::keys::Error::KeyIsEncrypted) => Parsed::Encrypted,
        Err(e) => Parsed::Invalid(e.to_string()),
    }
}

fn encrypted_reason(path: &Path) -> String {
    format!(
        "it is passphrase-protected; add it to ssh-agent (ssh-add {}) to use it",
        path.display()
    )
}

fn public_key_error(path: &Path) -> GatherError {
    let expected = path
        .to_str()
        .and_then(|s| s.strip_suffix(".pub"))
        .map(PathBuf::from);
    let expected_exists = expected.as_ref().is_some_and(|p| p.is_file());
    GatherError::PublicKeyGiven {
        given: path.to_path_buf(),
        expected,
        expected_exists,
    }
}

/// Loads one `--key` file: a public key is an error, an encrypted key is skipped.
fn load_flag_key(
    path: &Path,
    set: &mut KeySet,
    log: &mut dyn FnMut(GatherEvent),
) -> Result<(), GatherError> {
    if path.extension().is_some_and(|e| e == "pub") {
        return Err(public_key_error(path));
    }
    let unusable = |reason: String| GatherError::KeyUnusable {
        path: path.to_path_buf(),
        reason,
    };
    // Links followed (the user named the file), but a FIFO or device is refused, never waited on.
    let text = atomic_file::input::read_named(path, MAX_KEY_FILE)
        .map_err(|e| unusable(e.to_string()))
        .and_then(|b| String::from_utf8(b).map_err(|_| unusable("is not UTF-8 text".into())))?;
    match parse_key_text(&text) {
        Parsed::Private(key) => set
            .first
            .push(Candidate::new(format!("key file {}", path.display()), *key)),
        Parsed::Public => return Err(public_key_error(path)),
        Parsed::Encrypted => skip(set, log, path.display().to_string(), encrypted_reason(path)),
        Parsed::Invalid(reason) => {
            return Err(unusable(format!(
                "not a private key OpenSSH can use ({reason})"
            )));
        }
    }
    Ok(())
}

fn skip(set: &mut KeySet, log: &mut dyn FnMut(GatherEvent), key: String, reason: String) {
    set.skipped.push(format!("{key}: {reason}"));
    log(GatherEvent::KeySkipped { key, reason });
}

/// Loads every key source of `opts` except the agent.
pub(crate) fn load_keys(
    opts: &GatherOptions,
    log: &mut dyn FnMut(GatherEvent),
) -> Result<KeySet, GatherError> {
    let mut set = KeySet::default();
    for path in &opts.keys {
        load_flag_key(path, &mut set, log)?;
    }
    for (label, pem) in &opts.extra_keys {
        let unusable = |reason: &str| GatherError::KeyUnusable {
            path: PathBuf::from(label),
            reason: reason.to_string(),
        };
        match parse_key_text(pem) {
            Parsed::Private(key) => set.first.push(Candidate::new(label.clone(), *key)),
            Parsed::Encrypted => return Err(unusable("it is encrypted")),
            Parsed::Public => return Err(unusable("it is a public key, not a private key")),
            Parsed::Invalid(reason) => return Err(unusable(&reason)),
        }
    }
    if let Some(dir) = &opts.home_ssh_dir {
        scan_ssh_dir(dir, &mut set, log);
    }
    Ok(set)
}

/// Files in `~/.ssh` that are never private keys.
fn is_not_a_key(name: &str) -> bool {
    name.ends_with(".pub")
        || name.starts_with("known_hosts")
        || name.starts_with("authorized_keys")
        || name.ends_with("-cert.pub")
        || matches!(name, "config" | "environment" | "rc")
}

/// Reads private keys from `dir`, `id_*` first. Files that are not keys are ignored
/// silently; keys that cannot be used get one line each.
fn scan_ssh_dir(dir: &Path, set: &mut KeySet, log: &mut dyn FnMut(GatherEvent)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.metadata()
                .is_ok_and(|m| m.is_file() && m.len() <= MAX_KEY_FILE)
        })
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| !is_not_a_key(n))
        })
        .collect();
    paths.sort_by_key(|p| {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        (!name.starts_with("id_"), name)
    });
    for path in paths {
        let Some(text) = atomic_file::input::read_named(&path, MAX_KEY_FILE)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
        else {
            continue;
        };
        if !text.contains("PRIVATE KEY-----") && !text.starts_with("PuTTY-User-Key-File-") {
            continue;
        }
        let shown = path.display().to_string();
        match parse_key_text(&text) {
            Parsed::Private(key) => set
                .home
                .push(Candidate::new(format!("key file {shown}"), *key)),
            Parsed::Encrypted => skip(set, log, shown, encrypted_reason(&path)),
            Parsed::Public => {}
            Parsed::Invalid(reason) => skip(
                set,
                log,
                shown,
                format!("cannot be read as a private key ({reason})"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encrypted_and_public_texts_are_recognised_before_parsing() {
        let legacy = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\
                      DEK-Info: AES-256-CBC,00112233445566778899AABBCCDDEEFF\n\nAAAA\n\
                      -----END RSA PRIVATE KEY-----\n";
        assert!(matches!(parse_key_text(legacy), Parsed::Encrypted));
        let pkcs8 =
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n";
        assert!(matches!(parse_key_text(pkcs8), Parsed::Encrypted));
        let openssh_public = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKdVd5y4r6H0wMXDNdtQ5Zm4lFGT5wNtLeUXh0PSfK3e me@host\n";
        assert!(matches!(parse_key_text(openssh_public), Parsed::Public));
        let pem_public = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n";
        assert!(matches!(parse_key_text(pem_public), Parsed::Public));
        assert!(matches!(parse_key_text("hello"), Parsed::Invalid(_)));
    }

    #[test]
    fn ssh_dir_housekeeping_files_are_not_keys() {
        for name in [
            "known_hosts",
            "known_hosts.old",
            "authorized_keys",
            "config",
            "id_rsa.pub",
        ] {
            assert!(is_not_a_key(name), "{name}");
        }
        assert!(!is_not_a_key("id_ed25519"));
        assert!(!is_not_a_key("work-key"));
    }
}
