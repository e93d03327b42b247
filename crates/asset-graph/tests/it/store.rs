//! Reuse rules, on-disk overrides, state file and output files.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use asset_graph::{Dep, Event, FileAction, GraphError, LOCK_FILE, STATE_FILE, Source, Store};

use crate::assets::{Cert, Config, Leaf, Opts, full_graph};
use crate::{T0, ctx, generated, open, outcome};

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Every file under `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                out.push(path.strip_prefix(base).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn first_run_generates_everything_and_writes_the_target_files() {
    let dir = tempfile::tempdir().unwrap();
    let report = open(dir.path(), T0, "alpha").run("all").unwrap();
    assert_eq!(
        outcome(&report, "t/opts"),
        (Source::Provided, String::new())
    );
    assert_eq!(
        outcome(&report, "t/root"),
        (Source::Generated, "not in state".into())
    );
    assert_eq!(report.generated().count(), 8);
    assert_eq!(report.written().count(), 4);
    assert!(report.state_written);
    assert_eq!(
        tree(dir.path()),
        [
            STATE_FILE,
            LOCK_FILE,
            "config.json",
            "derived.txt",
            "out/leaf.txt",
            "tls/cert.key"
        ]
    );
    assert_eq!(mode(&dir.path().join("tls/cert.key")), 0o600);
    assert_eq!(mode(&dir.path().join("config.json")), 0o640);
    assert_eq!(mode(&dir.path().join("out")), 0o750);
    assert_eq!(mode(&dir.path().join(STATE_FILE)), 0o600);
}

#[test]
fn unchanged_rerun_generates_nothing_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    open(dir.path(), T0, "alpha").run("all").unwrap();
    let before: Vec<_> = tree(dir.path())
        .iter()
        .map(|f| {
            fs::metadata(dir.path().join(f))
                .unwrap()
                .modified()
                .unwrap()
        })
        .collect();
    let report = open(dir.path(), T0 + 10, "alpha").run("all").unwrap();
    assert_eq!(generated(&report), Vec::<&str>::new(), "{report}");
    assert!(
        report
            .assets
            .iter()
            .all(|a| matches!(a.source, Source::State | Source::Provided))
    );
    assert_eq!(report.written().count(), 0);
    assert_eq!(report.unchanged().count(), 4);
    assert!(!report.state_written);
    let after: Vec<_> = tree(dir.path())
        .iter()
        .map(|f| {
            fs::metadata(dir.path().join(f))
                .unwrap()
                .modified()
                .unwrap()
        })
        .collect();
    assert_eq!(before, after);
}

#[test]
fn on_disk_edit_wins_and_regenerates_every_dependant() {
    let dir = tempfile::tempdir().unwrap();
    open(dir.path(), T0, "alpha").run("all").unwrap();
    let edited = "{\"name\": \"alpha\", \"replicas\": 5}";
    fs::write(dir.path().join("config.json"), edited).unwrap();

    let report = open(dir.path(), T0, "alpha").run("all").unwrap();
    assert_eq!(
        outcome(&report, "t/config"),
        (Source::Disk, "edited on disk".into())
    );
    assert_eq!(
        outcome(&report, "t/derived"),
        (Source::Generated, "input Config changed".into())
    );
    assert_eq!(
        outcome(&report, "t/deep"),
        (Source::Generated, "input Derived changed".into())
    );
    assert_eq!(generated(&report), ["t/derived", "t/deep"]);
    // The user's file is the input: left exactly as written.
    assert_eq!(
        fs::read_to_string(dir.path().join("config.json")).unwrap(),
        edited
    );
    let config = report
        .files
        .iter()
        .find(|f| f.path == Path::new("config.json"))
        .unwrap();
    assert_eq!(config.action, FileAction::Kept);
    assert_eq!(
        fs::read_to_string(dir.path().join("derived.txt")).unwrap(),
        "alpha x5\n"
    );

    // The next run sees the same edit again: nothing changes any more.
    let again = open(dir.path(), T0, "alpha").run("all").unwrap();
    assert_eq!(generated(&again), Vec::<&str>::new(), "{again}");
    assert_eq!(outcome(&again, "t/config").0, Source::State);
    assert_eq!(
        fs::read_to_string(dir.path().join("config.json")).unwrap(),
        edited
    );
}

#[test]
fn identical_on_disk_copy_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    open(dir.path(), T0, "alpha").run("all").unwrap();
    // Same content, other formatting: still the same value.
    fs::write(
        dir.path().join("config.json"),
        "{\"replicas\":3,\"name\":\"alpha\"}",
    )
    .unwrap();
    let report = open(dir.path(), T0, "alpha").run("all").unwrap();
    assert_eq!(generated(&report), Vec::<&str>::new(), "{report}");
    assert_eq!(outcome(&report, "t/config"), (Source::State, String::new()));
    assert_eq!(
        fs::read_to_string(dir.path().join("config.json")).unwrap(),
        "{\"replicas\":3,\"name\":\"alpha\"}"
    );
}

#[test]
fn user_file_found_before_the_first_run_is_used() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("config.json"),
        "{\"name\": \"mine\", \"replicas\": 1}",
    )
    .unwrap();
    let mut store = open(dir.path(), T0, "alpha");
    let report = store.run("config").unwrap();
    assert_eq!(
        outcome(&report, "t/config"),
        (Source::Disk, "found on disk".into())
    );
    assert_eq!(store.get::<Config>().unwrap().name, "mine");
    drop(store);
    // A changed option does not replace the user's own file.
    let report = open(dir.path(), T0, "beta").run("all").unwrap();
    assert_eq!(outcome(&report, "t/config").0, Source::State);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("kept Config from your files")),
        "{report}"
    );
}

#[test]
fn unreadable_user_file_is_a_load_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("config.json"), "{\"name\": 1}").unwrap();
    let err = open(dir.path(), T0, "alpha").run("config").unwrap_err();
    assert!(
        matches!(
            err,
            GraphError::Load {
                asset: "Config",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("config.json"), "{err}");
}

#[test]
fn refresh_reason_regenerates_the_asset_and_its_dependants_only() {
    let dir = tempfile::tempdir().unwrap();
    open(dir.path(), T0, "alpha").run("all").unwrap();
    let old_key = fs::read_to_string(dir.path().join("tls/cert.key")).unwrap();
    // Inside the margin: LIFETIME - MARGIN seconds later the cert must be renewed.
    let later = T0 + Cert::LIFETIME - Cert::MARGIN;
    let report = open(dir.path(), later, "alpha").run("all").unwrap();
    assert_eq!(
        outcome(&report, "t/cert"),
        (Source::Generated, "expires within 60 s".into())
    );
    assert_eq!(
        outcome(&report, "t/cert-user"),
        (Source::Generated, "input Cert changed".into())
    );
    assert_eq!(generated(&report), ["t/cert", "t/cert-user"]);
    assert_ne!(
        fs::read_to_string(dir.path().join("tls/cert.key")).unwrap(),
        old_key
    );
    let key = report
        .files
        .iter()
        .find(|f| f.path == Path::new("tls/cert.key"))
        .unwrap();
    assert_eq!(key.action, FileAction::Written { backup: None });
}

#[test]
fn provided_value_change_regenerates_its_dependants() {
    let dir = tempfile::tempdir().unwrap();
    open(dir.path(), T0, "alpha").run("all").unwrap();
    let report = open(dir.path(), T0, "beta").run("all").unwrap();
    assert_eq!(
        outcome(&report, "t/leaf"),
        (Source::Generated, "input Opts changed".into())
    );
    assert_eq!(outcome(&report, "t/config").1, "input Opts changed");
    assert_eq!(
        generated(&report),
        ["t/leaf", "t/config", "t/derived", "t/deep"]
    );
    assert!(
        fs::read_to_string(dir.path().join("out/leaf.txt"))
            .unwrap()
            .starts_with("beta ")
    );
    // config.json was ours and unchanged on disk, so it is simply replaced.
    assert!(report.warnings.is_empty(), "{report}");
}

#[test]
fn missing_input_is_an_error_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(full_graph(), dir.path(), ctx(T0)).unwrap();
    let err = store.run("all").unwrap_err();
    assert!(
        matches!(err, GraphError::MissingInput { id: "t/opts", .. }),
        "{err}"
    );
    assert!(!dir.path().join(STATE_FILE).exists());
}

#[test]
fn user_edited_output_is_preserved_before_rewrite() {
    let dir = tempfile::tempdir().unwrap();
    open(dir.path(), T0, "alpha").run("all").unwrap();
    let leaf = dir.path().join("out/leaf.txt");
    let ours = fs::read_to_string(&leaf).unwrap();
    fs::write(&leaf, "my notes\n").unwrap();

    let report = open(dir.path(), T0 + 5, "alpha").run("all").unwrap();
    let backup = Path::new("out").join(format!("leaf.txt.user-edit-{}", T0 + 5));
    let file = report
        .files
        .iter()
        .find(|f| f.path == Path::new("out/leaf.txt"))
        .unwrap();
    assert_eq!(
        file.action,
        FileAction::Written {
            backup: Some(backup.clone())
        }
    );
    assert_eq!(
        fs::read_to_string(dir.path().join(&backup)).unwrap(),
        "my notes\n"
    );
    assert_eq!(fs::read_to_string(&leaf).unwrap(), ours);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("leaf.txt.user-edit-")),
        "{report}"
    );
    assert_eq!(generated(&report), Vec::<&str>::new());
}

#[test]
fn state_file_is_private_atomic_and_keeps_untouched_entries() {
    let dir = tempfile::tempdir().unwrap();
    open(dir.path(), T0, "alpha").run("all").unwrap();
    let state = dir.path().join(STATE_FILE);
    fs::set_permissions(&state, fs::Permissions::from_mode(0o644)).unwrap();
    // Force a rewrite, then check mode, leftovers and content.
    let report = open(dir.path(), T0, "beta").run("config").unwrap();
    assert!(report.state_written);
    assert_eq!(mode(&state), 0o600);
    assert!(tree(dir.path()).iter().all(|f| !f.contains(".okd-tmp-")));
    let json: serde_json::Value = serde_json::from_slice(&fs::read(&state).unwrap()).unwrap();
    assert_eq!(json["version"], 1);
    let assets = json["assets"].as_object().unwrap();
    // "config" only touches Opts and Config; the others from the first run are kept.
    for id in ["t/root", "t/leaf", "t/cert", "t/unrelated", "t/config"] {
        assert!(assets.contains_key(id), "{id} missing from state");
    }
    assert!(
        !assets.contains_key("t/opts"),
        "provided values are not stored"
    );
    assert_eq!(assets["t/config"]["value"]["name"], "beta");
    assert_eq!(json["files"]["config.json"].as_str().unwrap().len(), 64);
    for key in ["input", "content", "value"] {
        assert!(assets["t/root"].get(key).is_some(), "{key}");
    }
}

#[test]
fn unknown_state_version_and_corrupt_state_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join(STATE_FILE);
    fs::write(&state, "{\"version\": 2, \"assets\": {}}").unwrap();
    let err = Store::open(full_graph(), dir.path(), ctx(T0))
        .err()
        .unwrap();
    assert!(
        matches!(
            err,
            GraphError::UnsupportedStateVersion {
                found: 2,
                supported: 1,
                ..
            }
        ),
        "{err}"
    );

    fs::write(&state, "{\"version\": 1, \"assets\": ").unwrap();
    let err = Store::open(full_graph(), dir.path(), ctx(T0))
        .err()
        .unwrap();
    let msg = err.to_string();
    assert!(msg.contains(&state.display().to_string()), "{msg}");
    assert!(msg.contains("line 1 column"), "{msg}");
    // The broken file is left for the user to inspect.
    assert_eq!(
        fs::read_to_string(&state).unwrap(),
        "{\"version\": 1, \"assets\": "
    );
}

#[test]
fn unreadable_state_entry_is_regenerated_and_equal_content_stops_the_cascade() {
    use sha2::Digest;
    let dir = tempfile::tempdir().unwrap();
    open(dir.path(), T0, "alpha").run("all").unwrap();
    let state = dir.path().join(STATE_FILE);
    let mut json: serde_json::Value = serde_json::from_slice(&fs::read(&state).unwrap()).unwrap();
    // An entry that no longer fits the type (as after an incompatible upgrade)...
    let bad = serde_json::json!({"token": "not a number"});
    let hash = hex::encode(sha2::Sha256::digest(serde_json::to_vec(&bad).unwrap()));
    json["assets"]["t/root"]["value"] = bad;
    json["assets"]["t/root"]["content"] = hash.into();
    // ...and one edited by hand without fixing its hash.
    json["assets"]["t/unrelated"]["value"]["n"] = 7.into();
    fs::write(&state, serde_json::to_vec(&json).unwrap()).unwrap();

    let report = open(dir.path(), T0, "alpha").run("all").unwrap();
    let (source, reason) = outcome(&report, "t/root");
    assert_eq!(source, Source::Generated);
    assert!(
        reason.starts_with("state entry unreadable: invalid type"),
        "{reason}"
    );
    let (_, reason) = outcome(&report, "t/unrelated");
    assert!(
        reason.contains("does not match its content hash"),
        "{reason}"
    );
    // Seeded regeneration gives Root its old value back, so Leaf and Cert are reused.
    assert_eq!(generated(&report), ["t/root", "t/unrelated"]);
}

#[test]
fn deterministic_runs_are_byte_identical() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    open(a.path(), T0, "alpha").run("all").unwrap();
    let mut store = open(b.path(), T0, "alpha");
    store.set_jobs(1);
    store.run("all").unwrap();
    assert_eq!(tree(a.path()), tree(b.path()));
    for f in tree(a.path()) {
        assert_eq!(
            fs::read(a.path().join(&f)).unwrap(),
            fs::read(b.path().join(&f)).unwrap(),
            "{f}"
        );
    }
}

#[test]
fn one_store_runs_several_targets_and_resolve_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path(), T0, "alpha");
    let report = store.resolve(&[Dep::of::<Leaf>()]).unwrap();
    assert_eq!(generated(&report), ["t/root", "t/leaf"]);
    assert_eq!(tree(dir.path()), [STATE_FILE, LOCK_FILE]);
    assert!(store.get::<Leaf>().unwrap().text.starts_with("alpha "));
    let report = store.run("all").unwrap();
    assert!(
        report.asset("t/root").is_none(),
        "resolved by the earlier call: {report}"
    );
    assert_eq!(report.generated().count(), 6, "{report}");
    assert_eq!(store.get::<Opts>().unwrap().name, "alpha");
}

#[test]
fn observer_sees_plan_generation_and_files() {
    let dir = tempfile::tempdir().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let mut store = open(dir.path(), T0, "alpha");
    store.set_observer(move |e: &Event<'_>| {
        let line = match e {
            Event::Planned { total } => format!("plan {total}"),
            Event::Generating { name, reason } => format!("gen {name} {reason}"),
            Event::Resolved { name, source, .. } => format!("done {name} {source}"),
            Event::File { path, .. } => format!("file {}", path.display()),
        };
        sink.lock().unwrap().push(line);
    });
    store.run("config").unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(
        *seen,
        [
            "plan 2",
            "done Opts provided",
            "gen Config not in state",
            "done Config generated",
            "file config.json",
        ]
    );
}

#[test]
fn user_supplied_values_are_reported_not_refreshed() {
    let dir = tempfile::tempdir().unwrap();
    let mine = "{\"name\": \"alpha\", \"replicas\": 0}";
    fs::write(dir.path().join("config.json"), mine).unwrap();
    for _ in 0..2 {
        let report = open(dir.path(), T0, "alpha").run("config").unwrap();
        assert!(
            report.warnings.iter().any(|w| w
                == "Config (supplied by you): zero replicas cannot run anything; \
                    it is not replaced automatically"),
            "{report}"
        );
        assert_eq!(generated(&report), Vec::<&str>::new());
        assert_eq!(
            fs::read_to_string(dir.path().join("config.json")).unwrap(),
            mine
        );
    }
}

/// A run stopped by invalid input (here a config that does not load) writes no state: the
/// values resolved meanwhile (Root stands for the keys generated in parallel) never reach
/// the disk, and a state from an earlier good run is left as it was.
#[test]
fn a_run_stopped_by_invalid_input_writes_no_state() {
    // With one worker Root resolves first, then Config fails to load.
    let fresh = tempfile::tempdir().unwrap();
    fs::write(fresh.path().join("config.json"), "not json").unwrap();
    let mut store = open(fresh.path(), T0, "alpha");
    store.set_jobs(1);
    let err = store.run("all").unwrap_err();
    assert!(matches!(err, asset_graph::GraphError::Load { .. }), "{err}");
    assert_eq!(tree(fresh.path()), [LOCK_FILE, "config.json"]);
    drop(store);
    // An earlier good run's state stays byte for byte.
    fs::remove_file(fresh.path().join("config.json")).unwrap();
    open(fresh.path(), T0, "alpha").run("all").unwrap();
    let before = fs::read(fresh.path().join(STATE_FILE)).unwrap();
    fs::write(fresh.path().join("config.json"), "not json").unwrap();
    assert!(open(fresh.path(), T0, "alpha").run("all").is_err());
    assert_eq!(fs::read(fresh.path().join(STATE_FILE)).unwrap(), before);
}

#[test]
fn provide_rejects_unregistered_types() {
    let graph = asset_graph::Graph::builder()
        .asset::<Leaf>()
        .input::<Opts>()
        .build();
    assert!(graph.is_err(), "Leaf needs Root");
    let graph = asset_graph::Graph::builder()
        .input::<Opts>()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(graph, dir.path(), ctx(T0)).unwrap();
    let err = store.provide(crate::assets::Root { token: 1 }).unwrap_err();
    assert!(
        err.to_string()
            .contains("Root (t/root), which is not registered"),
        "{err}"
    );
}

/// Writes wherever it is told to, to check that paths are confined to the install dir.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Escaper(String);

impl asset_graph::Asset for Escaper {
    const ID: &'static str = "t/escaper";
    const NAME: &'static str = "Escaper";
    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }
    fn generate(
        _: &asset_graph::Context,
        _: &asset_graph::Parents,
    ) -> Result<Self, asset_graph::BoxError> {
        Ok(Escaper("../outside".into()))
    }
    fn files(&self) -> Vec<asset_graph::File> {
        vec![asset_graph::File::new(&self.0, "x")]
    }
}

#[test]
fn files_outside_the_install_dir_are_refused() {
    let graph = asset_graph::Graph::builder()
        .asset::<Escaper>()
        .target(asset_graph::Target {
            name: "x",
            assets: vec![Dep::of::<Escaper>()],
        })
        .build()
        .unwrap();
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("install");
    let err = Store::open(graph, &dir, ctx(T0))
        .unwrap()
        .run("x")
        .unwrap_err();
    assert!(
        matches!(
            err,
            GraphError::BadFilePath {
                asset: "Escaper",
                ..
            }
        ),
        "{err}"
    );
    assert!(!parent.path().join("outside").exists());
}

#[test]
fn edit_and_input_change_together_keep_the_edit_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    open(dir.path(), T0, "alpha").run("all").unwrap();
    let edited = "{\"name\": \"custom\", \"replicas\": 2}";
    fs::write(dir.path().join("config.json"), edited).unwrap();
    let report = open(dir.path(), T0, "beta").run("all").unwrap();
    assert_eq!(
        outcome(&report, "t/config"),
        (Source::Disk, "edited on disk".into())
    );
    assert!(
        report.warnings.iter().any(|w| w
            == "kept your edited Config although input Opts changed; \
                move its files away to regenerate it"),
        "{report}"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("config.json")).unwrap(),
        edited
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("derived.txt")).unwrap(),
        "custom x2\n"
    );
}

/// Claims `same.txt`; two of these in one target must be refused.
macro_rules! same_file_asset {
    ($ty:ident, $id:literal) => {
        #[derive(Clone, serde::Serialize, serde::Deserialize)]
        struct $ty;
        impl asset_graph::Asset for $ty {
            const ID: &'static str = $id;
            const NAME: &'static str = $id;
            fn dependencies() -> Vec<Dep> {
                Vec::new()
            }
            fn generate(
                _: &asset_graph::Context,
                _: &asset_graph::Parents,
            ) -> Result<Self, asset_graph::BoxError> {
                Ok($ty)
            }
            fn files(&self) -> Vec<asset_graph::File> {
                vec![asset_graph::File::new("same.txt", $id)]
            }
        }
    };
}

same_file_asset!(First, "t/first");
same_file_asset!(Second, "t/second");

#[test]
fn two_assets_owning_one_file_are_refused() {
    let graph = asset_graph::Graph::builder()
        .asset::<First>()
        .asset::<Second>()
        .target(asset_graph::Target {
            name: "x",
            assets: vec![Dep::of::<First>(), Dep::of::<Second>()],
        })
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let err = Store::open(graph, dir.path(), ctx(T0))
        .unwrap()
        .run("x")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "both t/first and t/second write same.txt; only one asset may own a file"
    );
    assert!(!dir.path().join("same.txt").exists());
}

/// One asset id in two releases: version 2 of the generator must replace stored values.
macro_rules! versioned_asset {
    ($ty:ident, $version:literal) => {
        #[derive(Clone, serde::Serialize, serde::Deserialize)]
        struct $ty(u32);
        impl asset_graph::Asset for $ty {
            const ID: &'static str = "t/versioned";
            const NAME: &'static str = "Versioned";
            const VERSION: u32 = $version;
            fn dependencies() -> Vec<Dep> {
                Vec::new()
            }
            fn generate(
                _: &asset_graph::Context,
                _: &asset_graph::Parents,
            ) -> Result<Self, asset_graph::BoxError> {
                Ok($ty($version))
            }
        }
    };
}

versioned_asset!(OldRelease, 1);
versioned_asset!(NewRelease, 2);

#[test]
fn a_new_generator_version_regenerates_stored_values() {
    fn run<T: asset_graph::Asset>(dir: &Path) -> asset_graph::RunReport {
        let graph = asset_graph::Graph::builder().asset::<T>().build().unwrap();
        let mut store = Store::open(graph, dir, ctx(T0)).unwrap();
        store.resolve(&[Dep::of::<T>()]).unwrap()
    }
    let dir = tempfile::tempdir().unwrap();
    run::<OldRelease>(dir.path());
    assert_eq!(
        outcome(&run::<OldRelease>(dir.path()), "t/versioned").0,
        Source::State
    );
    let report = run::<NewRelease>(dir.path());
    assert_eq!(
        outcome(&report, "t/versioned"),
        (
            Source::Generated,
            "generator changed (version 1 -> 2)".into()
        )
    );
    let state = fs::read_to_string(dir.path().join(STATE_FILE)).unwrap();
    assert!(state.contains("\"version\": 2,"), "{state}");
    assert_eq!(
        outcome(&run::<NewRelease>(dir.path()), "t/versioned").0,
        Source::State
    );
}

/// A loadable asset whose loaded value differs from the generated one only in a flag.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Notes {
    text: String,
    from_disk: bool,
}

impl asset_graph::Asset for Notes {
    const ID: &'static str = "t/notes";
    const NAME: &'static str = "Notes";
    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }
    fn generate(
        _: &asset_graph::Context,
        _: &asset_graph::Parents,
    ) -> Result<Self, asset_graph::BoxError> {
        Ok(Notes {
            text: "first\n".into(),
            from_disk: false,
        })
    }
    fn files(&self) -> Vec<asset_graph::File> {
        vec![asset_graph::File::new("notes.txt", self.text.clone())]
    }
    fn load(dir: &asset_graph::Fetcher) -> Result<Option<Self>, asset_graph::BoxError> {
        Ok(dir.read_string("notes.txt")?.map(|text| Notes {
            text,
            from_disk: true,
        }))
    }
}

#[test]
fn untouched_files_of_a_loadable_asset_are_not_an_edit() {
    fn run(dir: &Path) -> asset_graph::RunReport {
        let graph = asset_graph::Graph::builder()
            .asset::<Notes>()
            .target(asset_graph::Target {
                name: "notes",
                assets: vec![Dep::of::<Notes>()],
            })
            .build()
            .unwrap();
        Store::open(graph, dir, ctx(T0))
            .unwrap()
            .run("notes")
            .unwrap()
    }
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(outcome(&run(dir.path()), "t/notes").0, Source::Generated);
    assert_eq!(
        outcome(&run(dir.path()), "t/notes"),
        (Source::State, String::new())
    );
    fs::write(dir.path().join("notes.txt"), "second\n").unwrap();
    assert_eq!(
        outcome(&run(dir.path()), "t/notes"),
        (Source::Disk, "edited on disk".into())
    );
    assert_eq!(outcome(&run(dir.path()), "t/notes").0, Source::State);
}

/// The state a run killed half-way through its commit leaves: the new values and file hashes
/// (the journal), `rel` still holding `old` bytes that the commit was replacing, and one
/// staged temporary file.
fn interrupt_commit(dir: &Path, rel: &str, old: &str) -> String {
    use sha2::Digest;
    fs::write(dir.join(rel), old).unwrap();
    let temp = format!(
        "{}/.okd-tmp-staged",
        Path::new(rel).parent().unwrap().display()
    );
    fs::write(dir.join(&temp), "half of a commit").unwrap();
    let path = dir.join(STATE_FILE);
    let mut state: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    state["superseded"] = serde_json::json!({ rel: hex::encode(sha2::Sha256::digest(old)) });
    state["staged"] = serde_json::json!([temp]);
    fs::write(&path, serde_json::to_vec_pretty(&state).unwrap()).unwrap();
    temp
}

#[test]
fn files_of_an_interrupted_commit_are_ours_and_its_temporary_files_go() {
    let dir = tempfile::tempdir().unwrap();
    open(dir.path(), T0, "alpha").run("all").unwrap();
    let key = dir.path().join("tls/cert.key");
    let old_key = fs::read_to_string(&key).unwrap();
    let later = T0 + Cert::LIFETIME - Cert::MARGIN;
    open(dir.path(), later, "alpha").run("all").unwrap();
    let new_key = fs::read_to_string(&key).unwrap();
    assert_ne!(old_key, new_key);
    let temp = interrupt_commit(dir.path(), "tls/cert.key", &old_key);

    let report = open(dir.path(), later, "alpha").run("all").unwrap();
    let file = report
        .files
        .iter()
        .find(|f| f.path == Path::new("tls/cert.key"))
        .unwrap();
    assert_eq!(
        file.action,
        FileAction::Written { backup: None },
        "{report}"
    );
    assert_eq!(
        generated(&report),
        Vec::<&str>::new(),
        "nothing regenerated"
    );
    assert_eq!(fs::read_to_string(&key).unwrap(), new_key);
    assert!(!dir.path().join(&temp).exists(), "the staged file was left");
    assert!(!tree(dir.path()).iter().any(|f| f.contains(".user-edit-")));
    let state = fs::read_to_string(dir.path().join(STATE_FILE)).unwrap();
    assert!(
        !state.contains("superseded") && !state.contains("\"staged\""),
        "{state}"
    );
}

#[test]
fn a_hand_edit_during_an_interrupted_commit_is_still_the_users() {
    let dir = tempfile::tempdir().unwrap();
    open(dir.path(), T0, "alpha").run("all").unwrap();
    let key = dir.path().join("tls/cert.key");
    let old_key = fs::read_to_string(&key).unwrap();
    let later = T0 + Cert::LIFETIME - Cert::MARGIN;
    open(dir.path(), later, "alpha").run("all").unwrap();
    interrupt_commit(dir.path(), "tls/cert.key", &old_key);
    fs::write(&key, "my own key\n").unwrap();

    let report = open(dir.path(), later + 1, "alpha").run("all").unwrap();
    let file = report
        .files
        .iter()
        .find(|f| f.path == Path::new("tls/cert.key"))
        .unwrap();
    let backup = Path::new("tls").join(format!("cert.key.user-edit-{}", later + 1));
    assert_eq!(
        file.action,
        FileAction::Written {
            backup: Some(backup.clone())
        }
    );
    assert_eq!(
        fs::read_to_string(dir.path().join(backup)).unwrap(),
        "my own key\n"
    );
}

/// Every output is staged before any is renamed: a write that fails (here a file where a
/// directory must be; a full disk alike) leaves every old output in place and no temporary
/// file, and the next run finishes the job without calling anything a hand edit.
#[test]
fn a_failed_write_changes_no_output() {
    let dir = tempfile::tempdir().unwrap();
    open(dir.path(), T0, "alpha").run("all").unwrap();
    let before: Vec<(String, Vec<u8>)> = tree(dir.path())
        .into_iter()
        .filter(|f| f != STATE_FILE && !f.starts_with("out/"))
        .map(|f| {
            let data = fs::read(dir.path().join(&f)).unwrap();
            (f, data)
        })
        .collect();
    let out = dir.path().join("out");
    fs::rename(&out, dir.path().join("out-moved")).unwrap();
    fs::write(&out, "not a directory").unwrap();

    let err = open(dir.path(), T0, "beta").run("all").unwrap_err();
    assert!(err.to_string().contains("out"), "{err}");
    for (f, data) in &before {
        assert_eq!(&fs::read(dir.path().join(f)).unwrap(), data, "{f} changed");
    }
    assert!(!tree(dir.path()).iter().any(|f| f.contains(".okd-tmp-")));

    fs::remove_file(&out).unwrap();
    let report = open(dir.path(), T0, "beta").run("all").unwrap();
    assert!(report.warnings.is_empty(), "{report}");
    assert!(
        fs::read_to_string(dir.path().join("out/leaf.txt"))
            .unwrap()
            .starts_with("beta ")
    );
}

/// A directory of the outputs linked out of the install dir (`tls/` -> elsewhere): the run
/// stops before anything is written, saving no state, naming the link and where it leads;
/// once it is a directory again the same run writes everything.
#[test]
fn an_output_directory_linked_out_of_the_dir_stops_the_run_before_any_write() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("tls")).unwrap();
    let err = open(dir.path(), T0, "alpha").run("all").unwrap_err();
    assert!(
        matches!(
            &err,
            GraphError::Input(atomic_file::input::InputError::LinkOut { .. })
        ),
        "{err}"
    );
    assert!(err.is_invalid_input());
    let text = err.to_string();
    let real = fs::canonicalize(outside.path()).unwrap();
    assert!(
        text.contains(&format!("tls is a symbolic link to {}", real.display())),
        "{text}"
    );
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    let left: Vec<String> = tree(dir.path())
        .into_iter()
        .filter(|f| f != asset_graph::LOCK_FILE)
        .collect();
    // (The walk follows `tls` into the empty directory it leads to.)
    assert!(left.is_empty(), "something was written: {left:?}");
    fs::remove_file(dir.path().join("tls")).unwrap();
    open(dir.path(), T0, "alpha").run("all").unwrap();
    assert!(dir.path().join("tls/cert.key").is_file());
}
