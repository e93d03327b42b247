//! Every semantic rule: the valid base passes, each mutation yields exactly its problem.

use ignition::{Config, ProblemKind, check, check_json, gzip_bytes, parse};

const BASE: &str = r#"{
  "ignition": {"version": "3.2.0",
    "config": {"merge": [{"source": "https://api-int.c.example.com:22623/config/master"}]}},
  "passwd": {"users": [{"name": "core", "sshAuthorizedKeys": ["ssh-ed25519 AAAA a"]}]},
  "storage": {
    "files": [
      {"path": "/etc/a", "mode": 420, "overwrite": true,
       "contents": {"source": "data:text/plain;charset=utf-8;base64,aGVsbG8K"}},
      {"path": "/etc/motd", "mode": 420, "append": [{"source": "data:,hello%20world%0A"}]},
      {"path": "/etc/remote", "contents": {"source": "https://example.com/x"}}
    ],
    "directories": [{"path": "/etc/d", "mode": 493}],
    "links": [{"path": "/etc/l", "target": "/etc/a"}]
  },
  "systemd": {"units": [
    {"name": "a.service", "enabled": true, "contents": "[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n"},
    {"name": "b.service", "dropins": [{"name": "10-x.conf", "contents": "[Service]\n"}]},
    {"name": "c.socket", "mask": true}
  ]}
}"#;

fn base() -> Config {
    parse(BASE).unwrap().into_v3_2().unwrap()
}

/// Apply `change` to the base and return the problem kinds with their locations.
fn problems(change: impl FnOnce(&mut Config)) -> Vec<(String, ProblemKind)> {
    let mut config = base();
    change(&mut config);
    check(&config)
        .into_iter()
        .map(|p| (p.location, p.kind))
        .collect()
}

fn file(config: &mut Config, i: usize) -> &mut ignition_config::v3_2::File {
    &mut config.storage.as_mut().unwrap().files.as_mut().unwrap()[i]
}

fn unit(config: &mut Config, i: usize) -> &mut ignition_config::v3_2::Unit {
    &mut config.systemd.as_mut().unwrap().units.as_mut().unwrap()[i]
}

fn users(config: &mut Config) -> &mut Vec<ignition_config::v3_2::User> {
    config.passwd.as_mut().unwrap().users.as_mut().unwrap()
}

fn one(location: &str, kind: ProblemKind) -> Vec<(String, ProblemKind)> {
    vec![(location.to_string(), kind)]
}

#[test]
fn valid_base_has_no_problems() {
    assert_eq!(check(&base()), vec![]);
    assert_eq!(check_json(BASE), vec![]);
}

#[test]
fn version_must_be_3_2_0() {
    let got = problems(|c| c.ignition.version = Some("3.1.0".into()));
    assert_eq!(
        got,
        one(
            "ignition.version",
            ProblemKind::WrongVersion("3.1.0".into())
        )
    );
    let json = BASE.replace("\"3.2.0\"", "\"3.4.0\"");
    let got = check_json(&json);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].kind, ProblemKind::WrongVersion("3.4.0".into()));
}

#[test]
fn unparsable_text_is_one_problem() {
    let got = check_json("{\"ignition\": ");
    assert_eq!(got.len(), 1);
    assert!(matches!(got[0].kind, ProblemKind::Unparsable(_)));
    assert!(got[0].to_string().contains("line 1"), "{}", got[0]);
}

#[test]
fn paths_must_be_absolute_and_normalized() {
    let got = problems(|c| file(c, 0).path = "etc/a".into());
    assert_eq!(
        got,
        one(
            "storage.files[0].path",
            ProblemKind::RelativePath("etc/a".into())
        )
    );
    for bad in ["/etc//a", "/etc/./a", "/etc/../a", "/etc/a/"] {
        let got = problems(|c| file(c, 0).path = bad.into());
        assert_eq!(
            got,
            one(
                "storage.files[0].path",
                ProblemKind::UnnormalizedPath(bad.into())
            )
        );
    }
}

#[test]
fn paths_must_be_unique_across_files_directories_and_links() {
    let got = problems(|c| file(c, 2).path = "/etc/a".into());
    let dup = ProblemKind::DuplicatePath {
        path: "/etc/a".into(),
        first: "storage.files[0]".into(),
    };
    assert_eq!(got, one("storage.files[2].path", dup));
    let got = problems(|c| {
        c.storage.as_mut().unwrap().links.as_mut().unwrap()[0].path = "/etc/d".into();
    });
    let dup = ProblemKind::DuplicatePath {
        path: "/etc/d".into(),
        first: "storage.directories[0]".into(),
    };
    assert_eq!(got, one("storage.links[0].path", dup));
}

#[test]
fn modes_must_be_plain_permission_bits() {
    let got = problems(|c| file(c, 0).mode = Some(0o10000));
    assert_eq!(
        got,
        one("storage.files[0].mode", ProblemKind::ModeOutOfRange(4096))
    );
    let got = problems(|c| file(c, 0).mode = Some(-1));
    assert_eq!(
        got,
        one("storage.files[0].mode", ProblemKind::ModeOutOfRange(-1))
    );
    assert_eq!(problems(|c| file(c, 0).mode = Some(0o777)), vec![]);
    let got = problems(|c| file(c, 0).mode = Some(0o4755));
    assert_eq!(
        got,
        one(
            "storage.files[0].mode",
            ProblemKind::SpecialModeBits(0o4755)
        )
    );
    let got = problems(|c| {
        c.storage.as_mut().unwrap().directories.as_mut().unwrap()[0].mode = Some(0o20000);
    });
    assert_eq!(
        got,
        one(
            "storage.directories[0].mode",
            ProblemKind::ModeOutOfRange(0o20000)
        )
    );
}

#[test]
fn overwrite_needs_contents() {
    let got = problems(|c| file(c, 1).overwrite = Some(true));
    assert_eq!(
        got,
        one(
            "storage.files[1].overwrite",
            ProblemKind::OverwriteWithoutContents
        )
    );
}

#[test]
fn data_urls_must_decode() {
    let set = |s: &str| {
        let s = s.to_string();
        move |c: &mut Config| file(c, 0).contents.as_mut().unwrap().source = Some(s)
    };
    for bad in ["data:;base64,@@@", "data:text/plain", "data:,100%"] {
        let got = problems(set(bad));
        assert_eq!(got.len(), 1, "{bad}");
        assert_eq!(got[0].0, "storage.files[0].contents.source");
        assert!(matches!(got[0].1, ProblemKind::BadDataUrl(_)), "{bad}");
    }
    let got = problems(|c| {
        file(c, 1).append.as_mut().unwrap()[0].source = Some("data:,%G0".into());
    });
    assert_eq!(got[0].0, "storage.files[1].append[0].source");
    let got = problems(set("ftp://example.com/x"));
    assert_eq!(
        got,
        one(
            "storage.files[0].contents.source",
            ProblemKind::UnsupportedScheme("ftp".into())
        )
    );
    let got = problems(|c| {
        c.ignition.config.as_mut().unwrap().merge.as_mut().unwrap()[0].source =
            Some("data:;base64,!".into());
    });
    assert_eq!(got[0].0, "ignition.config.merge[0].source");
}

#[test]
fn compression_must_be_gzip_and_decompress() {
    let got = problems(|c| file(c, 0).contents.as_mut().unwrap().compression = Some("xz".into()));
    assert_eq!(
        got,
        one(
            "storage.files[0].contents.compression",
            ProblemKind::BadCompression("xz".into())
        )
    );
    let got = problems(|c| file(c, 0).contents.as_mut().unwrap().compression = Some("gzip".into()));
    assert_eq!(got.len(), 1);
    assert!(matches!(got[0].1, ProblemKind::NotGzip(_)));
    let gz = ignition::encode_data_url(&gzip_bytes(b"hello\n"));
    let got = problems(|c| {
        let contents = file(c, 0).contents.as_mut().unwrap();
        contents.compression = Some("gzip".into());
        contents.source = Some(gz);
    });
    assert_eq!(got, vec![]);
}

#[test]
fn unit_rules() {
    let got = problems(|c| unit(c, 1).name = "a.service".into());
    assert_eq!(
        got,
        one(
            "systemd.units[1].name",
            ProblemKind::DuplicateUnit("a.service".into())
        )
    );
    let got = problems(|c| unit(c, 2).name = "c.sock".into());
    assert_eq!(
        got,
        one(
            "systemd.units[2].name",
            ProblemKind::BadUnitName("c.sock".into())
        )
    );
    let got = problems(|c| unit(c, 1).enabled = Some(true));
    assert_eq!(
        got,
        one(
            "systemd.units[1].contents",
            ProblemKind::EnabledWithoutContents("b.service".into())
        )
    );
    let got = problems(|c| unit(c, 0).contents = Some("[Service]\nExecStart=/bin/true\n".into()));
    assert_eq!(
        got,
        one(
            "systemd.units[0].contents",
            ProblemKind::EnabledWithoutInstall("a.service".into())
        )
    );
    let got = problems(|c| {
        unit(c, 0).contents = Some("[Service]\n".into());
        unit(c, 0).dropins = Some(vec![ignition_config::v3_2::Dropin {
            name: "install.conf".into(),
            contents: Some("[Install]\nWantedBy=multi-user.target\n".into()),
        }]);
    });
    assert_eq!(got, vec![], "an [Install] section in a drop-in counts");
}

#[test]
fn dropin_rules() {
    let got = problems(|c| unit(c, 1).dropins.as_mut().unwrap()[0].name = "10-x".into());
    assert_eq!(
        got,
        one(
            "systemd.units[1].dropins[0].name",
            ProblemKind::DropinNotConf("10-x".into())
        )
    );
    let got = problems(|c| {
        let dropins = unit(c, 1).dropins.as_mut().unwrap();
        dropins.push(dropins[0].clone());
    });
    assert_eq!(
        got,
        one(
            "systemd.units[1].dropins[1].name",
            ProblemKind::DuplicateDropin("10-x.conf".into())
        )
    );
}

#[test]
fn user_rules() {
    let got = problems(|c| users(c)[0].name = String::new());
    assert_eq!(got, one("passwd.users[0].name", ProblemKind::EmptyUserName));
    let got = problems(|c| {
        let u = users(c);
        u.push(u[0].clone());
    });
    assert_eq!(
        got,
        one(
            "passwd.users[1].name",
            ProblemKind::DuplicateUser("core".into())
        )
    );
}

#[test]
fn all_problems_are_collected() {
    let got = problems(|c| {
        file(c, 0).path = "rel".into();
        file(c, 0).mode = Some(0o77777);
        unit(c, 0).name = "x".into();
    });
    assert_eq!(got.len(), 3, "{got:?}");
}
