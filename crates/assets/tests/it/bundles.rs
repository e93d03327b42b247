//! CA bundle membership and order (§4).

use pki::{BundleId, CertId};

use crate::common::{ders, pki};

fn signer_der(id: CertId) -> Vec<u8> {
    ders(pki().cert(id).cert_pem()).remove(0)
}

#[test]
fn every_bundle_holds_the_reference_signers_in_order() {
    use BundleId as B;
    use CertId as C;
    let table: &[(BundleId, &str, &[CertId])] = &[
        (
            B::AdminKubeconfigCa,
            "admin-kubeconfig-ca-bundle",
            &[C::AdminKubeconfigSigner],
        ),
        (
            B::AggregatorCa,
            "aggregator-ca-bundle",
            &[C::AggregatorSigner],
        ),
        (
            B::KubeApiserverToKubeletCa,
            "kube-apiserver-to-kubelet-ca-bundle",
            &[C::KubeApiserverToKubeletSigner],
        ),
        (
            B::KubeApiserverLocalhostCa,
            "kube-apiserver-localhost-ca-bundle",
            &[C::KubeApiserverLocalhostSigner],
        ),
        (
            B::KubeApiserverServiceNetworkCa,
            "kube-apiserver-service-network-ca-bundle",
            &[C::KubeApiserverServiceNetworkSigner],
        ),
        (
            B::KubeApiserverLbCa,
            "kube-apiserver-lb-ca-bundle",
            &[C::KubeApiserverLbSigner],
        ),
        (
            B::KubeApiserverCompleteServerCa,
            "kube-apiserver-complete-server-ca-bundle",
            &[
                C::KubeApiserverLocalhostSigner,
                C::KubeApiserverServiceNetworkSigner,
                C::KubeApiserverLbSigner,
            ],
        ),
        (
            B::KubeControlPlaneCa,
            "kube-control-plane-ca-bundle",
            &[
                C::KubeControlPlaneSigner,
                C::KubeApiserverLbSigner,
                C::KubeApiserverLocalhostSigner,
                C::KubeApiserverServiceNetworkSigner,
            ],
        ),
        (
            B::KubeletClientCa,
            "kubelet-client-ca-bundle",
            &[C::KubeletSigner],
        ),
        (
            B::KubeletServingCa,
            "kubelet-serving-ca-bundle",
            &[C::KubeletSigner],
        ),
        (
            B::KubeletBootstrapKubeconfigCa,
            "kubelet-bootstrap-kubeconfig-ca-bundle",
            &[C::KubeletBootstrapKubeconfigSigner],
        ),
        (
            B::KubeApiserverCompleteClientCa,
            "kube-apiserver-complete-client-ca-bundle",
            &[
                C::AdminKubeconfigSigner,
                C::KubeletSigner,
                C::KubeControlPlaneSigner,
                C::KubeApiserverToKubeletSigner,
                C::KubeletBootstrapKubeconfigSigner,
            ],
        ),
    ];
    assert_eq!(table.len(), BundleId::ALL.len());
    for (id, name, members) in table {
        assert_eq!(id.name(), *name);
        assert_eq!(id.path(), format!("tls/{name}.crt"));
        let got = ders(pki().bundle(*id));
        let want: Vec<Vec<u8>> = members.iter().map(|c| signer_der(*c)).collect();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn bundle_of_chained_files_takes_only_leaves() {
    let lb = pki().cert(CertId::KubeApiserverLbServer).cert_pem();
    let sn = pki()
        .cert(CertId::KubeApiserverServiceNetworkServer)
        .cert_pem();
    let out = pki::bundle_pem(&[lb, sn], "tls/test.crt").expect("bundle");
    assert_eq!(ders(&out), vec![ders(lb).remove(0), ders(sn).remove(0)]);
}

#[test]
fn tls_tree_covers_every_certificate_bundle_and_the_service_account_key() {
    let files = pki().tls_files();
    let count = |suffix: &str| {
        files
            .iter()
            .filter(|f| f.file.path().ends_with(suffix))
            .count()
    };
    assert_eq!(count(".key"), CertId::ALL.len() + 1);
    assert_eq!(count(".crt"), CertId::ALL.len() + BundleId::ALL.len());
    assert_eq!(count(".pub"), 1);
    assert!(
        files
            .iter()
            .all(|f| f.file.is_private() == f.file.path().ends_with(".key"))
    );
    let sa = pki().service_account();
    let file = |path: &str| {
        files
            .iter()
            .find(|f| f.file.path() == path)
            .map(|f| f.content.as_str())
    };
    assert_eq!(file("tls/service-account.key"), Some(sa.key_pem.as_str()));
    assert_eq!(file("tls/service-account.pub"), Some(sa.pub_pem.as_str()));
    for id in BundleId::ALL {
        assert_eq!(file(id.path()), Some(pki().bundle(*id)), "{id}");
    }
    for id in CertId::ALL {
        assert_eq!(
            file(id.cert_path()),
            Some(pki().cert(*id).cert_pem()),
            "{id}"
        );
        assert_eq!(file(id.key_path()), Some(pki().cert(*id).key_pem()), "{id}");
    }
}

#[test]
fn the_bootstrap_ssh_key_stays_out_of_the_tls_tree() {
    // gather logs in with it; it reaches the node as an authorized key, not as a tls/ file.
    assert!(
        pki()
            .tls_files()
            .iter()
            .all(|f| !f.file.path().contains("bootstrap-ssh"))
    );
    let ssh = pki().bootstrap_ssh();
    assert!(ssh.public_key.starts_with("ssh-rsa AAAA"));
    assert!(ssh.public_key.ends_with('\n'));
    assert!(ssh.key_pem.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"));
}
