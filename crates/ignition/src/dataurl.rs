//! RFC 2397 data URLs, the way Ignition embeds file contents in a config.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// Prefix of every data URL okd-install writes for uncompressed contents (as upstream does).
pub(crate) const TEXT_PREFIX: &str = "data:text/plain;charset=utf-8;base64,";

/// Prefix for gzip-compressed contents: no media type, since the bytes are not text.
pub(crate) const BINARY_PREFIX: &str = "data:;base64,";

/// Why a source is not a usable data URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataUrlError {
    /// The source does not start with `data:`.
    #[error("not a data URL (expected it to start with `data:`)")]
    NotDataUrl,
    /// There is no comma between the media type and the data.
    #[error("data URL has no `,` between the media type and the data")]
    MissingComma,
    /// The `;base64` payload is not valid standard base64.
    #[error("data URL payload is not valid base64: {0}")]
    Base64(String),
    /// A `%` escape in a percent-encoded payload is not followed by two hex digits.
    #[error("data URL has a bad percent escape at payload byte {0}; use %XX with hex digits")]
    Percent(usize),
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
    let rest = strip_prefix_ignore_case(url, "data:").ok_or(DataUrlError::NotDataUrl)?;
    let (header, payload) = rest.split_once(',').ok_or(DataUrlError::MissingComma)?;
    let is_base64 = header
        .rsplit(';')
        .next()
        .is_some_and(|last| last.eq_ignore_ascii_case("base64"));
    if is_base64 {
        STANDARD
            .decode(payload)
            .map_err(|e| DataUrlError::Base64(e.to_string()))
    } else {
        percent_decode(payload)
    }
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

fn percent_decode(payload: &str) -> Result<Vec<u8>, DataUrlError> {
    let bytes = payload.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).ok_or(DataUrlError::Percent(i))?;
            let text = std::str::from_utf8(hex).map_err(|_| DataUrlError::Percent(i))?;
            let value = u8::from_str_radix(text, 16).map_err(|_| DataUrlError::Percent(i))?;
            out.push(value);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
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
        assert_eq!(decode_data_url("DATA:;BASE64,aGk=").unwrap(), b"hi");
        assert_eq!(decode_data_url("data:,100%"), Err(DataUrlError::Percent(3)));
        assert_eq!(decode_data_url("data:,%zz"), Err(DataUrlError::Percent(0)));
        assert_eq!(
            decode_data_url("data:text/plain"),
            Err(DataUrlError::MissingComma)
        );
        assert_eq!(decode_data_url("https://x/"), Err(DataUrlError::NotDataUrl));
        assert!(matches!(
            decode_data_url("data:;base64,@@@"),
            Err(DataUrlError::Base64(_))
        ));
    }
}
