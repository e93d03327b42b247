//! Golden copies never show private keys or the kubeadmin password: each is replaced by a
//! line naming a SHA-256 digest of what was there, so a changed key still changes the golden
//! file while reviewers read certificates, manifests and scripts instead of key material.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// Base64 runs shorter than this cannot hold a PEM private key and are left alone.
const MIN_KEY_BASE64: usize = 200;

/// First 16 hex digits of the SHA-256 of `data`.
pub(crate) fn digest(data: &[u8]) -> String {
    let hash = Sha256::digest(data);
    hash.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// `text` with PEM private keys, base64-encoded PEM private keys and `password` replaced.
pub(crate) fn redact(text: &str, password: &str) -> String {
    let text = redact_pem_blocks(text);
    let text = redact_base64_keys(&text);
    if password.is_empty() {
        text
    } else {
        text.replace(password, "<kubeadmin password redacted>")
    }
}

fn is_key_begin(line: &str) -> bool {
    let l = line.trim();
    l.starts_with("-----BEGIN ") && l.ends_with("PRIVATE KEY-----")
}

fn is_key_end(line: &str) -> bool {
    let l = line.trim();
    l.starts_with("-----END ") && l.ends_with("PRIVATE KEY-----")
}

/// Replaces each `-----BEGIN ... PRIVATE KEY-----` .. `-----END ...` block by one line with
/// the block's indentation.
fn redact_pem_blocks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut block: Option<(String, String)> = None;
    for line in text.split_inclusive('\n') {
        if let Some((indent, body)) = block.as_mut() {
            body.push_str(line.trim());
            body.push('\n');
            if is_key_end(line) {
                let newline = if line.ends_with('\n') { "\n" } else { "" };
                out.push_str(&format!(
                    "{indent}<private key redacted, sha256 {}>{newline}",
                    digest(body.as_bytes())
                ));
                block = None;
            }
        } else if is_key_begin(line) {
            let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
            block = Some((indent, format!("{}\n", line.trim())));
        } else {
            out.push_str(line);
        }
    }
    if let Some((_, body)) = block {
        // An unterminated block is kept: the golden diff must show the damage.
        out.push_str(&body);
    }
    out
}

fn is_base64_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '='
}

/// Replaces every long base64 run that decodes to a PEM private key.
fn redact_base64_keys(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(is_base64_char) {
        out.push_str(&rest[..start]);
        let run = &rest[start..];
        let len = run.find(|c| !is_base64_char(c)).unwrap_or(run.len());
        let token = &run[..len];
        out.push_str(&redact_token(token));
        rest = &run[len..];
    }
    out.push_str(rest);
    out
}

fn redact_token(token: &str) -> String {
    if token.len() < MIN_KEY_BASE64 {
        return token.to_string();
    }
    match STANDARD.decode(token) {
        Ok(data) if is_private_key(&data) => {
            format!("<base64 private key redacted, sha256 {}>", digest(&data))
        }
        _ => token.to_string(),
    }
}

fn is_private_key(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    text.lines().any(is_key_begin)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str =
        "-----BEGIN RSA PRIVATE KEY-----\nMIIB\nabcd\n-----END RSA PRIVATE KEY-----\n";

    #[test]
    fn pem_block_becomes_one_indented_digest_line() {
        let yaml = format!(
            "tls.key: |\n{}next: 1\n",
            KEY.lines().map(|l| format!("  {l}\n")).collect::<String>()
        );
        let out = redact(&yaml, "");
        assert!(!out.contains("MIIB"), "{out}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert!(lines[1].starts_with("  <private key redacted, sha256 "));
        assert_eq!(lines[2], "next: 1");
    }

    #[test]
    fn base64_key_is_replaced_but_a_base64_certificate_is_kept() {
        let long_key = KEY.replace("abcd", &"A".repeat(300));
        let key64 = STANDARD.encode(&long_key);
        let cert64 = STANDARD.encode(long_key.replace("RSA PRIVATE KEY", "CERTIFICATE"));
        let text = format!("client-key-data: {key64}\ncert: {cert64}\n");
        let out = redact(&text, "");
        assert!(!out.contains(&key64));
        assert!(out.contains("client-key-data: <base64 private key redacted, sha256 "));
        assert!(out.contains(&cert64));
    }

    #[test]
    fn the_password_is_replaced_everywhere() {
        let out = redact("a abc-def b abc-def", "abc-def");
        assert_eq!(
            out,
            "a <kubeadmin password redacted> b <kubeadmin password redacted>"
        );
    }

    #[test]
    fn same_key_same_digest_other_key_other_digest() {
        let a = redact(KEY, "");
        assert_eq!(a, redact(KEY, ""));
        assert_ne!(a, redact(&KEY.replace("abcd", "abce"), ""));
    }
}
