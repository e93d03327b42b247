//! Agreement with the real Ignition validator (`ignition-validate`, Debian package
//! `ignition`): everything okd-install writes passes it without warnings, and each
//! invalid snippet that our checks reject is rejected by it too.
//!
//! Without the tool the tests print a skip line, except under CI (`CI=true`), where a
//! missing tool is a failure.

use std::process::Command;

use ignition::{
    NodeFile, PointerHost, TemplateContext, Variant, bootstrap_config, check_json, compress,
    pointer_config, to_json,
};

use crate::util::{build, templates_dir};

/// Run `ignition-validate`; `None` when the tool is not installed (outside CI).
fn validate(json: &str) -> Option<(bool, String)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.ign");
    std::fs::write(&path, json).unwrap();
    if !testkit::require_tool("ignition-validate", "ignition") {
        return None;
    }
    let out = Command::new("ignition-validate")
        .arg(&path)
        .output()
        .expect("running ignition-validate");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    Some((out.status.success(), text))
}

fn assert_clean(name: &str, json: &str) {
    if let Some((ok, text)) = validate(json) {
        assert!(
            ok && text.trim().is_empty(),
            "{name}: ignition-validate says:\n{text}"
        );
    }
}

#[test]
fn generated_configs_pass_ignition_validate() {
    let extra = vec![
        NodeFile::asset("/opt/openshift/manifests/a.yaml", "x: 1\n".repeat(300)),
        NodeFile::asset("/opt/openshift/tls/root-ca.crt", "PEM\n"),
    ];
    let keys = vec!["ssh-ed25519 AAAA a".to_string()];
    for variant in [Variant::Bootstrap, Variant::SingleNode, Variant::Pivot] {
        let config = build(variant, extra.clone(), keys.clone());
        assert_clean(variant.file_name(), &to_json(&config));
        assert_clean("compressed", &to_json(&compress(config)));
    }
    let ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    let hosts = [
        PointerHost::ApiInt("api-int.c.example.com".into()),
        PointerHost::new("c", Some("192.168.1.5")),
        PointerHost::new("c", Some("fd00::5")),
    ];
    for host in hosts {
        assert_clean("pointer", &pointer_config("master", host, ca));
    }
}

#[test]
fn embedded_templates_pass_ignition_validate() {
    if !templates_dir().is_dir() {
        return;
    }
    let mut ctx = TemplateContext::example();
    ctx.bootstrap_in_place = Some(ignition::InstallationDisk {
        installation_disk: "/dev/sda".into(),
    });
    let config = bootstrap_config(Variant::SingleNode, &ctx, vec![], vec![ctx.ssh_key.clone()]);
    assert_clean("embedded single-node", &to_json(&config.unwrap()));
}

/// Every release's bootstrap.ign passes, including the backslash in the name of the 4.19 and
/// 4.20 tmpfs unit (`var-ostree\x2dcontainer.mount`), which JSON carries escaped.
#[test]
fn every_release_bootstrap_passes_ignition_validate() {
    if !templates_dir().is_dir() {
        return;
    }
    for release in &releases::table().releases {
        let mut ctx = TemplateContext::example();
        ctx.target_minor = release.version.to_string();
        let stream = release.os_image_stream.as_ref().map(|s| s.default.as_str());
        ctx.release = ignition::ReleaseContext::of(release, stream.unwrap_or_default());
        let config = bootstrap_config(Variant::Bootstrap, &ctx, vec![], vec![]).unwrap();
        let json = to_json(&config);
        let unit = &ctx.release.node_image_live_unit;
        let escaped = serde_json::to_string(unit).unwrap();
        assert!(
            json.contains(&format!("\"name\":{escaped}")),
            "{}: no unit {unit}",
            release.version
        );
        assert_clean(&format!("bootstrap.ign of {}", release.version), &json);
    }
}

/// Snippets both validators must reject, one per rule Ignition shares with us.
const INVALID: &[&str] = &[
    r#""storage":{"files":[{"path":"a"}]}"#,
    r#""storage":{"files":[{"path":"/a/../b"}]}"#,
    r#""storage":{"files":[{"path":"/a"},{"path":"/a"}]}"#,
    r#""storage":{"files":[{"path":"/a"}],"links":[{"path":"/a","target":"/b"}]}"#,
    r#""storage":{"files":[{"path":"/a","mode":65535}]}"#,
    r#""storage":{"files":[{"path":"/a","overwrite":true}]}"#,
    r#""storage":{"files":[{"path":"/a","contents":{"source":"ftp://h/x"}}]}"#,
    r#""storage":{"files":[{"path":"/a","contents":{"source":"data:;base64,aGk"}}]}"#,
    r#""storage":{"files":[{"path":"/a","contents":{"source":"data:,a b"}}]}"#,
    r#""storage":{"files":[{"path":"/a","contents":{"source":"data:,%4"}}]}"#,
    r#""storage":{"files":[{"path":"/a","contents":{"source":"data:TEXT/x,a"}}]}"#,
    r#""storage":{"files":[{"path":"/a","contents":{"source":"data:;BASE64,aGk="}}]}"#,
    r#""storage":{"files":[{"path":"/a","contents":{"source":"data:,x","compression":"xz"}}]}"#,
    r#""systemd":{"units":[{"name":"a"}]}"#,
    r#""systemd":{"units":[{"name":"a.service"},{"name":"a.service"}]}"#,
    r#""systemd":{"units":[{"name":"a.service","dropins":[{"name":"x"}]}]}"#,
    r#""systemd":{"units":[{"name":"a.service","dropins":[{"name":"x.conf"},{"name":"x.conf"}]}]}"#,
    r#""passwd":{"users":[{"name":"core"},{"name":"core"}]}"#,
];

/// Snippets both accept (edge cases of the same rules).
const VALID: &[&str] = &[
    r#""storage":{"files":[{"path":"/a","mode":511,"contents":{"source":"data:,"}}]}"#,
    r#""storage":{"files":[{"path":"/a","contents":{"source":"data:;base64,aGl="}}]}"#,
    r#""storage":{"files":[{"path":"/a","contents":{"source":"data:;charset=utf-8,a%20b"}}]}"#,
    r#""storage":{"files":[{"path":"/a","append":[{"source":"data:,a;b/c?d:e@f&g=h+i$j,k"}]}]}"#,
    r#""storage":{"files":[{"path":"/a","contents":{"source":"https://example.com/a"}}]}"#,
    r#""systemd":{"units":[{"name":"a.socket","mask":true}]}"#,
];

#[test]
fn our_checks_and_ignition_validate_agree() {
    let wrap = |s: &str| format!(r#"{{"ignition":{{"version":"3.2.0"}},{s}}}"#);
    for snippet in INVALID {
        let json = wrap(snippet);
        assert!(!check_json(&json).is_empty(), "we accept {json}");
        if let Some((ok, _)) = validate(&json) {
            assert!(!ok, "ignition-validate accepts {json}");
        }
    }
    for snippet in VALID {
        let json = wrap(snippet);
        assert_eq!(check_json(&json), vec![], "{json}");
        if let Some((ok, text)) = validate(&json) {
            assert!(ok, "ignition-validate rejects {json}:\n{text}");
        }
    }
}
