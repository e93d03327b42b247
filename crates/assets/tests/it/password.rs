//! The kubeadmin password (§7) as the asset graph makes it.

use pki::PASSWORD_ALPHABET;

use crate::common::pki;

#[test]
fn generated_passwords_have_four_groups_and_verify_with_bcrypt() {
    let pw = pki().password();
    let groups: Vec<&str> = pw.password.split('-').collect();
    assert_eq!(groups.len(), 4, "{}", pw.password);
    assert!(
        groups
            .iter()
            .all(|g| g.len() == 5 && g.bytes().all(|c| PASSWORD_ALPHABET.contains(&c))),
        "{}",
        pw.password
    );
    assert!(pw.hash.starts_with("$2a$10$"), "{}", pw.hash);
    assert!(bcrypt::verify(&pw.password, &pw.hash).expect("verify"));
    assert!(!bcrypt::verify("wrong-password", &pw.hash).expect("verify"));
    assert_eq!(format!("{pw:?}"), "KubeadminPassword(..)");
    assert_eq!(pki().secrets().kubeadmin_password, pw.password);
}
