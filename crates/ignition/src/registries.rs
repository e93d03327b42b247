//! The `[[registry]]` entries of the bootstrap host's `registries.conf`, from the
//! install-config's mirror entries.

use releases::{Feature, Release};

use crate::RegistryContext;

/// The policy value that keeps the source itself from being contacted.
pub const NEVER_CONTACT_SOURCE: &str = "NeverContactSource";

/// One `imageDigestSources` (or deprecated `imageContentSources`) entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MirrorEntry<'a> {
    /// The repository images are named by.
    pub source: &'a str,
    /// Its mirrors, in the order given.
    pub mirrors: &'a [String],
    /// `sourcePolicy` as written (`NeverContactSource`, `AllowContactingSource`), if given.
    pub source_policy: Option<&'a str>,
}

/// Entries merged the way upstream merges them for `release`, one per group in the order
/// the groups first appear, each group's mirrors de-duplicated in the order given.
///
/// Up to 4.20 a group is a source; from 4.21 ([`Feature::RegistrySourcePolicy`]) it is a
/// source with its `sourcePolicy` (absent, `AllowContactingSource` and `NeverContactSource`
/// are three groups), and a group with `NeverContactSource` is blocked. Groups without
/// mirrors are left out.
pub fn mirror_groups(entries: &[MirrorEntry<'_>], release: &Release) -> Vec<MirrorGroup> {
    let per_policy = release.has(Feature::RegistrySourcePolicy);
    let mut groups: Vec<MirrorGroup> = Vec::new();
    for entry in entries {
        let policy = entry.source_policy.filter(|_| per_policy);
        let at = groups
            .iter()
            .position(|g| g.source == entry.source && g.policy.as_deref() == policy);
        let group = match at {
            Some(i) => &mut groups[i],
            None => {
                groups.push(MirrorGroup::new(entry.source, policy));
                groups.last_mut().expect("just pushed")
            }
        };
        add_unique(&mut group.mirrors, entry.mirrors);
    }
    groups.retain(|g| !g.mirrors.is_empty());
    groups
}

/// One merged group of mirror entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirrorGroup {
    /// The source.
    pub source: String,
    /// The policy the group is keyed by (always `None` before 4.21).
    pub policy: Option<String>,
    /// The mirrors, de-duplicated, in the order first given.
    pub mirrors: Vec<String>,
}

impl MirrorGroup {
    fn new(source: &str, policy: Option<&str>) -> Self {
        MirrorGroup {
            source: source.to_string(),
            policy: policy.map(str::to_string),
            mirrors: Vec::new(),
        }
    }

    fn blocked(&self) -> bool {
        self.policy.as_deref() == Some(NEVER_CONTACT_SOURCE)
    }
}

/// The registries.conf entries for `entries` on `release`: upstream's groups
/// ([`mirror_groups`]), then one entry per source.
///
/// Upstream writes one `[[registry]]` per group, so from 4.21 a source given under two
/// policies gets two entries with the same location. Podman and CRI-O (containers/image)
/// refuse a whole registries.conf in which one location is blocked in one entry and not in
/// another, so every pull on the bootstrap host would fail; and of two entries with the same
/// location they use the first only, so the second group's mirrors would be silently unused.
/// Neither is what the user asked for. Here the groups of one source become one entry, at the
/// place of its first group, with the mirrors of its groups in group order and blocked if any
/// group is: the registries.conf the machine-config operator writes on the cluster's nodes for
/// the same ImageDigestMirrorSet (it merges per source and blocks a source when any of its
/// sets says `NeverContactSource`), so the bootstrap host pulls the way the nodes will. Where
/// each source has one policy, the result is upstream's, entry for entry.
pub fn registries(entries: &[MirrorEntry<'_>], release: &Release) -> Vec<RegistryContext> {
    let mut out: Vec<RegistryContext> = Vec::new();
    for group in mirror_groups(entries, release) {
        match out.iter_mut().find(|r| r.source == group.source) {
            Some(entry) => {
                add_unique(&mut entry.mirrors, &group.mirrors);
                entry.blocked |= group.blocked();
            }
            None => out.push(RegistryContext {
                blocked: group.blocked(),
                source: group.source,
                mirrors: group.mirrors,
            }),
        }
    }
    out
}

/// Appends the items of `more` that `list` does not hold yet, in order.
fn add_unique(list: &mut Vec<String>, more: &[String]) {
    for item in more {
        if !list.contains(item) {
            list.push(item.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn release(minor: &str) -> &'static Release {
        releases::table().get(minor.parse().unwrap()).unwrap()
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn entry<'a>(
        source: &'a str,
        mirrors: &'a [String],
        policy: Option<&'a str>,
    ) -> MirrorEntry<'a> {
        MirrorEntry {
            source,
            mirrors,
            source_policy: policy,
        }
    }

    fn registry(source: &str, mirrors: &[&str], blocked: bool) -> RegistryContext {
        RegistryContext {
            source: source.into(),
            mirrors: strings(mirrors),
            blocked,
        }
    }

    /// The same source with the same policy twice is one group: mirrors de-duplicated, in
    /// the order first given; other sources keep their place.
    #[test]
    fn a_source_given_twice_with_one_policy_is_merged() {
        let (ab, x, bc) = (strings(&["a", "b"]), strings(&["x"]), strings(&["b", "c"]));
        let never = Some(NEVER_CONTACT_SOURCE);
        let entries = [
            entry("q.io/s", &ab, never),
            entry("q.io/t", &x, None),
            entry("q.io/s", &bc, never),
        ];
        for minor in ["4.20", "4.21"] {
            let blocked = minor == "4.21";
            assert_eq!(
                registries(&entries, release(minor)),
                [
                    registry("q.io/s", &["a", "b", "c"], blocked),
                    registry("q.io/t", &["x"], false),
                ],
                "{minor}"
            );
        }
    }

    /// One source under two policies: from 4.21 upstream keeps a group per policy (so the
    /// mirrors of the second policy come after all of the first's), before 4.21 the policy
    /// does not exist and the source is one group. Either way registries.conf gets the source
    /// once, blocked from 4.21 because one of its entries says NeverContactSource.
    #[test]
    fn one_source_under_two_policies_is_two_groups_from_4_21_and_one_before() {
        let (a, b, ca) = (strings(&["a"]), strings(&["b"]), strings(&["c", "a"]));
        let entries = [
            entry("q.io/s", &a, None),
            entry("q.io/s", &b, Some(NEVER_CONTACT_SOURCE)),
            entry("q.io/s", &ca, None),
        ];
        let group = |policy: Option<&str>, mirrors: &[&str]| MirrorGroup {
            source: "q.io/s".into(),
            policy: policy.map(str::to_string),
            mirrors: strings(mirrors),
        };
        assert_eq!(
            mirror_groups(&entries, release("4.21")),
            [
                group(None, &["a", "c"]),
                group(Some(NEVER_CONTACT_SOURCE), &["b"])
            ]
        );
        assert_eq!(
            registries(&entries, release("4.21")),
            [registry("q.io/s", &["a", "c", "b"], true)]
        );
        assert_eq!(
            mirror_groups(&entries, release("4.20")),
            [group(None, &["a", "b", "c"])]
        );
        assert_eq!(
            registries(&entries, release("4.20")),
            [registry("q.io/s", &["a", "b", "c"], false)]
        );
    }

    /// AllowContactingSource and no policy are separate groups upstream, both unblocked: the
    /// second group's mirrors still reach registries.conf.
    #[test]
    fn an_explicit_allow_and_no_policy_keep_every_mirror() {
        let (a, b) = (strings(&["a"]), strings(&["b"]));
        let entries = [
            entry("q.io/s", &a, Some("AllowContactingSource")),
            entry("q.io/s", &b, None),
        ];
        assert_eq!(mirror_groups(&entries, release("4.22")).len(), 2);
        assert_eq!(
            registries(&entries, release("4.22")),
            [registry("q.io/s", &["a", "b"], false)]
        );
    }

    /// A group without mirrors is no registry entry, and does not block the source.
    #[test]
    fn groups_without_mirrors_are_left_out() {
        let (none, m) = (Vec::new(), strings(&["m"]));
        let entries = [
            entry("q.io/empty", &none, None),
            entry("q.io/s", &none, Some(NEVER_CONTACT_SOURCE)),
            entry("q.io/s", &m, Some("AllowContactingSource")),
        ];
        assert_eq!(
            registries(&entries, release("5.0")),
            [registry("q.io/s", &["m"], false)]
        );
    }
}
