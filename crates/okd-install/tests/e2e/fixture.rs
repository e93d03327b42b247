//! Every example generated once per test process in deterministic mode, shared by the tests
//! that only read outputs (file sets, golden files, Ignition checks), so the suite pays for
//! each generation once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::common::{
    EPOCH, EXAMPLES, Run, create_at, files_below, ignition_target, secrets_bundle,
};
use crate::golden;

/// One example after `create manifests` and `create ignition-configs` (or the single-node
/// target), both at [`EPOCH`] with the committed secrets bundle.
pub(crate) struct Generated {
    /// `--from-example` name.
    pub example: &'static str,
    /// The asset directory.
    pub dir: PathBuf,
    /// Output of `create manifests`.
    pub manifests_run: Run,
    /// Output of the Ignition target.
    pub ignition_run: Run,
    /// `manifests/` and `openshift/` exactly as `create manifests` wrote them.
    pub manifests: BTreeMap<String, Vec<u8>>,
}

/// Runs the deterministic sequence for `example` in `dir` (which must not exist yet or be
/// empty): `create manifests`, then the Ignition target, without any edit in between.
pub(crate) fn generate(example: &'static str, dir: &Path) -> Generated {
    let manifests_run = create_at(dir, EPOCH, &["manifests", "--from-example", example])
        .ok(&format!("create manifests --from-example {example}"));
    let manifests = files_below(dir)
        .into_iter()
        .filter(|f| f.starts_with("manifests/") || f.starts_with("openshift/"))
        .map(|f| {
            let data = std::fs::read(dir.join(&f)).expect("reading a manifest");
            (f, data)
        })
        .collect();
    let target = ignition_target(example);
    let ignition_run =
        create_at(dir, EPOCH, &[target]).ok(&format!("create {target} for example {example}"));
    Generated {
        example,
        dir: dir.to_path_buf(),
        manifests_run,
        ignition_run,
        manifests,
    }
}

/// All examples, generated in parallel on first use.
pub(crate) fn all() -> &'static [Generated] {
    static ALL: OnceLock<Vec<Generated>> = OnceLock::new();
    ALL.get_or_init(|| {
        ensure_bundle();
        let root = scratch_root();
        std::thread::scope(|s| {
            let handles: Vec<_> = EXAMPLES
                .iter()
                .map(|e| {
                    let dir = root.join(e);
                    s.spawn(move || generate(e, &dir))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("an example failed to generate (see above)"))
                .collect()
        })
    })
}

/// The committed bundle must exist; `cargo xtask golden` mints it when it does not.
fn ensure_bundle() {
    let bundle = secrets_bundle();
    if !bundle.exists() {
        assert!(
            golden::updating(),
            "{} is missing: run `cargo xtask golden` to mint a bundle and refresh the golden files",
            bundle.display()
        );
        golden::mint_bundle();
    }
}

/// The generated example named `name`.
pub(crate) fn example(name: &str) -> &'static Generated {
    all()
        .iter()
        .find(|g| g.example == name)
        .unwrap_or_else(|| panic!("no example {name}"))
}

/// A fresh directory for this process under cargo's per-target scratch space. The shared
/// fixture lives as long as the process, so it cannot be a `TempDir` (statics are never
/// dropped); instead directories of test processes that are gone are removed here.
fn scratch_root() -> PathBuf {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR"));
    if let Ok(entries) = std::fs::read_dir(base) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let stale = name
                .strip_prefix("e2e-examples-")
                .and_then(|pid| pid.parse::<u32>().ok())
                .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists());
            if stale {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let root = base.join(format!("e2e-examples-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("creating the scratch directory");
    root
}
