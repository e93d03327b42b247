//! Certificate checks against the pki table: chain, key, subject, SANs, usages, bundles and
//! expiry.

use pki::{BundleId, CertId, CertSpec, ClusterParams, ExtKeyUsage, KeyUsage, San};
use time::format_description::well_known::Rfc3339;
use time::{Duration, OffsetDateTime};
use x509_parser::prelude::X509Certificate;

use crate::Options;
use crate::material::{CertSet, Material, Origin};
use crate::report::{Report, Status};
use crate::x509;

/// Runs every certificate and bundle check on `set`.
pub(crate) fn check_all(
    set: &CertSet,
    params: Option<&ClusterParams>,
    opts: &Options,
    report: &mut Report,
) {
    for &id in CertId::ALL {
        let file = set.name(id.cert_path());
        if !set.certs.contains_key(&id) {
            report.error(
                "cert.present",
                &file,
                format!(
                    "missing from {}; run `okd-install create ignition-configs` again to \
                     generate it",
                    set.origin_text()
                ),
            );
            continue;
        }
        check_cert(set, id, params, report);
        check_expiry(set, id, opts, report);
    }
    for &id in BundleId::ALL {
        check_bundle(set, id, report);
    }
}

/// Problems of one certificate, collected so that one line can name them all.
#[derive(Default)]
struct Findings {
    errors: Vec<String>,
    warnings: Vec<String>,
}

impl Findings {
    fn into_check(self, ok: String) -> (Status, String) {
        if !self.errors.is_empty() {
            let mut all = self.errors;
            all.extend(self.warnings);
            (Status::Error, all.join("; "))
        } else if !self.warnings.is_empty() {
            (Status::Warning, self.warnings.join("; "))
        } else {
            (Status::Ok, ok)
        }
    }
}

fn check_cert(set: &CertSet, id: CertId, params: Option<&ClusterParams>, report: &mut Report) {
    let file = set.name(id.cert_path());
    let spec = id.spec();
    let ders = match set.ders(id) {
        Some(d) => d,
        None => {
            let text = &set.certs[&id].cert_pem;
            let msg = x509::ders(text, &file).err().unwrap_or_default();
            return report.error("cert.chain", &file, format!("{msg}; regenerate the file"));
        }
    };
    let leaf = match x509::parse(&ders[0], &file) {
        Ok(c) => c,
        Err(e) => return report.error("cert.chain", &file, e),
    };
    let mut f = Findings::default();
    let user = set.certs[&id].user_supplied;
    let signer = check_issuer(set, &spec, &leaf, &ders, user, &mut f);
    check_key(set, id, &mut f);
    check_subject(&spec, &leaf, set.certs[&id].user_supplied, &mut f);
    check_usage(&spec, &leaf, &mut f);
    let sans = match params {
        Some(p) => check_sans(&spec, &leaf, p, &mut f),
        None => String::new(),
    };
    let ok = format!("{signer}, key matches, subject and usages as expected{sans}");
    let (status, message) = f.into_check(ok);
    report.add("cert.chain", &file, status, message);
}

/// Verifies the issuer; returns a short "signed by X" text for the ok message.
fn check_issuer(
    set: &CertSet,
    spec: &CertSpec,
    leaf: &X509Certificate,
    ders: &[Vec<u8>],
    user_supplied: bool,
    f: &mut Findings,
) -> String {
    let Some(issuer) = spec.issuer else {
        return check_self_signed(leaf, user_supplied, f);
    };
    let Some(signer_der) = set.leaf(issuer) else {
        f.errors.push(format!(
            "its signer {issuer} is missing from {}, so nothing can verify it",
            set.origin_text()
        ));
        return format!("signer {issuer} missing");
    };
    let signer = match x509::parse(&signer_der, &set.name(issuer.cert_path())) {
        Ok(s) => s,
        Err(e) => {
            f.errors.push(e);
            return format!("signer {issuer} unreadable");
        }
    };
    if let Err(e) = x509::signed_by(leaf, &signer) {
        f.errors.push(format!(
            "not issued by {}: {e}; the two files come from different runs, regenerate \
             both (or restore the matching pair)",
            set.name(issuer.cert_path())
        ));
    }
    if spec.append_parent && ders.get(1) != Some(&signer_der) {
        f.errors.push(format!(
            "the file must carry the leaf followed by the {issuer} certificate, but {}",
            if ders.len() < 2 {
                "holds only the leaf".to_string()
            } else {
                format!(
                    "its second certificate is {}",
                    x509::describe_all(&ders[1..2])
                )
            }
        ));
    }
    format!("signed by {issuer}")
}

/// Generated signers are self-signed; a user may supply an intermediate CA instead, which
/// is worth a note but works as long as the nodes trust its root.
fn check_self_signed(cert: &X509Certificate, user_supplied: bool, f: &mut Findings) -> String {
    match x509::signed_by(cert, cert) {
        Ok(()) => "self-signed".into(),
        Err(_) if user_supplied => {
            f.warnings.push(format!(
                "this user-supplied signer is issued by \"{}\", not self-signed; make sure \
                 every node trusts that issuer",
                cert.issuer()
            ));
            "user-supplied intermediate".into()
        }
        Err(e) => {
            f.errors.push(format!(
                "a signer must be self-signed, but {e}; regenerate it"
            ));
            "not self-signed".into()
        }
    }
}

fn check_key(set: &CertSet, id: CertId, f: &mut Findings) {
    let pair = &set.certs[&id];
    let key_file = set.name(id.key_path());
    match &pair.key_pem {
        Some(key) => {
            if let Err(e) = pki::check_pair(&pair.cert_pem, key, &key_file) {
                f.errors.push(format!(
                    "{e}: {key_file} does not belong to this certificate; put the matching \
                     key back or regenerate both"
                ));
            }
        }
        None if id.key_stays_off_bootstrap_host() && matches!(set.origin, Origin::Bootstrap(_)) => {
        }
        None => f.errors.push(format!("{key_file} is missing")),
    }
}

fn names<'a>(
    it: impl Iterator<Item = &'a x509_parser::x509::AttributeTypeAndValue<'a>>,
) -> Vec<String> {
    it.filter_map(|a| a.as_str().ok().map(str::to_string))
        .collect()
}

fn check_subject(spec: &CertSpec, leaf: &X509Certificate, user: bool, f: &mut Findings) {
    let subject = leaf.subject();
    let cn = names(subject.iter_common_name());
    let o = names(subject.iter_organization());
    let ou = names(subject.iter_organizational_unit());
    let want_o: Vec<String> = spec.subject.o.iter().map(|s| s.to_string()).collect();
    let want_ou: Vec<String> = spec.subject.ou.iter().map(|s| s.to_string()).collect();
    if cn != [spec.subject.cn] || o != want_o || ou != want_ou {
        let msg = format!(
            "subject is \"{subject}\" but the cluster expects CN={} O={:?} OU={:?}",
            spec.subject.cn, spec.subject.o, spec.subject.ou
        );
        if user {
            f.warnings.push(msg)
        } else {
            f.errors.push(msg)
        }
    }
}

fn check_usage(spec: &CertSpec, leaf: &X509Certificate, f: &mut Findings) {
    if leaf.is_ca() != spec.is_signer() {
        f.errors.push(format!(
            "CA flag is {} but a {} must have CA:{}",
            leaf.is_ca(),
            if spec.is_signer() { "signer" } else { "leaf" },
            if spec.is_signer() { "TRUE" } else { "FALSE" }
        ));
    }
    let ku = leaf.key_usage().ok().flatten().map(|k| *k.value);
    // An ECDSA key cannot encipher keys, so an ECDSA signer rightly leaves that bit out.
    let can_encipher = leaf.public_key().algorithm.algorithm
        != x509_parser::oid_registry::OID_KEY_TYPE_EC_PUBLIC_KEY;
    let ku_ok = match (spec.key_usage, ku) {
        (KeyUsage::None, None) => true,
        (KeyUsage::Signer, Some(k)) => {
            k.key_cert_sign() && k.digital_signature() && k.key_encipherment() == can_encipher
        }
        (KeyUsage::DigitalSignatureKeyEncipherment, Some(k)) => {
            k.digital_signature() && k.key_encipherment() && !k.key_cert_sign()
        }
        _ => false,
    };
    if !ku_ok {
        f.errors.push(format!(
            "key usage is {} but the table wants {:?}",
            ku.map_or("absent".to_string(), |k| k.to_string()),
            spec.key_usage
        ));
    }
    let eku = leaf
        .extended_key_usage()
        .ok()
        .flatten()
        .map(|e| (e.value.server_auth, e.value.client_auth));
    let want = match spec.ext_key_usage {
        ExtKeyUsage::None => None,
        ExtKeyUsage::Server => Some((true, false)),
        ExtKeyUsage::Client => Some((false, true)),
        ExtKeyUsage::ServerAndClient => Some((true, true)),
    };
    if eku != want {
        f.errors.push(format!(
            "extended key usage (serverAuth, clientAuth) is {eku:?} but must be {want:?}"
        ));
    }
}

/// Compares SANs with the rule; returns a suffix for the ok message.
fn check_sans(
    spec: &CertSpec,
    leaf: &X509Certificate,
    params: &ClusterParams,
    f: &mut Findings,
) -> String {
    let want = params.sans(spec.sans);
    let have = x509::sans(leaf);
    let missing: Vec<&San> = want.iter().filter(|s| !have.contains(s)).collect();
    let extra: Vec<&San> = have.iter().filter(|s| !want.contains(s)).collect();
    if !missing.is_empty() {
        let list: Vec<String> = missing.iter().map(|s| x509::san_one(s)).collect();
        f.errors.push(format!(
            "SAN {} missing (has {}): the certificate was made for another cluster domain, \
             VIP or service network than install-config.yaml says ({}); regenerate it",
            list.join(", "),
            x509::san_text(&have),
            params.cluster_domain()
        ));
    }
    if !extra.is_empty() {
        let list: Vec<String> = extra.iter().map(|s| x509::san_one(s)).collect();
        f.warnings.push(format!(
            "extra SAN {} that install-config.yaml does not ask for",
            list.join(", ")
        ));
    }
    if want.is_empty() {
        String::new()
    } else {
        format!(", SANs {}", x509::san_text(&want))
    }
}

/// Expiry of the earliest-expiring certificate in the file.
fn check_expiry(set: &CertSet, id: CertId, opts: &Options, report: &mut Report) {
    let file = set.name(id.cert_path());
    let Some(ders) = set.ders(id) else {
        return;
    };
    let mut earliest: Option<(OffsetDateTime, Duration, String)> = None;
    for der in &ders {
        let Ok(c) = x509::parse(der, &file) else {
            continue;
        };
        let (nb, na) = (
            c.validity().not_before.to_datetime(),
            c.validity().not_after.to_datetime(),
        );
        if earliest.as_ref().is_none_or(|(e, _, _)| na < *e) {
            earliest = Some((na, na - nb, c.subject().to_string()));
        }
        if nb > opts.now {
            report.error(
                "cert.expiry",
                &file,
                format!(
                    "not valid before {} ({} from now); check this machine's clock and the \
                     one that generated it",
                    rfc3339(nb),
                    pki::human(nb - opts.now)
                ),
            );
        }
    }
    let Some((not_after, lifetime, subject)) = earliest else {
        return;
    };
    let (status, message) = expiry_verdict(not_after, lifetime, &subject, opts);
    report.add("cert.expiry", &file, status, message);
}

/// The warning threshold is the configured window, but never more than half the lifetime:
/// a freshly generated 24-hour certificate is fine with a 24-hour window.
pub(crate) fn expiry_verdict(
    not_after: OffsetDateTime,
    lifetime: Duration,
    subject: &str,
    opts: &Options,
) -> (Status, String) {
    let at = rfc3339(not_after);
    let left = not_after - opts.now;
    let threshold = opts.expiry_warning.min(lifetime / 2);
    if left <= Duration::ZERO {
        (
            Status::Error,
            format!(
                "\"{subject}\" expired at {at} ({} ago); run `okd-install create \
                 ignition-configs` again to renew the certificates, then redeploy the configs",
                pki::human(-left)
            ),
        )
    } else if left <= threshold {
        (
            Status::Warning,
            format!(
                "\"{subject}\" expires at {at}, in {}; finish the bootstrap before then or \
                 regenerate",
                pki::human(left)
            ),
        )
    } else {
        (
            Status::Ok,
            format!("expires at {at}, in {}", pki::human(left)),
        )
    }
}

fn rfc3339(t: OffsetDateTime) -> String {
    t.format(&Rfc3339).unwrap_or_else(|_| t.to_string())
}

/// The signers missing from a bundle (by name) and the certificates it holds that no
/// signer of this directory accounts for.
fn bundle_diff(set: &CertSet, id: BundleId, have: &[Vec<u8>]) -> (Vec<String>, Vec<Vec<u8>>) {
    let mut missing = Vec::new();
    let mut wanted = Vec::new();
    for signer in id.signers() {
        match set.leaf(signer) {
            Some(der) if have.contains(&der) => wanted.push(der),
            Some(der) => {
                missing.push(signer.to_string());
                wanted.push(der);
            }
            None => missing.push(format!("{signer} (itself missing)")),
        }
    }
    let extra = have
        .iter()
        .filter(|d| !wanted.contains(d))
        .cloned()
        .collect();
    (missing, extra)
}

fn check_bundle(set: &CertSet, id: BundleId, report: &mut Report) {
    let file = set.name(id.path());
    let Some(have) = set.bundle_ders(id) else {
        let why = if set.bundles.contains_key(&id) {
            "unreadable"
        } else {
            "missing"
        };
        return report.error(
            "cert.bundle",
            &file,
            format!("{why}; run `okd-install create ignition-configs` again"),
        );
    };
    let (missing, extra) = bundle_diff(set, id, &have);
    if !missing.is_empty() {
        report.error(
            "cert.bundle",
            &file,
            format!(
                "lacks the signer certificate of {}; it holds {}. Clients using it will \
                 reject certificates those signers issued: regenerate the bundle",
                missing.join(", "),
                x509::describe_all(&have)
            ),
        );
    } else if !extra.is_empty() {
        report.warn(
            "cert.bundle",
            &file,
            format!(
                "holds certificates not from this directory's signers: {}",
                x509::describe_all(&extra)
            ),
        );
    } else {
        let names: Vec<String> = id.signers().iter().map(ToString::to_string).collect();
        report.ok(
            "cert.bundle",
            &file,
            format!("complete: {}", names.join(", ")),
        );
    }
}

/// install-config's additionalTrustBundle: every certificate valid now. `create` only warns
/// (the bundle may be renewed before the machines boot); here it is an error, since the
/// machines would distrust whatever an expired CA signed (the mirror, the proxy).
pub(crate) fn check_trust_bundle(m: &Material, opts: &Options, report: &mut Report) {
    let Some(bundle) = m
        .install_config
        .as_ref()
        .and_then(|ic| ic.additional_trust_bundle.as_deref())
    else {
        return;
    };
    let subject = "install-config.yaml:additionalTrustBundle";
    let problems =
        installconfig::validate::trust_bundle_validity(bundle, opts.now.unix_timestamp());
    if problems.is_empty() {
        return report.ok(
            "config.trust-bundle",
            subject,
            "every certificate is valid now",
        );
    }
    for p in problems {
        report.error("config.trust-bundle", subject, p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_bundles_take_the_first_signer() {
        assert_eq!(
            BundleId::KubeApiserverCompleteClientCa.signers(),
            vec![
                CertId::AdminKubeconfigSigner,
                CertId::KubeletSigner,
                CertId::KubeControlPlaneSigner,
                CertId::KubeApiserverToKubeletSigner,
                CertId::KubeletBootstrapKubeconfigSigner,
            ]
        );
    }

    #[test]
    fn short_lived_certificates_warn_after_half_their_life() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let opts = Options::at(now);
        let day = Duration::hours(24);
        let fresh = expiry_verdict(now + Duration::hours(23), day, "x", &opts);
        assert_eq!(fresh.0, Status::Ok, "{}", fresh.1);
        let old = expiry_verdict(now + Duration::hours(11), day, "x", &opts);
        assert_eq!(old.0, Status::Warning, "{}", old.1);
        assert!(old.1.contains("in 11h"), "{}", old.1);
        let long = expiry_verdict(now + Duration::hours(20), Duration::days(3650), "x", &opts);
        assert_eq!(long.0, Status::Warning);
        let gone = expiry_verdict(now - Duration::hours(1), day, "x", &opts);
        assert_eq!(gone.0, Status::Error);
        assert!(
            gone.1.contains("expired at 1969-12-31T23:00:00Z (1h ago)"),
            "{}",
            gone.1
        );
    }
}
