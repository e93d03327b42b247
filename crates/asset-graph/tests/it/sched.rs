//! Parallel scheduling: real overlap, dependency order, failures and panics.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use asset_graph::{Asset, BoxError, Context, Dep, Graph, GraphError, Parents, Store, Target};
use serde::{Deserialize, Serialize};

/// Waits until `n` generators are inside this rendezvous at the same time, or fails after
/// a timeout, so a serial scheduler makes the test fail instead of hang.
struct Rendezvous {
    count: Mutex<usize>,
    all_in: Condvar,
}

impl Rendezvous {
    const fn new() -> Self {
        Rendezvous {
            count: Mutex::new(0),
            all_in: Condvar::new(),
        }
    }

    fn meet(&self, n: usize) -> Result<(), BoxError> {
        let mut count = self.count.lock().unwrap();
        *count += 1;
        self.all_in.notify_all();
        let (count, timeout) = self
            .all_in
            .wait_timeout_while(count, Duration::from_secs(10), |c| *c < n)
            .unwrap();
        if timeout.timed_out() {
            return Err(format!("only {} of {n} generators ran at the same time", *count).into());
        }
        Ok(())
    }
}

static MEET: Rendezvous = Rendezvous::new();

macro_rules! meeting_asset {
    ($ty:ident, $id:literal) => {
        #[derive(Clone, Serialize, Deserialize)]
        struct $ty;
        impl Asset for $ty {
            const ID: &'static str = $id;
            const NAME: &'static str = $id;
            fn dependencies() -> Vec<Dep> {
                Vec::new()
            }
            fn generate(_: &Context, _: &Parents) -> Result<Self, BoxError> {
                MEET.meet(2)?;
                Ok($ty)
            }
        }
    };
}

meeting_asset!(SlowA, "p/slow-a");
meeting_asset!(SlowB, "p/slow-b");

#[test]
fn independent_assets_generate_concurrently() {
    let graph = Graph::builder()
        .asset::<SlowA>()
        .asset::<SlowB>()
        .target(Target {
            name: "both",
            assets: vec![Dep::of::<SlowA>(), Dep::of::<SlowB>()],
        })
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(graph, dir.path(), crate::ctx(crate::T0)).unwrap();
    store.set_jobs(2);
    let report = store
        .run("both")
        .expect("both meet only when run in parallel");
    assert_eq!(report.generated().count(), 2);
}

/// Start/end log of the ordering test: (id, started, ended).
static LOG: Mutex<Vec<(&'static str, Instant, Instant)>> = Mutex::new(Vec::new());

macro_rules! logged_asset {
    ($ty:ident, $id:literal, [$($dep:ty),*]) => {
        #[derive(Clone, Serialize, Deserialize)]
        struct $ty;
        impl Asset for $ty {
            const ID: &'static str = $id;
            const NAME: &'static str = $id;
            fn dependencies() -> Vec<Dep> {
                vec![$(Dep::of::<$dep>()),*]
            }
            fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
                let start = Instant::now();
                // Fails unless every declared parent is already resolved.
                let _ = parents;
                $(parents.get::<$dep>()?;)*
                std::thread::sleep(Duration::from_millis(20));
                LOG.lock().unwrap().push(($id, start, Instant::now()));
                Ok($ty)
            }
        }
    };
}

logged_asset!(Top, "o/top", []);
logged_asset!(Left, "o/left", [Top]);
logged_asset!(Right, "o/right", [Top]);
logged_asset!(Join, "o/join", [Left, Right]);
logged_asset!(Alone, "o/alone", []);

#[test]
fn every_asset_starts_after_its_parents_end() {
    let graph = Graph::builder()
        .asset::<Join>()
        .asset::<Left>()
        .asset::<Right>()
        .asset::<Top>()
        .asset::<Alone>()
        .target(Target {
            name: "diamond",
            assets: vec![Dep::of::<Join>(), Dep::of::<Alone>()],
        })
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(graph, dir.path(), crate::ctx(crate::T0)).unwrap();
    store.set_jobs(4);
    let report = store.run("diamond").unwrap();
    let log = LOG.lock().unwrap().clone();
    let span = |id: &str| *log.iter().find(|(i, ..)| *i == id).expect("logged");
    for (child, parent) in [
        ("o/left", "o/top"),
        ("o/right", "o/top"),
        ("o/join", "o/left"),
        ("o/join", "o/right"),
    ] {
        assert!(
            span(child).1 >= span(parent).2,
            "{child} started before {parent} ended"
        );
    }
    // The report lists parents before dependants, whatever the thread timing.
    let ids: Vec<&str> = report.assets.iter().map(|a| a.id).collect();
    let at = |id: &str| ids.iter().position(|i| *i == id).unwrap();
    assert!(
        at("o/top") < at("o/left") && at("o/left") < at("o/join"),
        "{ids:?}"
    );
}

#[derive(Clone, Serialize, Deserialize)]
struct Fails;
impl Asset for Fails {
    const ID: &'static str = "f/fails";
    const NAME: &'static str = "Failing Asset";
    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }
    fn generate(_: &Context, _: &Parents) -> Result<Self, BoxError> {
        Err("the disk is full".into())
    }
}

#[derive(Clone, Serialize, Deserialize)]
struct Panics;
impl Asset for Panics {
    const ID: &'static str = "f/panics";
    const NAME: &'static str = "Panicking Asset";
    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }
    fn generate(_: &Context, _: &Parents) -> Result<Self, BoxError> {
        panic!("bug in the generator")
    }
}

#[derive(Clone, Serialize, Deserialize)]
struct Sneaky;
impl Asset for Sneaky {
    const ID: &'static str = "f/sneaky";
    const NAME: &'static str = "Sneaky";
    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }
    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        parents.get::<Fails>()?;
        Ok(Sneaky)
    }
}

fn single<T: Asset>() -> (tempfile::TempDir, Store) {
    let graph = Graph::builder()
        .asset::<T>()
        .asset::<Fails>()
        .target(Target {
            name: "one",
            assets: vec![Dep::of::<T>()],
        })
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(graph, dir.path(), crate::ctx(crate::T0)).unwrap();
    (dir, store)
}

#[test]
fn generator_error_names_the_asset() {
    let err = single::<Fails>().1.run("one").unwrap_err();
    assert!(
        matches!(
            err,
            GraphError::Generate {
                asset: "Failing Asset",
                ..
            }
        ),
        "{err}"
    );
    // The cause is the source, not repeated in the message, so the chain says it once.
    assert_eq!(err.to_string(), "failed to generate Failing Asset");
    assert_eq!(
        crate::chain(&err),
        "failed to generate Failing Asset: the disk is full"
    );
}

#[test]
fn panicking_generator_is_an_error_not_a_hang() {
    let err = single::<Panics>().1.run("one").unwrap_err();
    let text = crate::chain(&err);
    assert!(text.contains("panicked: bug in the generator"), "{text}");
}

#[test]
fn undeclared_parent_is_reported() {
    let err = single::<Sneaky>().1.run("one").unwrap_err();
    let text = crate::chain(&err);
    assert!(text.contains("Sneaky asked for Failing Asset"), "{text}");
}
