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

/// What the signers get on `release`, as upstream decides it: RSA-2048 on a release without
/// the ConfigurablePKI gate or with the gate off, RSA-4096 with the gate and no `pki`, else
/// what `pki` says. For a config that passed validation.
pub fn signer_key(cfg: &InstallConfig, release: &Release) -> SignerKeyChoice {
    if !release.has(Feature::ConfigurablePki) || !gate_enabled(cfg, FeatureGate::ConfigurablePki) {
        return SignerKeyChoice::Rsa(2048);
    }
    let key = cfg
        .pki
        .as_ref()
        .and_then(|p| p.signer_certificates.as_ref())
        .and_then(|s| s.key.as_ref());
    let Some(key) = key else {
        return SignerKeyChoice::Rsa(4096);
    };
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
