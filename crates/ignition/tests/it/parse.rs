//! Reading configs back.

use ignition::{Error, parse};

#[test]
fn errors_name_line_and_column() {
    let err = parse("{\n  \"ignition\": {\"version\": \"3.2.0\"},\n  \"storage\": {\"files\": [{\"path\": 7}]}\n}")
        .unwrap_err();
    match err {
        Error::Parse {
            line,
            column,
            ref message,
        } => {
            assert_eq!(line, 3);
            assert!(column > 0);
            assert!(!message.contains(" at line "), "{message}");
            assert!(
                err.to_string()
                    .starts_with("ignition config, line 3 column"),
                "{err}"
            );
        }
        other => panic!("wrong error {other}"),
    }
    assert!(matches!(parse("{"), Err(Error::Parse { line: 1, .. })));
}

#[test]
fn versions_other_than_3x_are_rejected_and_3x_accepted() {
    let err = parse(r#"{"ignition":{"version":"2.2.0"}}"#).unwrap_err();
    assert!(matches!(err, Error::Version { .. }), "{err}");
    assert!(err.to_string().contains("2.2.0"), "{err}");
    for v in ["3.0.0", "3.1.0", "3.2.0", "3.3.0", "3.4.0"] {
        let parsed = parse(&format!(r#"{{"ignition":{{"version":"{v}"}}}}"#)).unwrap();
        assert_eq!(parsed.version, v);
        assert_eq!(parsed.into_v3_2().is_some(), v == "3.2.0");
    }
}

#[test]
fn unknown_keys_become_warnings() {
    let parsed = parse(r#"{"ignition":{"version":"3.2.0"},"storage":{"filez":[]}}"#).unwrap();
    assert_eq!(parsed.warnings, ["unused key: $.storage.filez"]);
}
