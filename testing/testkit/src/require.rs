//! Tests that need something this machine may lack (a tool, root, the payload): without it
//! they print a skip line and pass locally, but under `CI=true` they fail, because CI installs
//! everything (`.ci/run`) and a skipped check there would be a check that never runs.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Whether CI runs the tests (`CI=true`).
pub fn in_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// `true` when `present`; otherwise fails the test under CI, or prints `skipping: {missing}`
/// and returns `false` so the caller returns early. `missing` says what is absent and how to
/// get it.
pub fn require(present: bool, missing: &str) -> bool {
    if present {
        return true;
    }
    assert!(!in_ci(), "required under CI=true: {missing}");
    eprintln!("skipping: {missing}");
    false
}

/// Whether `program` is installed (a path, or a name found on `PATH`), by [`require`]; the
/// message names the Debian package that provides it.
pub fn require_tool(program: &str, package: &str) -> bool {
    require(
        find_program(program).is_some(),
        &format!("{program} is not installed (apt-get install {package})"),
    )
}

/// Where `program` is: itself when it contains a `/`, else the first executable of that name
/// in a `PATH` directory.
pub fn find_program(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return is_executable(Path::new(program)).then(|| PathBuf::from(program));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(OsStr::new(program)))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_on_path_and_by_path() {
        let sh = find_program("sh").expect("sh is on PATH");
        assert!(sh.is_absolute() && sh.ends_with("sh"), "{}", sh.display());
        assert_eq!(find_program(sh.to_str().unwrap()), Some(sh));
        assert_eq!(find_program("okd-install-no-such-program"), None);
        let plain = tempfile::NamedTempFile::new().expect("temp file");
        std::fs::set_permissions(plain.path(), std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(
            find_program(plain.path().to_str().unwrap()),
            None,
            "not executable"
        );
    }

    #[test]
    fn a_present_requirement_passes_without_a_message() {
        assert!(require(true, "never printed"));
    }

    #[test]
    fn a_missing_requirement_skips_locally_and_fails_in_ci() {
        let missing = std::panic::catch_unwind(|| require(false, "a test tool"));
        match missing {
            Ok(ran) => assert!(!in_ci() && !ran, "skipped outside CI"),
            Err(_) => assert!(in_ci(), "fails only under CI=true"),
        }
    }
}
