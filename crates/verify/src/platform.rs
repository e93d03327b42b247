//! Platform objects the operators need and cannot do without: the vCenter credentials secret
//! on vSphere and the metal3 Provisioning object on bare metal.
//!
//! Without `kube-system/vsphere-creds` the cloud controller never reaches vCenter and every
//! node keeps its uninitialized taint; a Provisioning object the cluster-baremetal-operator
//! rejects leaves the baremetal operator degraded. Both failures show up long after booting,
//! so they are checked here against what the cluster will actually receive: the manifests
//! embedded in the bootstrap config when there is one, else `manifests/` and `openshift/`.

use std::net::IpAddr;

use ipnet::IpNet;
use manifests::generate::{
    CREDS_FILE, CREDS_NAMESPACE, CREDS_SECRET, PROVISIONING_FILE, PROVISIONING_NAME, creds_keys,
};
use manifests::user::ObjectRef;
use serde_json::Value;

use crate::material::{EMBEDDED_ROOT, Material};
use crate::report::Report;

/// One object and the file it came from.
struct Found {
    file: String,
    object: ObjectRef,
}

/// Runs the checks of the install-config's platform.
pub(crate) fn check_all(m: &Material, report: &mut Report) {
    let Some(ic) = &m.install_config else {
        return;
    };
    let Some((source, objects)) = objects(m) else {
        return;
    };
    if let Some(vs) = &ic.platform.vsphere {
        let servers: Vec<&str> = vs.vcenters.iter().map(|v| v.server.as_str()).collect();
        check_vsphere_credentials(&source, &objects, &servers, report);
    }
    if ic.platform.baremetal.is_some() {
        check_provisioning(&source, &objects, report);
    }
}

/// The objects the cluster will get, and where they were read from: the manifests embedded
/// in the bootstrap config when there is one, else those on disk.
fn objects(m: &Material) -> Option<(String, Vec<Found>)> {
    if let Some(b) = &m.bootstrap {
        let prefix = format!("{}:{EMBEDDED_ROOT}", b.name);
        return Some((b.name.clone(), found(&b.manifests, &prefix)));
    }
    let Some(Ok(disk)) = &m.disk_manifests else {
        return None;
    };
    if disk.files.is_empty() {
        return None;
    }
    Some((
        "manifests/ and openshift/".to_string(),
        found(&disk.files, ""),
    ))
}

/// Every object of `files`, each with its file's name after `prefix`.
fn found(files: &[manifests::UserFile], prefix: &str) -> Vec<Found> {
    files
        .iter()
        .flat_map(|f| {
            let file = format!("{prefix}{}", f.rel_path());
            f.objects.iter().map(move |object| Found {
                file: file.clone(),
                object: object.clone(),
            })
        })
        .collect()
}

fn find<'a>(
    objects: &'a [Found],
    kind: &str,
    namespace: Option<&str>,
    name: &str,
) -> Option<&'a Found> {
    objects.iter().find(|f| {
        f.object.kind == kind && f.object.name == name && f.object.namespace.as_deref() == namespace
    })
}

/// `kube-system/vsphere-creds` must hold a non-empty user and password for every vCenter.
fn check_vsphere_credentials(
    source: &str,
    objects: &[Found],
    servers: &[&str],
    report: &mut Report,
) {
    let id = "platform.vsphere-credentials";
    let Some(found) = find(objects, "Secret", Some(CREDS_NAMESPACE), CREDS_SECRET) else {
        return report.error(
            id,
            source,
            format!(
                "has no Secret {CREDS_NAMESPACE}/{CREDS_SECRET}: the vSphere cloud controller, CSI \
                 driver and cloud credential operator cannot reach vCenter and the nodes keep \
                 their uninitialized taint. Run `okd-install create manifests` again (it writes \
                 openshift/{CREDS_FILE} from install-config.yaml)"
            ),
        );
    };
    let missing: Vec<String> = servers
        .iter()
        .flat_map(|s| creds_keys(s))
        .filter(|key| !has_value(&found.object.value, key))
        .collect();
    if missing.is_empty() {
        report.ok(
            id,
            &found.file,
            format!("holds a user and password for {}", servers.join(", ")),
        );
    } else {
        report.error(
            id,
            &found.file,
            format!(
                "lacks {} (each vCenter needs <server>.username and <server>.password); add them \
                 or run `okd-install create manifests` again",
                missing.join(", ")
            ),
        );
    }
}

/// True when the Secret has `key` in data (base64) or stringData with a non-empty value.
fn has_value(secret: &Value, key: &str) -> bool {
    ["data", "stringData"].iter().any(|field| {
        secret[field][key]
            .as_str()
            .is_some_and(|v| !v.trim().is_empty())
    })
}

/// The Provisioning object must exist and pass the cluster-baremetal-operator's own checks.
fn check_provisioning(source: &str, objects: &[Found], report: &mut Report) {
    let id = "platform.provisioning";
    let Some(found) = find(objects, "Provisioning", None, PROVISIONING_NAME) else {
        return report.error(
            id,
            source,
            format!(
                "has no Provisioning {PROVISIONING_NAME}: the cluster-baremetal-operator cannot \
                 configure metal3. Run `okd-install create manifests` again (it writes \
                 openshift/{PROVISIONING_FILE})"
            ),
        );
    };
    let problems = provisioning_problems(&found.object.value["spec"]);
    if problems.is_empty() {
        report.ok(
            id,
            &found.file,
            "is a Provisioning the baremetal operator accepts",
        );
    } else {
        report.error(
            id,
            &found.file,
            format!(
                "would be rejected by the cluster-baremetal-operator: {}. Fix the provisioning \
                 settings under platform.baremetal in install-config.yaml and run `okd-install \
                 create manifests` again",
                problems.join("; ")
            ),
        );
    }
}

fn text<'a>(spec: &'a Value, field: &str) -> &'a str {
    spec[field].as_str().unwrap_or_default()
}

/// The operator's rules: every mode but Disabled needs a provisioning IP; Managed also needs
/// the network, the IP inside it and outside the DHCP range, and the DHCP range.
fn provisioning_problems(spec: &Value) -> Vec<String> {
    let mode = match text(spec, "provisioningNetwork") {
        "" => "Managed",
        m => m,
    };
    if !matches!(mode, "Managed" | "Unmanaged" | "Disabled") {
        return vec![format!(
            "provisioningNetwork {mode:?} is not Managed, Unmanaged or Disabled"
        )];
    }
    let ip_text = text(spec, "provisioningIP");
    let cidr_text = text(spec, "provisioningNetworkCIDR");
    if mode == "Disabled" && ip_text.is_empty() && cidr_text.is_empty() {
        return Vec::new();
    }
    let Ok(ip) = ip_text.parse::<IpAddr>() else {
        return vec![format!("provisioningIP {ip_text:?} is not an IP address")];
    };
    if mode != "Managed" {
        return Vec::new();
    }
    let Ok(net) = cidr_text.parse::<IpNet>() else {
        return vec![format!(
            "provisioningNetworkCIDR {cidr_text:?} is not a CIDR"
        )];
    };
    let mut problems = Vec::new();
    if !net.contains(&ip) {
        problems.push(format!("provisioningIP {ip} is outside {net}"));
    }
    problems.extend(dhcp_range_problems(
        text(spec, "provisioningDHCPRange"),
        net,
        ip,
    ));
    problems
}

fn dhcp_range_problems(range: &str, net: IpNet, ip: IpAddr) -> Vec<String> {
    if range.is_empty() {
        return vec!["provisioningDHCPRange is required in Managed mode".into()];
    }
    let Ok((start, end)) = installconfig::validate::parse_dhcp_range(range) else {
        return vec![format!(
            "provisioningDHCPRange {range:?} is not start_ip,end_ip"
        )];
    };
    let mut problems = Vec::new();
    if !net.contains(&start) || !net.contains(&end) {
        problems.push(format!("provisioningDHCPRange {range} is not inside {net}"));
    }
    if ip >= start && ip <= end {
        problems.push(format!(
            "provisioningIP {ip} lies in the DHCP range {range}"
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn managed_provisioning_needs_ip_network_and_range() {
        let good = json!({"provisioningNetwork": "Managed", "provisioningIP": "172.22.0.3",
            "provisioningNetworkCIDR": "172.22.0.0/24",
            "provisioningDHCPRange": "172.22.0.10,172.22.0.254"});
        assert!(provisioning_problems(&good).is_empty());
        let bare = json!({"provisioningNetwork": "Managed"});
        assert_eq!(provisioning_problems(&bare).len(), 1);
        let mut inside = good.clone();
        inside["provisioningIP"] = json!("172.22.0.20");
        assert!(provisioning_problems(&inside)[0].contains("DHCP range"));
        let mut no_range = good.clone();
        no_range["provisioningDHCPRange"] = json!("");
        assert!(provisioning_problems(&no_range)[0].contains("required"));
    }

    #[test]
    fn disabled_and_unmanaged_need_less() {
        assert!(provisioning_problems(&json!({"provisioningNetwork": "Disabled"})).is_empty());
        let unmanaged = json!({"provisioningNetwork": "Unmanaged", "provisioningIP": "10.0.0.3"});
        assert!(provisioning_problems(&unmanaged).is_empty());
        assert_eq!(
            provisioning_problems(&json!({"provisioningNetwork": "Unmanaged"})).len(),
            1
        );
    }

    #[test]
    fn credentials_need_both_keys_per_server() {
        let secret =
            json!({"data": {"vc.example.com.username": "dQ==", "vc.example.com.password": ""}});
        assert!(has_value(&secret, "vc.example.com.username"));
        assert!(!has_value(&secret, "vc.example.com.password"));
        assert!(has_value(&json!({"stringData": {"k": "v"}}), "k"));
    }
}
