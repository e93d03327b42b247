//! Every row of the signer (§2) and leaf (§3) tables, checked with x509-parser on the
//! certificates the asset graph makes. The expected values are written out here from the
//! reference, not read from the pki crate's own table.

use std::net::IpAddr;

use pki::{CertId, subject_key_id};
use time::Duration;
use x509_parser::extensions::{GeneralName, ParsedExtension};
use x509_parser::prelude::X509Certificate;

use crate::common::{ders, now, parse, pki};

const DAY: i64 = 24;
const YEAR: i64 = 8760;
const TEN: i64 = 87_600;

struct Row {
    id: CertId,
    file: &'static str,
    cn: &'static str,
    o: &'static [&'static str],
    ou: &'static [&'static str],
    issuer: Option<CertId>,
    hours: i64,
    /// (DigitalSignature, KeyEncipherment, CertSign), or None for no KeyUsage extension.
    ku: Option<(bool, bool, bool)>,
    /// (serverAuth, clientAuth); None for no EKU extension.
    eku: Option<(bool, bool)>,
    dns: &'static [&'static str],
    /// The DNS SANs are the in-cluster names of the `kubernetes` and `openshift` services
    /// ([`service_names`]) instead of `dns`.
    service_dns: bool,
    ips: &'static [&'static str],
    append_parent: bool,
}

/// Each service's name, then `.default`, `.default.svc` and `.default.svc.cluster.local`.
fn service_names() -> Vec<String> {
    let suffixes = ["", ".default", ".default.svc", ".default.svc.cluster.local"];
    ["kubernetes", "openshift"]
        .iter()
        .flat_map(|svc| suffixes.iter().map(move |s| format!("{svc}{s}")))
        .collect()
}

const SIGNER_KU: Option<(bool, bool, bool)> = Some((true, true, true));
const LEAF_KU: Option<(bool, bool, bool)> = Some((true, true, false));
const SERVER: Option<(bool, bool)> = Some((true, false));
const CLIENT: Option<(bool, bool)> = Some((false, true));
const BOTH: Option<(bool, bool)> = Some((true, true));

const fn signer(id: CertId, file: &'static str, hours: i64) -> Row {
    Row {
        id,
        file,
        cn: file,
        o: &[],
        ou: &["openshift"],
        issuer: None,
        hours,
        ku: SIGNER_KU,
        eku: None,
        dns: &[],
        service_dns: false,
        ips: &[],
        append_parent: false,
    }
}

const fn leaf(
    id: CertId,
    file: &'static str,
    cn: &'static str,
    o: &'static [&'static str],
    issuer: CertId,
    hours: i64,
    eku: Option<(bool, bool)>,
) -> Row {
    Row {
        id,
        file,
        cn,
        o,
        ou: &[],
        issuer: Some(issuer),
        hours,
        ku: LEAF_KU,
        eku,
        dns: &[],
        service_dns: false,
        ips: &[],
        append_parent: false,
    }
}

const KAS: &str = "system:kube-apiserver";
const KM: &[&str] = &["kube-master"];
const MASTERS: &[&str] = &["system:masters"];

fn rows() -> Vec<Row> {
    use CertId::*;
    vec![
        signer(RootCa, "root-ca", TEN),
        signer(AdminKubeconfigSigner, "admin-kubeconfig-signer", TEN),
        signer(AggregatorSigner, "aggregator-signer", DAY),
        Row {
            cn: "aggregator",
            ou: &["bootkube"],
            ..signer(AggregatorCa, "aggregator-ca", DAY)
        },
        signer(
            KubeApiserverToKubeletSigner,
            "kube-apiserver-to-kubelet-signer",
            YEAR,
        ),
        signer(
            KubeApiserverLocalhostSigner,
            "kube-apiserver-localhost-signer",
            TEN,
        ),
        signer(
            KubeApiserverServiceNetworkSigner,
            "kube-apiserver-service-network-signer",
            TEN,
        ),
        signer(KubeApiserverLbSigner, "kube-apiserver-lb-signer", TEN),
        signer(KubeControlPlaneSigner, "kube-control-plane-signer", YEAR),
        signer(KubeletSigner, "kubelet-signer", DAY),
        signer(
            KubeletBootstrapKubeconfigSigner,
            "kubelet-bootstrap-kubeconfig-signer",
            TEN,
        ),
        leaf(
            AdminKubeconfigClient,
            "admin-kubeconfig-client",
            "system:admin",
            MASTERS,
            AdminKubeconfigSigner,
            TEN,
            BOTH,
        ),
        leaf(
            AggregatorClient,
            "aggregator-client",
            "system:kube-apiserver-proxy",
            KM,
            AggregatorSigner,
            DAY,
            CLIENT,
        ),
        leaf(
            ApiserverProxy,
            "apiserver-proxy",
            "system:kube-apiserver-proxy",
            KM,
            AggregatorCa,
            DAY,
            CLIENT,
        ),
        leaf(
            KubeApiserverToKubeletClient,
            "kube-apiserver-to-kubelet-client",
            KAS,
            KM,
            KubeApiserverToKubeletSigner,
            YEAR,
            CLIENT,
        ),
        Row {
            dns: &["localhost"],
            ips: &["127.0.0.1", "::1"],
            append_parent: true,
            ..leaf(
                KubeApiserverLocalhostServer,
                "kube-apiserver-localhost-server",
                KAS,
                KM,
                KubeApiserverLocalhostSigner,
                DAY,
                SERVER,
            )
        },
        Row {
            service_dns: true,
            ips: &["172.30.0.1", "fd02::1"],
            append_parent: true,
            ..leaf(
                KubeApiserverServiceNetworkServer,
                "kube-apiserver-service-network-server",
                KAS,
                KM,
                KubeApiserverServiceNetworkSigner,
                DAY,
                SERVER,
            )
        },
        Row {
            dns: &["api.dualstack.example.com"],
            append_parent: true,
            ..leaf(
                KubeApiserverLbServer,
                "kube-apiserver-lb-server",
                KAS,
                KM,
                KubeApiserverLbSigner,
                DAY,
                SERVER,
            )
        },
        Row {
            dns: &["api-int.dualstack.example.com"],
            append_parent: true,
            ..leaf(
                KubeApiserverInternalLbServer,
                "kube-apiserver-internal-lb-server",
                KAS,
                KM,
                KubeApiserverLbSigner,
                DAY,
                SERVER,
            )
        },
        leaf(
            KubeControlPlaneKubeControllerManagerClient,
            "kube-control-plane-kube-controller-manager-client",
            "system:admin",
            MASTERS,
            KubeControlPlaneSigner,
            YEAR,
            CLIENT,
        ),
        leaf(
            KubeControlPlaneKubeSchedulerClient,
            "kube-control-plane-kube-scheduler-client",
            "system:admin",
            MASTERS,
            KubeControlPlaneSigner,
            YEAR,
            CLIENT,
        ),
        leaf(
            KubeletClient,
            "kubelet-client",
            "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper",
            &[
                "system:serviceaccounts:openshift-machine-config-operator",
                "system:serviceaccounts",
            ],
            KubeletBootstrapKubeconfigSigner,
            TEN,
            CLIENT,
        ),
        Row {
            ku: None,
            dns: &[
                "api-int.dualstack.example.com",
                "192.168.111.5",
                "fd2e:6f44:5dd8:c956::5",
            ],
            ips: &["192.168.111.5", "fd2e:6f44:5dd8:c956::5"],
            ..leaf(
                MachineConfigServer,
                "machine-config-server",
                "system:machine-config-server",
                &[],
                RootCa,
                TEN,
                SERVER,
            )
        },
        leaf(
            JournalGatewayd,
            "journal-gatewayd",
            "journal-gatewayd",
            &["OpenShift Bootstrap"],
            RootCa,
            TEN,
            BOTH,
        ),
    ]
}

fn attr_values<'a>(
    iter: impl Iterator<Item = &'a x509_parser::x509::AttributeTypeAndValue<'a>>,
) -> Vec<String> {
    iter.map(|a| a.as_str().expect("string attribute").to_string())
        .collect()
}

fn check_subject(row: &Row, cert: &X509Certificate<'_>) {
    let s = cert.subject();
    assert_eq!(
        attr_values(s.iter_common_name()),
        [row.cn],
        "{} CN",
        row.file
    );
    assert_eq!(attr_values(s.iter_organization()), row.o, "{} O", row.file);
    assert_eq!(
        attr_values(s.iter_organizational_unit()),
        row.ou,
        "{} OU",
        row.file
    );
}

fn check_validity(row: &Row, cert: &X509Certificate<'_>, issuer: &X509Certificate<'_>) {
    let v = cert.validity();
    let expected_start = if row.issuer.is_some() {
        issuer.validity().not_before.to_datetime()
    } else {
        now()
    };
    assert_eq!(
        v.not_before.to_datetime(),
        expected_start,
        "{} NotBefore",
        row.file
    );
    assert_eq!(
        v.not_after.to_datetime(),
        now() + Duration::hours(row.hours),
        "{} NotAfter",
        row.file
    );
}

fn check_usages(row: &Row, cert: &X509Certificate<'_>) {
    let ku = cert.key_usage().expect("ku ext").map(|k| {
        let k = k.value;
        (
            k.digital_signature(),
            k.key_encipherment(),
            k.key_cert_sign(),
        )
    });
    assert_eq!(ku, row.ku, "{} KeyUsage", row.file);
    let eku = cert.extended_key_usage().expect("eku ext").map(|e| {
        assert!(
            e.value.other.is_empty() && !e.value.any,
            "{} extra EKU",
            row.file
        );
        (e.value.server_auth, e.value.client_auth)
    });
    assert_eq!(eku, row.eku, "{} ExtendedKeyUsage", row.file);
    let bc = cert
        .basic_constraints()
        .expect("bc")
        .expect("basic constraints present");
    assert_eq!(bc.value.ca, row.issuer.is_none(), "{} CA flag", row.file);
    assert_eq!(
        bc.value.path_len_constraint, None,
        "{} path length",
        row.file
    );
}

fn check_sans(row: &Row, cert: &X509Certificate<'_>) {
    let Some(san) = cert.subject_alternative_name().expect("san ext") else {
        assert!(
            row.dns.is_empty() && !row.service_dns && row.ips.is_empty(),
            "{} lacks SANs",
            row.file
        );
        return;
    };
    let mut dns = Vec::new();
    let mut ips = Vec::new();
    for name in &san.value.general_names {
        match name {
            GeneralName::DNSName(d) => dns.push(d.to_string()),
            GeneralName::IPAddress(bytes) => ips.push(match bytes.len() {
                4 => IpAddr::from(<[u8; 4]>::try_from(*bytes).unwrap()),
                _ => IpAddr::from(<[u8; 16]>::try_from(*bytes).unwrap()),
            }),
            other => panic!("{}: unexpected SAN {other:?}", row.file),
        }
    }
    let want_dns = if row.service_dns {
        service_names()
    } else {
        row.dns.iter().map(|d| d.to_string()).collect()
    };
    assert_eq!(dns, want_dns, "{} DNS SANs", row.file);
    let want: Vec<IpAddr> = row.ips.iter().map(|s| s.parse().unwrap()).collect();
    assert_eq!(ips, want, "{} IP SANs", row.file);
}

fn key_ids(cert: &X509Certificate<'_>) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
    let mut ski = None;
    let mut aki = None;
    for ext in cert.extensions() {
        match ext.parsed_extension() {
            ParsedExtension::SubjectKeyIdentifier(k) => ski = Some(k.0.to_vec()),
            ParsedExtension::AuthorityKeyIdentifier(a) => {
                aki = a.key_identifier.as_ref().map(|k| k.0.to_vec());
            }
            _ => {}
        }
    }
    (ski, aki)
}

#[test]
fn every_table_row_matches_the_reference() {
    let pki = pki();
    let rows = rows();
    assert_eq!(rows.len(), CertId::ALL.len());
    let mut serials = std::collections::BTreeSet::new();
    for row in &rows {
        let ck = pki.cert(row.id);
        assert_eq!(row.id.spec().name, row.file);
        let chain = ders(ck.cert_pem());
        let cert = parse(&chain[0]);
        let issuer_id = row.issuer.unwrap_or(row.id);
        let issuer_chain = ders(pki.cert(issuer_id).cert_pem());
        let issuer = parse(&issuer_chain[0]);

        check_subject(row, &cert);
        assert_eq!(cert.issuer(), issuer.subject(), "{} issuer", row.file);
        cert.verify_signature(Some(issuer.public_key()))
            .unwrap_or_else(|e| panic!("{} signature: {e}", row.file));
        check_validity(row, &cert, &issuer);
        check_usages(row, &cert);
        check_sans(row, &cert);
        assert_eq!(cert.version().0, 2, "{} is v3", row.file);

        let (ski, aki) = key_ids(&cert);
        assert_eq!(ski, Some(subject_key_id(ck.key())), "{} SKI", row.file);
        assert_eq!(
            ski.as_ref().map(Vec::len),
            Some(20),
            "{} SKI is SHA-1",
            row.file
        );
        let (issuer_ski, _) = key_ids(&issuer);
        let want_aki = row.issuer.map(|_| issuer_ski.expect("issuer SKI"));
        assert_eq!(aki, want_aki, "{} AKI", row.file);
        assert_eq!(
            cert.public_key().raw,
            ck.key().public_spki_der(),
            "{} key",
            row.file
        );

        let serial = cert.serial.clone();
        assert!(serial < (num_bigint_limit()), "{} serial range", row.file);
        assert!(serials.insert(serial), "{} serial repeats", row.file);

        check_file_layout(
            row,
            ck.cert_pem(),
            pki.cert(issuer_id).cert_pem(),
            chain.len(),
        );
    }
}

fn num_bigint_limit() -> x509_parser::num_bigint::BigUint {
    x509_parser::num_bigint::BigUint::from((1u64 << 63) - 1)
}

fn check_file_layout(row: &Row, text: &str, issuer_text: &str, certs: usize) {
    if row.append_parent {
        assert_eq!(certs, 2, "{} holds leaf + issuer", row.file);
        let leaf = pki::pem::encode("CERTIFICATE", &ders(text)[0]);
        assert_eq!(
            text,
            format!("{leaf}\n{issuer_text}"),
            "{} layout",
            row.file
        );
    } else {
        assert_eq!(certs, 1, "{} holds only its certificate", row.file);
    }
}

#[test]
fn keys_are_pkcs1_pem_and_public_keys_are_pkix_in_rsa_public_key_blocks() {
    let pki = pki();
    for id in CertId::ALL {
        let key = pki.cert(*id).key_pem();
        assert!(key.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"), "{id}");
        assert!(key.ends_with("-----END RSA PRIVATE KEY-----\n"), "{id}");
    }
    let sa = pki.service_account();
    assert!(sa.key_pem.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"));
    let blocks = pki::pem::decode_all(&sa.pub_pem, "pub").unwrap();
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].label, "RSA PUBLIC KEY");
    let (_, spki) = <x509_parser::x509::SubjectPublicKeyInfo as x509_parser::prelude::FromDer<
        x509_parser::error::X509Error,
    >>::from_der(&blocks[0].der)
    .expect("PKIX SubjectPublicKeyInfo");
    match spki.parsed().expect("rsa") {
        x509_parser::public_key::PublicKey::RSA(rsa) => assert_eq!(rsa.key_size(), 2048),
        other => panic!("not RSA: {other:?}"),
    }
}
