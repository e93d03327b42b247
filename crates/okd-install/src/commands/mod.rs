//! One module per subcommand: each parses nothing itself, calls a library, prints.

pub mod analyze;
pub mod create;
pub mod gather;
pub mod misc;
pub mod verify;
pub mod waitfor;

/// The install-config kept in the asset directory, if it is there and valid. Commands that
/// only want a hint from it (platform timeouts, a default address) use this and carry on
/// without it; `create` reports the problems itself.
pub fn stored_install_config(dir: &std::path::Path) -> Option<installconfig::InstallConfig> {
    let raw = std::fs::read_to_string(dir.join(assets::config::INSTALL_CONFIG_FILE)).ok()?;
    let name = assets::config::INSTALL_CONFIG_FILE;
    installconfig::parse_str(&raw, name).ok().map(|l| l.config)
}
