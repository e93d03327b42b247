//! Rules that depend on the OKD release being installed: fields a release introduced are
//! refused on earlier releases, naming the release that has them, so a config written for
//! 5.0 does not silently lose a setting on 4.20.

use releases::{Feature, Release};

use super::hosts::{MAC_HINT, is_mac};
use crate::errors::FieldError;
use crate::types::{InstallConfig, SourcePolicy};

/// The first release with `feature`, for messages ("OKD 4.21 and later").
fn since(feature: Feature) -> String {
    releases::table()
        .first_with(feature)
        .map(|r| format!("OKD {} and later", r.version))
        .unwrap_or_else(|| "no supported release".into())
}

/// Every problem of `cfg` for `release`.
pub fn validate_for_release(cfg: &InstallConfig, release: &Release) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let refused = |path: String, feature: Feature| {
        FieldError::forbidden(
            path,
            format!(
                "this field is for {}, but the release image is OKD {}; remove it or install a newer release",
                since(feature),
                release.version
            ),
        )
    };
    os_image_stream_rules(cfg, release, &mut errors);
    for (i, s) in cfg.image_digest_sources.iter().enumerate() {
        let Some(policy) = s.source_policy else {
            continue;
        };
        let path = format!("imageDigestSources[{i}].sourcePolicy");
        if !release.has(Feature::RegistrySourcePolicy) {
            errors.push(refused(path, Feature::RegistrySourcePolicy));
        } else if s.mirrors.is_empty() && policy == SourcePolicy::NeverContactSource {
            errors.push(FieldError::invalid(
                path,
                "NeverContactSource",
                "a source that is never contacted needs at least one mirror in mirrors",
            ));
        }
    }
    for (path, feature) in platform_fields(cfg) {
        if !release.has(feature) {
            errors.push(refused(path, feature));
        }
    }
    fencing_rules(cfg, release, &refused, &mut errors);
    if cfg.pki.is_some() && !release.has(Feature::ConfigurablePki) {
        errors.push(refused("pki".to_string(), Feature::ConfigurablePki));
    }
    errors
}

/// The platform fields of `cfg` that a release introduced, with the feature naming it.
fn platform_fields(cfg: &InstallConfig) -> Vec<(String, Feature)> {
    let mut used = Vec::new();
    if let Some(bm) = &cfg.platform.baremetal {
        let base = "platform.baremetal";
        if bm.bmc_verify_ca.is_some() {
            used.push((format!("{base}.bmcVerifyCA"), Feature::BmcVerifyCa));
        }
        if bm.provisioning_network_gateway.is_some() {
            let path = format!("{base}.provisioningNetworkGateway");
            used.push((path, Feature::ProvisioningNetworkGateway));
        }
    }
    if let Some(p) = cfg.platform.vip_platform()
        && p.dns_records_type().is_some()
    {
        let path = format!("platform.{}.dnsRecordsType", p.key());
        used.push((path, Feature::DnsRecordsType));
    }
    used
}

/// The fencing credential fields of later releases: `certificateVerification` (4.20) and
/// `macAddress` (5.0), which also makes `hostName` optional.
fn fencing_rules(
    cfg: &InstallConfig,
    release: &Release,
    refused: &dyn Fn(String, Feature) -> FieldError,
    errors: &mut Vec<FieldError>,
) {
    let credentials = cfg
        .control_plane()
        .and_then(|cp| cp.fencing.as_ref())
        .map(|f| f.credentials.as_slice())
        .unwrap_or_default();
    for (i, c) in credentials.iter().enumerate() {
        let path = format!("controlPlane.fencing.credentials[{i}]");
        let verify = Feature::FencingCertificateVerification;
        if c.certificate_verification.is_some() && !release.has(verify) {
            errors.push(refused(format!("{path}.certificateVerification"), verify));
        }
        match &c.mac_address {
            Some(_) if !release.has(Feature::FencingMacAddress) => {
                errors.push(refused(
                    format!("{path}.macAddress"),
                    Feature::FencingMacAddress,
                ));
            }
            Some(mac) if !is_mac(mac) => {
                errors.push(FieldError::invalid(
                    format!("{path}.macAddress"),
                    mac,
                    MAC_HINT,
                ));
            }
            None if release.has(Feature::FencingMacAddress) && c.host_name.trim().is_empty() => {
                errors.push(FieldError::required(
                    format!("{path}.hostName"),
                    "name the host by hostName or macAddress",
                ));
            }
            _ => {}
        }
    }
}

fn os_image_stream_rules(cfg: &InstallConfig, release: &Release, errors: &mut Vec<FieldError>) {
    let Some(value) = cfg.os_image_stream.as_deref() else {
        return;
    };
    match &release.os_image_stream {
        None => {
            let first = releases::table()
                .first_with_os_image_stream()
                .map(|r| format!("OKD {} and later", r.version))
                .unwrap_or_else(|| "no supported release".into());
            errors.push(FieldError::forbidden(
                "osImageStream",
                format!(
                    "OS image streams are for {first}; OKD {} has a single node OS ({}), so remove \
                     the field",
                    release.version, release.node_os
                ),
            ));
        }
        Some(streams) if !streams.values.iter().any(|v| v == value) => {
            let values: Vec<&str> = streams.values.iter().map(String::as_str).collect();
            errors.push(FieldError::not_supported("osImageStream", value, &values));
        }
        Some(_) => {}
    }
}

/// The OS image stream the nodes boot on `release`: install-config's (validated by
/// [`validate_for_release`]) or the release's default; empty where the release has no streams.
pub fn os_image_stream(cfg: &InstallConfig, release: &Release) -> String {
    match (&release.os_image_stream, &cfg.os_image_stream) {
        (None, _) => String::new(),
        (Some(_), Some(chosen)) => chosen.clone(),
        (Some(streams), None) => streams.default.clone(),
    }
}
