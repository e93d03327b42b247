//! Kubeconfigs: `auth/kubeconfig` and the ones embedded in the bootstrap config. Their CA
//! must trust the API serving certificate for their server name, their client certificate
//! must chain to the API's client CA bundle, and the server URL must be this cluster's.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use pki::{BundleId, KubeconfigFile, KubeconfigId};
use serde_json::Value;

use crate::material::{CertSet, Material};
use crate::report::Report;
use crate::x509;

/// The fields a kubeconfig check needs.
pub(crate) struct Kubeconfig {
    pub cluster_name: String,
    pub server: String,
    pub ca_pem: String,
    pub client_cert_pem: String,
    pub client_key_pem: String,
}

/// Reads the first cluster and user of a kubeconfig.
pub(crate) fn parse(text: &str) -> Result<Kubeconfig, String> {
    let v: Value = serde_saphyr::from_str(text).map_err(|e| format!("is not YAML: {e}"))?;
    let data = |ptr: &str| -> Result<String, String> {
        let b64 = v
            .pointer(ptr)
            .and_then(Value::as_str)
            .ok_or(format!("has no {ptr}"))?;
        let bytes = STANDARD
            .decode(b64.trim())
            .map_err(|e| format!("{ptr} is not base64: {e}"))?;
        String::from_utf8(bytes).map_err(|_| format!("{ptr} is not PEM text"))
    };
    let text = |ptr: &str| {
        v.pointer(ptr)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    Ok(Kubeconfig {
        cluster_name: text("/clusters/0/name"),
        server: text("/clusters/0/cluster/server"),
        ca_pem: data("/clusters/0/cluster/certificate-authority-data")?,
        client_cert_pem: data("/users/0/user/client-certificate-data")?,
        client_key_pem: data("/users/0/user/client-key-data")?,
    })
}

/// Every kubeconfig in the directory and the bootstrap config: (name, which, text), in the
/// order of the kubeconfig table.
pub(crate) fn sources(m: &Material) -> Vec<(String, KubeconfigId, String)> {
    let mut out = Vec::new();
    for &id in KubeconfigId::ALL {
        match id.spec().file {
            KubeconfigFile::InstallDir(path) => {
                if let Ok(text) = crate::material::read_text(&m.dir, path) {
                    out.push((path.to_string(), id, text));
                }
            }
            KubeconfigFile::BootstrapNode(path) => {
                let Some(b) = &m.bootstrap else { continue };
                if let Some(text) = b.text(path) {
                    out.push((format!("{}:{path}", b.name), id, text));
                }
            }
        }
    }
    out
}

/// Checks every kubeconfig found.
pub(crate) fn check_all(m: &Material, report: &mut Report) {
    for (name, id, text) in sources(m) {
        let kc = match parse(&text) {
            Ok(kc) => kc,
            Err(e) => {
                report.error("kubeconfig.server", &name, format!("{e}; regenerate it"));
                continue;
            }
        };
        check_server(m, &name, id, &kc, report);
        if let Some(set) = &m.certs {
            check_ca(set, &name, id, &kc, report);
            check_client(set, &name, &kc, report);
        }
    }
}

fn check_server(m: &Material, name: &str, id: KubeconfigId, kc: &Kubeconfig, report: &mut Report) {
    let Some(params) = &m.params else {
        return;
    };
    let want = id.server(params);
    let mut problems = Vec::new();
    if kc.server != want {
        problems.push(format!(
            "server is {} but this cluster's is {want}",
            kc.server
        ));
    }
    if kc.cluster_name != params.names.cluster_name {
        problems.push(format!(
            "cluster name is {:?} but install-config.yaml names the cluster {:?}; the file \
             belongs to another cluster",
            kc.cluster_name, params.names.cluster_name
        ));
    }
    if problems.is_empty() {
        report.ok("kubeconfig.server", name, format!("server {want}"));
    } else {
        report.error("kubeconfig.server", name, problems.join("; "));
    }
}

fn check_ca(set: &CertSet, name: &str, id: KubeconfigId, kc: &Kubeconfig, report: &mut Report) {
    let serving = id.spec().endpoint.serving_cert();
    let cas = match x509::ders(&kc.ca_pem, name) {
        Ok(c) => c,
        Err(e) => return report.error("kubeconfig.ca", name, e),
    };
    let Some(der) = set.leaf(serving) else {
        return report.error(
            "kubeconfig.ca",
            name,
            format!("{serving} is missing, nothing to check the CA against"),
        );
    };
    let Ok(cert) = x509::parse(&der, "") else {
        return;
    };
    let host = x509::url_host_port(&kc.server)
        .map(|(h, _)| h)
        .unwrap_or_default();
    let sans = x509::sans(&cert);
    let mut problems = Vec::new();
    if !x509::signed_by_any(&cert, &cas) {
        problems.push(format!(
            "its CA data ({}) does not trust {} (issued by \"{}\"): clients would fail with \
             \"x509: certificate signed by unknown authority\"; regenerate the kubeconfig in \
             the same run as the certificates",
            x509::describe_all(&cas),
            set.name(serving.cert_path()),
            cert.issuer()
        ));
    }
    if !x509::host_matches(&host, &sans) {
        problems.push(format!(
            "server host {host} is not a SAN of {} ({})",
            set.name(serving.cert_path()),
            x509::san_text(&sans)
        ));
    }
    if problems.is_empty() {
        report.ok(
            "kubeconfig.ca",
            name,
            format!("CA trusts {serving} for {host}"),
        );
    } else {
        report.error("kubeconfig.ca", name, problems.join("; "));
    }
}

fn check_client(set: &CertSet, name: &str, kc: &Kubeconfig, report: &mut Report) {
    let bundle = BundleId::KubeApiserverCompleteClientCa;
    let Ok(ders) = x509::ders(&kc.client_cert_pem, name) else {
        return report.error(
            "kubeconfig.client",
            name,
            "client-certificate-data holds no certificate",
        );
    };
    let Ok(cert) = x509::parse(&ders[0], name) else {
        return report.error(
            "kubeconfig.client",
            name,
            "client certificate is unreadable",
        );
    };
    let mut problems = Vec::new();
    match set.bundle_ders(bundle) {
        Some(cas) if x509::signed_by_any(&cert, &cas) => {}
        Some(_) => problems.push(format!(
            "client certificate {} (issued by \"{}\") does not chain to {}: the API server \
             would answer 401 Unauthorized",
            x509::describe(&cert),
            cert.issuer(),
            set.name(bundle.path())
        )),
        None => problems.push(format!("{} is missing", set.name(bundle.path()))),
    }
    if let Err(e) = pki::check_pair(&kc.client_cert_pem, &kc.client_key_pem, name) {
        problems.push(format!(
            "client-key-data does not belong to the client certificate ({e})"
        ));
    }
    if problems.is_empty() {
        report.ok(
            "kubeconfig.client",
            name,
            format!(
                "client {} chains to {bundle}, key matches",
                x509::describe(&cert)
            ),
        );
    } else {
        report.error("kubeconfig.client", name, problems.join("; "));
    }
}
