//! ConfigMaps and Secrets: CA bundles, MCS serving material, pull secret, kubeadmin hash,
//! pointer-config user data and the installer's own marker ConfigMap.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use time::format_description::well_known::Rfc3339;
use x509_parser::extensions::GeneralName;
use x509_parser::prelude::{FromDer, X509Certificate};

use super::config::USER_CA_BUNDLE;
use super::{Dir, Out};
use crate::error::Error;
use crate::inputs::{ManifestInputs, Platform};
use crate::objects::meta;

const MCO_NS: &str = "openshift-machine-config-operator";
/// The Secret in `openshift/` that carries the kubeadmin password's bcrypt hash (`verify`
/// checks `auth/kubeadmin-password` against it).
pub const KUBEADMIN_SECRET_FILE: &str = "99_kubeadmin-password-secret.yaml";
const MCS_OWNER: &str = "Machine Config Operator";

pub(super) fn add(inputs: &ManifestInputs, out: &mut Out) -> Result<(), Error> {
    let m = Dir::Manifests;
    let tls = &inputs.tls;
    out.push(m, "kube-cloud-config.yaml", &kube_cloud_config())?;
    out.push(
        m,
        "kube-system-configmap-root-ca.yaml",
        &root_ca(&tls.root_ca_cert_pem),
    )?;
    out.push(
        m,
        "machine-config-server-tls-secret.yaml",
        &mcs_tls(inputs)?,
    )?;
    out.push(
        m,
        "machine-config-server-ca-secret.yaml",
        &mcs_ca_secret(inputs)?,
    )?;
    out.push(
        m,
        "machine-config-server-ca-configmap.yaml",
        &mcs_ca_bundle(inputs),
    )?;
    out.push(
        m,
        "openshift-config-secret-pull-secret.yaml",
        &pull_secret(inputs),
    )?;
    if let Some(bundle) = &inputs.additional_trust_bundle {
        out.push(m, "user-ca-bundle-config.yaml", &user_ca_bundle(bundle))?;
    }
    let o = Dir::Openshift;
    out.push(o, KUBEADMIN_SECRET_FILE, &kubeadmin(inputs))?;
    out.push(
        o,
        "openshift-install-manifests.yaml",
        &install_marker(inputs),
    )?;
    // Bare metal's machine-api provider reads `<role>-user-data-managed`.
    let suffix = match inputs.platform {
        Platform::BareMetal(_) => "-managed",
        _ => "",
    };
    for (role, pointer) in [
        (contract::MASTER_POOL, &inputs.master_pointer_ign),
        (contract::WORKER_POOL, &inputs.worker_pointer_ign),
    ] {
        let name = format!("99_openshift-cluster-api_{role}-user-data-secret.yaml");
        out.push(
            o,
            &name,
            &user_data(&format!("{role}-user-data{suffix}"), pointer),
        )?;
    }
    Ok(())
}

fn string_map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn byte_map(pairs: &[(&str, &str)]) -> BTreeMap<String, ByteString> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), ByteString(v.as_bytes().to_vec())))
        .collect()
}

fn secret(metadata: ObjectMeta, type_: &str, data: &[(&str, &str)]) -> Secret {
    Secret {
        metadata,
        type_: Some(type_.to_string()),
        data: Some(byte_map(data)),
        ..Secret::default()
    }
}

/// A `kubernetes.io/tls` secret holding a certificate and its key.
fn tls_secret(metadata: ObjectMeta, cert_pem: &str, key_pem: &str) -> Secret {
    let data = [("tls.crt", cert_pem), ("tls.key", key_pem)];
    secret(metadata, "kubernetes.io/tls", &data)
}

fn config_map(metadata: ObjectMeta, data: &[(&str, &str)]) -> ConfigMap {
    ConfigMap {
        metadata,
        data: Some(string_map(data)),
        ..ConfigMap::default()
    }
}

/// Legacy in-tree cloud config; empty on the platforms we support, kept because components
/// still look the secret up.
fn kube_cloud_config() -> Secret {
    secret(
        meta("kube-system", "kube-cloud-cfg"),
        "Opaque",
        &[("config", "")],
    )
}

fn root_ca(pem: &str) -> ConfigMap {
    config_map(meta("kube-system", "root-ca"), &[("ca.crt", pem)])
}

/// Metadata for the MCO-managed certificate objects (annotations let the MCO's certificate
/// rotation recognise what it owns).
fn mco_meta(name: &str, description: &str, kind: &str, cert: Option<&CertInfo>) -> ObjectMeta {
    let mut annotations = string_map(&[
        ("openshift.io/description", description),
        ("openshift.io/owning-component", MCS_OWNER),
    ]);
    if let Some(c) = cert {
        if let Some(hosts) = &c.hostnames {
            annotations.insert(
                "auth.openshift.io/certificate-hostnames".into(),
                hosts.clone(),
            );
        }
        annotations.insert(
            "auth.openshift.io/certificate-issuer".into(),
            c.issuer.clone(),
        );
        annotations.insert(
            "auth.openshift.io/certificate-not-after".into(),
            c.not_after.clone(),
        );
        annotations.insert(
            "auth.openshift.io/certificate-not-before".into(),
            c.not_before.clone(),
        );
    }
    ObjectMeta {
        annotations: Some(annotations),
        labels: Some(string_map(&[(
            "auth.openshift.io/managed-certificate-type",
            kind,
        )])),
        ..meta(MCO_NS, name)
    }
}

fn mcs_tls(inputs: &ManifestInputs) -> Result<Secret, Error> {
    let tls = &inputs.tls;
    let info = cert_info("tls.mcsCertPem", &tls.mcs_cert_pem, true)?;
    let metadata = mco_meta(
        "machine-config-server-tls",
        "Serving certificate and key of the machine config server (port 22623)",
        "target",
        Some(&info),
    );
    Ok(tls_secret(metadata, &tls.mcs_cert_pem, &tls.mcs_key_pem))
}

fn mcs_ca_secret(inputs: &ManifestInputs) -> Result<Secret, Error> {
    let tls = &inputs.tls;
    let info = cert_info("tls.rootCaCertPem", &tls.root_ca_cert_pem, false)?;
    let metadata = mco_meta(
        "machine-config-server-ca",
        "Signer of the machine config server certificate, so the MCO can rotate it",
        "signer",
        Some(&info),
    );
    Ok(tls_secret(
        metadata,
        &tls.root_ca_cert_pem,
        &tls.root_ca_key_pem,
    ))
}

fn mcs_ca_bundle(inputs: &ManifestInputs) -> ConfigMap {
    let metadata = mco_meta(
        "machine-config-server-ca",
        "Every CA that may have signed the machine config server certificate",
        "ca-bundle",
        None,
    );
    config_map(metadata, &[("ca-bundle.crt", &inputs.tls.root_ca_cert_pem)])
}

fn pull_secret(inputs: &ManifestInputs) -> Secret {
    secret(
        meta("openshift-config", "pull-secret"),
        "kubernetes.io/dockerconfigjson",
        &[(".dockerconfigjson", &inputs.pull_secret)],
    )
}

fn user_ca_bundle(bundle: &str) -> ConfigMap {
    config_map(
        meta("openshift-config", USER_CA_BUNDLE),
        &[("ca-bundle.crt", bundle)],
    )
}

fn kubeadmin(inputs: &ManifestInputs) -> Secret {
    secret(
        meta("kube-system", "kubeadmin"),
        "Opaque",
        &[("kubeadmin", &inputs.kubeadmin_password_hash)],
    )
}

fn install_marker(inputs: &ManifestInputs) -> ConfigMap {
    config_map(
        meta("openshift-config", "openshift-install-manifests"),
        &[
            ("version", &inputs.installer_version),
            ("invoker", &inputs.invoker),
        ],
    )
}

/// The pointer config for machines the machine-api creates; `disableTemplating` tells the
/// provider to pass it through untouched.
fn user_data(name: &str, pointer: &str) -> Secret {
    secret(
        meta("openshift-machine-api", name),
        "Opaque",
        &[("disableTemplating", "true"), ("userData", pointer)],
    )
}

/// The facts the MCO's certificate annotations carry.
struct CertInfo {
    issuer: String,
    not_before: String,
    not_after: String,
    hostnames: Option<String>,
}

fn cert_info(field: &'static str, pem: &str, with_hosts: bool) -> Result<CertInfo, Error> {
    let bad = |reason: String| Error::Certificate { field, reason };
    let (_, parsed) = x509_parser::pem::parse_x509_pem(pem.as_bytes())
        .map_err(|e| bad(format!("not a PEM certificate ({e})")))?;
    let (_, cert) = X509Certificate::from_der(&parsed.contents)
        .map_err(|e| bad(format!("not an X.509 certificate ({e})")))?;
    let time = |t: x509_parser::time::ASN1Time| {
        t.to_datetime()
            .format(&Rfc3339)
            .map_err(|e| bad(format!("validity date cannot be formatted ({e})")))
    };
    let issuer = cert
        .issuer()
        .iter_common_name()
        .next()
        .and_then(|cn| cn.as_str().ok())
        .unwrap_or_default()
        .to_string();
    let hostnames = with_hosts.then(|| sans(&cert)).flatten();
    Ok(CertInfo {
        issuer,
        not_before: time(cert.validity().not_before)?,
        not_after: time(cert.validity().not_after)?,
        hostnames,
    })
}

/// Sorted, comma-separated DNS and IP subject alternative names.
fn sans(cert: &X509Certificate<'_>) -> Option<String> {
    let ext = cert.subject_alternative_name().ok().flatten()?;
    let mut names: Vec<String> = ext
        .value
        .general_names
        .iter()
        .filter_map(|n| match n {
            GeneralName::DNSName(d) => Some(d.to_string()),
            GeneralName::IPAddress(ip) => ip_string(ip),
            _ => None,
        })
        .collect();
    names.sort();
    names.dedup();
    (!names.is_empty()).then(|| names.join(","))
}

fn ip_string(bytes: &[u8]) -> Option<String> {
    match bytes.len() {
        4 => Some(std::net::Ipv4Addr::from(<[u8; 4]>::try_from(bytes).ok()?).to_string()),
        16 => Some(std::net::Ipv6Addr::from(<[u8; 16]>::try_from(bytes).ok()?).to_string()),
        _ => None,
    }
}
