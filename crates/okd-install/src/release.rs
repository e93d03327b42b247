//! The default release from `data/release.toml`, embedded at build time.

use std::sync::OnceLock;

use serde::Deserialize;

/// The release installed when no override is given.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct DefaultRelease {
    /// Release image pull spec.
    pub image: String,
    /// Release version of the image.
    pub version: String,
    /// Update channel.
    pub channel: String,
    /// Update graph URL.
    pub upstream: String,
    /// Node OS flavour.
    pub os: String,
}

impl DefaultRelease {
    /// The embedded default (parsed once).
    pub(crate) fn get() -> &'static DefaultRelease {
        static CELL: OnceLock<DefaultRelease> = OnceLock::new();
        CELL.get_or_init(|| {
            toml::from_str(include_str!("../../../data/release.toml"))
                .expect("data/release.toml is checked by a unit test")
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn default_release_parses() {
        let r = super::DefaultRelease::get();
        assert!(r.image.starts_with("quay.io/okd/"), "{}", r.image);
        assert_eq!(r.channel, "stable-scos-4");
        assert!(r.upstream.starts_with("https://"), "{}", r.upstream);
        assert!(
            r.image.ends_with(&r.version),
            "{} vs {}",
            r.image,
            r.version
        );
    }
}
