//! A minimal DER reader: just enough to unwrap PKCS#8 into PKCS#1 and to read the modulus and
//! exponent of an `RSAPublicKey`. Pulling a full ASN.1 framework in for three fields would cost
//! more than these few lines.

/// One tag-length-value element.
pub(crate) struct Tlv<'a> {
    pub tag: u8,
    pub content: &'a [u8],
}

/// Reads one element from the front of `input`, returning it and the remaining bytes.
pub(crate) fn read(input: &[u8]) -> Option<(Tlv<'_>, &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        (len, &rest[n..])
    };
    if rest.len() < len {
        return None;
    }
    let (content, rest) = rest.split_at(len);
    Some((Tlv { tag, content }, rest))
}

/// Reads an element and checks its tag.
pub(crate) fn expect(input: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (tlv, rest) = read(input)?;
    (tlv.tag == tag).then_some((tlv.content, rest))
}

pub(crate) const SEQUENCE: u8 = 0x30;
pub(crate) const INTEGER: u8 = 0x02;
pub(crate) const OCTET_STRING: u8 = 0x04;

/// The DER encoding of the rsaEncryption OID (1.2.840.113549.1.1.1).
const RSA_ENCRYPTION_OID: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];

/// Returns the PKCS#1 `RSAPrivateKey` inside a PKCS#8 `PrivateKeyInfo`, or None if the input
/// is not an RSA PKCS#8 structure.
pub(crate) fn pkcs8_to_pkcs1(pkcs8: &[u8]) -> Option<Vec<u8>> {
    let (info, _) = expect(pkcs8, SEQUENCE)?;
    let (_version, rest) = expect(info, INTEGER)?;
    let (alg, rest) = expect(rest, SEQUENCE)?;
    let (oid, _) = expect(alg, 0x06)?;
    if oid != RSA_ENCRYPTION_OID {
        return None;
    }
    let (key, _) = expect(rest, OCTET_STRING)?;
    Some(key.to_vec())
}

/// Splits a PKCS#1 `RSAPublicKey` into (modulus, exponent), both big-endian and possibly with
/// a leading zero byte.
pub(crate) fn rsa_public_parts(pkcs1_public: &[u8]) -> Option<(&[u8], &[u8])> {
    let (seq, _) = expect(pkcs1_public, SEQUENCE)?;
    let (n, rest) = expect(seq, INTEGER)?;
    let (e, _) = expect(rest, INTEGER)?;
    Some((n, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_long_form_lengths() {
        let mut input = vec![0x04, 0x82, 0x01, 0x00];
        input.extend(std::iter::repeat_n(7u8, 256));
        input.push(0xff);
        let (tlv, rest) = read(&input).expect("valid element");
        assert_eq!(tlv.tag, 0x04);
        assert_eq!(tlv.content.len(), 256);
        assert_eq!(rest, &[0xff]);
    }

    #[test]
    fn rejects_truncated_input() {
        assert!(read(&[0x30, 0x05, 0x01]).is_none());
        assert!(read(&[0x30, 0x84]).is_none());
        assert!(pkcs8_to_pkcs1(&[0x30, 0x00]).is_none());
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Arbitrary bytes never panic the reader and never yield content past the input.
        #[test]
        fn reader_is_total(input in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Some((tlv, rest)) = read(&input) {
                prop_assert!(tlv.content.len() + rest.len() + 2 <= input.len());
            }
            let _ = pkcs8_to_pkcs1(&input);
            let _ = rsa_public_parts(&input);
        }
    }
}
