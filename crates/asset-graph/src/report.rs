//! What a run did and why: the [`RunReport`] and the live [`Event`]s for progress display.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

/// Where a resolved value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Reused from the state file.
    State,
    /// Read from the user's files in the install dir.
    Disk,
    /// Produced by the asset's generator in this run.
    Generated,
    /// Injected by the caller with `Store::provide`.
    Provided,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::State => "state",
            Source::Disk => "disk",
            Source::Generated => "generated",
            Source::Provided => "provided",
        })
    }
}

/// Why a value was generated or read from disk instead of reused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// No state entry exists for the asset.
    NotInState,
    /// The content of these parents (human names) changed since the stored value was made.
    /// Empty when the stored entry does not record which parent changed.
    InputChanged(Vec<&'static str>),
    /// The stored value was made by another version of the asset's generator.
    NewVersion {
        /// Version recorded in the state file.
        stored: u32,
        /// Version of the running generator.
        current: u32,
    },
    /// The user's on-disk copy differs from the state copy.
    EditedOnDisk,
    /// The user's on-disk copy was found and the state has none.
    FoundOnDisk,
    /// The asset's own `refresh_reason` (e.g. a certificate near expiry).
    Refresh(String),
    /// The state entry exists but cannot be decoded (e.g. written by an older release).
    StateUnreadable(String),
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::NotInState => f.write_str("not in state"),
            Reason::InputChanged(names) => match names.as_slice() {
                [] => f.write_str("dependencies changed"),
                [one] => write!(f, "input {one} changed"),
                many => write!(f, "inputs {} changed", many.join(", ")),
            },
            Reason::NewVersion { stored, current } => {
                write!(f, "generator changed (version {stored} -> {current})")
            }
            Reason::EditedOnDisk => f.write_str("edited on disk"),
            Reason::FoundOnDisk => f.write_str("found on disk"),
            Reason::Refresh(why) => f.write_str(why),
            Reason::StateUnreadable(why) => write!(f, "state entry unreadable: {why}"),
        }
    }
}

impl Serialize for Reason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The outcome for one asset.
#[derive(Clone, Debug, Serialize)]
pub struct AssetReport {
    /// Stable id.
    pub id: &'static str,
    /// Human name.
    pub name: &'static str,
    /// Where the value came from.
    pub source: Source,
    /// Why it was generated or loaded; `None` when reused or provided.
    pub reason: Option<Reason>,
    /// Time spent resolving it (mostly generation).
    #[serde(skip)]
    pub elapsed: Duration,
}

/// What happened to one output file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileAction {
    /// New content written; `backup` is where a user-edited previous version was moved.
    Written {
        /// The `.user-edit-<secs>` copy of the user's version, if one was made.
        backup: Option<PathBuf>,
    },
    /// The file already had exactly these bytes; nothing written.
    Unchanged,
    /// The user's own version of a user-editable asset was left in place.
    Kept,
}

/// The outcome for one output file.
#[derive(Clone, Debug, Serialize)]
pub struct FileReport {
    /// Path relative to the install dir.
    pub path: PathBuf,
    /// Name of the owning asset.
    pub asset: &'static str,
    /// What was done.
    pub action: FileAction,
}

/// Everything one `Store::run` / `Store::resolve` did, in dependency order.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RunReport {
    /// Every asset resolved by this call, parents before dependants. Assets that the same
    /// store resolved in an earlier call are reused silently and not repeated here.
    pub assets: Vec<AssetReport>,
    /// Every file of the target's assets.
    pub files: Vec<FileReport>,
    /// Things the user should know, e.g. a kept edit whose inputs changed.
    pub warnings: Vec<String>,
    /// Whether the state file was rewritten.
    pub state_written: bool,
}

impl RunReport {
    /// The report for asset `id`.
    pub fn asset(&self, id: &str) -> Option<&AssetReport> {
        self.assets.iter().find(|a| a.id == id)
    }

    /// Assets generated in this run.
    pub fn generated(&self) -> impl Iterator<Item = &AssetReport> {
        self.assets.iter().filter(|a| a.source == Source::Generated)
    }

    /// Files whose content was written in this run.
    pub fn written(&self) -> impl Iterator<Item = &FileReport> {
        self.files
            .iter()
            .filter(|f| matches!(f.action, FileAction::Written { .. }))
    }

    /// Files left as they were (identical, or the user's own version).
    pub fn unchanged(&self) -> impl Iterator<Item = &FileReport> {
        self.files
            .iter()
            .filter(|f| !matches!(f.action, FileAction::Written { .. }))
    }
}

impl fmt::Display for RunReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for a in &self.assets {
            match &a.reason {
                Some(reason) => writeln!(f, "{} ({}): {} ({reason})", a.name, a.id, a.source)?,
                None => writeln!(f, "{} ({}): {}", a.name, a.id, a.source)?,
            }
        }
        for file in &self.files {
            let path = file.path.display();
            match &file.action {
                FileAction::Written { backup: Some(b) } => {
                    writeln!(f, "wrote {path} (your version saved as {})", b.display())?
                }
                FileAction::Written { backup: None } => writeln!(f, "wrote {path}")?,
                FileAction::Unchanged => writeln!(f, "unchanged {path}")?,
                FileAction::Kept => writeln!(f, "kept your {path}")?,
            }
        }
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        Ok(())
    }
}

/// A live notification for progress display. Sent from worker threads.
#[derive(Debug)]
pub enum Event<'a> {
    /// A run starts and will resolve this many assets.
    Planned {
        /// Number of assets to resolve.
        total: usize,
    },
    /// An asset's generator starts (the slow part).
    Generating {
        /// Human name.
        name: &'static str,
        /// Why it is generated.
        reason: &'a Reason,
    },
    /// An asset is resolved.
    Resolved {
        /// Human name.
        name: &'static str,
        /// Where its value came from.
        source: Source,
        /// Why, when not reused.
        reason: Option<&'a Reason>,
    },
    /// An output file was handled.
    File {
        /// Path relative to the install dir.
        path: &'a Path,
        /// What was done.
        action: &'a FileAction,
    },
}

/// Receives [`Event`]s, e.g. to drive a progress bar. Closures `Fn(&Event)` implement it.
pub trait Observer: Send + Sync {
    /// Called for every event, possibly from several threads at once.
    fn event(&self, event: &Event<'_>);
}

impl<F: Fn(&Event<'_>) + Send + Sync> Observer for F {
    fn event(&self, event: &Event<'_>) {
        self(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_read_well() {
        assert_eq!(
            Reason::InputChanged(vec!["Root CA"]).to_string(),
            "input Root CA changed"
        );
        assert_eq!(
            Reason::InputChanged(vec!["A", "B"]).to_string(),
            "inputs A, B changed"
        );
        assert_eq!(
            Reason::StateUnreadable("missing field `x`".into()).to_string(),
            "state entry unreadable: missing field `x`"
        );
        let json = serde_json::to_string(&Reason::EditedOnDisk).unwrap();
        assert_eq!(json, "\"edited on disk\"");
    }
}
