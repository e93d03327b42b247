//! What the assets themselves find wrong. Failures of the libraries they call (pki,
//! manifests, ignition, installconfig) travel as those libraries' own errors; these are the
//! problems only an asset can name, typed so the binary picks its exit code by variant.

use std::fmt::Display;

/// A problem an asset found while generating or loading its value.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No install-config.yaml in the asset directory.
    #[error(
        "{file} is missing from the asset directory: run `okd-install create install-config`, \
         or add --from-example NAME to start from a shipped example"
    )]
    MissingInstallConfig {
        /// The file name looked for.
        file: &'static str,
    },
    /// A VIP of install-config is not an IP address (validation normally stops this earlier).
    #[error("{what} {value:?}: {reason}")]
    BadVip {
        /// `API VIP` or `VIP`.
        what: &'static str,
        /// The value.
        value: String,
        /// The parser's complaint.
        reason: String,
    },
    /// The install config cannot make a single-node bootstrap-in-place config (exit code 3).
    #[error("install-config.yaml cannot make a single-node config:\n{}", list(.0))]
    SingleNodeConfig(Vec<installconfig::FieldError>),
    /// The install config uses fields the release being installed does not have (exit code 3).
    #[error("install-config.yaml does not fit OKD {release}:\n{}", list(.errors))]
    ReleaseConfig {
        /// The release.
        release: releases::Minor,
        /// Every problem.
        errors: Vec<installconfig::FieldError>,
    },
    /// A MachineOSConfig the release's MCO bootstrap would stop on (exit code 3).
    #[error(
        "the MachineOSConfigs would stop the OKD {release} bootstrap (its machine-config operator \
         applies every MachineOSConfig at install time and needs the pre-built-image annotation \
         with a sha256 digest and an existing pool):\n{}",
        list(.errors)
    )]
    BootstrapMachineOsConfigs {
        /// The release.
        release: releases::Minor,
        /// Every problem, naming its file.
        errors: Vec<manifests::ManifestError>,
    },
    /// Image mode is on, but its MachineOSConfigs or OS-image MachineConfigs still hold
    /// placeholders, break a rule or disagree (exit code 3).
    #[error(
        "image mode is on, but the MachineOSConfigs and OS-image MachineConfigs are not ready:\n{}\n\
         Fill in the marked fields in manifests/ and openshift/, or give the values under \
         imageMode.pools in install-config.yaml, and run the command again (if manifests/ does \
         not exist yet, `okd-install create manifests` writes these files there).",
        list(.0)
    )]
    ImageModeNotReady(Vec<manifests::ManifestError>),
    /// Files of manifests/ or openshift/ that do not parse, all of them.
    #[error(
        "{} manifest file(s) cannot be used:\n{}\nfix each file or move it out of the \
         directory, and run again",
        .0.len(),
        list(.0)
    )]
    UnusableManifests(Vec<manifests::ManifestError>),
    /// A bootstrap config that fails okd-install's own Ignition checks (a bug, not an input
    /// problem).
    #[error("the assembled config fails its own checks:\n{}", list(.0))]
    IgnitionChecks(Vec<ignition::Problem>),
    /// A role or an asset-directory file a command needs is missing or unknown; the message
    /// says what to run or pass (exit code 3).
    #[error("{0}")]
    Input(String),
    /// A file of the asset directory could not be read.
    #[error("reading {}", path.display())]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// An input asset the caller must provide was not provided (a bug in the caller).
    #[error("{0} must be provided by the caller")]
    NotProvided(&'static str),
    /// A store was asked for an asset its run did not resolve.
    #[error("{name} ({id}) was not resolved")]
    NotResolved {
        /// The asset's display name.
        name: &'static str,
        /// The asset's id.
        id: &'static str,
    },
}

impl Error {
    /// Whether the user's input is what must change (exit code 3), not the program.
    pub fn is_invalid_input(&self) -> bool {
        matches!(
            self,
            Error::Input(_)
                | Error::SingleNodeConfig(_)
                | Error::ImageModeNotReady(_)
                | Error::ReleaseConfig { .. }
                | Error::BootstrapMachineOsConfigs { .. }
        )
    }
}

fn list<E: Display>(errors: &[E]) -> String {
    let lines: Vec<String> = errors.iter().map(|e| format!("  {e}")).collect();
    lines.join("\n")
}
