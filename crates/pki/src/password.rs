//! The kubeadmin password and its bcrypt hash.

use std::fmt;

use rand::{CryptoRng, Rng as _, RngCore};

use crate::error::{Error, Result};

/// Lowercase without `l`, uppercase without `O`, digits 2–9: 58 symbols that are hard to
/// confuse when read off a screen.
pub const PASSWORD_ALPHABET: &[u8] = b"abcdefghijkmnopqrstuvwxyzABCDEFGHIJKLMNPQRSTUVWXYZ23456789";

/// bcrypt cost used by the installer (Go's default).
pub const BCRYPT_COST: u32 = 10;

/// The kubeadmin password with its hash. `Debug` hides both.
#[derive(Clone, PartialEq, Eq)]
pub struct KubeadminPassword {
    plain: String,
    hash: String,
}

impl fmt::Debug for KubeadminPassword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KubeadminPassword([redacted])")
    }
}

/// Draws a password of the form `xxxxx-xxxxx-xxxxx-xxxxx`: 23 symbols, each inserted at a
/// random position of the string built so far, then positions 5, 11 and 17 set to `-`.
pub fn generate_password(rng: &mut (impl RngCore + CryptoRng)) -> String {
    let mut chars: Vec<u8> = Vec::with_capacity(23);
    for _ in 0..23 {
        let symbol = PASSWORD_ALPHABET[rng.gen_range(0..PASSWORD_ALPHABET.len())];
        let position = rng.gen_range(0..=chars.len());
        chars.insert(position, symbol);
    }
    for dash in [5, 11, 17] {
        chars[dash] = b'-';
    }
    chars.into_iter().map(char::from).collect()
}

/// bcrypt (`$2a$`, cost 10) of `plain` with a salt drawn from `rng`, so a seeded RNG gives a
/// reproducible hash.
pub(crate) fn hash_password(plain: &str, rng: &mut (impl RngCore + CryptoRng)) -> Result<String> {
    let mut salt = [0u8; 16];
    rng.fill_bytes(&mut salt);
    let parts =
        bcrypt::hash_with_salt(plain, BCRYPT_COST, salt).map_err(|e| Error::Hash(e.to_string()))?;
    Ok(parts.format_for_version(bcrypt::Version::TwoA))
}

impl KubeadminPassword {
    /// A new random password and its hash.
    pub fn generate(rng: &mut (impl RngCore + CryptoRng)) -> Result<Self> {
        let plain = generate_password(rng);
        Self::from_plain(plain, rng)
    }

    /// Hashes a given password (from a secrets bundle or a predefined file).
    pub fn from_plain(plain: String, rng: &mut (impl RngCore + CryptoRng)) -> Result<Self> {
        let hash = hash_password(&plain, rng)?;
        Ok(KubeadminPassword { plain, hash })
    }

    /// The plaintext; also the exact content of `auth/kubeadmin-password` (no newline).
    pub fn plain(&self) -> &str {
        &self.plain
    }

    /// The bcrypt hash; base64 of it goes into the `kube-system/kubeadmin` Secret.
    pub fn hash(&self) -> &str {
        &self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng as _;

    #[test]
    fn alphabet_has_58_distinct_symbols_without_lookalikes() {
        let mut sorted = PASSWORD_ALPHABET.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 58);
        for bad in [b'l', b'O', b'0', b'1'] {
            assert!(!PASSWORD_ALPHABET.contains(&bad));
        }
    }

    #[test]
    fn same_seed_gives_same_password_and_hash() {
        let make = || {
            let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
            KubeadminPassword::generate(&mut rng).expect("password")
        };
        assert_eq!(make(), make());
        assert_eq!(format!("{:?}", make()), "KubeadminPassword([redacted])");
    }
}
