//! What the bundle says around a failed pull's error line: the image the same attempt
//! named, the host's mirror rules (its registries.conf and drop-ins as gathered, which is
//! what its pulls followed; without them the install's ImageDigestMirrorSet, from which
//! okd-install made that file), how often the error repeated and since when,
//! and the unit's own last line (our script's, quoted below the error as context, never in
//! its place).

use contract::registry_error::{self, MirrorRule, PullContext};
use serde::Deserialize;

use super::bundle::{BundleFile, Wanted};
use super::repeated::split_time;

/// podman's progress lines of one attempt, before its error, and our scripts' line that
/// names the image of a quiet podman call: the attempt's other lines.
const PROGRESS: &[&str] = &[
    registry_error::PULLING,
    "Trying to pull ",
    "Getting image source signatures",
    "Copying blob ",
    "Copying config ",
    "Writing manifest ",
    "Storing signatures",
];

#[derive(Deserialize)]
struct MirrorSet {
    kind: String,
    spec: Option<MirrorSetSpec>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MirrorSetSpec {
    #[serde(default)]
    image_digest_mirrors: Vec<Rule>,
}

#[derive(Deserialize)]
struct Rule {
    source: String,
    #[serde(default)]
    mirrors: Vec<String>,
}

/// One `[[registry]]` table of registries.conf (v2): the images it covers (`prefix`, or its
/// `location` when that is empty), where they are pulled from (`location`) and the mirrors
/// tried before it, in order.
#[derive(Deserialize)]
struct ConfRegistry {
    #[serde(default)]
    prefix: String,
    /// The mirrors serve pulls by digest only; a tag is pulled from `location`.
    #[serde(default, rename = "mirror-by-digest-only")]
    mirror_by_digest_only: bool,
    #[serde(default)]
    location: String,
    #[serde(default)]
    mirror: Vec<ConfMirror>,
}

#[derive(Deserialize)]
struct ConfMirror {
    location: String,
}

#[derive(Deserialize)]
struct RegistriesConf {
    #[serde(default)]
    registry: Vec<ConfRegistry>,
}

/// The host's mirror rules: its registries.conf, then its drop-ins by name, a later table
/// of the same prefix replacing an earlier one (as containers/image merges them); each
/// rule's mirrors, then its location when that rewrites the prefix. `None` when the bundle
/// has no registries.conf (a bundle of an older gather script). A file that does not parse
/// is left out: the host's tools would have refused it too, and said so in the journal.
fn host_mirror_rules(files: &[BundleFile]) -> Option<Vec<MirrorRule>> {
    let mut confs: Vec<&BundleFile> = files
        .iter()
        .filter(|f| f.kind == Wanted::RegistriesConf)
        .collect();
    if confs.is_empty() {
        return None;
    }
    confs.sort_by_key(|f| (f.path.contains("registries.conf.d/"), f.path.as_str()));
    let mut rules: Vec<MirrorRule> = Vec::new();
    for conf in confs {
        let Ok(parsed) = toml::from_str::<RegistriesConf>(&conf.text) else {
            continue;
        };
        for table in parsed.registry {
            let source = match table.prefix.is_empty() {
                true => table.location.clone(),
                false => table.prefix,
            };
            let mut mirrors: Vec<String> = table.mirror.into_iter().map(|m| m.location).collect();
            if !table.location.is_empty() && table.location != source {
                mirrors.push(table.location);
            }
            rules.retain(|r| r.source != source);
            if !mirrors.is_empty() {
                rules.push(MirrorRule {
                    source,
                    mirrors,
                    digest_only: table.mirror_by_digest_only,
                });
            }
        }
    }
    Some(rules)
}

/// The mirror rules the host's pulls followed: its registries.conf's when the bundle has
/// it, else the install's ImageDigestMirrorSet's; and which of the two they are.
fn mirror_rules(files: &[BundleFile]) -> (Vec<MirrorRule>, RulesFrom) {
    match host_mirror_rules(files) {
        Some(rules) => (rules, RulesFrom::Host),
        None => (mirror_set_rules(files), RulesFrom::MirrorSet),
    }
}

/// Where the mirror rules were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RulesFrom {
    Host,
    MirrorSet,
}

impl RulesFrom {
    /// The subject of a sentence about where the rules send pulls.
    fn words(self) -> &'static str {
        match self {
            RulesFrom::Host => "the host's registries.conf sends",
            RulesFrom::MirrorSet => "the mirror rules send",
        }
    }
}

/// The mirror rules of the install's ImageDigestMirrorSet among the bundle's asset
/// manifests, in their order.
fn mirror_set_rules(files: &[BundleFile]) -> Vec<MirrorRule> {
    files
        .iter()
        .filter(|f| f.kind == Wanted::AssetManifest && f.text.contains("ImageDigestMirrorSet"))
        .filter_map(|f| serde_saphyr::from_str::<MirrorSet>(&f.text).ok())
        .filter(|s| s.kind == "ImageDigestMirrorSet")
        .flat_map(|s| s.spec.map(|s| s.image_digest_mirrors).unwrap_or_default())
        .map(|r| MirrorRule {
            source: r.source,
            mirrors: r.mirrors,
            digest_only: true,
        })
        .collect()
}

/// The journal lines of `unit` (`name.service`).
fn journal_lines<'a>(files: &'a [BundleFile], unit: Option<&str>) -> Vec<&'a str> {
    let Some(unit) = unit else {
        return Vec::new();
    };
    let name = unit.trim_end_matches(".service");
    super::journal(files, name, None).map_or_else(Vec::new, |j| j.text.lines().collect())
}

/// The message of a journal line, without its time and unit prefix.
fn message(line: &str) -> &str {
    split_time(line).1.trim()
}

/// The index of the newest line of `lines` whose message is `evidence`'s.
fn newest(lines: &[&str], evidence: &str) -> Option<usize> {
    let want = message(evidence);
    lines.iter().rposition(|l| message(l) == want)
}

/// The context of the pull whose error `evidence` is, in `unit`'s journal: the image its
/// attempt named (podman's progress lines just before the error) and the mirror rules.
pub(crate) fn context(files: &[BundleFile], unit: Option<&str>, evidence: &str) -> PullContext {
    let lines = journal_lines(files, unit);
    let image = newest(&lines, evidence).and_then(|at| {
        let attempt: Vec<&str> = lines[..at]
            .iter()
            .rev()
            .take_while(|l| PROGRESS.iter().any(|p| message(l).starts_with(p)))
            .copied()
            .collect();
        PullContext::image_of_lines(attempt.into_iter().rev())
    });
    PullContext {
        image,
        rules: mirror_rules(files).0,
    }
}

/// Sentences about the error line `evidence` of `unit`: how often its unit wrote it and
/// since when, where the mirror rules send the pulls when the line names no repository,
/// and the unit's own last line when that is another (our script's retry or progress
/// line), quoted as context.
pub(crate) fn details(
    files: &[BundleFile],
    unit: Option<&str>,
    evidence: &str,
    context: &PullContext,
) -> Vec<String> {
    let lines = journal_lines(files, unit);
    let want = message(evidence);
    let same: Vec<&str> = lines
        .iter()
        .filter(|l| message(l) == want)
        .copied()
        .collect();
    let mut out = Vec::new();
    if same.len() > 1 {
        let first = split_time(same[0]).0;
        let last = split_time(same[same.len() - 1]).0;
        out.push(match (first, last) {
            (Some(f), Some(l)) => format!(
                "the pull failed so {} times in the journal, from {f} to {l}",
                same.len()
            ),
            _ => format!("the pull failed so {} times in the journal", same.len()),
        });
    }
    let named = registry_error::read_pull(evidence)
        .map(|p| p.in_context(context))
        .is_some_and(|p| p.attempts().all(|e| e.repository.is_some()));
    let firsts: Vec<String> = context
        .rules
        .iter()
        .filter_map(|r| Some(format!("`{}` for `{}`", r.mirrors.first()?, r.source)))
        .collect();
    if !named && !firsts.is_empty() {
        out.push(format!(
            "the line names no repository; {} these pulls first to {}",
            mirror_rules(files).1.words(),
            firsts.join(", ")
        ));
    }
    let last = lines
        .iter()
        .rev()
        .map(|l| message(l))
        .find(|m| !m.is_empty());
    if let Some(last) = last
        && last != want
        && !registry_error::is_pull_error(last)
    {
        out.push(format!("the unit's last line: {last}"));
    }
    out
}
