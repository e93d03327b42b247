//! Property tests: encoders round-trip, and the readers never panic on any input.

use ignition::{
    NodeFile, Variant, check, check_json, compress, decode_data_url, encode_data_url,
    explain_ignition, parse, to_json,
};
use proptest::prelude::*;

use crate::util::{STANDARD_TREE, context, fixture_tree};

/// Node paths made of 1..4 safe components.
fn node_path() -> impl Strategy<Value = String> {
    prop::collection::vec("[a-z0-9][a-z0-9._-]{0,8}", 1..4)
        .prop_map(|c| format!("/{}", c.join("/")))
}

fn node_files() -> impl Strategy<Value = Vec<NodeFile>> {
    let file = (
        node_path(),
        0u32..=0o777,
        prop::collection::vec(any::<u8>(), 0..600),
    )
        .prop_map(|(p, m, c)| NodeFile::new(format!("/opt/x{p}"), m, c));
    prop::collection::vec(file, 0..8)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn data_urls_round_trip(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        prop_assert_eq!(decode_data_url(&encode_data_url(&bytes)).unwrap(), bytes.clone());
        let percent: String = bytes.iter().map(|b| format!("%{b:02X}")).collect();
        prop_assert_eq!(decode_data_url(&format!("data:,{percent}")).unwrap(), bytes);
    }

    #[test]
    fn configs_round_trip_through_json_and_compression(files in node_files()) {
        let (_dir, tree) = fixture_tree(STANDARD_TREE);
        let config = ignition::bootstrap_config_from(
            &tree, Variant::Bootstrap, &context(), files, vec!["ssh-ed25519 AAAA k".into()],
        ).unwrap();
        prop_assert_eq!(check(&config), vec![]);
        let json = to_json(&config);
        prop_assert_eq!(parse(&json).unwrap().into_v3_2().unwrap(), config.clone());
        let small = compress(config.clone());
        prop_assert_eq!(check(&small), vec![]);
        prop_assert!(to_json(&small).len() <= json.len());
        // Explain shows the same text; compressed files only add a "<gzip, ...>" line.
        let strip = |json: &str| {
            let text = explain_ignition(json).unwrap();
            text.lines().filter(|l| !l.starts_with("<gzip, ")).collect::<Vec<_>>().join("\n")
        };
        prop_assert_eq!(strip(&to_json(&small)), strip(&json));
    }

    #[test]
    fn readers_never_panic_on_arbitrary_text(text in ".{0,200}") {
        let _ = parse(&text);
        let _ = explain_ignition(&text);
        prop_assert!(!check_json(&text).is_empty() || parse(&text).is_ok());
    }

    #[test]
    fn readers_never_panic_on_mangled_configs(cut in 0usize..400, insert in ".{0,5}") {
        let json = r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/a","mode":420,"contents":{"source":"data:,x","compression":"gzip"}}]},"systemd":{"units":[{"name":"a.service","dropins":[{"name":"x.conf"}]}]},"passwd":{"users":[{"name":"core"}]}}"#;
        let cut = cut.min(json.len());
        let cut = (0..=cut).rev().find(|&i| json.is_char_boundary(i)).unwrap();
        let mangled = format!("{}{insert}{}", &json[..cut], &json[cut..]);
        let _ = check_json(&mangled);
        let _ = explain_ignition(&mangled);
    }
}
