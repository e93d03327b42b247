//! A readable rendering of any Ignition 3.x config: data URLs decoded, gzip undone,
//! one block per file, unit and user. Golden files use it so diffs show changed lines of
//! scripts instead of changed base64.

use std::fmt::Write as _;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::{Error, Result};

/// Choices for [`explain_ignition_with`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExplainOptions {
    /// Replace the text of secret files (private keys, kubeconfigs with embedded client
    /// keys or tokens, pull secrets) by their size and SHA-256, so the output can be
    /// shared or committed.
    pub redact_secrets: bool,
}

/// Explain a config with default options (nothing redacted).
pub fn explain_ignition(json: &str) -> Result<String> {
    explain_ignition_with(json, ExplainOptions::default())
}

/// Explain a config: header, merge/trust sources, then each file as
/// `== file <path> <mode octal> <owner>[ append]` followed by its text (or
/// `<binary: N bytes, sha256 H>`), each unit with enabled flag and drop-ins, each user
/// with the type, fingerprint and comment of each SSH key.
pub fn explain_ignition_with(json: &str, options: ExplainOptions) -> Result<String> {
    crate::parse(json)?;
    let root: Value = serde_json::from_str(json).map_err(|e| Error::Parse {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let mut out = String::new();
    let version = root["ignition"]["version"].as_str().unwrap_or("?");
    let _ = writeln!(out, "ignition {version}");
    explain_ignition_section(&root["ignition"], &mut out);
    for file in items(&root["storage"]["files"]) {
        explain_file(file, options, &mut out);
    }
    for dir in items(&root["storage"]["directories"]) {
        let mode = mode_text(&dir["mode"]);
        let _ = writeln!(out, "== directory {} {mode}", text(&dir["path"]));
    }
    for link in items(&root["storage"]["links"]) {
        let _ = writeln!(
            out,
            "== link {} -> {}",
            text(&link["path"]),
            text(&link["target"])
        );
    }
    for unit in items(&root["systemd"]["units"]) {
        explain_unit(unit, &mut out);
    }
    for user in items(&root["passwd"]["users"]) {
        explain_user(user, &mut out);
    }
    Ok(out)
}

fn items(value: &Value) -> impl Iterator<Item = &Value> {
    value.as_array().into_iter().flatten()
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or("")
}

fn mode_text(mode: &Value) -> String {
    mode.as_i64()
        .map_or_else(|| "(no mode)".to_string(), |m| format!("{m:04o}"))
}

fn explain_ignition_section(ign: &Value, out: &mut String) {
    for merge in items(&ign["config"]["merge"]) {
        let _ = writeln!(out, "merge config from {}", text(&merge["source"]));
    }
    if let Some(replace) = ign["config"]["replace"]["source"].as_str() {
        let _ = writeln!(out, "replace config from {replace}");
    }
    for ca in items(&ign["security"]["tls"]["certificateAuthorities"]) {
        let _ = writeln!(out, "== trusted certificate authority");
        write_resource(ca, ExplainOptions::default(), out);
    }
}

fn explain_file(file: &Value, options: ExplainOptions, out: &mut String) {
    let owner = file["user"]["name"].as_str().unwrap_or("(default owner)");
    let append = if file["append"].is_array() {
        " append"
    } else {
        ""
    };
    let overwrite = match file["overwrite"].as_bool() {
        Some(true) => " overwrite",
        _ => "",
    };
    let _ = writeln!(
        out,
        "== file {} {} {owner}{overwrite}{append}",
        text(&file["path"]),
        mode_text(&file["mode"])
    );
    if file["contents"].is_object() {
        write_resource(&file["contents"], options, out);
    }
    for part in items(&file["append"]) {
        write_resource(part, options, out);
    }
}

/// Decoded text of a resource, or a one-line summary when it is remote or binary.
fn write_resource(resource: &Value, options: ExplainOptions, out: &mut String) {
    let Some(source) = resource["source"].as_str() else {
        out.push_str("<empty>\n");
        return;
    };
    let bytes = match crate::inline_contents(resource) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            let _ = writeln!(out, "<remote: {source}>");
            return;
        }
        Err(e) => {
            let _ = writeln!(out, "<undecodable: {e}>");
            return;
        }
    };
    if resource["compression"].as_str() == Some("gzip") {
        let _ = writeln!(out, "<gzip, {} bytes uncompressed>", bytes.len());
    }
    write_bytes(&bytes, options, out);
}

fn write_bytes(bytes: &[u8], options: ExplainOptions, out: &mut String) {
    let summary = |kind: &str| {
        let digest = hex::encode(Sha256::digest(bytes));
        format!("<{kind}: {} bytes, sha256 {digest}>\n", bytes.len())
    };
    match std::str::from_utf8(bytes) {
        Ok(s) if s.contains('\0') => out.push_str(&summary("binary")),
        Ok(s) if options.redact_secrets && is_secret(s) => {
            out.push_str(&summary("secret redacted"));
        }
        Ok("") => out.push_str("<empty>\n"),
        Ok(s) => {
            out.push_str(s);
            if !s.ends_with('\n') {
                out.push_str("\n<no newline at end>\n");
            }
        }
        Err(_) => out.push_str(&summary("binary")),
    }
}

/// Text that carries key material or credentials.
fn is_secret(text: &str) -> bool {
    const MARKERS: [&str; 4] = [
        "PRIVATE KEY-----",
        "client-key-data:",
        "token:",
        "\"auths\"",
    ];
    MARKERS.iter().any(|m| text.contains(m))
}

fn explain_unit(unit: &Value, out: &mut String) {
    let enabled = match unit["enabled"].as_bool() {
        Some(true) => " enabled",
        Some(false) => " disabled",
        None => "",
    };
    let mask = if unit["mask"].as_bool() == Some(true) {
        " masked"
    } else {
        ""
    };
    let _ = writeln!(out, "== unit {}{enabled}{mask}", text(&unit["name"]));
    if let Some(contents) = unit["contents"].as_str() {
        write_bytes(contents.as_bytes(), ExplainOptions::default(), out);
    }
    for dropin in items(&unit["dropins"]) {
        let _ = writeln!(out, "-- dropin {}", text(&dropin["name"]));
        let contents = text(&dropin["contents"]);
        write_bytes(contents.as_bytes(), ExplainOptions::default(), out);
    }
}

fn explain_user(user: &Value, out: &mut String) {
    let _ = writeln!(out, "== user {}", text(&user["name"]));
    for entry in items(&user["sshAuthorizedKeys"]) {
        for line in text(entry).lines().filter(|l| !l.trim().is_empty()) {
            let _ = writeln!(out, "ssh key: {}", describe_key(line));
        }
    }
}

/// `<type> SHA256:<fingerprint> <comment>` of an authorized_keys line.
fn describe_key(line: &str) -> String {
    let mut fields = line.split_whitespace();
    let kind = fields.next().unwrap_or("");
    let blob = fields.next().unwrap_or("");
    let comment: Vec<&str> = fields.collect();
    let fingerprint = match STANDARD.decode(blob) {
        Ok(raw) => format!("SHA256:{}", STANDARD_NO_PAD.encode(Sha256::digest(raw))),
        Err(_) => "(undecodable key)".to_string(),
    };
    let comment = if comment.is_empty() {
        "(no comment)".to_string()
    } else {
        comment.join(" ")
    };
    format!("{kind} {fingerprint} {comment}")
}
