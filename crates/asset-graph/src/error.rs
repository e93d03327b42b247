//! The one error type of the crate.
//!
//! Every message names the asset, file or path involved and says what the user (or the
//! programmer wiring the graph) can do about it.

use std::path::PathBuf;

use crate::reserved::LOCK_FILE;

/// Boxed error returned by asset generators and loaders.
///
/// Assets live in other crates with their own error types; boxing keeps the trait object-safe
/// and lets `?` work on any of them.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Everything that can go wrong while building or running an asset graph.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    /// The declared dependencies form a cycle, so no order can generate them.
    #[error("asset dependencies form a cycle: {path}; remove one of these dependencies")]
    Cycle {
        /// The cycle, e.g. `A (a) -> B (b) -> A (a)`.
        path: String,
    },

    /// An asset or target refers to an asset type that was never registered.
    #[error(
        "{asset} depends on {dependency} ({id}), which is not registered in the graph; \
         register it with GraphBuilder::asset or GraphBuilder::input"
    )]
    UnknownDependency {
        /// The asset (or `target <name>`) that declares the dependency.
        asset: String,
        /// Human name of the missing dependency.
        dependency: &'static str,
        /// Stable id of the missing dependency.
        id: &'static str,
    },

    /// Two different types were registered with the same stable id.
    #[error("asset id {id:?} is used by both {first} and {second}; every asset needs its own id")]
    DuplicateId {
        /// The id used twice.
        id: &'static str,
        /// Name of the first type registered with the id.
        first: &'static str,
        /// Name of the second type registered with the id.
        second: &'static str,
    },

    /// Two targets share a name.
    #[error("target {name:?} is defined twice; give every target its own name")]
    DuplicateTarget {
        /// The duplicated name.
        name: String,
    },

    /// The caller asked for a target the graph does not define.
    #[error("unknown target {name:?}; known targets: {known}")]
    UnknownTarget {
        /// The name that was asked for.
        name: String,
        /// Comma-separated list of the defined targets.
        known: String,
    },

    /// An input asset (registered with `GraphBuilder::input`) was not provided before a run.
    #[error("{name} ({id}) must be provided by the caller before the run (Store::provide)")]
    MissingInput {
        /// Human name of the input.
        name: &'static str,
        /// Stable id of the input.
        id: &'static str,
    },

    /// A generator asked for a parent it did not declare in `dependencies()`.
    #[error(
        "{asset} asked for {parent}, which it does not declare; add Dep::of for it to {asset}'s dependencies()"
    )]
    MissingParent {
        /// The asset whose generator asked.
        asset: &'static str,
        /// The undeclared parent.
        parent: &'static str,
    },

    /// An asset's generator failed.
    #[error("failed to generate {asset}")]
    Generate {
        /// Human name of the asset.
        asset: &'static str,
        /// What the generator reported: the source, not part of the message, so that callers
        /// can look for a particular cause in the chain (exit codes) and print it once.
        #[source]
        source: BoxError,
    },

    /// A user-editable asset exists on disk but could not be read back.
    #[error("cannot load {asset} from {}", file.display())]
    Load {
        /// Human name of the asset.
        asset: &'static str,
        /// The file being read when loading failed (the install dir if none was read yet).
        file: PathBuf,
        /// What the loader reported, including how to fix it (the loader knows; this wrapper
        /// adds only which asset and file).
        #[source]
        source: BoxError,
    },

    /// The state file cannot be parsed.
    #[error(
        "state file {} is unusable: {reason}; repair it, or move it away to start over \
         (which generates new keys and certificates)",
        path.display()
    )]
    State {
        /// Path of the state file.
        path: PathBuf,
        /// What is wrong, with the parse position where known.
        reason: String,
    },

    /// A reader ([`crate::State::open`]) found no state file: nothing was generated there.
    #[error("{} does not exist: nothing has been generated in this directory yet", path.display())]
    NoState {
        /// Path of the missing state file.
        path: PathBuf,
    },

    /// The state file holds no value for the asset a reader asked for.
    #[error(
        "state file {} holds no {asset} ({id}); the runs in this directory never generated it",
        path.display()
    )]
    NotStored {
        /// Path of the state file.
        path: PathBuf,
        /// Human name of the asset.
        asset: &'static str,
        /// Stable id of the asset.
        id: &'static str,
    },

    /// A stored value does not deserialize as its asset type.
    #[error(
        "state file {} holds {asset} ({id}) in a form this okd-install cannot read: {reason}; \
         generate it again, or use the release that wrote it",
        path.display()
    )]
    StoredUnreadable {
        /// Path of the state file.
        path: PathBuf,
        /// Human name of the asset.
        asset: &'static str,
        /// Stable id of the asset.
        id: &'static str,
        /// The deserializer's message.
        reason: String,
    },

    /// The state file was written by a release with another state format.
    #[error(
        "state file {} has format version {found}, but this okd-install reads version {supported}; \
         use the release that wrote it",
        path.display()
    )]
    UnsupportedStateVersion {
        /// Path of the state file.
        path: PathBuf,
        /// Version found in the file.
        found: u64,
        /// Version this crate reads and writes.
        supported: u64,
    },

    /// An asset declared a file path that would escape the install dir.
    #[error("{asset} declares the file {}, which is not a plain relative path inside the install dir", path.display())]
    BadFilePath {
        /// Human name of the asset.
        asset: &'static str,
        /// The offending path.
        path: PathBuf,
    },

    /// Two assets of one target want to write the same file.
    #[error("both {first} and {second} write {}; only one asset may own a file", path.display())]
    FileConflict {
        /// The contested relative path.
        path: PathBuf,
        /// The first owner.
        first: &'static str,
        /// The second owner.
        second: &'static str,
    },

    /// Another process (or another open `Store`) holds the install dir's lock.
    #[error(
        "another okd-install run is using {} (it holds the lock on {}); wait for it to finish, \
         then run again. Do not remove any file: the lock is released automatically when that \
         process ends",
        path.display(),
        LOCK_FILE
    )]
    Busy {
        /// The install dir.
        path: PathBuf,
    },

    /// A file of the install dir that must not be read: a link out of it, a FIFO, a device
    /// or a directory where a file belongs, or a file far too large (the message names it
    /// and the fix).
    #[error("{0}")]
    Input(atomic_file::input::InputError),

    /// A filesystem operation failed.
    #[error("{}: {error}", path.display())]
    Io {
        /// The path being read or written.
        path: PathBuf,
        /// The operating system's error, part of the message rather than a source: the path
        /// alone would say nothing.
        error: std::io::Error,
    },
}

impl GraphError {
    /// True when the user has to change a file of the install dir (a link, a special file),
    /// as opposed to a failure of the machine: the binary exits with its input-error code.
    pub fn is_invalid_input(&self) -> bool {
        matches!(self, GraphError::Input(e) if !matches!(e, atomic_file::input::InputError::Io { .. }))
    }

    /// An input that could not be read; plain I/O failures stay [`GraphError::Io`].
    pub(crate) fn input(e: atomic_file::input::InputError) -> Self {
        match e {
            atomic_file::input::InputError::Io { path, source } => GraphError::io(path, source),
            other => GraphError::Input(other),
        }
    }

    /// Wraps an I/O error with the path it happened on.
    pub(crate) fn io(path: impl Into<PathBuf>, error: std::io::Error) -> Self {
        GraphError::Io {
            path: path.into(),
            error: with_fix(error),
        }
    }
}

/// The operating system's error with what to do about it, for the errors whose text says
/// nothing of that: a full disk or quota, a directory where a file belongs, no permission.
fn with_fix(error: std::io::Error) -> std::io::Error {
    use std::io::ErrorKind as K;
    let fix = match error.kind() {
        K::StorageFull | K::QuotaExceeded => {
            "free space on that file system (`df -h`) and run again; files already written \
             stay as they are"
        }
        K::IsADirectory => "a directory is where okd-install keeps a file: move it away",
        K::PermissionDenied => "check the owner and mode of the directory and the file",
        K::ReadOnlyFilesystem => "use a directory on a writable file system",
        _ => return error,
    };
    std::io::Error::new(error.kind(), format!("{error}; {fix}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_disks_and_directories_say_what_to_do() {
        let full = GraphError::io("bootstrap.ign", std::io::Error::from_raw_os_error(28));
        let text = full.to_string();
        assert!(
            text.starts_with("bootstrap.ign: No space left on device"),
            "{text}"
        );
        assert!(text.contains("free space on that file system"), "{text}");
        let dir = GraphError::io("auth/kubeconfig", std::io::Error::from_raw_os_error(21));
        assert!(dir.to_string().contains("move it away"), "{dir}");
        let other = GraphError::io("x", std::io::Error::other("strange"));
        assert_eq!(other.to_string(), "x: strange");
    }
}
