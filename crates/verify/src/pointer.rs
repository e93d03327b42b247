//! Pointer configs (`master.ign`, `worker.ign`, `arbiter.ign`): where they send the node and
//! whether the CA they carry trusts the Machine Config Server's certificate.

use pki::CertId;
use serde_json::Value;

use crate::material::{Material, node_path};
use crate::report::Report;
use crate::x509;

/// Pointer config roles, each checked when its file exists.
const ROLES: [&str; 3] = contract::ROLES;

/// The MCS certificate the bootstrap node serves: from the bootstrap config when present,
/// else from the certificate set. Returns the name for messages and the leaf DER.
pub(crate) fn mcs_cert(m: &Material) -> Option<(String, Vec<u8>)> {
    let rel = CertId::MachineConfigServer.cert_path();
    if let Some(b) = &m.bootstrap {
        let node = node_path(rel);
        if let Some(text) = b.text(&node) {
            let name = format!("{}:{node}", b.name);
            return x509::ders(&text, &name)
                .ok()?
                .into_iter()
                .next()
                .map(|d| (name, d));
        }
    }
    let set = m.certs.as_ref()?;
    Some((set.name(rel), set.leaf(CertId::MachineConfigServer)?))
}

/// Checks every pointer config present.
pub(crate) fn check_all(m: &Material, report: &mut Report) {
    for role in ROLES {
        let name = assets::layout::pointer_config(role);
        let Ok(text) = crate::material::read_text(&m.dir, &name) else {
            continue;
        };
        let Ok(json) = serde_json::from_str::<Value>(&text) else {
            report.error("pointer.url", &name, "is not JSON; regenerate it");
            continue;
        };
        let mcs = mcs_cert(m);
        check_url(m, role, &name, &json, mcs.as_ref(), report);
        check_ca(&name, &json, mcs.as_ref(), report);
    }
}

/// The first merge source of a pointer config.
fn merge_source(json: &Value) -> Option<&str> {
    json.pointer("/ignition/config/merge")
        .and_then(Value::as_array)?
        .iter()
        .find_map(|s| s["source"].as_str())
}

fn check_url(
    m: &Material,
    role: &str,
    name: &str,
    json: &Value,
    mcs: Option<&(String, Vec<u8>)>,
    report: &mut Report,
) {
    let Some(url) = merge_source(json) else {
        return report.error(
            "pointer.url",
            name,
            "has no ignition.config.merge source, so the node never fetches its config; \
             regenerate it",
        );
    };
    let Some((host, port)) = x509::url_host_port(url) else {
        return report.error(
            "pointer.url",
            name,
            format!("merge source {url:?} is not an https URL"),
        );
    };
    let mut problems = Vec::new();
    if !url.ends_with(&format!("/config/{role}")) {
        problems.push(format!("merge source {url} does not end in /config/{role}"));
    }
    if port != ignition::MCS_PORT {
        problems.push(format!(
            "port {port} is not the Machine Config Server port {}",
            ignition::MCS_PORT
        ));
    }
    problems.extend(host_problems(m, &host, mcs));
    if problems.is_empty() {
        report.ok(
            "pointer.url",
            name,
            format!("merges {url}, a name the Machine Config Server certificate carries"),
        );
    } else {
        report.error("pointer.url", name, problems.join("; "));
    }
}

/// The merge host must be the one install-config leads to and a SAN of the MCS certificate.
fn host_problems(m: &Material, host: &str, mcs: Option<&(String, Vec<u8>)>) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(ic) = &m.install_config {
        let want = assets::pointer::pointer_host(ic, &ic.names()).to_string();
        let want = want.trim_start_matches('[').trim_end_matches(']');
        if want != host {
            problems.push(format!(
                "merge host {host} but install-config.yaml leads to {want}; the file is from \
                 another cluster or was edited"
            ));
        }
    }
    if let Some((mcs_name, der)) = mcs
        && let Ok(cert) = x509::parse(der, mcs_name)
    {
        let sans = x509::sans(&cert);
        if !x509::host_matches(host, &sans) {
            problems.push(format!(
                "host {host} is not among the SANs of {mcs_name} ({}); Ignition on the node \
                 would fail with an x509 name mismatch",
                x509::san_text(&sans)
            ));
        }
    }
    problems
}

fn check_ca(name: &str, json: &Value, mcs: Option<&(String, Vec<u8>)>, report: &mut Report) {
    let mut cas = Vec::new();
    for source in json
        .pointer("/ignition/security/tls/certificateAuthorities")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s["source"].as_str())
    {
        let pem = ignition::decode_data_url(source)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .unwrap_or_default();
        cas.extend(x509::ders(&pem, name).unwrap_or_default());
    }
    if cas.is_empty() {
        return report.error(
            "pointer.ca",
            name,
            "carries no certificate authority, so the node cannot trust the Machine Config \
             Server; regenerate it",
        );
    }
    let Some((mcs_name, der)) = mcs else {
        return report.error(
            "pointer.ca",
            name,
            "the machine-config-server certificate is not in this directory, so its CA cannot \
             be checked; run `okd-install create ignition-configs` here",
        );
    };
    let Ok(cert) = x509::parse(der, mcs_name) else {
        return report.error("pointer.ca", name, format!("{mcs_name} is unreadable"));
    };
    if x509::signed_by_any(&cert, &cas) {
        report.ok(
            "pointer.ca",
            name,
            format!("its CA {} issued {mcs_name}", x509::describe_all(&cas)),
        );
    } else {
        report.error(
            "pointer.ca",
            name,
            format!(
                "its CA {} did not issue {mcs_name} (issued by \"{}\"): nodes would fail to \
                 fetch their config with \"x509: certificate signed by unknown authority\". \
                 The file comes from another run; copy it from the same run as {} or run \
                 `okd-install create ignition-configs` again",
                x509::describe_all(&cas),
                cert.issuer(),
                mcs_name.split(':').next().unwrap_or(mcs_name)
            ),
        );
    }
}
