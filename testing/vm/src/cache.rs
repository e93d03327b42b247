//! The VM's parts (initramfs, root disk, live ISO base) kept between runs under a name made
//! of a hash of their inputs, as the real host's root is: a change to any input makes a new
//! one, and a second run only reads it.

use std::fs::File;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::standins::io;
use real_host::Result;

/// Where the VM's parts are kept: `$OKD_VM_CACHE`, else beside the real host's roots.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("OKD_VM_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| real_host::root::cache_dir().join("vm"))
}

/// The first 16 hex digits of a SHA-256 over `inputs`, each one separated from the next.
pub fn key(inputs: &[&[u8]]) -> String {
    let mut hash = Sha256::new();
    for input in inputs {
        hash.update((input.len() as u64).to_le_bytes());
        hash.update(input);
    }
    hex::encode(hash.finalize())[..16].to_string()
}

/// The cached file `name` (made by `make` at the path it is given when absent, then renamed,
/// so an interrupted run never leaves a part a later run would take for a whole one). Runs
/// at the same time wait for each other.
pub fn cached(name: &str, make: impl FnOnce(&Path) -> Result<()>) -> Result<PathBuf> {
    let dir = cache_dir();
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let path = dir.join(name);
    let lock_path = dir.join(".lock");
    let lock = File::create(&lock_path).map_err(io(&lock_path))?;
    lock.lock().map_err(io(&lock_path))?;
    if !path.exists() {
        let partial = dir.join(format!("{name}.partial"));
        let _ = std::fs::remove_file(&partial);
        if let Err(e) = make(&partial) {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
        std::fs::rename(&partial, &path).map_err(io(&path))?;
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_changes_with_any_input_and_with_where_inputs_split() {
        let base = key(&[b"dracut 059", b"ignition 2.14"]);
        assert_eq!(base, key(&[b"dracut 059", b"ignition 2.14"]));
        assert_ne!(base, key(&[b"dracut 060", b"ignition 2.14"]));
        assert_ne!(base, key(&[b"dracut 059ignition", b" 2.14"]));
    }
}
