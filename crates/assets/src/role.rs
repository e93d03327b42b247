//! The machine roles boot media are made for, and the file names that go with each: the
//! Ignition config in the asset directory, and the media written next to it (by the
//! `bootmedia` library, which knows nothing of the directory).

use std::path::Path;

use crate::Error;
use crate::layout;

type Result<T> = std::result::Result<T, Error>;

/// A machine role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A single-node cluster, bootstrapping in place (its config installs itself).
    SingleNode,
    /// The temporary bootstrap machine.
    Bootstrap,
    /// A control-plane machine.
    Master,
    /// A worker.
    Worker,
}

impl Role {
    /// Every role, in the order help texts list them.
    pub const ALL: [Role; 4] = [
        Role::SingleNode,
        Role::Bootstrap,
        Role::Master,
        Role::Worker,
    ];

    /// The role named `name` (`single-node`, `bootstrap`, `master`, `worker`).
    pub fn from_name(name: &str) -> Result<Role> {
        Role::ALL
            .into_iter()
            .find(|r| r.name() == name)
            .ok_or_else(|| {
                Error::Input(format!(
                    "unknown role {name:?}; pass --role with one of: {}",
                    Role::ALL.map(Role::name).join(", ")
                ))
            })
    }

    /// The role's name, also the stem of its media files.
    pub fn name(self) -> &'static str {
        match self {
            Role::SingleNode => "single-node",
            Role::Bootstrap => "bootstrap",
            Role::Master => "master",
            Role::Worker => "worker",
        }
    }

    /// The role's Ignition config in the asset directory.
    pub fn ign_file(self) -> &'static str {
        match self {
            Role::SingleNode => layout::SINGLE_NODE_IGN,
            Role::Bootstrap => layout::BOOTSTRAP_IGN,
            Role::Master => layout::MASTER_IGN,
            Role::Worker => layout::WORKER_IGN,
        }
    }

    /// The command that writes [`Role::ign_file`].
    pub fn ign_command(self) -> &'static str {
        match self {
            Role::SingleNode => "okd-install create single-node-ignition-config",
            _ => "okd-install create ignition-configs",
        }
    }

    /// Whether the config holds private keys (the bootstrap configs carry the whole PKI), so
    /// media made from it must be readable by their owner only.
    pub fn holds_secrets(self) -> bool {
        matches!(self, Role::SingleNode | Role::Bootstrap)
    }

    /// `ROLE.iso`.
    pub fn iso_file(self) -> String {
        format!("{}.iso", self.name())
    }

    /// `ROLE.ign.img`: the PXE config image.
    pub fn config_image_file(self) -> String {
        format!("{}.ign.img", self.name())
    }

    /// `ROLE.ipxe`.
    pub fn ipxe_file(self) -> String {
        format!("{}.ipxe", self.name())
    }

    /// The role whose media file is named `file` (`master.iso`, `worker.ign.img`, ...).
    pub fn from_media_file(file: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| {
            file == r.iso_file() || file == r.config_image_file() || file == r.ipxe_file()
        })
    }

    /// The checks `verify` runs on a `.ign`: it parses as Ignition and passes every rule.
    pub(crate) fn check_config(self, dir: &Path, data: &[u8]) -> Result<()> {
        let path = dir.join(self.ign_file());
        let regenerate = format!(
            "regenerate it with `{} --dir {}`",
            self.ign_command(),
            dir.display()
        );
        let problem = match std::str::from_utf8(data) {
            Err(_) => "is not UTF-8 text, so not an Ignition config".to_string(),
            Ok(text) if text.trim().is_empty() => "is empty".to_string(),
            Ok(text) => {
                let problems = ignition::check_json(text);
                if problems.is_empty() {
                    return Ok(());
                }
                let mut listed: Vec<String> = problems
                    .iter()
                    .take(MAX_LISTED)
                    .map(ToString::to_string)
                    .collect();
                if problems.len() > MAX_LISTED {
                    listed.push(format!("and {} more", problems.len() - MAX_LISTED));
                }
                format!(
                    "is not a valid Ignition config ({}), a machine would stop in its \
                     initramfs with it",
                    listed.join("; ")
                )
            }
        };
        Err(Error::Input(format!(
            "{} {problem}; no boot medium was written: fix it or {regenerate}",
            path.display()
        )))
    }
}

/// How many Ignition problems one error lists before summarizing the rest.
const MAX_LISTED: usize = 5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_files_and_commands() {
        assert_eq!(Role::from_name("master").unwrap(), Role::Master);
        let err = Role::from_name("controller").unwrap_err().to_string();
        assert!(
            err.contains("single-node, bootstrap, master, worker"),
            "{err}"
        );
        assert_eq!(Role::SingleNode.iso_file(), "single-node.iso");
        assert_eq!(Role::from_media_file("worker.ign.img"), Some(Role::Worker));
        assert_eq!(Role::from_media_file("fedora.iso"), None);
        assert_eq!(Role::Bootstrap.ign_file(), crate::layout::BOOTSTRAP_IGN);
    }

    fn refused(dir: &Path) -> String {
        let err = crate::AssetDir::new(dir)
            .ignition_config(Role::Worker)
            .unwrap_err();
        assert!(err.is_invalid_input(), "{err}");
        err.to_string()
    }

    #[test]
    fn a_config_that_is_not_valid_ignition_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ign = dir.path().join("worker.ign");
        std::fs::write(&ign, "").unwrap();
        let err = refused(dir.path());
        assert!(err.contains("worker.ign is empty"), "{err}");
        assert!(
            err.contains("okd-install create ignition-configs --dir"),
            "{err}"
        );
        std::fs::write(&ign, "{not json").unwrap();
        let err = refused(dir.path());
        assert!(
            err.contains("worker.ign is not a valid Ignition config"),
            "{err}"
        );
        std::fs::write(&ign, [0xff, 0xfe, 0]).unwrap();
        assert!(refused(dir.path()).contains("not UTF-8"));
        let bad_path = r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"etc/x"}]}}"#;
        std::fs::write(&ign, bad_path).unwrap();
        let err = refused(dir.path());
        assert!(err.contains("storage.files[0].path"), "{err}");
        std::fs::write(&ign, r#"{"ignition":{"version":"3.2.0"}}"#).unwrap();
        assert!(
            crate::AssetDir::new(dir.path())
                .ignition_config(Role::Worker)
                .is_ok()
        );
    }

    #[test]
    fn a_config_linked_out_of_dir_or_special_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("shadow");
        std::fs::write(&target, "root:$6$secret-hash:19000::::::").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join("worker.ign")).unwrap();
        let err = refused(dir.path());
        assert!(err.contains("is a symbolic link to"), "{err}");
        assert!(!err.contains("secret-hash"), "{err}");
        std::fs::remove_file(dir.path().join("worker.ign")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(dir.path().join("worker.ign"))
            .status()
            .unwrap();
        assert!(made.success());
        assert!(refused(dir.path()).contains("named pipe"));
    }
}
