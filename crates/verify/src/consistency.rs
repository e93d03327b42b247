//! Cross-file consistency: one cluster's files only, cluster-config matching install-config,
//! manifests readable, the bootstrap config embedding the same TLS files as the state.

use std::collections::BTreeMap;

use assets::layout;
use pki::CertId;
use serde_json::Value;

use crate::kubeconfig;
use crate::material::{
    EMBEDDED_ROOT, Material, Origin, STATE_FILE, certs_from_bootstrap, node_path,
};
use crate::report::Report;
use crate::x509;

/// Runs the checks that need the whole directory.
pub(crate) fn check_all(m: &Material, report: &mut Report) {
    check_install_config_changed(m, report);
    check_cluster_config(m, report);
    if !check_manifests(m, report) {
        check_embedded_image_mode(m, report);
    }
    check_stale(m, report);
}

/// The bootstrap config must embed exactly the certificates and keys of the primary set.
pub(crate) fn check_embedded_tls(m: &Material, report: &mut Report) {
    let (Some(b), Some(set)) = (&m.bootstrap, &m.certs) else {
        return;
    };
    if matches!(set.origin, Origin::Bootstrap(_)) {
        return;
    }
    let embedded = certs_from_bootstrap(b);
    let mut differ = Vec::new();
    for (id, pair) in &set.certs {
        match embedded.certs.get(id) {
            None => differ.push(format!("{id} (not embedded)")),
            Some(e) if e.cert_pem != pair.cert_pem => differ.push(format!("{id}.crt")),
            Some(e) if e.key_pem.is_some() && e.key_pem != pair.key_pem => {
                differ.push(format!("{id}.key"))
            }
            Some(_) => {}
        }
    }
    for (id, pem) in &set.bundles {
        if embedded.bundles.get(id) != Some(pem) {
            differ.push(format!("{id}.crt"));
        }
    }
    if differ.is_empty() {
        report.ok(
            "consistency.tls",
            &b.name,
            format!("embeds the same TLS files as {}", set.origin_text()),
        );
    } else {
        report.error(
            "consistency.tls",
            &b.name,
            format!(
                "embeds different TLS files than {}: {}; one of them was replaced or edited \
                 after the run. Run `okd-install create ignition-configs` again so both agree",
                set.origin_text(),
                differ.join(", ")
            ),
        );
    }
}

fn check_install_config_changed(m: &Material, report: &mut Report) {
    let Some(raw) = m.stored.install_config.as_ref().map(|a| a.raw.as_str()) else {
        return;
    };
    let Ok(now) = crate::material::read_text(&m.dir, layout::INSTALL_CONFIG) else {
        return;
    };
    if now != raw {
        report.warn(
            "consistency.install-config",
            layout::INSTALL_CONFIG,
            "changed since the outputs were generated; run `okd-install create \
             ignition-configs` again so they follow the edit",
        );
    }
}

/// The parsed YAML value of `data.install-config` in a cluster-config ConfigMap.
fn embedded_install_config(text: &str) -> Result<Value, String> {
    let cm: Value = serde_saphyr::from_str(text).map_err(|e| format!("is not YAML: {e}"))?;
    let inner = cm
        .pointer("/data/install-config")
        .and_then(Value::as_str)
        .ok_or("has no data.install-config")?;
    serde_saphyr::from_str(inner).map_err(|e| format!("data.install-config is not YAML: {e}"))
}

/// Absent, null and empty values mean the same to the cluster (Go writes the config with
/// `omitempty`), so they compare equal.
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.values().all(is_empty),
        _ => false,
    }
}

/// The first JSON pointer where two values differ, with both sides.
fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    if is_empty(a) && is_empty(b) {
        return None;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let null = Value::Null;
                first_difference(
                    &format!("{path}.{k}"),
                    x.get(k).unwrap_or(&null),
                    y.get(k).unwrap_or(&null),
                )
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(&format!("{path}[{i}]"), p, q)),
        _ if a == b => None,
        _ => Some(format!(
            "{} is {a} there but {b} in install-config.yaml",
            path.trim_start_matches('.')
        )),
    }
}

fn check_cluster_config(m: &Material, report: &mut Report) {
    let Some(ic) = &m.install_config else {
        return;
    };
    let file = manifests::Dir::Manifests.file(manifests::user::MANIFESTS_MARKER);
    let node_path = crate::material::node_path(&file);
    let (name, text) = match crate::material::read_text(&m.dir, &file) {
        Ok(t) => (file, t),
        Err(_) => match m
            .bootstrap
            .as_ref()
            .and_then(|b| Some((format!("{}:{node_path}", b.name), b.text(&node_path)?)))
        {
            Some(found) => found,
            None => return,
        },
    };
    let want: Value = match serde_saphyr::from_str(&ic.redacted().to_yaml()) {
        Ok(v) => v,
        Err(e) => {
            return report.error(
                "consistency.cluster-config",
                &name,
                format!("cannot compare: {e}"),
            );
        }
    };
    match embedded_install_config(&text) {
        Err(e) => report.error(
            "consistency.cluster-config",
            &name,
            format!("{e}; run `okd-install create manifests` again"),
        ),
        Ok(have) => match first_difference("", &have, &want) {
            None => report.ok(
                "consistency.cluster-config",
                &name,
                "data.install-config equals the redacted install-config",
            ),
            Some(diff) => report.error(
                "consistency.cluster-config",
                &name,
                format!(
                    "data.install-config differs from install-config.yaml: {diff}. The cluster \
                     would record a configuration it was not installed with; edit \
                     install-config.yaml instead and run `okd-install create manifests` again"
                ),
            ),
        },
    }
}

/// `manifests/` and `openshift/` on disk; false when neither directory exists.
fn check_manifests(m: &Material, report: &mut Report) -> bool {
    let disk = match &m.disk_manifests {
        None => return false,
        Some(Ok(disk)) => disk,
        Some(Err(errors)) => {
            for e in errors {
                report.error(
                    "manifests.parse",
                    &e.path.display().to_string(),
                    e.to_string(),
                );
            }
            return true;
        }
    };
    let dir = format!("{}/", manifests::Dir::Manifests);
    for w in &disk.warnings {
        report.warn("manifests.parse", &dir, w.clone());
    }
    report.ok(
        "manifests.parse",
        &dir,
        format!("{} files parse as Kubernetes objects", disk.files.len()),
    );
    let release = m.stored.release.as_ref().map(|r| r.release.version);
    for unknown in manifests::namespaces::unknown_namespaces(&disk.files, release) {
        report.warn("manifests.namespace", &unknown.file, unknown.problem());
    }
    report_image_mode(m, &disk.files, "", report);
    true
}

/// Without manifests on disk (`create ignition-configs` straight from install-config), the
/// image-mode objects are checked where they will be used: inside the bootstrap config.
fn check_embedded_image_mode(m: &Material, report: &mut Report) {
    let Some(b) = &m.bootstrap else { return };
    let prefix = format!("{}:{EMBEDDED_ROOT}", b.name);
    report_image_mode(m, &b.manifests, &prefix, report);
}

/// MachineOSConfigs and OS-image MachineConfigs: complete and naming the same image per pool
/// when image mode is on, a note when it is off. `prefix` goes before each file name
/// (empty on disk, `bootstrap.ign:/opt/openshift/` inside the bootstrap config).
fn report_image_mode(
    m: &Material,
    files: &[manifests::UserFile],
    prefix: &str,
    report: &mut Report,
) {
    let Some(ic) = &m.install_config else {
        return;
    };
    let release = m.stored.release.as_ref().map(|r| r.release);
    let checked = assets::manifests::image_mode_report(ic, files, release);
    for e in &checked.errors {
        let file = format!("{prefix}{}", e.path.display());
        report.error("manifests.image-mode", &file, format!("{prefix}{e}"));
    }
    for w in &checked.warnings {
        report.warn(
            "manifests.image-mode",
            &format!("{prefix}manifests/"),
            w.clone(),
        );
    }
    for pool in &checked.agreed {
        report.ok(
            "manifests.image-mode",
            &format!("{prefix}{}", pool.machine_os_config),
            format!(
                "pool {}: the MachineOSConfig and the MachineConfig(s) {} that set the \
                 first-boot osImageURL all name {}",
                pool.pool,
                Some(
                    pool.machine_configs
                        .iter()
                        .map(|f| format!("{prefix}{f}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                )
                .filter(|l| !l.is_empty())
                .unwrap_or_else(|| "the bootstrap writes from it".into()),
                pool.image
            ),
        );
    }
}

/// One fact ("root CA", "cluster name") as seen by each file.
#[derive(Default)]
struct Facts(BTreeMap<&'static str, Vec<(String, String)>>);

impl Facts {
    fn add(&mut self, fact: &'static str, file: impl Into<String>, value: impl Into<String>) {
        self.0
            .entry(fact)
            .or_default()
            .push((file.into(), value.into()));
    }
}

fn root_ca_of(pem: &str) -> Option<String> {
    let der = x509::ders(pem, "").ok()?.into_iter().next()?;
    x509::parse(&der, "").ok().map(|c| x509::describe(&c))
}

fn collect_facts(m: &Material) -> Facts {
    let mut f = Facts::default();
    if let Some(ic) = &m.install_config {
        f.add(
            "cluster name",
            layout::INSTALL_CONFIG,
            ic.metadata.name.clone(),
        );
    }
    if let Ok(text) = crate::material::read_text(&m.dir, layout::METADATA)
        && let Ok(meta) = serde_json::from_str::<Value>(&text)
    {
        f.add(
            "cluster name",
            layout::METADATA,
            meta["clusterName"].as_str().unwrap_or_default(),
        );
        if let Some(infra) = m.stored.cluster_id.as_ref().map(|c| c.infra_id.as_str()) {
            f.add("infrastructure ID", STATE_FILE, infra);
            f.add(
                "infrastructure ID",
                layout::METADATA,
                meta["infraID"].as_str().unwrap_or_default(),
            );
        }
    }
    for (name, _, text) in kubeconfig::sources(m) {
        if let Ok(kc) = kubeconfig::parse(&text) {
            f.add("cluster name", name, kc.cluster_name);
        }
    }
    root_ca_facts(m, &mut f);
    f
}

fn root_ca_facts(m: &Material, f: &mut Facts) {
    let rel = CertId::RootCa.cert_path();
    if let Some(v) = m.stored.root_ca_pem().and_then(root_ca_of) {
        f.add("root CA", STATE_FILE, v);
    }
    if let Some(v) = crate::material::read_text(&m.dir, rel)
        .ok()
        .and_then(|t| root_ca_of(&t))
    {
        f.add("root CA", rel, v);
    }
    if let Some(b) = &m.bootstrap
        && let Some(v) = b.text(&node_path(rel)).and_then(|t| root_ca_of(&t))
    {
        f.add("root CA", b.name.clone(), v);
    }
    for role in contract::ROLES {
        let name = layout::pointer_config(role);
        let Ok(text) = crate::material::read_text(&m.dir, &name) else {
            continue;
        };
        let ca = serde_json::from_str::<Value>(&text).ok().and_then(|j| {
            let src = j
                .pointer("/ignition/security/tls/certificateAuthorities/0/source")?
                .as_str()?
                .to_string();
            String::from_utf8(ignition::decode_data_url(&src).ok()?).ok()
        });
        if let Some(v) = ca.as_deref().and_then(root_ca_of) {
            f.add("root CA", name, v);
        }
    }
}

fn check_stale(m: &Material, report: &mut Report) {
    if let Ok(text) = crate::material::read_text(&m.dir, layout::METADATA)
        && serde_json::from_str::<Value>(&text).is_err()
    {
        report.error(
            "consistency.stale",
            layout::METADATA,
            "is not JSON; `destroy` and `gather` need it: run `okd-install create \
             ignition-configs` again to rewrite it",
        );
    }
    let facts = collect_facts(m);
    let mut mixed = Vec::new();
    for (fact, seen) in &facts.0 {
        let mut by_value: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (file, value) in seen {
            by_value.entry(value).or_default().push(file);
        }
        if by_value.len() > 1 {
            let groups: Vec<String> = by_value
                .iter()
                .map(|(value, files)| format!("{value} in {}", files.join(", ")))
                .collect();
            mixed.push(format!("{fact}: {}", groups.join(" vs ")));
        }
    }
    let dir = m.dir.display().to_string();
    if mixed.is_empty() {
        report.ok(
            "consistency.stale",
            &dir,
            "every file belongs to the same cluster",
        );
    } else {
        report.error(
            "consistency.stale",
            &dir,
            format!(
                "this directory mixes files of two clusters ({}). Keep one run's files: \
                 remove the odd ones and run `okd-install create ignition-configs` again",
                mixed.join("; ")
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_difference_names_the_path() {
        let a: Value = serde_json::json!({"metadata": {"name": "a"}, "n": [1, 2]});
        let b: Value = serde_json::json!({"metadata": {"name": "b"}, "n": [1, 2]});
        assert_eq!(
            first_difference("", &a, &b).as_deref(),
            Some("metadata.name is \"a\" there but \"b\" in install-config.yaml")
        );
        assert_eq!(first_difference("", &a, &a), None);
        let c: Value = serde_json::json!({"featureSet": "", "x": {}, "n": [1, 2]});
        let d: Value = serde_json::json!({"x": {"y": null}, "n": [1, 2]});
        assert_eq!(first_difference("", &c, &d), None);
    }
}
