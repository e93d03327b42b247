//! Property tests, the install-config reader's fuzz targets: whatever the input (arbitrary
//! bytes in the file, mutated fixtures, YAML-shaped trees of install-config fields, subtrees
//! grafted into a valid config), loading never panics, every problem is located (field path
//! or position), and a config that loads survives a write/read round trip.
//!
//! Each runs proptest's default number of cases (256), quick enough for every `cargo test`;
//! `PROPTEST_CASES=100000` runs a longer search locally.

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
    check_result(parse_str(text, "install-config.yaml"))
}

fn check_result(result: Result<installconfig::Loaded, LoadError>) -> Result<(), TestCaseError> {
    match result {
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
        Err(LoadError::Io { file, error }) if error.kind() == std::io::ErrorKind::InvalidData => {
            prop_assert!(file.ends_with("install-config.yaml"));
            prop_assert!(error.to_string().contains("not UTF-8"), "{error}");
        }
        Err(e @ (LoadError::Io { .. } | LoadError::Unusable(_))) => {
            prop_assert!(false, "unexpected {e}")
        }
    }
    Ok(())
}

/// Field names of install-config at every level, so that generated trees reach the schema
/// walk, the conversions and the validation, not only the unknown-field check.
const FIELDS: &[&str] = &[
    "apiVersion",
    "baseDomain",
    "metadata",
    "name",
    "networking",
    "networkType",
    "machineNetwork",
    "clusterNetwork",
    "serviceNetwork",
    "cidr",
    "hostPrefix",
    "platform",
    "none",
    "baremetal",
    "vsphere",
    "apiVIPs",
    "ingressVIPs",
    "apiVIP",
    "compute",
    "controlPlane",
    "replicas",
    "architecture",
    "hyperthreading",
    "pullSecret",
    "sshKey",
    "additionalTrustBundle",
    "additionalTrustBundlePolicy",
    "imageDigestSources",
    "imageContentSources",
    "mirrors",
    "source",
    "proxy",
    "httpProxy",
    "httpsProxy",
    "noProxy",
    "capabilities",
    "baselineCapabilitySet",
    "additionalEnabledCapabilities",
    "fips",
    "publish",
    "featureSet",
    "vcenters",
    "server",
    "user",
    "password",
    "datacenters",
    "failureDomains",
    "topology",
    "hosts",
    "bmc",
    "bootMACAddress",
    "role",
    "address",
    "credentialsMode",
    "bootstrapInPlace",
    "installationDisk",
];

/// A YAML-shaped tree: what a YAML document can hold, with install-config's field names.
#[derive(Debug, Clone)]
enum Tree {
    Scalar(String),
    Seq(Vec<Tree>),
    Map(Vec<(String, Tree)>),
}

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        (0..SCALARS.len()).prop_map(|i| SCALARS[i].to_string()),
        "[a-z0-9.:/-]{0,16}",
        "(10|192|fd00|::)[0-9.:/]{0,14}",
        // Any text, quoted as a YAML double-quoted scalar (JSON's quoting is one).
        any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap()),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0..FIELDS.len()).prop_map(|i| FIELDS[i].to_string()),
        1 => "[a-zA-Z]{1,8}",
    ]
}

fn tree() -> impl Strategy<Value = Tree> {
    scalar()
        .prop_map(Tree::Scalar)
        .prop_recursive(5, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Tree::Seq),
                prop::collection::vec((key(), inner), 0..6).prop_map(Tree::Map),
            ]
        })
}

/// Writes `tree` as block YAML at `indent` (a value that follows a key or a dash).
fn emit(tree: &Tree, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match tree {
        Tree::Scalar(s) => {
            out.push(' ');
            out.push_str(s);
            out.push('\n');
        }
        Tree::Seq(items) if items.is_empty() => out.push_str(" []\n"),
        Tree::Map(fields) if fields.is_empty() => out.push_str(" {}\n"),
        Tree::Seq(items) => {
            out.push('\n');
            for item in items {
                out.push_str(&pad);
                out.push('-');
                emit(item, indent + 2, out);
            }
        }
        Tree::Map(fields) => {
            out.push('\n');
            for (k, v) in fields {
                out.push_str(&pad);
                out.push_str(k);
                out.push(':');
                emit(v, indent + 2, out);
            }
        }
    }
}

/// A document of `fields` at the top, after `apiVersion: v1`.
fn document(fields: &[(String, Tree)]) -> String {
    let mut out = String::from("apiVersion: v1\n");
    for (k, v) in fields {
        out.push_str(k);
        out.push(':');
        emit(v, 2, &mut out);
    }
    out
}

/// `text` with the value of its `line`-th `key:` line (any depth) replaced by `tree`: a
/// valid config with one subtree spoiled, so that everything around it still checks.
fn graft(text: &str, line: usize, tree: &Tree) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let keyed: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            let t = lines[i].trim_start().trim_start_matches("- ");
            t.contains(':') && !t.starts_with('#')
        })
        .collect();
    if keyed.is_empty() {
        return text.to_string();
    }
    let at = keyed[line % keyed.len()];
    let indent = |l: &str| l.len() - l.trim_start().len();
    let own = indent(lines[at]);
    let end = (at + 1..lines.len())
        .find(|&i| !lines[i].trim().is_empty() && indent(lines[i]) <= own)
        .unwrap_or(lines.len());
    let head = lines[at];
    let colon = head.find(':').unwrap_or(head.len());
    let mut out = lines[..at].join("\n");
    out.push('\n');
    out.push_str(&head[..colon + 1]);
    let dash = usize::from(head.trim_start().starts_with("- ")) * 2;
    emit(tree, own + dash + 2, &mut out);
    out.push_str(&lines[end..].join("\n"));
    out.push('\n');
    out
}

proptest! {

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

    /// Arbitrary bytes in the file itself, read as the binary reads it: text that is not
    /// UTF-8 is refused naming the file, anything else is a config or located errors.
    #[test]
    fn arbitrary_bytes_in_the_file_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("install-config.yaml");
        std::fs::write(&path, &bytes).unwrap();
        check_result(installconfig::load(&path))?;
    }

    #[test]
    fn yaml_shaped_trees_never_panic(fields in prop::collection::vec((key(), tree()), 0..8)) {
        check(&document(&fields))?;
    }

    #[test]
    fn a_subtree_grafted_into_a_valid_config_never_panics(
        f in 0..FIXTURES.len(),
        line in any::<usize>(),
        sub in tree(),
    ) {
        check(&graft(&fixture_text(FIXTURES[f]), line, &sub))?;
    }

    #[test]
    fn random_yaml_like_text_never_panics(text in "([a-zA-Z]{1,8}: ([a-z0-9./]{0,10}|\\[\\]|\\{\\}|-1)\n( {2}- [a-z]{1,5}\n)?){0,8}") {
        check(&format!("apiVersion: v1\n{text}"))?;
    }
}

proptest! {
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
