//! Fixture PKI for tests, shaped like an installation's: a server signer issuing the API
//! serving certificate (SANs `api.<domain>` and 127.0.0.1), a client signer issuing the admin
//! client certificate (CN `system:admin`, O `system:masters`), and a kubeconfig tying them
//! together. ECDSA P-256 keys keep generation instant.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose, SanType,
};

/// A certificate and its key, PEM.
#[derive(Clone)]
pub struct Leaf {
    /// The certificate.
    pub cert_pem: String,
    /// Its private key (PKCS#8).
    pub key_pem: String,
}

/// A self-signed CA that issues leaves.
pub struct Signer {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

fn params(cn: &str) -> CertificateParams {
    let mut p = CertificateParams::default();
    p.distinguished_name.push(DnType::CommonName, cn);
    p
}

impl Signer {
    /// A new CA with the given common name.
    pub fn new(cn: &str) -> Signer {
        let mut p = params(cn);
        p.distinguished_name
            .push(DnType::OrganizationalUnitName, "openshift");
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        p.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("generate CA key");
        Signer {
            issuer: CertifiedIssuer::self_signed(p, key).expect("self-sign CA"),
        }
    }

    /// The CA certificate, PEM.
    pub fn cert_pem(&self) -> String {
        self.issuer.pem()
    }

    fn issue(&self, p: CertificateParams) -> Leaf {
        let key = KeyPair::generate().expect("generate leaf key");
        let cert = p.signed_by(&key, &self.issuer).expect("sign leaf");
        Leaf {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        }
    }

    /// A serving certificate for the given DNS names and IPs.
    pub fn issue_server(&self, cn: &str, dns: &[&str], ips: &[IpAddr]) -> Leaf {
        self.issue(server_params(cn, dns, ips))
    }

    /// Like [`Signer::issue_server`], but valid only during the year 2000 (expired).
    pub fn issue_expired_server(&self, cn: &str, dns: &[&str], ips: &[IpAddr]) -> Leaf {
        let mut p = server_params(cn, dns, ips);
        p.not_before = rcgen::date_time_ymd(2000, 1, 1);
        p.not_after = rcgen::date_time_ymd(2001, 1, 1);
        self.issue(p)
    }

    /// Like [`Signer::issue_server`], but valid only from 2099 on (not valid yet: a clock
    /// behind the configs' creation time looks like this).
    pub fn issue_future_server(&self, cn: &str, dns: &[&str], ips: &[IpAddr]) -> Leaf {
        let mut p = server_params(cn, dns, ips);
        p.not_before = rcgen::date_time_ymd(2099, 1, 1);
        p.not_after = rcgen::date_time_ymd(2100, 1, 1);
        self.issue(p)
    }

    /// A client certificate with the given user (CN) and group (O).
    pub fn issue_client(&self, cn: &str, org: &str) -> Leaf {
        let mut p = params(cn);
        p.distinguished_name.push(DnType::OrganizationName, org);
        p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        self.issue(p)
    }
}

fn server_params(cn: &str, dns: &[&str], ips: &[IpAddr]) -> CertificateParams {
    let mut p = params(cn);
    p.subject_alt_names = dns
        .iter()
        .map(|d| SanType::DnsName((*d).try_into().expect("dns name")))
        .chain(ips.iter().map(|ip| SanType::IpAddress(*ip)))
        .collect();
    p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    p
}

/// Everything a test cluster needs.
pub struct TestPki {
    /// Cluster domain, e.g. `test.example.com`.
    pub domain: String,
    /// Signs the API serving certificate.
    pub server_ca: Signer,
    /// The API serving certificate (SANs `api.<domain>`, 127.0.0.1).
    pub serving: Leaf,
    /// Signs client certificates the server accepts.
    pub client_ca: Signer,
    /// `system:admin` / `system:masters` client certificate.
    pub admin: Leaf,
}

impl TestPki {
    /// Generate a fresh PKI for `domain`.
    pub fn generate(domain: &str) -> TestPki {
        let server_ca = Signer::new("kube-apiserver-lb-signer");
        let api = format!("api.{domain}");
        let serving = server_ca.issue_server(&api, &[&api], &["127.0.0.1".parse().expect("ip")]);
        let client_ca = Signer::new("admin-kubeconfig-signer");
        let admin = client_ca.issue_client("system:admin", "system:masters");
        TestPki {
            domain: domain.to_string(),
            server_ca,
            serving,
            client_ca,
            admin,
        }
    }

    /// `api.<domain>`.
    pub fn api_host(&self) -> String {
        format!("api.{}", self.domain)
    }

    /// A test API server with this PKI's serving certificate that accepts clients of its
    /// client signer: listening when `running`, else with only its port reserved (a test
    /// starts it later with [`super::TestApiServer::listen`]).
    pub async fn server(&self, running: bool) -> super::TestApiServer {
        let (cert, key) = (&self.serving.cert_pem, &self.serving.key_pem);
        let client_ca = self.client_ca.cert_pem();
        if running {
            super::TestApiServer::start(cert, key, &client_ca).await
        } else {
            super::TestApiServer::stopped(cert, key, &client_ca).await
        }
    }

    /// The admin kubeconfig for `server`: trusts the server signer, presents the admin client
    /// certificate, connects to 127.0.0.1 and verifies `api.<domain>` by tls-server-name.
    pub fn admin_kubeconfig(&self, server: &super::TestApiServer) -> String {
        kubeconfig_yaml(
            &server.url(),
            &self.server_ca.cert_pem(),
            &self.admin,
            Some(&self.api_host()),
        )
    }
}

/// An admin kubeconfig in the installer's shape: cluster `<name>`, user `admin`, context
/// `admin`. `tls_server_name` lets a test connect to 127.0.0.1 while verifying `api.<domain>`.
pub fn kubeconfig_yaml(
    server: &str,
    ca_pem: &str,
    client: &Leaf,
    tls_server_name: Option<&str>,
) -> String {
    let b = |s: &str| STANDARD.encode(s.as_bytes());
    let tsn = tls_server_name
        .map(|n| format!("    tls-server-name: {n}\n"))
        .unwrap_or_default();
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: {server}\n\
         {tsn}    certificate-authority-data: {}\nusers:\n- name: admin\n  user:\n    \
         client-certificate-data: {}\n    client-key-data: {}\ncontexts:\n- name: admin\n  \
         context:\n    cluster: test\n    user: admin\ncurrent-context: admin\npreferences: {{}}\n",
        b(ca_pem),
        b(&client.cert_pem),
        b(&client.key_pem)
    )
}

/// Write `<dir>/auth/kubeconfig` with mode 0600 and return its path.
pub fn write_kubeconfig(dir: &Path, yaml: &str) -> PathBuf {
    let path = dir.join(contract::ADMIN_KUBECONFIG_FILE);
    std::fs::create_dir_all(path.parent().expect("auth dir")).expect("create auth dir");
    std::fs::write(&path, yaml).expect("write kubeconfig");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            .expect("chmod kubeconfig");
    }
    path
}
