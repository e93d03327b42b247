//! PEM encoding and decoding (RFC 7468 text form), written out so the exact bytes are under our
//! control: 64-column base64 lines, LF line ends, a final newline, like Go's `pem.Encode`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::error::{Error, Result};

/// One decoded PEM block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PemBlock {
    /// The label between `BEGIN ` and `-----`, such as `CERTIFICATE`.
    pub label: String,
    /// The decoded DER bytes.
    pub der: Vec<u8>,
}

/// Encodes `der` as one PEM block with the given label.
pub fn encode(label: &str, der: &[u8]) -> String {
    let b64 = STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for chunk in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

/// Decodes every PEM block in `text`; text outside blocks is ignored (as OpenSSL and Go do).
/// `file` names the source in errors.
pub fn decode_all(text: &str, file: &str) -> Result<Vec<PemBlock>> {
    let mut blocks = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(label) = line
            .trim()
            .strip_prefix("-----BEGIN ")
            .and_then(|l| l.strip_suffix("-----"))
        else {
            continue;
        };
        let end = format!("-----END {label}-----");
        let mut b64 = String::new();
        let mut closed = false;
        for body in lines.by_ref() {
            if body.trim() == end {
                closed = true;
                break;
            }
            b64.push_str(body.trim());
        }
        if !closed {
            return Err(Error::parse(
                file,
                format!("PEM block {label} has no END line"),
            ));
        }
        let der = STANDARD.decode(b64.as_bytes()).map_err(|e| {
            Error::parse(file, format!("PEM block {label} is not valid base64: {e}"))
        })?;
        blocks.push(PemBlock {
            label: label.to_string(),
            der,
        });
    }
    Ok(blocks)
}

/// DER of every `CERTIFICATE` block in `text`, in order.
pub fn certificates(text: &str, file: &str) -> Result<Vec<Vec<u8>>> {
    Ok(decode_all(text, file)?
        .into_iter()
        .filter(|b| b.label == "CERTIFICATE")
        .map(|b| b.der)
        .collect())
}

/// DER of the first `CERTIFICATE` block in `text`, or an error naming `file` if there is none.
pub fn first_certificate(text: &str, file: &str) -> Result<Vec<u8>> {
    certificates(text, file)?
        .into_iter()
        .next()
        .ok_or_else(|| Error::parse(file, "no PEM CERTIFICATE block found"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_wraps_at_64_columns() {
        let der: Vec<u8> = (0..=255u8).collect();
        let text = encode("CERTIFICATE", &der);
        assert!(text.lines().all(|l| l.len() <= 64));
        assert!(text.ends_with("-----END CERTIFICATE-----\n"));
        let blocks = decode_all(&format!("junk\n{text}\n{text}"), "x").expect("decodes");
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[1].der, der);
    }

    #[test]
    fn reports_unterminated_block_with_file_name() {
        let err = decode_all("-----BEGIN CERTIFICATE-----\nAAAA\n", "tls/x.crt").unwrap_err();
        assert!(err.to_string().starts_with("tls/x.crt: "), "{err}");
    }
}
