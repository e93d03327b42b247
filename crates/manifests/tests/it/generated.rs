//! Generated manifests: golden snapshots, typed round-trips and the rules behind them.

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use manifests::inputs::{ManifestInputs, PkiKey, PkiManagement, Platform};
use manifests::objects::*;
use manifests::{Dir, Generated, generate};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::common;

fn listing(g: &Generated) -> String {
    let mut s = String::new();
    for w in &g.warnings {
        s.push_str(&format!("WARNING: {w}\n"));
    }
    for f in &g.files {
        let text = String::from_utf8_lossy(&f.data);
        s.push_str(&format!("=== {} ===\n{text}", f.rel_path()));
        s.push_str(&decoded(&text));
        s.push('\n');
    }
    s
}

/// Secret data decoded, so that snapshot diffs show what changed rather than base64.
fn decoded(text: &str) -> String {
    let Ok(secret) = serde_saphyr::from_str::<Secret>(text) else {
        return String::new();
    };
    let mut out = String::new();
    for (key, value) in secret.data.unwrap_or_default() {
        let value = String::from_utf8_lossy(&value.0);
        out.push_str(&format!("--- decoded {key} ---\n{value}\n"));
    }
    out
}

#[test]
fn golden_none_single_node() {
    insta::assert_snapshot!(listing(&generate(&common::sno()).unwrap()));
}

#[test]
fn golden_baremetal_compact_proxy_bundle_mirrors() {
    insta::assert_snapshot!(listing(&generate(&common::baremetal_compact()).unwrap()));
}

#[test]
fn golden_vsphere_ha_dual_stack() {
    insta::assert_snapshot!(listing(
        &generate(&common::vsphere_ha_dual_stack()).unwrap()
    ));
}

/// Parse as `T`, then check that re-rendering gives the same bytes: every field we wrote is
/// known to the type and nothing was lost.
fn typed<T: DeserializeOwned + Serialize>(path: &str, text: &str) -> T {
    let value: T = serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(
        manifests::yaml::to_yaml(&value).unwrap(),
        text,
        "{path} does not round-trip"
    );
    value
}

fn kind_of(text: &str) -> String {
    let v: serde_json::Value = serde_saphyr::from_str(text).unwrap();
    v["kind"].as_str().unwrap().to_string()
}

#[test]
fn every_generated_file_parses_as_its_type() {
    for inputs in [
        common::sno(),
        common::baremetal_compact(),
        common::vsphere_ha_dual_stack(),
    ] {
        for f in generate(&inputs).unwrap().files {
            let path = f.rel_path();
            let text = String::from_utf8(f.data).unwrap();
            match kind_of(&text).as_str() {
                "ConfigMap" => drop(typed::<ConfigMap>(&path, &text)),
                "Secret" => drop(typed::<Secret>(&path, &text)),
                "Infrastructure" => drop(typed::<Infrastructure>(&path, &text)),
                "DNS" => drop(typed::<Dns>(&path, &text)),
                "Ingress" => drop(typed::<Ingress>(&path, &text)),
                "Network" if text.contains(OPERATOR_V1) => {
                    drop(typed::<OperatorNetwork>(&path, &text))
                }
                "Network" => drop(typed::<Network>(&path, &text)),
                "Proxy" => drop(typed::<ProxyObject>(&path, &text)),
                "Scheduler" => drop(typed::<Scheduler>(&path, &text)),
                "ClusterVersion" => drop(typed::<ClusterVersion>(&path, &text)),
                "FeatureGate" => drop(typed::<FeatureGate>(&path, &text)),
                "ImageDigestMirrorSet" => drop(typed::<ImageDigestMirrorSet>(&path, &text)),
                "MachineConfig" => drop(typed::<MachineConfig>(&path, &text)),
                "Provisioning" => drop(typed::<Provisioning>(&path, &text)),
                "Role" => drop(typed::<k8s_openapi::api::rbac::v1::Role>(&path, &text)),
                other => panic!("{path}: unexpected kind {other}"),
            }
        }
    }
}

fn file<T: DeserializeOwned>(g: &Generated, dir: Dir, name: &str) -> T {
    let f = g
        .get(dir, name)
        .unwrap_or_else(|| panic!("{dir}/{name} not generated"));
    serde_saphyr::from_slice(&f.data).unwrap()
}

fn names(g: &Generated) -> Vec<String> {
    g.files.iter().map(|f| f.rel_path()).collect()
}

#[test]
fn files_are_sorted_and_platform_specific() {
    let sno = generate(&common::sno()).unwrap();
    let mut sorted = names(&sno);
    sorted.sort();
    assert_eq!(names(&sno), sorted);
    assert!(
        sno.get(Dir::Openshift, "99_baremetal-provisioning-config.yaml")
            .is_none()
    );
    assert!(
        sno.get(Dir::Manifests, "user-ca-bundle-config.yaml")
            .is_none()
    );
    assert!(
        sno.get(Dir::Manifests, "image-digest-mirror-set.yaml")
            .is_none()
    );

    let bm = generate(&common::baremetal_compact()).unwrap();
    let secret: Secret = file(
        &bm,
        Dir::Openshift,
        "99_openshift-cluster-api_master-user-data-secret.yaml",
    );
    assert_eq!(
        secret.metadata.name.as_deref(),
        Some("master-user-data-managed")
    );
    let data = secret.data.unwrap();
    assert_eq!(data["disableTemplating"].0, b"true");
    assert_eq!(
        data["userData"].0,
        common::sno().master_pointer_ign.as_bytes()
    );
    let prov: Provisioning = file(&bm, Dir::Openshift, "99_baremetal-provisioning-config.yaml");
    assert_eq!(prov.spec.provisioning_network, "Managed");
    assert_eq!(prov.spec.provisioning_ip.as_deref(), Some("172.22.0.3"));

    let sno_secret: Secret = file(
        &sno,
        Dir::Openshift,
        "99_openshift-cluster-api_worker-user-data-secret.yaml",
    );
    assert_eq!(
        sno_secret.metadata.name.as_deref(),
        Some("worker-user-data")
    );
}

#[test]
fn machine_configs_follow_ssh_fips_hyperthreading_and_dual_stack() {
    let mc = |g: &Generated, name: &str| {
        g.get(
            Dir::Openshift,
            &format!("99_openshift-machineconfig_{name}.yaml"),
        )
        .map(|f| serde_saphyr::from_slice::<MachineConfig>(&f.data).unwrap())
    };
    let sno = generate(&common::sno()).unwrap();
    let ssh = mc(&sno, "99-master-ssh").unwrap();
    assert_eq!(
        ssh.spec.config["passwd"]["users"][0]["sshAuthorizedKeys"][0],
        common::SSH_KEY
    );
    assert_eq!(ssh.spec.config["ignition"]["version"], "3.2.0");
    assert!(mc(&sno, "99-worker-ssh").is_some());
    assert!(mc(&sno, "99-master-fips").is_none());
    assert!(mc(&sno, "99-dual-stack-master").is_none());

    let bm = generate(&common::baremetal_compact()).unwrap();
    assert!(mc(&bm, "99-master-fips").unwrap().spec.fips);
    assert!(mc(&bm, "99-worker-fips").unwrap().spec.fips);
    let ht = mc(&bm, "99-master-disable-hyperthreading").unwrap();
    assert_eq!(ht.spec.kernel_arguments, ["nosmt", "smt-enabled=off"]);
    assert_eq!(
        ht.metadata.labels.unwrap()["machineconfiguration.openshift.io/role"],
        "master"
    );
    assert!(mc(&bm, "99-worker-disable-hyperthreading").is_none());

    let vs = generate(&common::vsphere_ha_dual_stack()).unwrap();
    assert!(mc(&vs, "99-master-ssh").is_none());
    assert_eq!(
        mc(&vs, "99-dual-stack-worker")
            .unwrap()
            .spec
            .kernel_arguments,
        ["ip=dhcp,dhcp6"]
    );
    assert!(mc(&vs, "99-dual-stack-master").is_some());
}

fn with_replicas(master: u32, workers: &[u32]) -> ManifestInputs {
    let mut i = common::sno();
    i.control_plane.replicas = master;
    i.compute = workers
        .iter()
        .enumerate()
        .map(|(n, r)| manifests::inputs::Pool {
            name: format!("pool{n}"),
            replicas: *r,
            hyperthreading_disabled: false,
        })
        .collect();
    i
}

fn topologies(i: &ManifestInputs) -> (String, String) {
    let g = generate(i).unwrap();
    let infra: Infrastructure = file(&g, Dir::Manifests, "cluster-infrastructure-02-config.yml");
    let s = infra.status.unwrap();
    (s.control_plane_topology, s.infrastructure_topology)
}

#[test]
fn topology_rules() {
    let t = |m, w: &[u32]| topologies(&with_replicas(m, w));
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(t(1, &[0]), pair("SingleReplica", "SingleReplica"));
    assert_eq!(t(1, &[1]), pair("SingleReplica", "HighlyAvailable"));
    assert_eq!(t(2, &[0]), pair("DualReplica", "HighlyAvailable"));
    assert_eq!(t(3, &[0]), pair("HighlyAvailable", "HighlyAvailable"));
    assert_eq!(t(3, &[1]), pair("HighlyAvailable", "HighlyAvailable"));
    assert_eq!(t(3, &[2]), pair("HighlyAvailable", "HighlyAvailable"));
    // Compute replicas are summed over pools.
    assert_eq!(t(1, &[1, 1]), pair("SingleReplica", "HighlyAvailable"));
    assert_eq!(t(5, &[0, 0]), pair("HighlyAvailable", "HighlyAvailable"));

    let mut arbiter = with_replicas(2, &[0]);
    arbiter.arbiter = Some(manifests::inputs::Pool {
        name: "arbiter".into(),
        replicas: 1,
        hyperthreading_disabled: false,
    });
    assert_eq!(topologies(&arbiter).0, "HighlyAvailableArbiter");
    let g = generate(&arbiter).unwrap();
    assert!(
        g.get(
            Dir::Openshift,
            "99_openshift-machineconfig_99-arbiter-ssh.yaml"
        )
        .is_some()
    );
}

#[test]
fn scheduler_rule_and_warning() {
    let sched = |i: &ManifestInputs| {
        let g = generate(i).unwrap();
        let s: Scheduler = file(&g, Dir::Manifests, "cluster-scheduler-02-config.yml");
        (
            s.spec.masters_schedulable,
            g.warnings.iter().any(|w| w.contains("mastersSchedulable")),
        )
    };
    assert_eq!(sched(&with_replicas(1, &[0])), (true, true));
    assert_eq!(sched(&with_replicas(3, &[0, 0])), (true, true));
    assert_eq!(sched(&with_replicas(3, &[0, 2])), (false, false));
    assert_eq!(sched(&with_replicas(1, &[1])), (false, false));
}

#[test]
fn ingress_placement_pins_single_node_none_to_control_plane() {
    let placement = |i: &ManifestInputs| {
        let g = generate(i).unwrap();
        let ing: Ingress = file(&g, Dir::Manifests, "cluster-ingress-02-config.yml");
        assert_eq!(ing.spec.domain, format!("apps.{}", i.cluster_domain()));
        ing.status.unwrap().default_placement
    };
    assert_eq!(placement(&with_replicas(1, &[2])), "ControlPlane");
    assert_eq!(placement(&with_replicas(3, &[0])), "Workers");
    assert_eq!(placement(&common::baremetal_compact()), "Workers");
}

#[test]
fn infrastructure_platform_status() {
    let g = generate(&common::vsphere_ha_dual_stack()).unwrap();
    let infra: Infrastructure = file(&g, Dir::Manifests, "cluster-infrastructure-02-config.yml");
    let status = infra.status.unwrap();
    assert_eq!(status.infrastructure_name, "vs-q2w5z");
    assert_eq!(
        status.api_server_internal_uri,
        "https://api-int.vs.example.com:6443"
    );
    assert_eq!(status.cpu_partitioning, "AllNodes");
    let vs = status.platform_status.vsphere.unwrap();
    assert_eq!(
        vs.api_server_internal_i_ps,
        ["192.168.111.5", "fd2e:6f44:5dd8:c956::5"]
    );
    assert_eq!(vs.api_server_internal_ip.as_deref(), Some("192.168.111.5"));
    assert_eq!(vs.load_balancer.unwrap().type_, "UserManaged");

    let mut none = common::sno();
    none.platform = Platform::None;
    let g = generate(&none).unwrap();
    let infra: Infrastructure = file(&g, Dir::Manifests, "cluster-infrastructure-02-config.yml");
    let ps = infra.status.unwrap().platform_status;
    assert_eq!(
        (
            ps.type_.as_str(),
            ps.baremetal.is_none(),
            ps.vsphere.is_none()
        ),
        ("None", true, true)
    );
}

#[test]
fn proxy_manifest_status_and_trusted_ca() {
    let proxy = |i: &ManifestInputs| {
        let g = generate(i).unwrap();
        file::<ProxyObject>(&g, Dir::Manifests, "cluster-proxy-01-config.yaml")
    };
    let none = proxy(&common::sno());
    assert_eq!(none.spec, ProxySpec::default());
    assert!(none.status.is_none());

    let bm = proxy(&common::baremetal_compact());
    assert_eq!(bm.spec.trusted_ca.unwrap().name, "user-ca-bundle");
    let status = bm.status.unwrap();
    assert_eq!(
        status.http_proxy.as_deref(),
        Some("http://proxy.example.com:3128")
    );
    assert!(status.no_proxy.unwrap().contains("api-int.ocp.example.com"));

    // A bundle without a proxy is trusted cluster-wide only with policy Always.
    let mut i = common::sno();
    i.additional_trust_bundle = Some(common::TRUST_BUNDLE.into());
    assert!(proxy(&i).spec.trusted_ca.is_none());
    i.trust_bundle_policy = manifests::inputs::TrustBundlePolicy::Always;
    assert!(proxy(&i).spec.trusted_ca.is_some());
    let g = generate(&i).unwrap();
    let cm: ConfigMap = file(&g, Dir::Manifests, "user-ca-bundle-config.yaml");
    assert_eq!(cm.data.unwrap()["ca-bundle.crt"], common::TRUST_BUNDLE);
}

#[test]
fn cvo_overrides_and_feature_gate() {
    let g = generate(&common::baremetal_compact()).unwrap();
    let cv: ClusterVersion = file(&g, Dir::Manifests, "cvo-overrides.yaml");
    assert_eq!(
        cv.metadata.namespace.as_deref(),
        Some("openshift-cluster-version")
    );
    assert_eq!(cv.spec.cluster_id, common::sno().cluster_id);
    assert_eq!(cv.spec.channel.as_deref(), Some("stable-scos-4"));
    assert_eq!(
        cv.spec
            .capabilities
            .unwrap()
            .additional_enabled_capabilities,
        ["baremetal", "MachineAPI"]
    );
    let fg: FeatureGate = file(&g, Dir::Openshift, "99_feature-gate.yaml");
    assert_eq!(fg.spec, FeatureGateSpec::default());

    let g = generate(&common::vsphere_ha_dual_stack()).unwrap();
    let fg: FeatureGate = file(&g, Dir::Openshift, "99_feature-gate.yaml");
    let custom = fg.spec.custom_no_upgrade.unwrap();
    assert_eq!(
        (custom.enabled, custom.disabled),
        (
            vec!["OnClusterBuild".to_string()],
            vec!["Example".to_string()]
        )
    );

    let mut bad = common::vsphere_ha_dual_stack();
    bad.feature_gates = vec!["Broken".into()];
    let err = generate(&bad).unwrap_err().to_string();
    assert!(err.contains("featureGates[0]"), "{err}");
}

/// The PKI resource as the operators read it: none without management, mode `Default`
/// alone, or `Custom` with the recommended profile's defaults and the chosen signer key.
#[test]
fn pki_resource_follows_the_management() {
    const NAME: &str = "cluster-pki-02-config.yaml";
    let mut inputs = common::baremetal_compact();
    assert!(
        generate(&inputs)
            .unwrap()
            .get(Dir::Manifests, NAME)
            .is_none()
    );

    inputs.pki = Some(PkiManagement::Default);
    let g = generate(&inputs).unwrap();
    let text = String::from_utf8(g.get(Dir::Manifests, NAME).unwrap().data.clone()).unwrap();
    let pki = typed::<Pki>(NAME, &text);
    assert_eq!(pki.api_version, "config.openshift.io/v1alpha1");
    assert_eq!(pki.metadata.name.as_deref(), Some("cluster"));
    assert_eq!(pki.spec.certificate_management.mode, "Default");
    assert_eq!(pki.spec.certificate_management.custom, None);

    let cases = [
        (
            PkiKey::Ecdsa {
                curve: "P384".into(),
            },
            "algorithm: ECDSA\n          ecdsa:\n            curve: P384\n",
        ),
        (
            PkiKey::Rsa { key_size: 8192 },
            "algorithm: RSA\n          rsa:\n            keySize: 8192\n",
        ),
    ];
    for (signer, key_yaml) in cases {
        inputs.pki = Some(PkiManagement::Custom { signer });
        let g = generate(&inputs).unwrap();
        let text = String::from_utf8(g.get(Dir::Manifests, NAME).unwrap().data.clone()).unwrap();
        typed::<Pki>(NAME, &text);
        let wanted = format!(
            "apiVersion: config.openshift.io/v1alpha1\nkind: PKI\nmetadata:\n  name: cluster\n\
             spec:\n  certificateManagement:\n    mode: Custom\n    custom:\n      defaults:\n\
             \x20       key:\n          algorithm: RSA\n          rsa:\n            keySize: 4096\n\
             \x20     signerCertificates:\n        key:\n          {key_yaml}"
        );
        assert_eq!(text, wanted);
    }
}

#[test]
fn mcs_secret_carries_certificate_annotations() {
    let g = generate(&common::sno()).unwrap();
    let s: Secret = file(&g, Dir::Manifests, "machine-config-server-tls-secret.yaml");
    assert_eq!(s.type_.as_deref(), Some("kubernetes.io/tls"));
    let ann = s.metadata.annotations.unwrap();
    assert_eq!(ann["auth.openshift.io/certificate-issuer"], "root-ca");
    assert_eq!(
        ann["auth.openshift.io/certificate-hostnames"],
        "192.168.111.5,api-int.ocp.example.com"
    );
    assert!(ann["auth.openshift.io/certificate-not-after"].ends_with('Z'));
    assert_eq!(
        s.metadata.labels.unwrap()["auth.openshift.io/managed-certificate-type"],
        "target"
    );
    let ca: Secret = file(&g, Dir::Manifests, "machine-config-server-ca-secret.yaml");
    assert_eq!(
        ca.data.unwrap()["tls.key"].0,
        common::sno().tls.root_ca_key_pem.as_bytes()
    );

    let mut bad = common::sno();
    bad.tls.mcs_cert_pem = "garbage".into();
    assert!(
        generate(&bad)
            .unwrap_err()
            .to_string()
            .contains("tls.mcsCertPem")
    );
}

#[test]
fn exactly_the_files_holding_a_secret_are_flagged_for_0600() {
    for inputs in [
        common::sno(),
        common::baremetal_compact(),
        common::vsphere_ha_dual_stack(),
    ] {
        let g = generate(&inputs).unwrap();
        for f in &g.files {
            let text = String::from_utf8_lossy(&f.data);
            let secret = text.lines().any(|l| l == "kind: Secret");
            assert_eq!(f.is_secret(), secret, "{}", f.rel_path());
        }
        for name in [
            "machine-config-server-tls-secret.yaml",
            "openshift-config-secret-pull-secret.yaml",
        ] {
            assert!(g.get(Dir::Manifests, name).unwrap().is_secret(), "{name}");
        }
    }
    let g = generate(&common::vsphere_ha_dual_stack()).unwrap();
    let creds = g.get(Dir::Openshift, "99_cloud-creds-secret.yaml").unwrap();
    assert!(creds.is_secret());
    let reader = g
        .get(Dir::Openshift, "99_role-cloud-creds-secret-reader.yaml")
        .unwrap();
    assert!(
        !reader.is_secret(),
        "a Role is not a Secret, whatever its name"
    );
}

#[test]
fn generation_is_deterministic() {
    let i = common::vsphere_ha_dual_stack();
    assert_eq!(generate(&i).unwrap(), generate(&i).unwrap());
}

#[test]
fn inputs_round_trip_through_json() {
    for i in [
        common::sno(),
        common::baremetal_compact(),
        common::vsphere_ha_dual_stack(),
    ] {
        let json = serde_json::to_string(&i).unwrap();
        assert_eq!(serde_json::from_str::<ManifestInputs>(&json).unwrap(), i);
    }
    let typo = serde_json::to_string(&common::sno())
        .unwrap()
        .replacen("\"fips\"", "\"fisp\"", 1);
    assert!(serde_json::from_str::<ManifestInputs>(&typo).is_err());
}
