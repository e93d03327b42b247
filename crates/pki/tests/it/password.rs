//! The kubeadmin password (§7).

use pki::{KubeadminPassword, PASSWORD_ALPHABET};
use rand::SeedableRng as _;

fn assert_format(pw: &str) {
    assert_eq!(pw.len(), 23, "{pw}");
    for (i, c) in pw.bytes().enumerate() {
        if [5, 11, 17].contains(&i) {
            assert_eq!(c, b'-', "{pw}");
        } else {
            assert!(PASSWORD_ALPHABET.contains(&c), "{pw}: {}", c as char);
        }
    }
}

#[test]
fn many_passwords_keep_the_format_and_differ() {
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(99);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..500 {
        let pw = pki::generate_password(&mut rng);
        assert_format(&pw);
        assert!(seen.insert(pw));
    }
    let one = KubeadminPassword::from_plain("abcde-fghij-kmnop-qrstu".into(), &mut rng).unwrap();
    assert!(bcrypt::verify(one.plain(), one.hash()).unwrap());
}
