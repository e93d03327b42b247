//! What the lines around a pull error tell that the error itself does not: podman names the
//! registry and repository of a manifest it could not read, but a blob it could not read by
//! its digest only. The image being pulled comes from the same attempt's other lines
//! (podman's `Trying to pull IMAGE...`), and the registry it was pulled from from the
//! host's mirror rules (registries.conf, as the install's ImageDigestMirrorSet states them):
//! containers/image tries an image's mirrors in order, so the first mirror of the rule that
//! matches it is where its blobs came from once its manifest was read.

use super::{FailedPull, PullError, registry_of_image, repository_of_image, split_reference};

/// The words podman writes before it pulls an image: `Trying to pull IMAGE...`.
const TRYING_TO_PULL: &str = "Trying to pull ";
/// The words the bootstrap host's scripts write before a podman call that pulls an image
/// (`Pulling IMAGE for PURPOSE`, release-image.sh's `say_pull`): podman runs there with
/// `--quiet`, which leaves out its own line.
pub const PULLING: &str = "Pulling ";
/// What follows the image in [`PULLING`]'s line.
const PULLING_FOR: &str = " for ";

/// One mirror rule: the repository (or registry) an image's name starts with, and its
/// mirrors in the order the host tries them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirrorRule {
    /// The source: `quay.io/okd/scos-content`, or a registry.
    pub source: String,
    /// Its mirrors: `registry.example.com:5000/okd/scos-content`.
    pub mirrors: Vec<String>,
    /// The mirrors serve pulls by digest only (an ImageDigestMirrorSet's rule, registries.conf's
    /// `mirror-by-digest-only`): a pull by tag goes to the source itself.
    pub digest_only: bool,
}

/// What the lines around a pull error tell of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PullContext {
    /// The image being pulled, when a line before the error named it.
    pub image: Option<String>,
    /// The host's mirror rules.
    pub rules: Vec<MirrorRule>,
}

impl PullContext {
    /// The image the newest of `lines` that names one (podman's `Trying to pull IMAGE...`,
    /// our scripts' `Pulling IMAGE for PURPOSE`) was about.
    pub fn image_of_lines<'a>(lines: impl DoubleEndedIterator<Item = &'a str>) -> Option<String> {
        lines.rev().find_map(|l| {
            let image = match l.find(TRYING_TO_PULL) {
                Some(at) => l[at + TRYING_TO_PULL.len()..]
                    .trim()
                    .trim_end_matches("..."),
                None => {
                    let rest = &l[l.find(PULLING)? + PULLING.len()..];
                    &rest[..rest.find(PULLING_FOR)?]
                }
            };
            let image = image.trim();
            (!image.is_empty() && !image.contains(' ')).then(|| image.to_string())
        })
    }

    /// Where the host pulls `image` from first: its first mirror, the image's name with the
    /// rule's source replaced (`None` when no rule matches).
    /// A pull by tag under a digest-only rule goes to the source: `None`.
    pub fn first_mirror(&self, image: &str) -> Option<String> {
        let (name, _, digest) = split_reference(image);
        let rule = self
            .rules
            .iter()
            .filter(|r| name == r.source || name.starts_with(&format!("{}/", r.source)))
            .max_by_key(|r| r.source.len())?;
        if rule.digest_only && digest.is_none() {
            return None;
        }
        let mirror = rule.mirrors.first()?;
        Some(format!("{mirror}{}", &image[rule.source.len()..]))
    }

    /// The one registry every rule's first mirror is on, when there is one: where any
    /// image with a rule is pulled from first.
    fn only_mirror_registry(&self) -> Option<String> {
        let mut registries = self
            .rules
            .iter()
            .filter_map(|r| r.mirrors.first())
            .map(|m| registry_of_image(m));
        let first = registries.next()?;
        registries.all(|r| r == first).then_some(first)
    }

    /// `error` with what it lacks taken from here: the image, then the registry and
    /// repository its first mirror has (or the image's own). Whether the registry is now a
    /// mirror's.
    fn fill(&self, error: &mut PullError) -> bool {
        if error.image.is_none() {
            error.image.clone_from(&self.image);
        }
        let pulled = error
            .image
            .as_deref()
            .map(|i| self.first_mirror(i).unwrap_or(i.to_string()));
        let mut mirror = false;
        if error.registry_implied && pulled != error.image {
            // The line named only the image: the rules say which registry was asked.
            let first = pulled.as_deref().expect("differs from the image, so some");
            if error.repository.as_deref()
                == error.image.as_deref().map(repository_of_image).as_deref()
            {
                error.repository = Some(repository_of_image(first));
            }
            error.registry = Some(registry_of_image(first));
            error.registry_implied = false;
            mirror = true;
        }
        if error.registry.is_none() {
            mirror = error.image.is_some() && pulled != error.image || error.image.is_none();
            error.registry = pulled
                .as_deref()
                .map(registry_of_image)
                .or_else(|| self.only_mirror_registry());
            mirror &= error.registry.is_some();
        }
        if error.repository.is_none() {
            error.repository = pulled.as_deref().map(repository_of_image);
        }
        mirror
    }
}

impl FailedPull {
    /// The pull with what its error lines lack taken from `context`: the image, the
    /// registry and the repository (see [`PullContext`]).
    pub fn in_context(mut self, context: &PullContext) -> FailedPull {
        for e in self.mirrors.iter_mut() {
            context.fill(e);
        }
        let source_at_mirror = self.source.as_mut().is_some_and(|s| context.fill(s));
        if self.image.is_none() {
            let image = self.attempts().find_map(|e| e.image.clone());
            self.image = image;
        }
        // A source the rules sent to a mirror is that mirror's attempt.
        let mirrored = self.source.as_ref().is_some_and(
            |s| matches!((&s.image, &s.registry), (Some(i), Some(r)) if registry_of_image(i) != *r),
        );
        if (mirrored || source_at_mirror) && self.mirrors.is_empty() {
            self.mirrors.extend(self.source.take());
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry_error::{RegistryFault, read_pull};

    const BLOB: &str = "Error: reading blob sha256:4d41aa: Error fetching blob: invalid status \
                        code from registry 404 (Not Found)";

    fn rules() -> Vec<MirrorRule> {
        vec![
            MirrorRule {
                source: "quay.io/okd/scos-release".into(),
                mirrors: vec!["registry.example.com:5000/okd/scos-release".into()],
                digest_only: true,
            },
            MirrorRule {
                source: "quay.io/okd/scos-content".into(),
                mirrors: vec![
                    "registry.example.com:5000/okd/scos-content".into(),
                    "mirror2.example.com/okd/scos-content".into(),
                ],
                digest_only: true,
            },
        ]
    }

    /// A blob podman names by digest only is named with the registry and repository the
    /// attempt's image and the mirror rules give.
    #[test]
    fn a_blob_line_gets_its_registry_and_repository_from_the_attempt_and_the_rules() {
        let lines = [
            "Nov 28 11:58:30 h podman[1]: Trying to pull quay.io/okd/scos-content@sha256:ead6...",
            "Nov 28 11:58:30 h podman[1]: Getting image source signatures",
            BLOB,
        ];
        let context = PullContext {
            image: PullContext::image_of_lines(lines.iter().copied()),
            rules: rules(),
        };
        assert_eq!(
            context.image.as_deref(),
            Some("quay.io/okd/scos-content@sha256:ead6")
        );
        let pull = read_pull(BLOB).expect("read").in_context(&context);
        let e = pull.first().expect("an attempt");
        assert_eq!(e.fault, RegistryFault::BlobUnknown);
        assert_eq!(e.registry.as_deref(), Some("registry.example.com:5000"));
        assert_eq!(e.repository.as_deref(), Some("okd/scos-content"));
        assert_eq!(e.digest.as_deref(), Some("sha256:4d41aa"));
        assert!(
            e.reason()
                .contains("`registry.example.com:5000/okd/scos-content`"),
            "{}",
            e.reason()
        );
    }

    /// Our scripts' line before a quiet podman pull names the image: the blob line after it
    /// gets the image's first mirror and repository; a line of the same words about no
    /// image (a sentence) names none.
    #[test]
    fn our_pulling_line_names_the_image_of_the_quiet_pull_after_it() {
        let lines = [
            "Dec 07 14:20:01 h node-image-pull.sh[812]: Pulling \
             quay.io/okd/scos-release@sha256:77aa for the machine-config operator's image \
             reference",
            BLOB,
        ];
        let image = PullContext::image_of_lines(lines.iter().copied());
        assert_eq!(
            image.as_deref(),
            Some("quay.io/okd/scos-release@sha256:77aa")
        );
        let context = PullContext {
            image,
            rules: rules(),
        };
        let e = read_pull(BLOB).expect("read").in_context(&context);
        let e = e.first().expect("an attempt");
        assert_eq!(e.registry.as_deref(), Some("registry.example.com:5000"));
        assert_eq!(e.repository.as_deref(), Some("okd/scos-release"));
        for not_an_image in [
            "Pulling the node image for the overlay",
            "Pulling quay.io/okd/scos-release@sha256:77aa",
        ] {
            assert_eq!(
                PullContext::image_of_lines([not_an_image].into_iter()),
                None
            );
        }
    }

    /// Without the image, the registry still comes from rules whose mirrors are on one
    /// registry; the repository is not guessed.
    #[test]
    fn without_the_image_only_an_unambiguous_registry_is_named() {
        let context = PullContext {
            image: None,
            rules: rules()[..1].to_vec(),
        };
        let e = read_pull(BLOB)
            .expect("read")
            .in_context(&context)
            .first()
            .cloned()
            .expect("one");
        assert_eq!(e.registry.as_deref(), Some("registry.example.com:5000"));
        assert_eq!(e.repository, None);
        let mut two = rules();
        two[1].mirrors.reverse();
        let context = PullContext {
            image: None,
            rules: two,
        };
        let e = read_pull(BLOB)
            .expect("read")
            .in_context(&context)
            .first()
            .cloned()
            .expect("one");
        assert_eq!(e.registry, None);
    }

    /// A line that names the image but no registry (the kubelet's `Failed to pull image`
    /// around a blob error) was pulled from where the rules send that image first: the
    /// mirror is the attempt, not the image's own registry.
    #[test]
    fn a_registry_only_implied_by_the_image_is_the_first_mirror_of_its_rule() {
        let line = format!("Failed to pull image \"quay.io/okd/scos-content@sha256:ead6\": {BLOB}");
        let plain = read_pull(&line).expect("read");
        let e = plain.first().expect("one");
        assert!(e.registry_implied);
        assert_eq!(e.registry.as_deref(), Some("quay.io"));
        let context = PullContext {
            image: None,
            rules: rules(),
        };
        let pull = read_pull(&line).expect("read").in_context(&context);
        assert!(pull.source.is_none(), "{pull:?}");
        let e = pull.first().expect("one");
        assert_eq!(e.registry.as_deref(), Some("registry.example.com:5000"));
        assert_eq!(e.repository.as_deref(), Some("okd/scos-content"));
        assert!(!e.registry_implied);
    }

    /// A mirror serving digests only is not where a pull by tag went: the source is.
    #[test]
    fn a_pull_by_tag_is_not_sent_to_a_digest_only_mirror() {
        let mut context = PullContext {
            image: None,
            rules: rules(),
        };
        assert_eq!(context.first_mirror("quay.io/okd/scos-content:4.19"), None);
        assert_eq!(
            context
                .first_mirror("quay.io/okd/scos-content@sha256:ead6")
                .as_deref(),
            Some("registry.example.com:5000/okd/scos-content@sha256:ead6")
        );
        context.rules[1].digest_only = false;
        assert_eq!(
            context
                .first_mirror("quay.io/okd/scos-content:4.19")
                .as_deref(),
            Some("registry.example.com:5000/okd/scos-content:4.19")
        );
    }

    /// What a line names itself wins over the context.
    #[test]
    fn the_line_wins_over_the_context() {
        let line = "Error: initializing source docker://localhost:5931/okd/x:1: reading manifest 1 \
                    in localhost:5931/okd/x: manifest unknown";
        let context = PullContext {
            image: Some("quay.io/okd/scos-content@sha256:ead6".into()),
            rules: rules(),
        };
        let e = read_pull(line)
            .expect("read")
            .in_context(&context)
            .first()
            .cloned()
            .expect("one");
        assert_eq!(e.registry.as_deref(), Some("localhost:5931"));
        assert_eq!(e.repository.as_deref(), Some("okd/x"));
        assert_eq!(e.image.as_deref(), Some("localhost:5931/okd/x:1"));
    }
}
