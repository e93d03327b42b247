//! Reading a file of the asset directory as data, never as a way to somewhere else.
//!
//! Every file okd-install reads from DIR (install-config.yaml, manifests, `.ign` configs, the
//! state, keyfiles) comes through [`read_in_dir`]: a symbolic link that leads out of DIR is
//! refused (a `worker.ign` linked to `/etc/shadow` must not end up in a boot image), only
//! regular files are read (a FIFO or a device would block for ever or feed garbage; they are
//! refused before they are opened, and opened non-blocking in case one appears in between),
//! and the size is capped before the bytes are read. A path the user names explicitly
//! (`--iso`, `--with-secrets`) goes through [`read_named`]/[`open_named`]: links are followed
//! there, since the user asked for that file, but it must still be a regular file.
//!
//! Links inside DIR are fine (a manifest linked to a sibling is still DIR's). The check is for
//! accidents and careless setups, not for an attacker who can race renames inside DIR: such a
//! user can already change DIR's files.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Why an input could not be read. Each message names the file and what to do.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be opened or read (it may not exist: see [`InputError::is_not_found`]).
    #[error("reading {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A symbolic link (the file itself or a directory on its way) leads out of DIR.
    #[error(
        "{} is a symbolic link to {}, outside {}; okd-install reads only files inside the \
         directory: put a copy of the file there instead of the link",
        path.display(), target.display(), dir.display()
    )]
    Outside {
        /// The file as named.
        path: PathBuf,
        /// Where the link leads.
        target: PathBuf,
        /// The asset directory.
        dir: PathBuf,
    },
    /// A directory on the way to an output is a symbolic link leading out of DIR: the output
    /// would land elsewhere (see [`output_dirs_inside`]).
    #[error(
        "{} is a symbolic link to {}, outside {}; okd-install writes its outputs only inside \
         the directory, so it wrote nothing: replace the link with a directory of its own \
         (`rm {} && mkdir {}`, after moving away what you keep there), or give --dir the \
         place you want the outputs in",
        link.display(), target.display(), dir.display(), link.display(), link.display()
    )]
    LinkOut {
        /// The link (DIR joined with the directory as the output path names it).
        link: PathBuf,
        /// Where it leads.
        target: PathBuf,
        /// The asset directory.
        dir: PathBuf,
    },
    /// A FIFO, device, socket or directory where a file was expected.
    #[error("{} is {kind}, not a regular file; put the file itself there", path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What it is ("a directory", "a named pipe (FIFO)", ...).
        kind: &'static str,
    },
    /// Larger than any genuine file of its kind.
    #[error(
        "{} is {size} bytes, more than the {limit} bytes okd-install reads from such a file; \
         is it the right file?",
        path.display()
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The cap for this kind of file.
        limit: u64,
    },
}

impl InputError {
    /// True when the file (or the target of its link) does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, InputError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
    }

    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            InputError::Io { path, .. }
            | InputError::Outside { path, .. }
            | InputError::LinkOut { link: path, .. }
            | InputError::NotRegular { path, .. }
            | InputError::TooLarge { path, .. } => path,
        }
    }

    fn io(path: &Path, source: io::Error) -> InputError {
        InputError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Reads `name` (relative to `dir`, or a path under it) whole, at most `limit` bytes: refused
/// when a link leads out of `dir`, when it is not a regular file, or when it is larger.
pub fn read_in_dir(dir: &Path, name: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let (file, path, size) = open_in_dir(dir, name)?;
    read_capped(file, &path, size, limit)
}

/// Like [`read_in_dir`], with `Ok(None)` when the file does not exist.
pub fn read_in_dir_if_exists(
    dir: &Path,
    name: &Path,
    limit: u64,
) -> Result<Option<Vec<u8>>, InputError> {
    match read_in_dir(dir, name, limit) {
        Ok(data) => Ok(Some(data)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}

/// Opens `name` of `dir` for reading with the checks of [`read_in_dir`] (but no size cap):
/// the file, its path as given, and its size.
pub fn open_in_dir(dir: &Path, name: &Path) -> Result<(File, PathBuf, u64), InputError> {
    let path = dir.join(name);
    let real = inside(dir, &path)?;
    let (file, size) = open_regular(&real, &path)?;
    Ok((file, path, size))
}

/// Reads a file the user named explicitly: links followed, but it must be a regular file of
/// at most `limit` bytes.
pub fn read_named(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let (file, size) = open_named(path)?;
    read_capped(file, path, size, limit)
}

/// Opens a file the user named explicitly (links followed; a regular file only), with its
/// size.
pub fn open_named(path: &Path) -> Result<(File, u64), InputError> {
    let real = fs::canonicalize(path).map_err(|e| InputError::io(path, e))?;
    open_regular(&real, path)
}

/// Checks that an output `rel` of `dir` lands inside `dir`: no directory on its way (`auth/`
/// in `auth/kubeconfig`) may be a symbolic link leading out of `dir`, or the file would be
/// written wherever the link points. Links that stay inside `dir` are fine, and so are
/// directories that do not exist yet (they are made as real directories). The output file
/// itself may be a link: an atomic write replaces the link, it never writes through it.
///
/// DIR itself may be a link: the user named it.
pub fn output_dirs_inside(dir: &Path, rel: &Path) -> Result<(), InputError> {
    let Some(parent) = rel.parent() else {
        return Ok(());
    };
    let mut at = dir.to_path_buf();
    let mut real_dir = None;
    for part in parent.components() {
        at.push(part);
        let meta = match fs::symlink_metadata(&at) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(InputError::io(&at, e)),
        };
        if !meta.file_type().is_symlink() {
            continue;
        }
        let real_dir = match &real_dir {
            Some(real) => real,
            None => real_dir.insert(fs::canonicalize(dir).map_err(|e| InputError::io(dir, e))?),
        };
        let target = link_target(&at)?;
        if !target.starts_with(real_dir) {
            return Err(InputError::LinkOut {
                link: at,
                target,
                dir: dir.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// Where the link `link` leads: resolved when it can be, else (a dangling link, whose
/// target a write would create) its text taken from the link's own directory.
fn link_target(link: &Path) -> Result<PathBuf, InputError> {
    if let Ok(real) = fs::canonicalize(link) {
        return Ok(real);
    }
    let text = fs::read_link(link).map_err(|e| InputError::io(link, e))?;
    let base = link.parent().unwrap_or(Path::new("/"));
    let base = fs::canonicalize(base).unwrap_or_else(|_| base.to_path_buf());
    let mut target = PathBuf::new();
    for part in base.join(text).components() {
        match part {
            std::path::Component::ParentDir => {
                target.pop();
            }
            std::path::Component::CurDir => {}
            other => target.push(other),
        }
    }
    Ok(target)
}

/// Where `path` (under `dir`) really is; an error when that is outside `dir`.
fn inside(dir: &Path, path: &Path) -> Result<PathBuf, InputError> {
    let real_dir = fs::canonicalize(dir).map_err(|e| InputError::io(dir, e))?;
    let real = fs::canonicalize(path).map_err(|e| InputError::io(path, e))?;
    if real.starts_with(&real_dir) {
        Ok(real)
    } else {
        Err(InputError::Outside {
            path: path.to_path_buf(),
            target: real,
            dir: dir.to_path_buf(),
        })
    }
}

/// Opens the already resolved `real` (named `shown` in errors): never a special file, never
/// blocking, never through a link that appeared since it was resolved.
fn open_regular(real: &Path, shown: &Path) -> Result<(File, u64), InputError> {
    let meta = fs::symlink_metadata(real).map_err(|e| InputError::io(shown, e))?;
    refuse_special(&meta.file_type(), shown)?;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(real)
        .map_err(|e| InputError::io(shown, e))?;
    let meta = file.metadata().map_err(|e| InputError::io(shown, e))?;
    refuse_special(&meta.file_type(), shown)?;
    Ok((file, meta.len()))
}

fn refuse_special(kind: &fs::FileType, path: &Path) -> Result<(), InputError> {
    let what = if kind.is_file() {
        return Ok(());
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a symbolic link"
    };
    Err(InputError::NotRegular {
        path: path.to_path_buf(),
        kind: what,
    })
}

fn read_capped(file: File, path: &Path, size: u64, limit: u64) -> Result<Vec<u8>, InputError> {
    let too_large = |size| InputError::TooLarge {
        path: path.to_path_buf(),
        size,
        limit,
    };
    if size > limit {
        return Err(too_large(size));
    }
    let mut data = Vec::with_capacity(size as usize);
    // The size can grow while it is read: take one byte more than allowed to notice it.
    file.take(limit + 1)
        .read_to_end(&mut data)
        .map_err(|e| InputError::io(path, e))?;
    if data.len() as u64 > limit {
        return Err(too_large(data.len() as u64));
    }
    Ok(data)
}

/// Opens `path` for appending (the log), created with `mode` when missing, never through a
/// symbolic link and never a special file.
pub fn open_append_no_follow(path: &Path, mode: u32) -> io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                io::Error::other(format!(
                    "{} is a symbolic link; okd-install does not write through links: \
                     remove it",
                    path.display()
                ))
            } else {
                e
            }
        })?;
    if !file.metadata()?.file_type().is_file() {
        return Err(io::Error::other(format!(
            "{} is not a regular file; remove it",
            path.display()
        )));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn dir_with(name: &str, data: &[u8]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(name), data).unwrap();
        dir
    }

    #[test]
    fn reads_a_regular_file_and_a_link_inside_dir() {
        let dir = dir_with("a.yaml", b"hello");
        symlink("a.yaml", dir.path().join("b.yaml")).unwrap();
        assert_eq!(
            read_in_dir(dir.path(), Path::new("a.yaml"), 10).unwrap(),
            b"hello"
        );
        assert_eq!(
            read_in_dir(dir.path(), Path::new("b.yaml"), 10).unwrap(),
            b"hello"
        );
        assert!(
            read_in_dir_if_exists(dir.path(), Path::new("absent"), 10)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn an_output_through_a_directory_link_out_of_dir_is_refused_naming_link_target_and_fix() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let out = |rel: &str| output_dirs_inside(dir.path(), Path::new(rel));
        // No link, a missing directory, a top-level file: all fine.
        out("auth/kubeconfig").unwrap();
        out("master.ign").unwrap();
        symlink(outside.path(), dir.path().join("auth")).unwrap();
        let err = out("auth/kubeconfig").unwrap_err();
        let real = fs::canonicalize(outside.path()).unwrap();
        assert!(
            matches!(&err, InputError::LinkOut { link, target, .. }
                if *link == dir.path().join("auth") && *target == real),
            "{err}"
        );
        let text = err.to_string();
        assert!(text.contains("wrote nothing"), "{text}");
        assert!(text.contains("mkdir"), "{text}");
        // A link deeper on the way, and a dangling one (a write would create its target).
        fs::create_dir_all(dir.path().join("openshift")).unwrap();
        symlink(outside.path(), dir.path().join("openshift/sub")).unwrap();
        assert!(out("openshift/sub/x.yaml").is_err());
        symlink("../nowhere", dir.path().join("tls")).unwrap();
        let err = out("tls/root-ca.crt").unwrap_err();
        assert!(matches!(err, InputError::LinkOut { .. }), "{err}");
        // Links that stay inside DIR behave as directories.
        fs::create_dir(dir.path().join("real")).unwrap();
        symlink("real", dir.path().join("manifests")).unwrap();
        out("manifests/a.yaml").unwrap();
        symlink("not-yet", dir.path().join("later")).unwrap();
        out("later/a.yaml").unwrap();
    }

    #[test]
    fn a_link_out_of_dir_is_refused_with_its_target() {
        let outside = dir_with("secret", b"root:x:0");
        let dir = tempfile::tempdir().unwrap();
        symlink(outside.path().join("secret"), dir.path().join("worker.ign")).unwrap();
        let err = read_in_dir(dir.path(), Path::new("worker.ign"), 100).unwrap_err();
        assert!(matches!(err, InputError::Outside { .. }), "{err}");
        let text = err.to_string();
        assert!(text.contains("worker.ign is a symbolic link to"), "{text}");
        assert!(text.contains("put a copy of the file there"), "{text}");
        assert!(!text.contains("root:x"), "{text}");
        // A directory link out of DIR is the same thing.
        fs::create_dir(outside.path().join("m")).unwrap();
        fs::write(outside.path().join("m/x.yaml"), b"x").unwrap();
        symlink(outside.path().join("m"), dir.path().join("manifests")).unwrap();
        let err = read_in_dir(dir.path(), Path::new("manifests/x.yaml"), 100).unwrap_err();
        assert!(matches!(err, InputError::Outside { .. }), "{err}");
        // A user naming the file explicitly may use a link.
        assert_eq!(
            read_named(&dir.path().join("worker.ign"), 100).unwrap(),
            b"root:x:0"
        );
    }

    #[test]
    fn special_files_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("install-config.yaml");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let err = read_in_dir(dir.path(), Path::new("install-config.yaml"), 100).unwrap_err();
        assert!(err.to_string().contains("is a named pipe (FIFO)"), "{err}");
        let err = read_named(&fifo, 100).unwrap_err();
        assert!(matches!(err, InputError::NotRegular { .. }), "{err}");
        fs::create_dir(dir.path().join("d.ign")).unwrap();
        let err = read_in_dir(dir.path(), Path::new("d.ign"), 100).unwrap_err();
        assert!(err.to_string().contains("is a directory"), "{err}");
        let err = read_named(Path::new("/dev/zero"), 100).unwrap_err();
        assert!(err.to_string().contains("character device"), "{err}");
    }

    #[test]
    fn sizes_are_capped_before_reading() {
        let dir = dir_with("big", &[b'x'; 101]);
        let err = read_in_dir(dir.path(), Path::new("big"), 100).unwrap_err();
        assert!(
            matches!(
                err,
                InputError::TooLarge {
                    size: 101,
                    limit: 100,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(
            read_in_dir(dir.path(), Path::new("big"), 101)
                .unwrap()
                .len(),
            101
        );
    }

    #[test]
    fn the_log_is_never_appended_through_a_link() {
        let outside = dir_with("victim", b"");
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join(".okd-install.log");
        symlink(outside.path().join("victim"), &log).unwrap();
        let err = open_append_no_follow(&log, 0o600).unwrap_err();
        assert!(err.to_string().contains("is a symbolic link"), "{err}");
        fs::remove_file(&log).unwrap();
        use std::io::Write;
        open_append_no_follow(&log, 0o600)
            .unwrap()
            .write_all(b"a")
            .unwrap();
        open_append_no_follow(&log, 0o600)
            .unwrap()
            .write_all(b"b")
            .unwrap();
        assert_eq!(fs::read(&log).unwrap(), b"ab");
        assert!(fs::read(outside.path().join("victim")).unwrap().is_empty());
    }
}
