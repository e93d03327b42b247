//! The kubeadmin password (§7).

use pki::{KubeadminPassword, PASSWORD_ALPHABET};
use rand::SeedableRng as _;

use crate::common::pki;

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
fn generated_passwords_have_four_groups_and_verify_with_bcrypt() {
    let pw = pki().password();
    assert_format(pw.plain());
    assert!(!pw.plain().ends_with('\n'));
    assert!(pw.hash().starts_with("$2a$10$"), "{}", pw.hash());
    assert!(bcrypt::verify(pw.plain(), pw.hash()).expect("verify"));
    assert!(!bcrypt::verify("wrong-password", pw.hash()).expect("verify"));
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
