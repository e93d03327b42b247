//! Property tests: whatever the input, loading never panics, every problem is located
//! (field path or position), and a config that loads survives a write/read round trip.

use installconfig::{LoadError, parse_str};
use proptest::prelude::*;

use crate::fixture_text;

const FIXTURES: [&str; 4] = [
    "none-sno.yaml",
    "baremetal-compact.yaml",
    "vsphere-ha.yaml",
    "vsphere-deprecated.yaml",
];

const SCALARS: &[&str] = &[
    "",
    "~",
    "null",
    "[]",
    "{}",
    "-1",
    "0",
    "abc",
    "1.5",
    "true",
    "no",
    "'x'",
    "\"\"",
    "99999999999999999999999",
    "[1, {a: b}]",
    "{cidr: 10.0.0.0/8}",
    "!!binary aGk=",
    "&a x",
    "*a",
    "0x1F",
    ".inf",
    "- x",
    "|\n  text",
];

#[derive(Debug, Clone)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    ReplaceValue(usize, usize),
    InsertBytes(usize, Vec<u8>),
    Indent(usize, bool),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::DeleteLine),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), 0..SCALARS.len()).prop_map(|(l, s)| Mutation::ReplaceValue(l, s)),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..6))
            .prop_map(|(p, b)| Mutation::InsertBytes(p, b)),
        (any::<usize>(), any::<bool>()).prop_map(|(l, more)| Mutation::Indent(l, more)),
    ]
}

fn apply(text: &str, m: &Mutation) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let n = lines.len().max(1);
    match m {
        Mutation::DeleteLine(i) => {
            lines.remove(i % n);
        }
        Mutation::DuplicateLine(i) => {
            let l = lines[i % n].clone();
            lines.insert(i % n, l);
        }
        Mutation::ReplaceValue(i, s) => {
            let line = &mut lines[i % n];
            if let Some(colon) = line.find(": ") {
                line.truncate(colon + 2);
                line.push_str(SCALARS[*s]);
            } else if let Some(dash) = line.find("- ") {
                line.truncate(dash + 2);
                line.push_str(SCALARS[*s]);
            }
        }
        Mutation::InsertBytes(pos, bytes) => {
            let joined = lines.join("\n");
            let mut b = joined.into_bytes();
            let at = pos % (b.len() + 1);
            b.splice(at..at, bytes.iter().copied());
            return String::from_utf8_lossy(&b).into_owned();
        }
        Mutation::Indent(i, more) => {
            let line = &mut lines[i % n];
            if *more {
                line.insert_str(0, "  ");
            } else if line.starts_with("  ") {
                line.drain(..2);
            }
        }
    }
    lines.join("\n") + "\n"
}

fn check(text: &str) -> Result<(), TestCaseError> {
    match parse_str(text, "install-config.yaml") {
        Ok(loaded) => {
            let again = parse_str(&loaded.config.to_yaml(), "again.yaml");
            prop_assert!(
                again.is_ok(),
                "round trip failed: {:?}\n{}",
                again.err(),
                loaded.config.to_yaml()
            );
            prop_assert_eq!(&again.unwrap().config, &loaded.config);
        }
        Err(LoadError::Invalid { errors, .. }) => {
            prop_assert!(!errors.is_empty());
            for e in errors {
                prop_assert!(
                    !e.path.is_empty() || e.position.is_some(),
                    "unlocated error: {e:?}"
                );
            }
        }
        Err(LoadError::Syntax { position, .. }) => prop_assert!(position.line >= 1),
        Err(e @ (LoadError::Io { .. } | LoadError::Unusable(_))) => {
            prop_assert!(false, "unexpected {e}")
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn mutated_fixtures_never_panic(f in 0..FIXTURES.len(), ms in prop::collection::vec(mutation(), 1..4)) {
        let mut text = fixture_text(FIXTURES[f]);
        for m in &ms {
            text = apply(&text, m);
        }
        check(&text)?;
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn random_yaml_like_text_never_panics(text in "([a-zA-Z]{1,8}: ([a-z0-9./]{0,10}|\\[\\]|\\{\\}|-1)\n( {2}- [a-z]{1,5}\n)?){0,8}") {
        check(&format!("apiVersion: v1\n{text}"))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Whatever text ends up in string fields, the written YAML reads back to the same text
    /// (no YAML 1.1 surprises such as `no` becoming false, no lost control characters).
    #[test]
    fn written_strings_read_back_unchanged(name in any::<String>(), secret in any::<String>(), key in "(yes|no|on|off|null|~|0x1F|1e3|[ -~]{0,20})") {
        let mut cfg = installconfig::load(crate::fixture("none-sno.yaml")).unwrap().config;
        cfg.metadata.name = name.clone();
        cfg.pull_secret = secret.clone();
        cfg.ssh_key = key.clone();
        let tree = installconfig::yaml_tree::parse(&cfg.to_yaml()).unwrap();
        let text = |n: Option<&installconfig::yaml_tree::Node>| match n.map(|n| &n.value) {
            Some(installconfig::yaml_tree::Value::Str(s)) => Some(s.clone()),
            None => Some(String::new()),
            other => panic!("not a string: {other:?}"),
        };
        prop_assert_eq!(text(tree.get("metadata").and_then(|m| m.get("name"))), Some(name));
        prop_assert_eq!(text(tree.get("pullSecret")), Some(secret));
        prop_assert_eq!(text(tree.get("sshKey")), Some(key));
    }
}
