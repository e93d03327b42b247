//! The platform as a value: which platform a file selects and what follows from it.

use installconfig::{IpAddrString, Platform};

use crate::fixture;

fn load(name: &str) -> installconfig::InstallConfig {
    installconfig::load(fixture(name)).unwrap().config
}

#[test]
fn the_platform_of_each_fixture() {
    for (name, kind) in [
        ("none-sno.yaml", Platform::None),
        ("baremetal-compact.yaml", Platform::Baremetal),
        ("vsphere-ha.yaml", Platform::Vsphere),
    ] {
        let cfg = load(name);
        assert_eq!(cfg.platform_kind(), Some(kind), "{name}");
        assert_eq!(cfg.platform_name(), kind.name(), "{name}");
    }
}

#[test]
fn machines_reach_the_config_server_through_the_first_api_vip_of_a_vip_platform() {
    let cfg = load("baremetal-compact.yaml");
    assert_eq!(cfg.machine_config_vip().as_deref(), Some("192.168.50.5"));
    let cfg = load("vsphere-ha.yaml");
    assert_eq!(cfg.machine_config_vip().as_deref(), Some("10.0.10.5"));
    assert_eq!(load("none-sno.yaml").machine_config_vip(), None);
}

#[test]
fn vsphere_without_vips_uses_api_int() {
    let mut cfg = load("vsphere-ha.yaml");
    let vs = cfg.platform.vsphere.as_mut().unwrap();
    vs.api_vips.clear();
    vs.ingress_vips.clear();
    assert_eq!(cfg.machine_config_vip(), None);
    assert!(cfg.api_vips().is_empty() && cfg.ingress_vips().is_empty());
}

/// The VIPs follow the platform that is selected (the first key set), not whichever VIP
/// section happens to be present.
#[test]
fn vips_belong_to_the_selected_platform_only() {
    let mut cfg = load("none-sno.yaml");
    cfg.platform.baremetal = Some(installconfig::BaremetalPlatform {
        api_vips: vec![IpAddrString("10.0.0.5".into())],
        ..Default::default()
    });
    assert_eq!(cfg.platform_kind(), Some(Platform::None));
    assert!(cfg.api_vips().is_empty());
    assert_eq!(cfg.machine_config_vip(), None);
}
