//! A small OpenSSH authorized_keys parser: enough to reject keys that sshd would not accept.

use base64::Engine;

/// Key types sshd accepts in authorized_keys.
pub const KEY_TYPES: &[&str] = &[
    "ssh-rsa",
    "ssh-dss",
    "ssh-ed25519",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ecdsa-sha2-nistp256@openssh.com",
    "sk-ssh-ed25519@openssh.com",
    "ssh-rsa-cert-v01@openssh.com",
    "ssh-ed25519-cert-v01@openssh.com",
    "ecdsa-sha2-nistp256-cert-v01@openssh.com",
    "ecdsa-sha2-nistp384-cert-v01@openssh.com",
    "ecdsa-sha2-nistp521-cert-v01@openssh.com",
];

/// One parsed public key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey {
    /// Key type, e.g. `ssh-ed25519`.
    pub key_type: String,
    /// The decoded key blob.
    pub blob: Vec<u8>,
    /// The comment, if any.
    pub comment: String,
}

/// Parses every non-empty, non-comment line; the error names the line (1-based) and the fix.
pub fn parse_authorized_keys(text: &str) -> Result<Vec<PublicKey>, String> {
    let mut keys = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let key = parse_line(line).map_err(|e| format!("line {}: {e}", i + 1))?;
        keys.push(key);
    }
    if keys.is_empty() {
        return Err("no public key found".into());
    }
    Ok(keys)
}

fn parse_line(line: &str) -> Result<PublicKey, String> {
    let rest = skip_options(line);
    let mut fields = rest.split_whitespace();
    let key_type = fields.next().unwrap_or_default();
    if !KEY_TYPES.contains(&key_type) {
        return Err(format!(
            "{key_type:?} is not an OpenSSH public key type; paste the contents of a .pub file (e.g. ~/.ssh/id_ed25519.pub)"
        ));
    }
    let data = fields
        .next()
        .ok_or("the base64 key data is missing after the key type")?;
    let blob = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| {
            format!("the key data is not valid base64 ({e}); the key was probably cut or wrapped")
        })?;
    let embedded = read_string(&blob).ok_or("the key data is truncated; copy the whole key")?;
    if embedded != key_type.as_bytes() {
        return Err(format!(
            "the key data says {:?} but the line says {key_type:?}; the key is corrupted",
            String::from_utf8_lossy(embedded)
        ));
    }
    let comment = fields.collect::<Vec<_>>().join(" ");
    Ok(PublicKey {
        key_type: key_type.to_string(),
        blob,
        comment,
    })
}

/// Skips a leading authorized_keys options field (which may contain quoted spaces).
fn skip_options(line: &str) -> &str {
    let first = line.split_whitespace().next().unwrap_or_default();
    if KEY_TYPES.contains(&first) {
        return line;
    }
    let mut in_quotes = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_quotes = !in_quotes,
            c if c.is_whitespace() && !in_quotes => return line[i..].trim_start(),
            _ => {}
        }
    }
    line
}

fn read_string(blob: &[u8]) -> Option<&[u8]> {
    let len = u32::from_be_bytes(blob.get(..4)?.try_into().ok()?) as usize;
    blob.get(4..4 + len)
}

/// True for key types available in FIPS mode.
pub fn fips_allowed(key_type: &str) -> bool {
    key_type == "ssh-rsa" || key_type.starts_with("ecdsa-sha2-nistp")
}
