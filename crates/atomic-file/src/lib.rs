//! Replace a file atomically, with exact permission bits; read a file of the asset directory
//! as data ([`input`]: no link out of it, no special file, a size cap).
//!
//! The asset store, `wait-for`'s kubeconfig edit and the binary's own files (copied examples,
//! secrets bundles) all write through [`write`], so a reader, or a crash half-way, never sees
//! a partial file, and a secret is never readable by others for even a moment.

#![deny(missing_docs)]

pub mod fault;
pub mod input;

use std::fs::{self, TryLockError};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// How the temporary files [`write`] makes start: a directory scan can recognise a leftover
/// of an interrupted write by it (the asset store skips such files).
///
/// The process writing a temporary file holds an exclusive `flock` on it for as long as the
/// file lives under this name; the operating system drops the lock when that process ends,
/// however it ends. A later run tells the leftover of a dead run from the file of a live one
/// by that lock alone ([`remove_if_abandoned`]), at once and without guessing from its age.
pub const TEMP_PREFIX: &str = ".okd-tmp-";

/// On a file system without locks, how long a temporary file must have been left alone
/// before it counts as a leftover.
const UNLOCKED_STALE: std::time::Duration = std::time::Duration::from_secs(60);

/// How often creating a temporary file is tried again when a cleaner took the new name
/// for a leftover in the instant before its lock (see [`InFlight::create`]).
const CREATE_ATTEMPTS: usize = 8;

/// Replaces `path` with `data`: a temporary file in the same directory gets the bytes and
/// exactly `mode` (whatever the umask), is synced, renamed over `path`, and the directory is
/// synced so the rename itself survives a crash. The directory must exist.
pub fn write(path: &Path, data: &[u8], mode: u32) -> io::Result<()> {
    write_with(path, mode, |file| file.write_all(data))
}

/// Like [`write`], for contents too large to hold in memory (boot media of a gigabyte):
/// `fill` gets the temporary file, already with `mode`, and may write, seek and patch it in
/// place. When `fill` fails the temporary file is removed and `path` is left as it was.
pub fn write_with<F>(path: &Path, mode: u32, fill: F) -> io::Result<()>
where
    F: FnOnce(&mut fs::File) -> io::Result<()>,
{
    replace(path, mode, Durability::Synced, fill)
}

/// Like [`write_with`], without the syncs: for large outputs that one command remakes (a
/// gigabyte boot ISO, where syncing costs five times the copy). A process that dies, or a
/// Ctrl-C, still leaves the old file or the whole new one; after a power loss the new file
/// may be incomplete, and the command that made it is run again.
pub fn write_with_unsynced<F>(path: &Path, mode: u32, fill: F) -> io::Result<()>
where
    F: FnOnce(&mut fs::File) -> io::Result<()>,
{
    replace(path, mode, Durability::Unsynced, fill)
}

/// Whether a replacement reaches the disk before it counts as done.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Durability {
    Synced,
    Unsynced,
}

fn replace<F>(path: &Path, mode: u32, durability: Durability, fill: F) -> io::Result<()>
where
    F: FnOnce(&mut fs::File) -> io::Result<()>,
{
    stage_with(path, mode, durability, fill)?.commit()
}

/// The first half of [`write`]: the bytes are in a synced temporary file next to `path`, with
/// exactly `mode`, and `path` is untouched until [`Staged::commit`]. For a group of files that
/// must land together: stage them all (a full disk fails here, changing nothing), record what
/// is about to change, then commit each. Dropping a `Staged` removes its temporary file.
pub fn stage(path: &Path, data: &[u8], mode: u32) -> io::Result<Staged> {
    stage_with(path, mode, Durability::Synced, |file| file.write_all(data))
}

/// An empty [`stage`] for bytes that arrive in pieces (a download): write them through
/// [`Staged::file`], then [`Staged::commit`]. Until then the temporary file is locked as
/// every write's is, so a killed run's half download is a leftover the next run removes.
pub fn stage_empty(path: &Path, mode: u32) -> io::Result<Staged> {
    stage_with(path, mode, Durability::Synced, |_| Ok(()))
}

/// A replacement written but not yet in place (see [`stage`]).
pub struct Staged {
    tmp: tempfile::NamedTempFile,
    target: PathBuf,
    durability: Durability,
    in_flight: InFlight,
}

impl std::fmt::Debug for Staged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Staged")
            .field("temp", &self.tmp.path())
            .field("target", &self.target)
            .finish()
    }
}

impl Staged {
    /// The temporary file holding the new bytes (named [`TEMP_PREFIX`]…, next to the target).
    pub fn temp_path(&self) -> &Path {
        self.tmp.path()
    }

    /// The temporary file, to write the bytes of a [`stage_empty`] into. The caller syncs
    /// what it wrote before [`Staged::commit`].
    pub fn file(&self) -> &fs::File {
        self.tmp.as_file()
    }

    /// [`Staged::commit`] under another name than the target (a download cut short kept as
    /// `NAME.partial` beside it).
    pub fn commit_as(mut self, path: &Path) -> io::Result<()> {
        self.target = path.to_path_buf();
        self.commit()
    }

    /// Renames the temporary file over the target and, when synced, syncs the directory so
    /// the rename itself survives a crash.
    pub fn commit(self) -> io::Result<()> {
        let dir = self
            .target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        {
            // Renamed under the lock, so that a signal handler's `abandon_in_flight` either
            // removes the temporary file before the rename or finds it already renamed.
            let mut list = lock();
            fault::before_rename()?;
            self.tmp.persist(&self.target).map_err(|e| e.error)?;
            list.retain(|p| p != &self.in_flight.0);
        }
        fault::renamed();
        match self.durability {
            Durability::Synced => fs::File::open(dir)?.sync_all(),
            Durability::Unsynced => Ok(()),
        }
    }
}

fn stage_with<F>(path: &Path, mode: u32, durability: Durability, fill: F) -> io::Result<Staged>
where
    F: FnOnce(&mut fs::File) -> io::Result<()>,
{
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fault::disk_full_before_stage()?;
    let (mut tmp, in_flight) = InFlight::create(dir)?;
    tmp.as_file()
        .set_permissions(fs::Permissions::from_mode(mode))?;
    fill(tmp.as_file_mut())?;
    if durability == Durability::Synced {
        tmp.as_file().sync_all()?;
    }
    Ok(Staged {
        tmp,
        target: path.to_path_buf(),
        durability,
        in_flight,
    })
}

/// Temporary files of the writes in progress in this process.
static IN_FLIGHT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn lock() -> MutexGuard<'static, Vec<PathBuf>> {
    IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner())
}

/// One temporary file on the in-flight list; taken off it when the write ends either way.
struct InFlight(PathBuf);

impl InFlight {
    /// Creates the temporary file in `dir` and puts it on the list under one hold of the
    /// lock, so that a signal handler's [`abandon_in_flight`] never sees a temporary file
    /// on disk that is not on the list yet (it would be left behind).
    ///
    /// The file is locked ([`TEMP_PREFIX`]) before it counts as created: between its creation
    /// and its lock another run's cleaner may take it for a leftover and remove it, so a
    /// file whose name no longer leads to it once locked is given up and a new one made.
    fn create(dir: &Path) -> io::Result<(tempfile::NamedTempFile, Self)> {
        let mut list = lock();
        for _ in 0..CREATE_ATTEMPTS {
            let tmp = tempfile::Builder::new()
                .prefix(TEMP_PREFIX)
                .tempfile_in(dir)?;
            let locked = match tmp.as_file().try_lock() {
                Ok(()) => true,
                Err(TryLockError::WouldBlock) => continue,
                // A file system without locks: no cleaner can take the file either (its
                // own lock fails the same way), so the write goes on unlocked.
                Err(TryLockError::Error(_)) => false,
            };
            if locked && !names_this_file(tmp.path(), tmp.as_file())? {
                // Removed by a cleaner: dropping `tmp` must not remove another file.
                let _ = tmp.keep();
                continue;
            }
            list.push(tmp.path().to_path_buf());
            let path = tmp.path().to_path_buf();
            return Ok((tmp, InFlight(path)));
        }
        Err(io::Error::other(format!(
            "could not create a temporary file in {} that stayed ours ({CREATE_ATTEMPTS} \
             attempts): another process keeps removing them",
            dir.display()
        )))
    }
}

/// Whether `path` is, right now, the open `file` (same device and inode, links not followed).
fn names_this_file(path: &Path, file: &fs::File) -> io::Result<bool> {
    let open = file.metadata()?;
    Ok(match fs::symlink_metadata(path) {
        Ok(named) => named.dev() == open.dev() && named.ino() == open.ino(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(e),
    })
}

/// Removes the temporary file `path` ([`TEMP_PREFIX`]) when the process that wrote it has
/// ended: nothing holds its lock. Returns whether it was removed. The file of a write still
/// in progress, in this process or any other, is left alone; so is anything but a regular
/// file (a link is not followed, a FIFO not waited on).
pub fn remove_if_abandoned(path: &Path) -> io::Result<bool> {
    let file = match fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Ok(false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    if !file.metadata()?.is_file() {
        return Ok(false);
    }
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => return Ok(false),
        // A file system without locks: only a file nothing wrote to for a while is taken
        // for a leftover (a write in progress touches its file all the time).
        Err(TryLockError::Error(_)) => {
            let age = file.metadata()?.modified()?.elapsed().unwrap_or_default();
            if age < UNLOCKED_STALE {
                return Ok(false);
            }
        }
    }
    // Ours now: its writer is gone, or had not locked it yet and will see it gone.
    if !names_this_file(path, &file)? {
        return Ok(false);
    }
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Removes the temporary files ([`TEMP_PREFIX`]) below `dir` (three levels deep, links not
/// followed) whose writer has ended ([`remove_if_abandoned`]): the leftovers of interrupted
/// writes, removed at once, while the file of a write in progress in another process (a boot
/// ISO being copied) stays. Returns their paths relative to `dir`. Every command that writes
/// into DIR calls it first, so a killed run's leftover goes with the next run of any of them.
pub fn remove_abandoned_below(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    remove_abandoned_in(dir, dir, 3, &mut removed);
    removed
}

/// [`remove_abandoned_below`] for the directory of `path` alone, not below it: before a
/// write to a place of the user's choosing outside DIR (an exported secrets bundle, a
/// downloaded log bundle), whose directory may be a home with much else in it.
pub fn remove_abandoned_beside(path: &Path) -> Vec<PathBuf> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut removed = Vec::new();
    remove_abandoned_in(dir, dir, 1, &mut removed);
    removed.into_iter().map(|p| dir.join(p)).collect()
}

fn remove_abandoned_in(root: &Path, dir: &Path, depth: usize, removed: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() && depth > 1 {
            remove_abandoned_in(root, &path, depth - 1, removed);
            continue;
        }
        let ours = entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX);
        if kind.is_file() && ours && remove_if_abandoned(&path).unwrap_or(false) {
            removed.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        lock().retain(|p| p != &self.0);
    }
}

/// For a process about to exit on a signal (Ctrl-C during a gigabyte ISO copy): removes the
/// temporary file of every write still in progress, which a plain `exit` would leave behind,
/// and holds back their renames for as long as the returned guard lives. Hold it until exit.
pub fn abandon_in_flight() -> MutexGuard<'static, Vec<PathBuf>> {
    let mut list = lock();
    for path in list.drain(..) {
        let _ = fs::remove_file(path);
    }
    list
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::sync::{Mutex, MutexGuard};

    /// `abandon_in_flight` takes every write of the process: the tests run one at a time.
    fn one_at_a_time() -> MutexGuard<'static, ()> {
        static LOCK: Mutex<()> = Mutex::new(());
        LOCK.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[test]
    fn replaces_the_file_with_the_exact_mode_and_leaves_no_temp_file() {
        let _one = one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        super::write(&path, b"first", 0o644).unwrap();
        super::write(&path, b"second", 0o600).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["secret"]);
    }

    #[test]
    fn an_unsynced_replacement_is_as_atomic_and_as_exact() {
        let _one = one_at_a_time();
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("live.iso");
        super::write(&path, b"old", 0o644).unwrap();
        let err = super::write_with_unsynced(&path, 0o600, |f| {
            f.write_all(b"half")?;
            Err(std::io::Error::other("cut"))
        });
        assert!(err.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        super::write_with_unsynced(&path, 0o600, |f| f.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn an_abandoned_write_leaves_no_temp_file_and_never_lands() {
        let _one = one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.iso");
        let (started, go_on) = (std::sync::mpsc::channel(), std::sync::mpsc::channel());
        let writer = {
            let path = path.clone();
            let (started, go_on) = (started.0, go_on.1);
            std::thread::spawn(move || {
                super::write_with(&path, 0o644, |f| {
                    use std::io::Write;
                    f.write_all(b"half of it")?;
                    started.send(()).unwrap();
                    go_on.recv().unwrap();
                    f.write_all(b" and the rest")
                })
            })
        };
        started.1.recv().unwrap();
        let temp_files = || std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(
            temp_files(),
            1,
            "the write in progress has its temporary file"
        );
        let held = super::abandon_in_flight();
        assert_eq!(temp_files(), 0, "the temporary file is gone at once");
        go_on.0.send(()).unwrap();
        drop(held);
        assert!(writer.join().unwrap().is_err(), "the abandoned write fails");
        assert!(!path.exists(), "and never lands");
        assert_eq!(temp_files(), 0);
    }

    #[test]
    fn a_failed_fill_leaves_the_old_file_and_no_temp_file() {
        let _one = one_at_a_time();
        use std::io::{Seek, SeekFrom, Write};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("media.iso");
        super::write_with(&path, 0o644, |f| {
            f.write_all(b"0123456789")?;
            f.seek(SeekFrom::Start(2))?;
            f.write_all(b"ab")
        })
        .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"01ab456789");
        let err = super::write_with(&path, 0o600, |f| {
            f.write_all(b"half")?;
            Err(std::io::Error::other("too large"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "too large");
        assert_eq!(std::fs::read(&path).unwrap(), b"01ab456789");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_staged_file_lands_only_on_commit_and_a_dropped_one_leaves_nothing() {
        let _one = one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("master.ign");
        super::write(&path, b"old", 0o644).unwrap();
        let staged = super::stage(&path, b"new", 0o600).unwrap();
        assert!(staged.temp_path().exists());
        assert_eq!(std::fs::read(&path).unwrap(), b"old", "not in place yet");
        let temp = staged.temp_path().to_path_buf();
        staged.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert!(!temp.exists());
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        drop(super::stage(&path, b"never", 0o600).unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_temp_file_is_removed_once_its_writer_is_gone_and_never_before() {
        let _one = one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bootstrap.ign");
        let staged = super::stage(&path, b"new", 0o600).unwrap();
        let temp = staged.temp_path().to_path_buf();
        assert!(
            !super::remove_if_abandoned(&temp).unwrap(),
            "a write in progress keeps its temporary file"
        );
        assert!(temp.exists());
        staged.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");

        // What a killed run leaves: the file, and no process holding its lock.
        let leftover = dir.path().join(format!("{}dead", super::TEMP_PREFIX));
        std::fs::write(&leftover, "half").unwrap();
        assert!(super::remove_if_abandoned(&leftover).unwrap());
        assert!(!leftover.exists());
        assert!(
            !super::remove_if_abandoned(&leftover).unwrap(),
            "gone already"
        );
    }

    /// A download written in pieces: locked while it lasts, in place on commit or under its
    /// `.partial` name; a dead writer's file beside the target is removed, and only beside
    /// it (a home directory's subdirectories are none of ours).
    #[test]
    fn an_empty_stage_is_written_in_pieces_and_its_leftover_removed_beside_only() {
        use std::io::Write as _;
        let _one = one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log-bundle-1.tar.gz");
        let staged = super::stage_empty(&path, 0o600).unwrap();
        staged.file().write_all(b"part one, ").unwrap();
        staged.file().write_all(b"part two").unwrap();
        assert!(
            super::remove_abandoned_beside(&path).is_empty(),
            "in progress"
        );
        staged.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"part one, part two");

        let partial = dir.path().join("log-bundle-2.tar.gz.partial");
        let staged = super::stage_empty(&dir.path().join("log-bundle-2.tar.gz"), 0o600).unwrap();
        staged.file().write_all(b"half").unwrap();
        staged.commit_as(&partial).unwrap();
        assert_eq!(std::fs::read(&partial).unwrap(), b"half");

        let dead = dir.path().join(format!("{}dead", super::TEMP_PREFIX));
        std::fs::write(&dead, "half").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let below = dir.path().join(format!("sub/{}dead", super::TEMP_PREFIX));
        std::fs::write(&below, "other").unwrap();
        assert_eq!(super::remove_abandoned_beside(&path), vec![dead.clone()]);
        assert!(!dead.exists() && below.exists());
    }

    #[test]
    fn only_regular_files_are_taken_for_leftovers() {
        let _one = one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("keep-me");
        std::fs::write(&outside, "x").unwrap();
        let link = dir.path().join(format!("{}link", super::TEMP_PREFIX));
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert!(!super::remove_if_abandoned(&link).unwrap());
        assert!(link.exists() && outside.exists());
        let fifo = dir.path().join(format!("{}fifo", super::TEMP_PREFIX));
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(
            !super::remove_if_abandoned(&fifo).unwrap(),
            "never waited on"
        );
        assert!(fifo.exists());
    }

    #[test]
    fn a_missing_directory_is_an_error_and_writes_nothing() {
        let _one = one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("absent/file");
        let err = super::write(&path, b"x", 0o600).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
        assert!(!dir.path().join("absent").exists());
    }
}
