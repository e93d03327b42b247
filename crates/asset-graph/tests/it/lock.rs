//! The install dir lock: one live `Store` per dir, and the lock file is never input or output.

use std::fs::{self, TryLockError};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use asset_graph::{
    Asset, BoxError, Context, Dep, Fetcher, File, Graph, GraphError, LOCK_FILE, Parents,
    STATE_FILE, Source, Store, Target,
};

use crate::{T0, ctx, open};

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn open_bare(dir: &Path) -> Result<Store, GraphError> {
    Store::open(crate::assets::full_graph(), dir, ctx(T0))
}

/// Asserts that `result` is the Busy error for `dir`, with a message a user can act on.
fn assert_busy(result: Result<Store, GraphError>, dir: &Path) {
    let err = result.err().expect("the second open must fail");
    let msg = err.to_string();
    assert!(
        matches!(&err, GraphError::Busy { path } if path == dir),
        "{msg}"
    );
    assert!(msg.contains(&dir.display().to_string()), "{msg}");
    assert!(msg.contains("another okd-install run"), "{msg}");
    assert!(msg.contains("wait for it"), "{msg}");
    assert!(msg.contains("released automatically"), "{msg}");
}

#[test]
fn a_second_store_is_busy_until_the_first_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = open(dir.path(), T0, "alpha");
    first.run("config").unwrap();
    let state = fs::read(dir.path().join(STATE_FILE)).unwrap();

    assert_busy(open_bare(dir.path()), dir.path());
    // From another thread too: the lock belongs to the open file, not to a thread.
    std::thread::scope(|s| {
        s.spawn(|| assert_busy(open_bare(dir.path()), dir.path()));
    });
    assert_eq!(
        fs::read(dir.path().join(STATE_FILE)).unwrap(),
        state,
        "a refused run must not touch the state"
    );

    drop(first);
    let mut second = open(dir.path(), T0, "alpha");
    let report = second.run("config").unwrap();
    assert_eq!(report.asset("t/config").unwrap().source, Source::State);
}

#[test]
fn stores_in_different_dirs_do_not_block_each_other() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let _first = open_bare(a.path()).unwrap();
    let _second = open_bare(b.path()).unwrap();
}

#[test]
fn a_lock_held_through_another_open_file_blocks_and_is_blocked() {
    let dir = tempfile::tempdir().unwrap();
    let lock_path = dir.path().join(LOCK_FILE);

    // Another holder (flock locks belong to the open file, as for another process).
    let other = fs::File::create(&lock_path).unwrap();
    other.try_lock().unwrap();
    assert_busy(open_bare(dir.path()), dir.path());
    other.unlock().unwrap();

    let store = open_bare(dir.path()).unwrap();
    let probe = fs::File::open(&lock_path).unwrap();
    assert!(
        matches!(probe.try_lock(), Err(TryLockError::WouldBlock)),
        "a live store must hold the lock"
    );
    drop(store);
    probe
        .try_lock()
        .expect("dropping the store releases the lock");
}

#[test]
fn the_lock_file_is_owner_only_and_outlives_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let lock_path = dir.path().join(LOCK_FILE);
    drop(open_bare(dir.path()).unwrap());
    assert!(lock_path.is_file(), "the lock file is never deleted");
    assert_eq!(mode(&lock_path), 0o600);

    // A loose lock file left by someone else is tightened.
    fs::set_permissions(&lock_path, fs::Permissions::from_mode(0o666)).unwrap();
    let _store = open_bare(dir.path()).unwrap();
    assert_eq!(mode(&lock_path), 0o600);
}

#[test]
fn a_missing_install_dir_is_created_private() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("new/install");
    let _store = open_bare(&dir).unwrap();
    assert_eq!(mode(&dir), 0o750);
    assert!(dir.join(LOCK_FILE).is_file());
}

#[test]
fn a_symlink_in_place_of_the_lock_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.txt");
    fs::write(&victim, "keep").unwrap();
    fs::set_permissions(&victim, fs::Permissions::from_mode(0o644)).unwrap();
    std::os::unix::fs::symlink(&victim, dir.path().join(LOCK_FILE)).unwrap();
    let err = open_bare(dir.path())
        .err()
        .expect("must refuse the symlink");
    let msg = err.to_string();
    assert!(matches!(err, GraphError::Io { .. }), "{msg}");
    assert!(msg.contains(LOCK_FILE), "{msg}");
    assert!(msg.contains("symbolic link"), "{msg}");
    assert_eq!(mode(&victim), 0o644);

    // A directory (or a FIFO, which would hang an open for writing) is refused too.
    let other = tempfile::tempdir().unwrap();
    fs::create_dir(other.path().join(LOCK_FILE)).unwrap();
    let msg = open_bare(other.path()).err().unwrap().to_string();
    assert!(msg.contains("not a regular file"), "{msg}");
}

/// A loadable asset listing the user's files at the top of the install dir.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Listing(Vec<String>);

impl Asset for Listing {
    const ID: &'static str = "t/listing";
    const NAME: &'static str = "Listing";
    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }
    fn generate(_: &Context, _: &Parents) -> Result<Self, BoxError> {
        Ok(Listing(Vec::new()))
    }
    fn load(dir: &Fetcher) -> Result<Option<Self>, BoxError> {
        let names: Vec<String> = dir
            .read_dir("")?
            .into_iter()
            .map(|f| f.path.display().to_string())
            .collect();
        Ok((!names.is_empty()).then_some(Listing(names)))
    }
}

#[test]
fn read_dir_never_sees_the_lock_or_state_file() {
    let dir = tempfile::tempdir().unwrap();
    // A state file and a lock file from an earlier run.
    open(dir.path(), T0, "alpha").run("config").unwrap();
    assert!(dir.path().join(STATE_FILE).is_file());
    assert!(dir.path().join(LOCK_FILE).is_file());
    fs::write(dir.path().join("user.txt"), "mine").unwrap();

    let graph = Graph::builder().asset::<Listing>().build().unwrap();
    let mut store = Store::open(graph, dir.path(), ctx(T0)).unwrap();
    let report = store.resolve(&[Dep::of::<Listing>()]).unwrap();
    assert_eq!(report.asset("t/listing").unwrap().source, Source::Disk);
    assert_eq!(
        store.get::<Listing>().unwrap().0,
        ["config.json", "user.txt"]
    );
}

/// Declares an asset whose only file has the given name at the top of the install dir.
macro_rules! squatter {
    ($ty:ident, $id:literal, $file:expr) => {
        #[derive(Clone, serde::Serialize, serde::Deserialize)]
        struct $ty;

        impl Asset for $ty {
            const ID: &'static str = $id;
            const NAME: &'static str = stringify!($ty);
            fn dependencies() -> Vec<Dep> {
                Vec::new()
            }
            fn generate(_: &Context, _: &Parents) -> Result<Self, BoxError> {
                Ok($ty)
            }
            fn files(&self) -> Vec<File> {
                vec![File::new($file, "taken\n")]
            }
        }
    };
}

squatter!(LockSquatter, "t/lock-squatter", LOCK_FILE);
squatter!(StateSquatter, "t/state-squatter", STATE_FILE);
squatter!(NestedLock, "t/nested-lock", format!("sub/{LOCK_FILE}"));

fn run_one<T: Asset>(dir: &Path) -> Result<asset_graph::RunReport, GraphError> {
    let graph = Graph::builder()
        .asset::<T>()
        .target(Target {
            name: "t",
            assets: vec![Dep::of::<T>()],
        })
        .build()
        .unwrap();
    Store::open(graph, dir, ctx(T0))?.run("t")
}

#[test]
fn assets_cannot_write_the_lock_or_state_file() {
    let dir = tempfile::tempdir().unwrap();
    let lock_path = dir.path().join(LOCK_FILE);
    for err in [
        run_one::<LockSquatter>(dir.path()).unwrap_err(),
        run_one::<StateSquatter>(dir.path()).unwrap_err(),
    ] {
        assert!(matches!(err, GraphError::BadFilePath { .. }), "{err}");
    }
    assert_eq!(
        fs::read(&lock_path).unwrap(),
        b"",
        "the lock file is untouched"
    );
    let state = fs::read_to_string(dir.path().join(STATE_FILE)).unwrap();
    assert!(state.starts_with("{\n  \"version\": 1,"), "{state}");

    // The names are reserved only at the top, where the store keeps its own files.
    let report = run_one::<NestedLock>(dir.path()).unwrap();
    assert_eq!(report.written().count(), 1);
    assert_eq!(
        fs::read_to_string(dir.path().join("sub").join(LOCK_FILE)).unwrap(),
        "taken\n"
    );
}
