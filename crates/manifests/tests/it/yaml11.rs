//! Every generated file must read the same under a YAML 1.1 parser (PyYAML, the same family
//! as the Go parser the cluster uses) as under our YAML 1.2 reader: no `yes`/`no`, dates or
//! version-like strings silently turning into other types.

use std::process::Command;

use manifests::{generate, image_mode_manifests};
use serde_json::Value;

use crate::common;

const READER: &str = r#"
import json, sys, yaml
out = []
for path in sys.argv[1:]:
    with open(path) as f:
        out.append(list(yaml.safe_load_all(f)))
print(json.dumps(out))
"#;

/// Whether `python3` with PyYAML is available; missing it fails in CI and skips locally.
fn pyyaml_available() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import yaml"])
        .status()
        .is_ok_and(|s| s.success());
    testkit::require(
        ok,
        "python3 with PyYAML is missing (apt-get install python3-yaml); YAML 1.1 compatibility \
         not checked",
    )
}

#[test]
fn generated_files_read_the_same_as_yaml_1_1() {
    if !pyyaml_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    let mut expected = Vec::new();
    let mut files = Vec::new();
    for inputs in [
        common::sno(),
        common::baremetal_compact(),
        common::vsphere_ha_dual_stack(),
    ] {
        files.extend(generate(&inputs).unwrap().files);
    }
    files.extend(image_mode_manifests(
        &["master", "worker"],
        &[],
        manifests::ImageModeFlow::OsImageMachineConfig,
    ));
    for (i, f) in files.iter().enumerate() {
        let path = dir.path().join(format!("{i}-{}", f.name));
        std::fs::write(&path, &f.data).unwrap();
        paths.push(path);
        let docs: Vec<Value> =
            serde_saphyr::from_multiple(std::str::from_utf8(&f.data).unwrap()).unwrap();
        expected.push((f.rel_path(), docs));
    }
    let out = Command::new("python3")
        .arg("-c")
        .arg(READER)
        .args(&paths)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "PyYAML failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<Vec<Value>> = serde_json::from_slice(&out.stdout).unwrap();
    for ((path, want), got) in expected.iter().zip(&got) {
        assert_eq!(want, got, "{path} reads differently under YAML 1.1");
    }
    // Nested YAML (install-config, vSphere cloud config) must survive too.
    let nested: Vec<&Value> = got
        .iter()
        .flatten()
        .filter_map(|d| d.pointer("/data/install-config"))
        .collect();
    assert_eq!(nested.len(), 3);
}
