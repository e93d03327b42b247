//! Semantic checks that the `ignition-config` crate does not do (it only parses).
//!
//! Every rule here is one Ignition itself applies when the machine boots; catching it at
//! generation time turns a stuck node into an error message that names the entry.

use std::collections::HashMap;
use std::fmt;

use ignition_config::v3_2::{Resource, Unit};

use crate::compress::decompress_bytes;
use crate::dataurl::decode_data_url;
use crate::{Config, SPEC_VERSION};
use contract::UNIT_SUFFIXES;

/// URL schemes Ignition 3.2 can fetch.
const SCHEMES: [&str; 7] = ["data", "http", "https", "tftp", "s3", "gs", "arn"];

/// One violated rule, at a location such as `storage.files[3].path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Where in the config the problem is.
    pub location: String,
    /// What is wrong.
    pub kind: ProblemKind,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.kind)
    }
}

/// The rules, each with a message that says how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProblemKind {
    /// The text is not an Ignition 3.x config at all.
    #[error("{0}")]
    Unparsable(String),
    /// `ignition.version` is not the version okd-install writes.
    #[error("version is {0:?}; okd-install writes and verifies Ignition spec 3.2.0")]
    WrongVersion(String),
    /// A storage path is relative.
    #[error("path {0:?} is not absolute; node paths must start with /")]
    RelativePath(String),
    /// A storage path has `.`/`..`/empty components or a trailing slash.
    #[error("path {0:?} is not normalized; remove ., .., doubled and trailing slashes")]
    UnnormalizedPath(String),
    /// Two storage entries have the same path.
    #[error("path {path:?} is also used at {first}; each path may appear once")]
    DuplicatePath {
        /// The repeated path.
        path: String,
        /// Location of the first entry with that path.
        first: String,
    },
    /// The mode has bits outside 0o7777.
    #[error("mode {0} (octal {0:o}) is outside 0..=0o7777")]
    ModeOutOfRange(i64),
    /// setuid/setgid/sticky bits, which Ignition ignores before spec 3.4.0.
    #[error(
        "mode {0:o} has setuid/setgid/sticky bits, which Ignition spec 3.2.0 ignores; \
         use permission bits 0..=0o777 only"
    )]
    SpecialModeBits(i64),
    /// `overwrite: true` without `contents.source`.
    #[error("overwrite is true but contents.source is missing; set contents or drop overwrite")]
    OverwriteWithoutContents,
    /// The source URL scheme is not one Ignition can fetch.
    #[error("source scheme {0:?} is not supported; use data, http(s), tftp, s3, gs or arn")]
    UnsupportedScheme(String),
    /// The data URL cannot be decoded.
    #[error("data URL cannot be decoded: {0}")]
    BadDataUrl(String),
    /// `compression` is set to something other than gzip.
    #[error("compression {0:?} is not supported; use \"gzip\" or leave it out")]
    BadCompression(String),
    /// `compression: gzip` but the data is not valid gzip.
    #[error("compression is gzip but the data does not decompress: {0}")]
    NotGzip(String),
    /// Two units have the same name.
    #[error("unit {0:?} appears more than once; merge the entries")]
    DuplicateUnit(String),
    /// The unit name lacks a systemd unit type suffix.
    #[error("unit name {0:?} does not end in a systemd unit type such as .service")]
    BadUnitName(String),
    /// An enabled unit has no contents.
    #[error("unit {0:?} is enabled but has no contents")]
    EnabledWithoutContents(String),
    /// An enabled unit has no `[Install]` section, so enabling it does nothing.
    #[error("unit {0:?} is enabled but has no [Install] section, so enabling does nothing")]
    EnabledWithoutInstall(String),
    /// A drop-in name does not end in `.conf` (systemd ignores it).
    #[error("drop-in {0:?} must end in .conf or systemd ignores it")]
    DropinNotConf(String),
    /// Two drop-ins of one unit share a name.
    #[error("drop-in {0:?} appears more than once in this unit")]
    DuplicateDropin(String),
    /// A user entry has an empty name.
    #[error("user name is empty")]
    EmptyUserName,
    /// Two user entries share a name.
    #[error("user {0:?} appears more than once")]
    DuplicateUser(String),
}

/// Check a config against all rules; returns every problem found (empty when valid).
pub fn check(config: &Config) -> Vec<Problem> {
    let mut out = Problems::default();
    let version = config.ignition.version.as_deref().unwrap_or_default();
    if version != SPEC_VERSION {
        out.push(
            "ignition.version",
            ProblemKind::WrongVersion(version.into()),
        );
    }
    check_ignition_sources(config, &mut out);
    check_storage(config, &mut out);
    check_units(config, &mut out);
    check_users(config, &mut out);
    out.0
}

/// Parse `json` and [`check`] it; a parse failure or other version is reported as a problem
/// too (other 3.x versions are still checked against the 3.2 rules).
pub fn check_json(json: &str) -> Vec<Problem> {
    let parsed = match crate::parse(json) {
        Ok(parsed) => parsed,
        Err(e) => {
            return vec![Problem {
                location: "$".into(),
                kind: ProblemKind::Unparsable(e.to_string()),
            }];
        }
    };
    match parsed.into_v3_2() {
        Some(config) => check(&config),
        None => match serde_json::from_str::<Config>(json) {
            Ok(config) => check(&config),
            Err(e) => vec![Problem {
                location: "$".into(),
                kind: ProblemKind::Unparsable(e.to_string()),
            }],
        },
    }
}

#[derive(Default)]
struct Problems(Vec<Problem>);

impl Problems {
    fn push(&mut self, location: impl Into<String>, kind: ProblemKind) {
        self.0.push(Problem {
            location: location.into(),
            kind,
        });
    }
}

fn check_ignition_sources(config: &Config, out: &mut Problems) {
    let ign = &config.ignition;
    if let Some(cfg) = &ign.config {
        for (i, r) in cfg.merge.iter().flatten().enumerate() {
            check_resource(r, &format!("ignition.config.merge[{i}]"), out);
        }
        if let Some(r) = &cfg.replace {
            check_resource(r, "ignition.config.replace", out);
        }
    }
    let cas = ign.security.as_ref().and_then(|s| s.tls.as_ref());
    let cas = cas.and_then(|t| t.certificate_authorities.as_ref());
    for (i, r) in cas.into_iter().flatten().enumerate() {
        let at = format!("ignition.security.tls.certificateAuthorities[{i}]");
        check_resource(r, &at, out);
    }
}

fn check_storage(config: &Config, out: &mut Problems) {
    let Some(storage) = &config.storage else {
        return;
    };
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut node = |path: &str, at: String, out: &mut Problems| {
        check_path(path, &at, out);
        match seen.get(path) {
            Some(first) => out.push(
                format!("{at}.path"),
                ProblemKind::DuplicatePath {
                    path: path.into(),
                    first: first.clone(),
                },
            ),
            None => {
                seen.insert(path.to_string(), at);
            }
        }
    };
    for (i, f) in storage.files.iter().flatten().enumerate() {
        let at = format!("storage.files[{i}]");
        node(&f.path, at.clone(), out);
        check_mode(f.mode, &at, out);
        check_file_data(f, &at, out);
    }
    for (i, d) in storage.directories.iter().flatten().enumerate() {
        let at = format!("storage.directories[{i}]");
        node(&d.path, at.clone(), out);
        check_mode(d.mode, &at, out);
    }
    for (i, l) in storage.links.iter().flatten().enumerate() {
        node(&l.path, format!("storage.links[{i}]"), out);
    }
}

fn check_file_data(f: &ignition_config::v3_2::File, at: &str, out: &mut Problems) {
    let has_source = f.contents.as_ref().is_some_and(|c| c.source.is_some());
    if f.overwrite == Some(true) && !has_source {
        out.push(
            format!("{at}.overwrite"),
            ProblemKind::OverwriteWithoutContents,
        );
    }
    if let Some(c) = &f.contents {
        check_resource(c, &format!("{at}.contents"), out);
    }
    for (j, a) in f.append.iter().flatten().enumerate() {
        check_resource(a, &format!("{at}.append[{j}]"), out);
    }
}

/// Absolute and in the form Go's `path.Clean` would leave unchanged.
fn check_path(path: &str, at: &str, out: &mut Problems) {
    let at = format!("{at}.path");
    if !path.starts_with('/') {
        out.push(at, ProblemKind::RelativePath(path.into()));
        return;
    }
    let clean = path == "/"
        || (!path.ends_with('/')
            && path[1..]
                .split('/')
                .all(|c| !c.is_empty() && c != "." && c != ".."));
    if !clean {
        out.push(at, ProblemKind::UnnormalizedPath(path.into()));
    }
}

fn check_mode(mode: Option<i64>, at: &str, out: &mut Problems) {
    match mode {
        Some(m) if !(0..=0o7777).contains(&m) => {
            out.push(format!("{at}.mode"), ProblemKind::ModeOutOfRange(m));
        }
        Some(m) if m & 0o7000 != 0 => {
            out.push(format!("{at}.mode"), ProblemKind::SpecialModeBits(m));
        }
        _ => {}
    }
}

fn check_resource(r: &Resource, at: &str, out: &mut Problems) {
    let compression = r.compression.as_deref().unwrap_or_default();
    if !matches!(compression, "" | "gzip") {
        out.push(
            format!("{at}.compression"),
            ProblemKind::BadCompression(compression.into()),
        );
    }
    let Some(source) = r.source.as_deref() else {
        return;
    };
    let scheme = source.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
    let scheme = scheme.unwrap_or_default();
    if !SCHEMES.contains(&scheme.as_str()) {
        out.push(
            format!("{at}.source"),
            ProblemKind::UnsupportedScheme(scheme),
        );
        return;
    }
    if scheme != "data" {
        return;
    }
    match decode_data_url(source) {
        Err(e) => out.push(
            format!("{at}.source"),
            ProblemKind::BadDataUrl(e.to_string()),
        ),
        Ok(bytes) if compression == "gzip" => {
            if let Err(e) = decompress_bytes(&bytes) {
                out.push(format!("{at}.source"), ProblemKind::NotGzip(e.to_string()));
            }
        }
        Ok(_) => {}
    }
}

fn check_units(config: &Config, out: &mut Problems) {
    let units = config.systemd.as_ref().and_then(|s| s.units.as_ref());
    let mut seen = HashMap::new();
    for (i, unit) in units.into_iter().flatten().enumerate() {
        let at = format!("systemd.units[{i}]");
        if seen.insert(unit.name.as_str(), i).is_some() {
            out.push(
                format!("{at}.name"),
                ProblemKind::DuplicateUnit(unit.name.clone()),
            );
        }
        if !UNIT_SUFFIXES.iter().any(|s| unit.name.ends_with(s)) {
            out.push(
                format!("{at}.name"),
                ProblemKind::BadUnitName(unit.name.clone()),
            );
        }
        if unit.enabled == Some(true) {
            check_enabled(unit, &at, out);
        }
        check_dropins(unit, &at, out);
    }
}

/// An enabled unit needs its text here and an `[Install]` section (in it or a drop-in).
fn check_enabled(unit: &Unit, at: &str, out: &mut Problems) {
    let Some(contents) = &unit.contents else {
        let kind = ProblemKind::EnabledWithoutContents(unit.name.clone());
        out.push(format!("{at}.contents"), kind);
        return;
    };
    let has_install = |text: &str| text.lines().any(|l| l.trim() == "[Install]");
    let in_dropins = unit
        .dropins
        .iter()
        .flatten()
        .any(|d| d.contents.as_deref().is_some_and(has_install));
    if !has_install(contents) && !in_dropins {
        let kind = ProblemKind::EnabledWithoutInstall(unit.name.clone());
        out.push(format!("{at}.contents"), kind);
    }
}

fn check_dropins(unit: &Unit, at: &str, out: &mut Problems) {
    let mut seen = HashMap::new();
    for (j, d) in unit.dropins.iter().flatten().enumerate() {
        let at = format!("{at}.dropins[{j}].name");
        if !d.name.ends_with(".conf") {
            out.push(at.clone(), ProblemKind::DropinNotConf(d.name.clone()));
        }
        if seen.insert(d.name.as_str(), j).is_some() {
            out.push(at, ProblemKind::DuplicateDropin(d.name.clone()));
        }
    }
}

fn check_users(config: &Config, out: &mut Problems) {
    let users = config.passwd.as_ref().and_then(|p| p.users.as_ref());
    let mut seen = HashMap::new();
    for (i, user) in users.into_iter().flatten().enumerate() {
        let at = format!("passwd.users[{i}].name");
        if user.name.is_empty() {
            out.push(at, ProblemKind::EmptyUserName);
        } else if seen.insert(user.name.as_str(), i).is_some() {
            out.push(at, ProblemKind::DuplicateUser(user.name.clone()));
        }
    }
}
