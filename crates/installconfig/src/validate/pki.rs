//! `pki.signerCertificates.key`: the key of the signer (CA) certificates, as upstream 5.0
//! reads it. The release and feature-gate rules are in `release.rs` and `features.rs`; the
//! key the signers get follows from [`signer_key`].

use releases::{Feature, Release};

use super::Validation;
use super::features::{FeatureGate, gate_enabled};
use crate::errors::FieldError;
use crate::types::{InstallConfig, SignerKey};

/// The algorithms a signer key may have.
pub(crate) const ALGORITHMS: [&str; 2] = ["RSA", "ECDSA"];
/// The curves an ECDSA signer key may be on.
pub(crate) const CURVES: [&str; 3] = ["P256", "P384", "P521"];
/// RSA signer key sizes: multiples of 1024 in this range.
pub(crate) const RSA_BITS: std::ops::RangeInclusive<u32> = 2048..=8192;

/// The key the signer certificates get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignerKeyChoice {
    /// RSA of this size.
    Rsa(u32),
    /// ECDSA on this curve (one of [`CURVES`]).
    Ecdsa(&'static str),
}

/// How the cluster's PKI resource manages certificates, as upstream 5.0 writes it into
/// `cluster-pki-02-config.yaml`: only where the ConfigurablePKI gate is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PkiManagement {
    /// The gate is on and install-config has no `pki`: the release's recommended profile.
    Default,
    /// The gate is on and install-config chooses the signers' key.
    Custom(SignerKeyChoice),
}

/// The signers' key of upstream's recommended profile, where the gate is on and `pki` is
/// absent (upstream keeps RSA-4096 until every operator rotates ECDSA certificates).
pub const DEFAULT_PROFILE_SIGNER: SignerKeyChoice = SignerKeyChoice::Rsa(4096);

/// The PKI resource's management on `release`: none on a release without the ConfigurablePKI
/// gate or with the gate off, else `Default` or, with `pki`, `Custom`. For a config that
/// passed validation.
pub fn pki_management(cfg: &InstallConfig, release: &Release) -> Option<PkiManagement> {
    if !release.has(Feature::ConfigurablePki) || !gate_enabled(cfg, FeatureGate::ConfigurablePki) {
        return None;
    }
    let key = cfg
        .pki
        .as_ref()
        .and_then(|p| p.signer_certificates.as_ref())
        .and_then(|s| s.key.as_ref());
    Some(key.map_or(PkiManagement::Default, |k| PkiManagement::Custom(chosen(k))))
}

/// What the signers get on `release`, as upstream decides it: RSA-2048 without the PKI
/// resource, the recommended profile's signer in `Default` mode, else what `pki` says.
pub fn signer_key(cfg: &InstallConfig, release: &Release) -> SignerKeyChoice {
    match pki_management(cfg, release) {
        None => SignerKeyChoice::Rsa(2048),
        Some(PkiManagement::Default) => DEFAULT_PROFILE_SIGNER,
        Some(PkiManagement::Custom(choice)) => choice,
    }
}

/// The key a validated `signerCertificates.key` asks for.
fn chosen(key: &SignerKey) -> SignerKeyChoice {
    match key.algorithm.as_deref() {
        Some("ECDSA") => {
            let curve = key.ecdsa.as_ref().and_then(|e| e.curve.as_deref());
            let curve = CURVES.iter().find(|c| Some(**c) == curve);
            SignerKeyChoice::Ecdsa(curve.copied().unwrap_or(CURVES[0]))
        }
        _ => SignerKeyChoice::Rsa(
            key.rsa
                .as_ref()
                .and_then(|r| r.key_size)
                .unwrap_or(*RSA_BITS.start()),
        ),
    }
}

/// The shape of `pki`: an algorithm, the settings of that algorithm and no other's, a
/// supported size or curve.
pub(crate) fn pki(cfg: &InstallConfig, v: &mut Validation) {
    let Some(pki) = &cfg.pki else {
        return;
    };
    let base = "pki.signerCertificates.key";
    let key = pki
        .signer_certificates
        .as_ref()
        .and_then(|s| s.key.as_ref());
    let empty = SignerKey {
        algorithm: None,
        rsa: None,
        ecdsa: None,
    };
    let key = key.unwrap_or(&empty);
    let algorithm = key.algorithm.as_deref().unwrap_or_default();
    let (own, other) = match algorithm {
        "" => {
            v.err(FieldError::required(
                format!("{base}.algorithm"),
                "name the signers' key algorithm: RSA or ECDSA",
            ));
            return;
        }
        "RSA" => ("rsa", "ecdsa"),
        "ECDSA" => ("ecdsa", "rsa"),
        other => {
            v.err(FieldError::not_supported(
                format!("{base}.algorithm"),
                other,
                &ALGORITHMS,
            ));
            return;
        }
    };
    let (has_own, has_other) = match own {
        "rsa" => (key.rsa.is_some(), key.ecdsa.is_some()),
        _ => (key.ecdsa.is_some(), key.rsa.is_some()),
    };
    if !has_own {
        v.err(FieldError::required(
            format!("{base}.{own}"),
            format!("algorithm {algorithm} needs its settings in {own}"),
        ));
    }
    if has_other {
        v.err(FieldError::forbidden(
            format!("{base}.{other}"),
            format!("{other} settings do not go with algorithm {algorithm}; remove them"),
        ));
    }
    if let Some(rsa) = &key.rsa
        && own == "rsa"
    {
        let size = rsa.key_size.unwrap_or(0);
        if !RSA_BITS.contains(&size) || size % 1024 != 0 {
            v.err(FieldError::invalid(
                format!("{base}.rsa.keySize"),
                size,
                "use a multiple of 1024 from 2048 to 8192",
            ));
        }
    }
    if let Some(ecdsa) = &key.ecdsa
        && own == "ecdsa"
    {
        let curve = ecdsa.curve.as_deref().unwrap_or_default();
        if !CURVES.contains(&curve) {
            v.err(FieldError::not_supported(
                format!("{base}.ecdsa.curve"),
                curve,
                &CURVES,
            ));
        }
    }
}
