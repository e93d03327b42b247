//! [`AssetDir`]: one typed view of an asset directory after `create`, for the commands that
//! read what `create` left there (`wait-for`, `gather`, `create live-iso | pxe-files`, and
//! `verify` for the state file).
//!
//! Each value is read from disk at most once per view and typed here, so no command parses
//! install-config.yaml or opens the state file itself, and no command spells a file name.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use asset_graph::{GraphError, State};
use installconfig::InstallConfig;

use crate::role::Role;
use crate::{Error, ReleaseOptions, layout};

/// An asset directory as the commands after `create` see it.
#[derive(Debug)]
pub struct AssetDir {
    path: PathBuf,
    install_config: OnceCell<Option<InstallConfig>>,
    state: OnceCell<Option<State>>,
}

impl AssetDir {
    /// The view of `dir`; nothing is read until a value is asked for.
    pub fn new(dir: &Path) -> AssetDir {
        AssetDir {
            path: dir.to_path_buf(),
            install_config: OnceCell::new(),
            state: OnceCell::new(),
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path of `name` (one of [`layout`]'s names) in the directory.
    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// The install-config in the directory, if it is there and valid. Commands that only
    /// want a hint from it (platform timeouts, a default address, the single-node disk)
    /// carry on without it; `create` and `verify` report its problems themselves.
    pub fn install_config(&self) -> Option<&InstallConfig> {
        self.install_config
            .get_or_init(|| {
                let path = self.file(layout::INSTALL_CONFIG);
                let raw = std::fs::read_to_string(&path).ok()?;
                let loaded = installconfig::parse_str(&raw, layout::INSTALL_CONFIG).ok()?;
                Some(loaded.config)
            })
            .as_ref()
    }

    /// The state file, `None` when the directory has none (nothing was generated there).
    ///
    /// Errors: the state file exists but cannot be read.
    pub fn state(&self) -> Result<Option<&State>, GraphError> {
        if let Some(state) = self.state.get() {
            return Ok(state.as_ref());
        }
        let read = match State::open(&self.path) {
            Ok(state) => Some(state),
            Err(GraphError::NoState { .. }) => None,
            Err(e) => return Err(e),
        };
        Ok(self.state.get_or_init(|| read).as_ref())
    }

    /// The release the directory's configs were generated for, `None` before any `create`
    /// ran there.
    pub fn release(&self) -> Result<Option<&'static releases::Release>, GraphError> {
        let Some(state) = self.state()? else {
            return Ok(None);
        };
        Ok(state.find::<ReleaseOptions>()?.map(|o| o.release))
    }

    /// The generated bootstrap SSH private key (PEM), kept only in the state file; `None`
    /// when the runs in this directory made none.
    pub fn bootstrap_ssh_key(&self) -> Result<Option<String>, GraphError> {
        let Some(state) = self.state()? else {
            return Ok(None);
        };
        let pair = state.find::<crate::tls::BootstrapSshKeyPair>()?;
        Ok(pair.map(|p| p.key_pem))
    }

    /// The Ignition config of `role`, checked as `verify` checks a `.ign` (so no medium
    /// carries a config a machine would stop on); a missing file names the command that
    /// writes it, and a link out of DIR, a special file or a file too large is refused unread.
    pub fn ignition_config(&self, role: Role) -> Result<Vec<u8>, Error> {
        let name = Path::new(role.ign_file());
        let path = self.file(role.ign_file());
        let data =
            atomic_file::input::read_in_dir(&self.path, name, MAX_CONFIG).map_err(|e| match e {
                e if e.is_not_found() => Error::Input(format!(
                    "{} does not exist; run `{} --dir {}` first",
                    path.display(),
                    role.ign_command(),
                    self.path.display()
                )),
                atomic_file::input::InputError::Io { path, source } => Error::Read { path, source },
                other => Error::Input(other.to_string()),
            })?;
        role.check_config(&self.path, &data)?;
        Ok(data)
    }
}

/// Larger than any config okd-install writes (a bootstrap config is a few MiB): a file this
/// size in the place of a `.ign` is not one, and is not read into memory.
const MAX_CONFIG: u64 = 64 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_directory_has_no_values_and_names_the_command_for_a_config() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = AssetDir::new(tmp.path());
        assert!(dir.install_config().is_none());
        assert!(dir.state().unwrap().is_none());
        assert!(dir.release().unwrap().is_none());
        assert!(dir.bootstrap_ssh_key().unwrap().is_none());
        let err = dir.ignition_config(Role::SingleNode).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("bootstrap-in-place-for-live-iso.ign does not exist"),
            "{text}"
        );
        assert!(
            text.contains("okd-install create single-node-ignition-config --dir"),
            "{text}"
        );
        assert!(err.is_invalid_input());
    }

    #[test]
    fn an_unreadable_state_file_is_an_error_not_an_absent_one() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join(layout::STATE_FILE), "not json").unwrap();
        let dir = AssetDir::new(tmp.path());
        assert!(dir.state().is_err());
        assert!(dir.bootstrap_ssh_key().is_err());
    }
}
