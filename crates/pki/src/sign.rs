//! Signing: self-signed signers and issuer-signed leaves, following the installer's rules
//! (SHA-1 SKI over PKCS#1, AKI from the issuer, leaf NotBefore = issuer NotBefore, ...).

use rand::Rng;
use rcgen::string::{Ia5String, PrintableString};
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, DnValue,
    ExtendedKeyUsagePurpose as Eku, IsCa, Issuer, KeyIdMethod, KeyUsagePurpose as Ku, SanType,
    SerialNumber,
};
use time::OffsetDateTime;
use x509_parser::prelude::{FromDer as _, X509Certificate, X509Name};

use crate::error::{Error, Result};
use crate::key::KeyPem;
use crate::params::{ClusterParams, San};
use crate::pem;
use crate::spec::{CertId, CertSpec, ExtKeyUsage, KeyUsage, Subject, ValidityScale};

/// Serials are drawn from `[0, SERIAL_LIMIT)`, i.e. below 2^63 − 1, as the installer does.
pub const SERIAL_LIMIT: u64 = (1 << 63) - 1;

/// A certificate file's content together with its private key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertKey {
    cert_pem: String,
    key: KeyPem,
}

impl CertKey {
    /// Pairs certificate text and key without checking them; see [`CertKey::load`].
    pub fn new(cert_pem: String, key: KeyPem) -> Self {
        CertKey { cert_pem, key }
    }

    /// Reads a user-supplied pair and checks that the key belongs to the (first) certificate.
    pub fn load(cert_pem: &str, key_pem: &str, file: &str) -> Result<Self> {
        let key = KeyPem::from_pem(key_pem, file)?;
        crate::check::check_cert_key(cert_pem, &key, file)?;
        Ok(CertKey::new(cert_pem.to_string(), key))
    }

    /// The `.crt` file content (for "append parent" certificates: leaf, newline, issuer).
    pub fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    /// The first certificate only, re-encoded as PEM.
    pub fn leaf_pem(&self) -> Result<String> {
        Ok(pem::encode("CERTIFICATE", &self.leaf_der()?))
    }

    /// DER of the first certificate.
    pub fn leaf_der(&self) -> Result<Vec<u8>> {
        pem::first_certificate(&self.cert_pem, "certificate")
    }

    /// The private key.
    pub fn key(&self) -> &KeyPem {
        &self.key
    }

    /// The `.key` file content (PKCS#1 PEM).
    pub fn key_pem(&self) -> &str {
        self.key.pem()
    }
}

/// Draws a serial from `rng` in `[0, 2^63 − 1)`.
pub fn random_serial(rng: &mut impl rand::RngCore) -> u64 {
    rng.gen_range(0..SERIAL_LIMIT)
}

/// Subject Key Identifier: SHA-1 of the PKCS#1 `RSAPublicKey` DER, or of an ECDSA key's
/// uncompressed point (Go's method).
pub fn subject_key_id(key: &KeyPem) -> Vec<u8> {
    let digest = aws_lc_rs::digest::digest(
        &aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY,
        key.public_key_bytes(),
    );
    digest.as_ref().to_vec()
}

/// Whole seconds in UTC: certificates cannot carry more, and equal inputs must give equal bytes.
fn normalize(now: OffsetDateTime) -> OffsetDateTime {
    now.to_offset(time::UtcOffset::UTC)
        .replace_nanosecond(0)
        .unwrap_or(now)
}

/// Creates the self-signed certificate of signer `id`, valid from `now` for its tier.
pub fn sign_self(
    id: CertId,
    key: &KeyPem,
    now: OffsetDateTime,
    scale: ValidityScale,
    serial: u64,
) -> Result<CertKey> {
    let spec = id.spec();
    if !spec.is_signer() {
        return Err(Error::Usage(format!("{id} is not a signer; use sign_leaf")));
    }
    let now = normalize(now);
    let params = base_params(&spec, key, now, now + spec.validity.duration(scale), serial)?;
    let pair = key.key_pair(id.key_path())?;
    let cert = params.self_signed(&pair).map_err(|e| sign_err(&spec, e))?;
    Ok(CertKey::new(cert.pem(), key.clone()))
}

/// Creates leaf `id` signed by `issuer`: NotBefore is the issuer's NotBefore, NotAfter is
/// `now` plus the tier. The caller passes the issuer named by `id.spec().issuer`.
pub fn sign_leaf(
    id: CertId,
    key: &KeyPem,
    issuer: &CertKey,
    params: &ClusterParams,
    now: OffsetDateTime,
    scale: ValidityScale,
    serial: u64,
) -> Result<CertKey> {
    let spec = id.spec();
    let Some(issuer_id) = spec.issuer else {
        return Err(Error::Usage(format!("{id} is a signer; use sign_self")));
    };
    let issuer_file = issuer_id.cert_path();
    let issuer_der = pem::first_certificate(issuer.cert_pem(), issuer_file)?;
    let (_, issuer_cert) = X509Certificate::from_der(&issuer_der)
        .map_err(|e| Error::parse(issuer_file, format!("not a valid certificate: {e}")))?;
    let not_before = issuer_cert.validity().not_before.to_datetime();
    let not_after = normalize(now) + spec.validity.duration(scale);
    let mut cert_params = base_params(&spec, key, not_before, not_after, serial)?;
    cert_params.subject_alt_names = san_types(&spec, params)?;
    let issuer = Issuer::new(
        issuer_params(&issuer_cert, issuer_file)?,
        issuer.key().key_pair(issuer_id.key_path())?,
    );
    let pair = key.key_pair(id.key_path())?;
    let cert = cert_params
        .signed_by(&pair, &issuer)
        .map_err(|e| sign_err(&spec, e))?;
    let leaf = cert.pem();
    let text = if spec.append_parent {
        format!("{leaf}\n{}", pem::encode("CERTIFICATE", &issuer_der))
    } else {
        leaf
    };
    Ok(CertKey::new(text, key.clone()))
}

fn sign_err(spec: &CertSpec, e: rcgen::Error) -> Error {
    Error::Sign {
        name: spec.name,
        reason: e.to_string(),
    }
}

fn base_params(
    spec: &CertSpec,
    key: &KeyPem,
    not_before: OffsetDateTime,
    not_after: OffsetDateTime,
    serial: u64,
) -> Result<CertificateParams> {
    if serial >= SERIAL_LIMIT {
        return Err(Error::Usage(format!(
            "serial {serial} for {} is out of range; it must be below 2^63-1",
            spec.name
        )));
    }
    let mut p = CertificateParams::default();
    p.not_before = not_before;
    p.not_after = not_after;
    p.serial_number = Some(SerialNumber::from(serial));
    p.distinguished_name = subject_dn(&spec.subject, spec)?;
    p.is_ca = if spec.is_signer() {
        IsCa::Ca(BasicConstraints::Unconstrained)
    } else {
        IsCa::ExplicitNoCa
    };
    p.key_usages = match spec.key_usage {
        // An ECDSA key cannot encipher keys, so its signer does not claim it (as upstream).
        KeyUsage::Signer if matches!(key.kind(), crate::KeyKind::Ecdsa(_)) => {
            vec![Ku::DigitalSignature, Ku::KeyCertSign]
        }
        KeyUsage::Signer => vec![Ku::DigitalSignature, Ku::KeyEncipherment, Ku::KeyCertSign],
        KeyUsage::DigitalSignatureKeyEncipherment => {
            vec![Ku::DigitalSignature, Ku::KeyEncipherment]
        }
        KeyUsage::None => Vec::new(),
    };
    p.extended_key_usages = match spec.ext_key_usage {
        ExtKeyUsage::None => Vec::new(),
        ExtKeyUsage::Server => vec![Eku::ServerAuth],
        ExtKeyUsage::Client => vec![Eku::ClientAuth],
        ExtKeyUsage::ServerAndClient => vec![Eku::ServerAuth, Eku::ClientAuth],
    };
    p.key_identifier_method = KeyIdMethod::PreSpecified(subject_key_id(key));
    p.use_authority_key_identifier_extension = !spec.is_signer();
    Ok(p)
}

/// PrintableString where the text allows it (as Go encodes), UTF8String otherwise.
fn dn_value(text: &str) -> DnValue {
    match PrintableString::try_from(text) {
        Ok(p) => DnValue::PrintableString(p),
        Err(_) => DnValue::Utf8String(text.to_string()),
    }
}

const OID_O: [u64; 4] = [2, 5, 4, 10];
const OID_OU: [u64; 4] = [2, 5, 4, 11];

fn subject_dn(subject: &Subject, spec: &CertSpec) -> Result<DistinguishedName> {
    if subject.cn.is_empty() || (spec.is_signer() && subject.ou.is_empty()) {
        return Err(Error::Usage(format!(
            "{}: certification's subject is not set, or invalid",
            spec.name
        )));
    }
    let mut dn = DistinguishedName::new();
    push_repeated(&mut dn, DnType::OrganizationName, &OID_O, subject.o)?;
    push_repeated(&mut dn, DnType::OrganizationalUnitName, &OID_OU, subject.ou)?;
    dn.push(DnType::CommonName, dn_value(subject.cn));
    Ok(dn)
}

/// rcgen keys its DN by attribute type, so a second value of the same type is pushed under a
/// custom type carrying the same OID; the encoding is then two RDNs with the same type.
fn push_repeated(
    dn: &mut DistinguishedName,
    ty: DnType,
    oid: &[u64],
    values: &[&str],
) -> Result<()> {
    if values.len() > 2 {
        return Err(Error::Usage(
            "at most two values per subject attribute are supported".into(),
        ));
    }
    for (i, v) in values.iter().enumerate() {
        let t = if i == 0 {
            ty.clone()
        } else {
            DnType::CustomDnType(oid.to_vec())
        };
        dn.push(t, dn_value(v));
    }
    Ok(())
}

fn san_types(spec: &CertSpec, params: &ClusterParams) -> Result<Vec<SanType>> {
    params
        .sans(spec.sans)
        .into_iter()
        .map(|san| match san {
            San::Ip(ip) => Ok(SanType::IpAddress(ip)),
            San::Dns(name) => Ia5String::try_from(name.as_str())
                .map(SanType::DnsName)
                .map_err(|e| {
                    Error::Usage(format!("{}: invalid DNS name {name:?}: {e}", spec.name))
                }),
        })
        .collect()
}

/// Rebuilds what rcgen needs to know about an issuer (subject DN, SKI) from its certificate,
/// so that leaves name the issuer exactly as the issuer's certificate names itself.
fn issuer_params(cert: &X509Certificate<'_>, file: &str) -> Result<CertificateParams> {
    let mut p = CertificateParams::default();
    p.distinguished_name = dn_from_x509(cert.subject(), file)?;
    let ski = cert
        .iter_extensions()
        .find_map(|ext| match ext.parsed_extension() {
            x509_parser::extensions::ParsedExtension::SubjectKeyIdentifier(id) => {
                Some(id.0.to_vec())
            }
            _ => None,
        });
    p.key_identifier_method = KeyIdMethod::PreSpecified(ski.ok_or_else(|| {
        Error::parse(file, "the signer certificate has no Subject Key Identifier")
    })?);
    Ok(p)
}

fn dn_from_x509(name: &X509Name<'_>, file: &str) -> Result<DistinguishedName> {
    use x509_parser::der_parser::asn1_rs::Tag;
    let mut dn = DistinguishedName::new();
    for rdn in name.iter() {
        if rdn.iter().count() != 1 {
            return Err(Error::parse(
                file,
                "multi-valued RDNs in the subject are not supported",
            ));
        }
        for attr in rdn.iter() {
            let oid: Vec<u64> = attr
                .attr_type()
                .iter()
                .ok_or_else(|| Error::parse(file, "subject attribute OID too large"))?
                .collect();
            let mut ty = DnType::from_oid(&oid);
            if dn.get(&ty).is_some() {
                ty = DnType::CustomDnType(oid);
            }
            let text = std::str::from_utf8(attr.attr_value().data)
                .map_err(|_| Error::parse(file, "subject attribute is not UTF-8 text"))?;
            let value = match attr.attr_value().header.tag() {
                Tag::PrintableString => dn_value(text),
                Tag::Ia5String => DnValue::Ia5String(
                    Ia5String::try_from(text).map_err(|e| Error::parse(file, e.to_string()))?,
                ),
                _ => DnValue::Utf8String(text.to_string()),
            };
            dn.push(ty, value);
        }
    }
    Ok(dn)
}
