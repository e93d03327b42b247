//! What the bundle says around a failed pull's error line: the image the same attempt
//! named, the host's mirror rules (the install's ImageDigestMirrorSet, from which the
//! bootstrap host's registries.conf is made), how often the error repeated and since when,
//! and the unit's own last line (our script's, quoted below the error as context, never in
//! its place).

use contract::registry_error::{self, MirrorRule, PullContext};
use serde::Deserialize;

use super::bundle::{BundleFile, Wanted};
use super::repeated::split_time;

/// podman's progress lines of one attempt, before its error: the attempt's other lines.
const PROGRESS: &[&str] = &[
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

/// The mirror rules of the install's ImageDigestMirrorSet among the bundle's asset
/// manifests, in their order.
fn mirror_rules(files: &[BundleFile]) -> Vec<MirrorRule> {
    files
        .iter()
        .filter(|f| f.kind == Wanted::AssetManifest && f.text.contains("ImageDigestMirrorSet"))
        .filter_map(|f| serde_saphyr::from_str::<MirrorSet>(&f.text).ok())
        .filter(|s| s.kind == "ImageDigestMirrorSet")
        .flat_map(|s| s.spec.map(|s| s.image_digest_mirrors).unwrap_or_default())
        .map(|r| MirrorRule {
            source: r.source,
            mirrors: r.mirrors,
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
        rules: mirror_rules(files),
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
            "the line names no repository; the mirror rules send these pulls first to {}",
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
