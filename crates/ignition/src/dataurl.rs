//! RFC 2397 data URLs, the way Ignition embeds file contents in a config.
//!
//! Decoding is as strict as Ignition's own parser (checked against `ignition-validate`):
//! lowercase `data:` and `base64`, a lowercase `type/subtype` if a media type is given,
//! `attribute=value` parameters, canonical base64 padding, and only URL characters or
//! `%XX` escapes in a percent-encoded payload. A URL accepted here is accepted on the node.

use base64::Engine as _;
use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};

/// Prefix of every data URL okd-install writes for uncompressed contents (as upstream does).
pub(crate) const TEXT_PREFIX: &str = "data:text/plain;charset=utf-8;base64,";

/// Prefix for gzip-compressed contents: no media type, since the bytes are not text.
pub(crate) const BINARY_PREFIX: &str = "data:;base64,";

/// Standard alphabet with padding, tolerant of non-zero trailing bits like Go's decoder.
const DECODER: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
);

/// Why a source is not a usable data URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataUrlError {
    /// The source does not start with `data:` (lowercase).
    #[error("not a data URL (expected it to start with lowercase `data:`)")]
    NotDataUrl,
    /// There is no comma between the media type and the data.
    #[error("data URL has no `,` between the media type and the data")]
    MissingComma,
    /// The media type or a parameter is malformed.
    #[error("data URL media type is malformed: {0}")]
    MediaType(String),
    /// The `;base64` payload is not valid standard base64.
    #[error("data URL payload is not valid base64: {0}")]
    Base64(String),
    /// A `%` escape in a percent-encoded payload is not followed by two hex digits.
    #[error("data URL has a bad percent escape at payload byte {0}; use %XX with hex digits")]
    Percent(usize),
    /// A percent-encoded payload contains a character that URLs may not carry raw.
    #[error("data URL payload byte {0} must be percent-encoded (%XX)")]
    InvalidChar(usize),
}

/// Encode bytes as `data:text/plain;charset=utf-8;base64,<base64>`.
pub fn encode_data_url(bytes: &[u8]) -> String {
    format!("{TEXT_PREFIX}{}", STANDARD.encode(bytes))
}

/// Encode already compressed bytes; the media type is left empty because they are binary.
pub(crate) fn encode_binary_data_url(bytes: &[u8]) -> String {
    format!("{BINARY_PREFIX}{}", STANDARD.encode(bytes))
}

/// Decode a data URL, base64 (`;base64,`) or percent-encoded, into its bytes.
pub fn decode_data_url(url: &str) -> Result<Vec<u8>, DataUrlError> {
    let rest = url.strip_prefix("data:").ok_or(DataUrlError::NotDataUrl)?;
    let (header, payload) = rest.split_once(',').ok_or(DataUrlError::MissingComma)?;
    if parse_header(header)? {
        DECODER
            .decode(payload)
            .map_err(|e| DataUrlError::Base64(e.to_string()))
    } else {
        percent_decode(payload)
    }
}

/// Validate `[type/subtype] *(;attr=value) [;base64]`; returns whether it ends in base64.
fn parse_header(header: &str) -> Result<bool, DataUrlError> {
    let bad = |m: String| Err(DataUrlError::MediaType(m));
    let mut parts = header.split(';');
    let media_type = parts.next().unwrap_or_default();
    if !media_type.is_empty() {
        let valid = media_type
            .split_once('/')
            .is_some_and(|(t, s)| is_lower_token(t) && is_lower_token(s));
        if !valid {
            return bad(format!("{media_type:?} is not a lowercase type/subtype"));
        }
    }
    let params: Vec<&str> = parts.collect();
    for (i, param) in params.iter().enumerate() {
        let last = i + 1 == params.len();
        match param.split_once('=') {
            Some((attr, value)) if is_token(attr) && is_token(value) => {}
            Some(_) => return bad(format!("parameter {param:?} is not attribute=value")),
            None if last && *param == "base64" => return Ok(true),
            None => {
                return bad(format!(
                    "parameter {param:?}: only a final `base64` may lack ="
                ));
            }
        }
    }
    Ok(false)
}

fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn is_lower_token(s: &str) -> bool {
    is_token(s) && !s.bytes().any(|b| b.is_ascii_uppercase())
}

/// RFC 2396 `uric` characters that may appear unescaped.
fn is_uric(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b";/?:@&=+$,-_.!~*'()".contains(&b)
}

fn percent_decode(payload: &str) -> Result<Vec<u8>, DataUrlError> {
    let bytes = payload.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3).ok_or(DataUrlError::Percent(i))?;
                let text = std::str::from_utf8(hex).map_err(|_| DataUrlError::Percent(i))?;
                let value = u8::from_str_radix(text, 16).map_err(|_| DataUrlError::Percent(i))?;
                out.push(value);
                i += 3;
            }
            b if is_uric(b) => {
                out.push(b);
                i += 1;
            }
            _ => return Err(DataUrlError::InvalidChar(i)),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_forms() {
        let url = encode_data_url(b"hello\n");
        assert_eq!(url, "data:text/plain;charset=utf-8;base64,aGVsbG8K");
        assert_eq!(decode_data_url(&url).unwrap(), b"hello\n");
        assert_eq!(decode_data_url("data:,a%20b%0A").unwrap(), b"a b\n");
        assert_eq!(decode_data_url("data:;base64,aGk=").unwrap(), b"hi");
        assert_eq!(
            decode_data_url("data:;base64,aGl=").unwrap(),
            b"hi",
            "trailing bits"
        );
        assert_eq!(decode_data_url("data:,").unwrap(), b"");
        assert_eq!(decode_data_url("data:;charset=utf-8,x").unwrap(), b"x");
        assert_eq!(
            decode_data_url("data:,a;b/c?d:e@f&g=h+i$j,k").unwrap(),
            b"a;b/c?d:e@f&g=h+i$j,k"
        );
    }

    #[test]
    fn rejects_what_ignition_rejects() {
        use DataUrlError::*;
        assert_eq!(decode_data_url("data:,100%"), Err(Percent(3)));
        assert_eq!(decode_data_url("data:,%zz"), Err(Percent(0)));
        assert_eq!(decode_data_url("data:,a b"), Err(InvalidChar(1)));
        assert_eq!(decode_data_url("data:,a#b"), Err(InvalidChar(1)));
        assert_eq!(decode_data_url("data:text/plain"), Err(MissingComma));
        assert_eq!(decode_data_url("https://x/"), Err(NotDataUrl));
        assert_eq!(decode_data_url("Data:,x"), Err(NotDataUrl));
        for bad in [
            "data:foo,x",
            "data:TEXT/plain,x",
            "data:text/plain;charset,x",
            "data:;BASE64,aGk=",
            "data:;,x",
            "data:;base64;x=y,aGk=",
        ] {
            assert!(matches!(decode_data_url(bad), Err(MediaType(_))), "{bad}");
        }
        for bad in ["data:;base64,@@@", "data:;base64,aGk", "data:;base64,-_8="] {
            assert!(matches!(decode_data_url(bad), Err(Base64(_))), "{bad}");
        }
    }
}
