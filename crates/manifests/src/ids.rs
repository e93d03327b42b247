//! ClusterID and InfraID.
//!
//! Both come from an injected RNG so deterministic mode yields the same ids for the same seed.

use rand::RngCore;

/// Characters Kubernetes uses for random name suffixes (no vowels, no look-alikes).
const SUFFIX_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
/// Longest cluster-name prefix kept in the InfraID.
const MAX_PREFIX: usize = 21;
/// Length of the random suffix.
const SUFFIX_LEN: usize = 5;

/// Derive the InfraID from the cluster name.
///
/// Characters outside `[A-Za-z0-9-]` become `-`, runs of `-` collapse, the result is cut to 21
/// characters with trailing `-` removed, and `-` plus five random characters is appended.
/// Returns a warning when the name had to be shortened, because the InfraID prefixes cloud
/// resource names and users look for their cluster name there.
pub fn infra_id(cluster_name: &str, rng: &mut dyn RngCore) -> (String, Option<String>) {
    let mut prefix = String::with_capacity(cluster_name.len());
    for c in cluster_name.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' {
            c
        } else {
            '-'
        };
        if c == '-' && prefix.ends_with('-') {
            continue;
        }
        prefix.push(c);
    }
    let mut warning = None;
    if prefix.len() > MAX_PREFIX {
        prefix.truncate(MAX_PREFIX);
        warning = Some(format!(
            "cluster name {cluster_name:?} is longer than {MAX_PREFIX} characters after \
             sanitizing; the infrastructure ID uses the shortened prefix {:?}",
            prefix.trim_end_matches('-')
        ));
    }
    let prefix = prefix.trim_end_matches('-');
    (format!("{prefix}-{}", random_suffix(rng)), warning)
}

/// Five characters from [`SUFFIX_ALPHABET`], drawn without modulo bias.
fn random_suffix(rng: &mut dyn RngCore) -> String {
    let n = SUFFIX_ALPHABET.len() as u32;
    let zone = u32::MAX - (u32::MAX % n);
    let mut out = String::with_capacity(SUFFIX_LEN);
    while out.len() < SUFFIX_LEN {
        let v = rng.next_u32();
        if v < zone {
            out.push(SUFFIX_ALPHABET[(v % n) as usize] as char);
        }
    }
    out
}

/// A random (version 4) UUID built from 16 bytes of `rng`.
pub fn cluster_id(rng: &mut dyn RngCore) -> String {
    let mut bytes = [0u8; 16];
    rng.fill_bytes(&mut bytes);
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn rng() -> ChaCha20Rng {
        ChaCha20Rng::seed_from_u64(7)
    }

    fn split(id: &str) -> (&str, &str) {
        id.rsplit_once('-').unwrap()
    }

    #[test]
    fn infra_id_keeps_short_clean_names() {
        let (id, warn) = infra_id("ocp", &mut rng());
        let (prefix, suffix) = split(&id);
        assert_eq!(prefix, "ocp");
        assert_eq!(suffix.len(), 5);
        assert!(suffix.bytes().all(|b| SUFFIX_ALPHABET.contains(&b)));
        assert!(warn.is_none());
    }

    #[test]
    fn infra_id_sanitizes_and_collapses() {
        let (id, _) = infra_id("my_cluster..prod", &mut rng());
        assert_eq!(split(&id).0, "my-cluster-prod");
    }

    #[test]
    fn infra_id_truncates_trims_and_warns() {
        // 20 chars then '-' at position 21: the cut leaves a trailing '-' to trim.
        let (id, warn) = infra_id("abcdefghijklmnopqrst-uvwxyz", &mut rng());
        assert_eq!(split(&id).0, "abcdefghijklmnopqrst");
        assert!(id.len() <= 27);
        assert!(warn.unwrap().contains("abcdefghijklmnopqrst"));
    }

    #[test]
    fn infra_id_is_deterministic_for_a_seed() {
        assert_eq!(infra_id("a", &mut rng()), infra_id("a", &mut rng()));
    }

    #[test]
    fn cluster_id_is_uuid_v4() {
        let id = cluster_id(&mut rng());
        let parsed = uuid::Uuid::parse_str(&id).unwrap();
        assert_eq!(parsed.get_version_num(), 4);
        assert_eq!(id, cluster_id(&mut rng()));
    }
}
