//! The pull secret's credentials, looked up for an image the way containers/image looks them
//! up in an auth file: the most specific key (`registry/namespace/repo`, then shorter
//! namespaces, then the registry) wins.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::reference::ImageRef;

/// A user and password. Never printed: `Debug` shows neither.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    user: String,
    password: String,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Credentials(redacted)")
    }
}

impl Credentials {
    /// The `Authorization: Basic` value.
    pub(crate) fn basic(&self) -> String {
        format!(
            "Basic {}",
            STANDARD.encode(format!("{}:{}", self.user, self.password))
        )
    }
}

/// The pull secret's `auths`, keys normalised (scheme and trailing `/` dropped).
#[derive(Debug, Clone, Default)]
pub struct PullSecret {
    auths: Vec<(String, Credentials)>,
}

impl PullSecret {
    /// Reads the pull secret's JSON; entries without a readable `auth` (base64 of
    /// `user:password`) are left out, as the host's tools leave them out. Text that is not
    /// JSON gives an empty secret: install-config's validation reports it.
    pub fn parse(text: &str) -> PullSecret {
        let json: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
        let Some(auths) = json.get("auths").and_then(|a| a.as_object()) else {
            return PullSecret::default();
        };
        let auths = auths
            .iter()
            .filter_map(|(key, entry)| {
                let decoded = STANDARD
                    .decode(entry.get("auth")?.as_str()?.trim())
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok())?;
                let (user, password) = decoded.split_once(':')?;
                Some((
                    normalise(key),
                    Credentials {
                        user: user.to_string(),
                        password: password.to_string(),
                    },
                ))
            })
            .collect();
        PullSecret { auths }
    }

    /// The credentials for `image`: the longest key that is its `registry/repository` or a
    /// namespace of it, or its registry.
    pub fn for_image(&self, image: &ImageRef) -> Option<&Credentials> {
        let name = image.name();
        self.auths
            .iter()
            .filter(|(key, _)| {
                *key == image.registry || name == *key || name.starts_with(&format!("{key}/"))
            })
            .max_by_key(|(key, _)| key.len())
            .map(|(_, c)| c)
    }
}

/// `https://quay.io/` → `quay.io`; Docker's legacy key names Docker Hub.
fn normalise(key: &str) -> String {
    let key = key
        .trim()
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .trim_end_matches('/');
    match key {
        "index.docker.io/v1" | "index.docker.io" | "registry-1.docker.io" => "docker.io".into(),
        k => k.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(user: &str, password: &str) -> String {
        STANDARD.encode(format!("{user}:{password}"))
    }

    #[test]
    fn the_most_specific_key_wins_and_nothing_prints_a_password() {
        let text = format!(
            r#"{{"auths":{{"registry.example.com:5000":{{"auth":"{}"}},
                "registry.example.com:5000/okd":{{"auth":"{}"}},
                "https://index.docker.io/v1/":{{"auth":"{}"}},
                "broken.example.com":{{"auth":"???"}}}}}}"#,
            auth("all", "secret-a"),
            auth("okd", "secret-b"),
            auth("hub", "secret-c"),
        );
        let secret = PullSecret::parse(&text);
        let image = |s| ImageRef::parse(s).unwrap();
        let okd = secret.for_image(&image("registry.example.com:5000/okd/release@sha256:1"));
        assert_eq!(okd.map(|c| c.user.as_str()), Some("okd"));
        let other = secret.for_image(&image("registry.example.com:5000/other/x:1"));
        assert_eq!(other.map(|c| c.user.as_str()), Some("all"));
        let hub = secret.for_image(&image("busybox"));
        assert_eq!(hub.map(|c| c.user.as_str()), Some("hub"));
        assert_eq!(secret.for_image(&image("broken.example.com/a:1")), None);
        assert_eq!(secret.for_image(&image("quay.io/okd/x:1")), None);
        let shown = format!("{secret:?}");
        assert!(!shown.contains("secret-"), "{shown}");
    }
}
