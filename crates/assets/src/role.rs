//! The machine roles boot media are made for, and the file names that go with each: the
//! Ignition config in the asset directory, and the media written next to it (by the
//! `bootmedia` library, which knows nothing of the directory).

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
}

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
}
