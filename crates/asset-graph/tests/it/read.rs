//! The typed read API ([`State`]): what inspection tools see of a run's stored values.

use asset_graph::{
    Asset, BoxError, Context, Dep, Graph, GraphError, Parents, STATE_FILE, State, Target,
};
use serde::{Deserialize, Serialize};

use crate::assets::{Cert, Config, Root};
use crate::{T0, ctx, open};

/// A stored value whose serde spelling differs from its Rust field name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Renamed {
    #[serde(rename = "certificatePem")]
    cert_pem: String,
}

impl Asset for Renamed {
    const ID: &'static str = "t/renamed";
    const NAME: &'static str = "Renamed";
    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }
    fn generate(_: &Context, _: &Parents) -> Result<Self, BoxError> {
        Ok(Renamed {
            cert_pem: "PEM".into(),
        })
    }
}

/// A reader type that still expects the old spelling of [`Renamed`]'s field, under the
/// same id: what a reader with its own copy of the shape would be after the rename.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct OldSpelling {
    cert_pem: String,
}

impl Asset for OldSpelling {
    const ID: &'static str = Renamed::ID;
    const NAME: &'static str = "Renamed (old spelling)";
    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }
    fn generate(_: &Context, _: &Parents) -> Result<Self, BoxError> {
        Err("only read".into())
    }
}

fn renamed_graph() -> Graph {
    Graph::builder()
        .asset::<Renamed>()
        .target(Target {
            name: "renamed",
            assets: vec![Dep::of::<Renamed>()],
        })
        .build()
        .expect("valid graph")
}

#[test]
fn typed_reads_return_what_the_store_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path(), T0, "alpha");
    store.run("all").unwrap();
    let root = store.get::<Root>().unwrap().token;
    let config = store.get::<Config>().unwrap().clone();
    let cert = store.get::<Cert>().unwrap().serial;
    drop(store);

    let state = State::open(dir.path()).unwrap();
    assert!(!state.is_empty());
    assert_eq!(state.get::<Root>().unwrap().token, root);
    assert_eq!(state.get::<Config>().unwrap(), config);
    assert_eq!(state.find::<Cert>().unwrap().map(|c| c.serial), Some(cert));
}

#[test]
fn a_renamed_field_is_read_through_the_type_and_an_old_spelling_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    asset_graph::Store::open(renamed_graph(), dir.path(), ctx(T0))
        .unwrap()
        .run("renamed")
        .unwrap();
    let state = State::open(dir.path()).unwrap();
    assert_eq!(state.get::<Renamed>().unwrap().cert_pem, "PEM");

    let err = state.get::<OldSpelling>().unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(
            &err,
            GraphError::StoredUnreadable {
                id: "t/renamed",
                ..
            }
        ),
        "{msg}"
    );
    let path = dir.path().join(STATE_FILE);
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("Renamed (old spelling)"), "{msg}");
    assert!(msg.contains("missing field `cert_pem`"), "{msg}");
}

#[test]
fn absent_asset_and_absent_file_are_typed_errors_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let err = State::open(dir.path()).unwrap_err();
    assert!(matches!(err, GraphError::NoState { .. }), "{err}");
    assert!(err.to_string().contains(STATE_FILE), "{err}");

    open(dir.path(), T0, "alpha").run("config").unwrap();
    let state = State::open(dir.path()).unwrap();
    assert!(state.find::<Root>().unwrap().is_none());
    let err = state.get::<Root>().unwrap_err();
    assert!(
        matches!(
            err,
            GraphError::NotStored {
                asset: "Root",
                id: "t/root",
                ..
            }
        ),
        "{err}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains(STATE_FILE) && msg.contains("Root (t/root)"),
        "{msg}"
    );
}

#[test]
fn an_empty_or_foreign_state_file_is_reported_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(STATE_FILE);
    std::fs::write(&path, "{\"version\": 1}").unwrap();
    assert!(State::open(dir.path()).unwrap().is_empty());
    std::fs::write(&path, "{\"version\": 9}").unwrap();
    let err = State::open(dir.path()).unwrap_err();
    assert!(
        matches!(err, GraphError::UnsupportedStateVersion { found: 9, .. }),
        "{err}"
    );
}
