//! Every target that writes into DIR, stopped at every point it can be stopped, then run again:
//! the directory must end exactly as an uninterrupted run leaves it (same files, same bytes,
//! same modes, the same state file), whatever the point.
//!
//! The points are enumerated, not sampled: the process is killed (`SIGKILL`, by the hook of
//! [`atomic_file::fault`]) just before and just after each rename it makes (the journal, each
//! output, the final state, the binary's own files), and once its outputs are staged; and the
//! disk fills up at each rename. A case ends when a run with the next point completes
//! untouched. Every run is deterministic (fixed clock, the committed secrets bundle: no key is
//! generated), so the directories compare byte for byte; the same keys after a kill without
//! a bundle are `crash.rs`'s. The cases run in parallel.
//!
//! Then every directory a target writes into, made a link out of DIR: the run stops before
//! writing anything, naming the link, where it leads and the fix.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use testkit::liveiso::LiveIsoSpec;

use crate::common::{EPOCH, GOLDEN_RELEASE_IMAGE, Run, run, secrets_bundle};
use crate::support::okd;

/// Where a run is stopped.
#[derive(Clone, Copy, Debug)]
enum Stop {
    /// Killed once every output of the store's commit is staged (before its journal).
    Staged,
    /// Killed just before rename N.
    Before(u64),
    /// Killed just after rename N.
    After(u64),
    /// The disk is full from rename N on (0: from the start).
    DiskFull(u64),
}

impl Stop {
    fn env(self) -> (&'static str, u64) {
        use atomic_file::fault::{DISK_FULL_AT_RENAME, KILL_AFTER_RENAMES, KILL_BEFORE_RENAME};
        match self {
            Stop::Staged => (KILL_AFTER_RENAMES, 0),
            Stop::Before(n) => (KILL_BEFORE_RENAME, n),
            Stop::After(n) => (KILL_AFTER_RENAMES, n),
            Stop::DiskFull(n) => (DISK_FULL_AT_RENAME, n),
        }
    }
}

/// One target run from one starting directory.
struct Case {
    name: &'static str,
    /// The starting directory (made once, copied for every point).
    base: PathBuf,
    /// `create` arguments.
    args: Vec<String>,
}

/// Runs `okd-install create ARGS` in `dir` (`--dir .` from inside it, so temporary files are
/// recorded relative to DIR however it is named), deterministic, stopped at `stop`.
fn create(dir: &Path, args: &[String], stop: Option<Stop>) -> Run {
    let mut cmd = okd(Path::new("."));
    cmd.current_dir(dir)
        .env("SOURCE_DATE_EPOCH", EPOCH.to_string())
        .env(
            "OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE",
            GOLDEN_RELEASE_IMAGE,
        );
    if let Some(stop) = stop {
        let (var, n) = stop.env();
        cmd.env(var, n.to_string());
    }
    let args: Vec<&str> = std::iter::once("create")
        .chain(args.iter().map(String::as_str))
        .collect();
    run(cmd, &args)
}

/// `create` arguments of a store target, with the committed bundle.
fn store_args(target: &str, extra: &[&str]) -> Vec<String> {
    let bundle = secrets_bundle().display().to_string();
    [target]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .chain(["--with-secrets".to_string(), bundle])
        .collect()
}

/// Every file below `dir` but the log, with its mode and bytes; links as their text.
fn tree(dir: &Path) -> BTreeMap<String, (u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, (u32, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            walk(root, &path, out);
        } else if rel != ".okd-install.log" {
            let bytes = if meta.file_type().is_symlink() {
                std::fs::read_link(&path)
                    .unwrap()
                    .into_os_string()
                    .into_vec()
            } else {
                std::fs::read(&path).unwrap()
            };
            out.insert(rel, (meta.permissions().mode() & 0o7777, bytes));
        }
    }
}

use std::os::unix::ffi::OsStringExt;

/// Copies the tree `from` (regular files and directories, modes kept) to the new `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().map(Result::unwrap) {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
            let mode = std::fs::metadata(&src).unwrap().permissions().mode();
            std::fs::set_permissions(&dst, std::fs::Permissions::from_mode(mode)).unwrap();
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// What differs between two trees, by path (never the bytes: some are keys).
fn differences(
    want: &BTreeMap<String, (u32, Vec<u8>)>,
    got: &BTreeMap<String, (u32, Vec<u8>)>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (path, (mode, bytes)) in want {
        match got.get(path) {
            None => out.push(format!("{path} missing")),
            Some((m, _)) if m != mode => out.push(format!("{path} mode {m:o}, not {mode:o}")),
            Some((_, b)) if b != bytes => out.push(format!("{path} has other bytes")),
            Some(_) => {}
        }
    }
    for path in got.keys().filter(|p| !want.contains_key(*p)) {
        out.push(format!("{path} is extra"));
    }
    out
}

/// What an uninterrupted run leaves and says.
struct Expected {
    tree: BTreeMap<String, (u32, Vec<u8>)>,
    console: String,
}

/// Stops `case` at `stop` in a fresh copy of its base, runs it again, and compares with
/// `want`. `None` when the run was not stopped (the point lies past its last rename).
fn stop_and_rerun(case: &Case, stop: Stop, want: &Expected) -> Option<Result<(), String>> {
    let tmp = scratch();
    let dir = tmp.path().join("d");
    copy_tree(&case.base, &dir);
    let stopped = create(&dir, &case.args, Some(stop));
    let what = format!("{}: {stop:?}", case.name);
    match stop {
        Stop::DiskFull(_) if stopped.code == 0 => return None,
        Stop::DiskFull(_) if !stopped.stderr.contains("No space left on device") => {
            return Some(Err(format!(
                "{what}: exit {} without saying the disk is full:\n{}",
                stopped.code, stopped.stderr
            )));
        }
        Stop::DiskFull(_) => {}
        _ if stopped.code == 0 => return None,
        _ if stopped.code != asset_graph::CRASH_EXIT => {
            return Some(Err(format!(
                "{what}: exit {}, not killed:\n{}",
                stopped.code, stopped.stderr
            )));
        }
        _ => {}
    }
    let again = create(&dir, &case.args, None);
    if again.code != 0 {
        return Some(Err(format!(
            "{what}: the next run failed (exit {}):\n{}",
            again.code, again.stderr
        )));
    }
    let console = format!("{}{}", again.stdout, again.stderr);
    for line in [
        "edited on disk",
        "edited by hand",
        "edited outside",
        "kept your edited",
    ] {
        // Said by the uninterrupted run too when the case starts from the user's edit.
        if console.contains(line) && !want.console.contains(line) {
            return Some(Err(format!(
                "{what}: the next run took its own files for the user's ({line:?}):\n{console}"
            )));
        }
    }
    let diff = differences(&want.tree, &tree(&dir));
    Some(if diff.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{what}: not what an uninterrupted run writes: {}\n{}",
            diff.join("; "),
            again.stderr
        ))
    })
}

/// Every point of `case`: kills before and after each rename and once staged, a full disk at
/// each rename (the three kinds on three threads). Returns the number of renames of an
/// uninterrupted run and the failures.
fn every_point(case: &Case) -> (u64, Vec<String>) {
    let tmp = scratch();
    let clean = tmp.path().join("d");
    copy_tree(&case.base, &clean);
    let first = create(&clean, &case.args, None).ok(&format!("{}: uninterrupted run", case.name));
    let want = Expected {
        tree: tree(&clean),
        console: format!("{}{}", first.stdout, first.stderr),
    };
    // Each kind: its point before the first rename, if any, and its point at rename N.
    type Kind = (Option<Stop>, fn(u64) -> Stop);
    let kinds: [Kind; 3] = [
        (Some(Stop::Staged), Stop::After),
        (None, Stop::Before),
        (Some(Stop::DiskFull(0)), Stop::DiskFull),
    ];
    let outcomes: Vec<(u64, Vec<String>)> = std::thread::scope(|s| {
        let want = &want;
        let threads: Vec<_> = kinds
            .into_iter()
            .map(|(first, at)| {
                s.spawn(move || {
                    let mut failures: Vec<String> = first
                        .and_then(|stop| stop_and_rerun(case, stop, want))
                        .and_then(Result::err)
                        .into_iter()
                        .collect();
                    let mut n = 0;
                    while let Some(outcome) = stop_and_rerun(case, at(n + 1), want) {
                        failures.extend(outcome.err());
                        n += 1;
                    }
                    (n, failures)
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let renames = outcomes[0].0;
    let mut failures = Vec::new();
    for ((n, f), kind) in outcomes
        .into_iter()
        .zip(["after", "before", "disk full at"])
    {
        if n != renames {
            failures.push(format!(
                "{}: {n} points {kind} a rename, but {renames} renames",
                case.name
            ));
        }
        failures.extend(f);
    }
    (renames, failures)
}

/// A temporary directory, in memory where there is one: every run syncs its files, which a
/// few thousand runs must not wait for (the file system is not what is tested here).
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .unwrap()
}

/// Runs `setup` (lists of `create` arguments, then an edit) in a new directory below `root`.
fn base(root: &Path, name: &str, setup: &[Vec<String>], edit: impl FnOnce(&Path)) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for args in setup {
        create(&dir, args, None).ok(&format!("{name}: setup {args:?}"));
    }
    edit(&dir);
    dir
}

/// The cases: every target, from a fresh directory, plus the runs that replace or keep files
/// (a changed install-config, an edited manifest, an edited output).
fn cases(root: &Path) -> Vec<Case> {
    let compact = || store_args("install-config", &["--from-example", "compact-3-node"]);
    let fresh = base(root, "fresh", &[compact()], |_| {});
    let single = base(
        root,
        "single",
        &[store_args(
            "install-config",
            &["--from-example", "single-node"],
        )],
        |_| {},
    );
    let empty = base(root, "empty", &[], |_| {});
    let renamed = base(
        root,
        "renamed",
        &[compact(), store_args("manifests", &[])],
        |dir| {
            let path = dir.join("install-config.yaml");
            let text = std::fs::read_to_string(&path).unwrap();
            let changed = text.replacen("\n  name: compact\n", "\n  name: renamed\n", 1);
            assert_ne!(text, changed, "no metadata.name: compact in the example");
            std::fs::write(&path, changed).unwrap();
        },
    );
    let edited_manifest = base(
        root,
        "edited-manifest",
        &[compact(), store_args("manifests", &[])],
        |dir| {
            let path = dir.join("manifests/cluster-scheduler-02-config.yml");
            let text = std::fs::read_to_string(&path).unwrap();
            let edited = text.replace("mastersSchedulable: true", "mastersSchedulable: false");
            assert_ne!(text, edited);
            std::fs::write(&path, edited).unwrap();
        },
    );
    let edited_output = base(
        root,
        "edited-output",
        &[compact(), store_args("ignition-configs", &[])],
        |dir| std::fs::write(dir.join("master.ign"), "{\"my\": \"edit\"}\n").unwrap(),
    );
    let case = |name, base: &Path, args| Case {
        name,
        base: base.to_path_buf(),
        args,
    };
    let mut cases = vec![
        case(
            "install-config",
            &empty,
            store_args("install-config", &["--from-example", "compact-3-node"]),
        ),
        case("manifests", &fresh, store_args("manifests", &[])),
        case(
            "manifests over a changed install-config",
            &renamed,
            store_args("manifests", &[]),
        ),
        case(
            "ignition-configs",
            &fresh,
            store_args("ignition-configs", &[]),
        ),
        case(
            "ignition-configs with an edited manifest",
            &edited_manifest,
            store_args("ignition-configs", &[]),
        ),
        case(
            "ignition-configs over an edited master.ign",
            &edited_output,
            store_args("ignition-configs", &[]),
        ),
        case(
            "single-node-ignition-config",
            &single,
            store_args("single-node-ignition-config", &[]),
        ),
        case("pki", &fresh, store_args("pki", &[])),
        case(
            "secrets",
            &fresh,
            store_args("secrets", &["--output-file", "exported.yaml"]),
        ),
    ];
    if testkit::require_tool("xorriso", "xorriso") {
        let configs = base(
            root,
            "configs",
            &[compact(), store_args("ignition-configs", &[])],
            |_| {},
        );
        let iso = LiveIsoSpec::default().build(root, "live.iso");
        let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
        let iso_path = iso.path.display().to_string();
        cases.push(case(
            "live-iso",
            &configs,
            args(&["live-iso", "--role", "worker", "--iso", &iso_path]),
        ));
        cases.push(case(
            "pxe-files",
            &configs,
            args(&[
                "pxe-files",
                "--role",
                "worker",
                "--base-url",
                "http://pxe.example/okd/",
            ]),
        ));
    }
    cases
}

/// Every target, every point, in parallel: each rerun ends as the uninterrupted run did.
#[test]
fn every_target_stopped_at_every_point_is_completed_by_its_next_run() {
    let started = std::time::Instant::now();
    let root = scratch();
    let cases = cases(root.path());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for case in &cases {
            let results = &results;
            s.spawn(move || {
                let (renames, failures) = every_point(case);
                results.lock().unwrap().push((case.name, renames, failures));
            });
        }
    });
    let results = results.into_inner().unwrap();
    let mut failures = Vec::new();
    for (name, renames, f) in &results {
        eprintln!("{name}: {renames} renames, each stopped before, after and on a full disk");
        assert!(*renames >= 1, "{name}: no rename at all");
        failures.extend(f.iter().cloned());
    }
    eprintln!("every point of every target in {:?}", started.elapsed());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The directories (relative, `/`-separated, parents first) holding files of `after` that
/// `before` lacks: every directory the run wrote into.
fn written_dirs(
    before: &BTreeMap<String, (u32, Vec<u8>)>,
    after: &BTreeMap<String, (u32, Vec<u8>)>,
) -> Vec<String> {
    let mut dirs = std::collections::BTreeSet::new();
    for path in after.keys().filter(|p| !before.contains_key(*p)) {
        let mut parent = Path::new(path).parent();
        while let Some(p) = parent.filter(|p| !p.as_os_str().is_empty()) {
            dirs.insert(p.to_string_lossy().into_owned());
            parent = p.parent();
        }
    }
    dirs.into_iter().collect()
}

/// Every directory each target writes into (found from an uninterrupted run, not listed by
/// hand), made a link out of DIR: the run stops with exit 3 before writing anything, naming
/// the link, where it leads and the fix; nothing lands outside and DIR is as it was. The
/// same directory linked to a place inside DIR works as a directory. A boot-media output
/// that is itself a link is replaced, never written through.
#[test]
fn every_directory_a_target_writes_linked_out_of_dir_stops_it_before_it_writes() {
    let root = scratch();
    let compact = store_args("install-config", &["--from-example", "compact-3-node"]);
    let fresh = base(root.path(), "fresh", std::slice::from_ref(&compact), |_| {});
    let single = base(
        root.path(),
        "single",
        &[store_args(
            "install-config",
            &["--from-example", "single-node"],
        )],
        |_| {},
    );
    let mut checked = 0;
    for (base, target) in [
        (&fresh, "manifests"),
        (&fresh, "ignition-configs"),
        (&single, "single-node-ignition-config"),
        (&fresh, "pki"),
    ] {
        let args = store_args(target, &[]);
        let clean = root.path().join(format!("clean-{target}"));
        copy_tree(base, &clean);
        create(&clean, &args, None).ok(target);
        let dirs = written_dirs(&tree(base), &tree(&clean));
        assert!(!dirs.is_empty(), "{target} wrote into no directory");
        for rel in &dirs {
            let tmp = scratch();
            let dir = tmp.path().join("d");
            let outside = tmp.path().join("elsewhere");
            copy_tree(base, &dir);
            std::fs::create_dir(&outside).unwrap();
            let link = dir.join(rel);
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(&outside, &link).unwrap();
            let before = tree(&dir);
            let out =
                create(&dir, &args, None).expect_code(3, &format!("{target}: {rel} linked out"));
            let real = std::fs::canonicalize(&outside).unwrap();
            out.stderr_has(&[
                &format!("{rel} is a symbolic link to {}", real.display()),
                "wrote nothing",
                "mkdir",
            ]);
            assert_eq!(
                std::fs::read_dir(&outside).unwrap().count(),
                0,
                "{target}: something was written through {rel}"
            );
            assert!(
                differences(&before, &tree(&dir)).is_empty(),
                "{target}: DIR changed although {rel} stopped the run: {:?}",
                differences(&before, &tree(&dir))
            );
            checked += 1;
        }
        // Linked inside DIR, the first of them is an ordinary directory.
        let tmp = scratch();
        let dir = tmp.path().join("d");
        copy_tree(base, &dir);
        let first = &dirs[0];
        std::fs::create_dir(dir.join("kept-here")).unwrap();
        std::os::unix::fs::symlink("kept-here", dir.join(first)).unwrap();
        create(&dir, &args, None).ok(&format!("{target}: {first} linked inside DIR"));
        assert!(
            std::fs::read_dir(dir.join("kept-here")).unwrap().count() > 0,
            "{target}: nothing written into {first}'s link inside DIR"
        );
    }
    eprintln!("{checked} directories linked out of DIR");

    // Boot media land at the top of DIR: an output that is a link is replaced, not followed.
    let dir = root.path().join("clean-ignition-configs");
    let outside = root.path().join("someone-elses.ipxe");
    std::fs::write(&outside, "theirs").unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("worker.ipxe")).unwrap();
    let args: Vec<String> = [
        "pxe-files",
        "--role",
        "worker",
        "--base-url",
        "http://pxe.example/",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    create(&dir, &args, None).ok("pxe-files over a linked output");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "theirs");
    assert!(
        std::fs::symlink_metadata(dir.join("worker.ipxe"))
            .unwrap()
            .is_file()
    );
}
