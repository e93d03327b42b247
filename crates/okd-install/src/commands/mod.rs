//! One module per subcommand: each parses nothing itself, calls a library, prints.

pub(crate) mod analyze;
pub(crate) mod coreos;
pub(crate) mod create;
pub(crate) mod gather;
pub(crate) mod media;
pub(crate) mod misc;
pub(crate) mod verify;
pub(crate) mod waitfor;

/// The install-config kept in the asset directory, if it is there and valid. Commands that
/// only want a hint from it (platform timeouts, a default address) use this and carry on
/// without it; `create` reports the problems itself.
pub(crate) fn stored_install_config(dir: &std::path::Path) -> Option<installconfig::InstallConfig> {
    let path = dir.join(assets::config::INSTALL_CONFIG_FILE);
    installconfig::load(path).ok().map(|l| l.config)
}
