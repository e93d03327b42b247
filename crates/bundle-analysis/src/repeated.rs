//! The error lines the bootstrap repeated most: where to look when no rule names a cause.
//!
//! A stalled bootstrap keeps retrying what blocks it, so the line it wrote most often is
//! usually the one that says why. The bootstrap's journals and its containers' logs are read
//! whole (a container log as far as the bundle keeps it); lines that differ only in their
//! time, counters or addresses are one group, shown with its count, its first and last time
//! and its newest line as written.

use std::collections::HashMap;

use serde::Serialize;

use super::bundle::{BundleFile, Wanted};

/// How many groups are shown.
pub(crate) const SHOWN: usize = 10;

/// One group of like error lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RepeatedError {
    /// How many lines the group holds.
    pub count: usize,
    /// The time of its first line, as the line gives it (when it gives one).
    pub first: Option<String>,
    /// The time of its last line.
    pub last: Option<String>,
    /// Its newest line, as written (without the journal's prefix).
    pub line: String,
    /// The files (paths inside the bundle) its lines come from.
    pub files: Vec<String>,
}

/// The bootstrap host's journals and container logs.
fn sources(files: &[BundleFile]) -> impl Iterator<Item = &BundleFile> {
    files.iter().filter(|f| match f.kind {
        Wanted::Journal(_) => true,
        Wanted::ContainerLog => f.path.contains("/bootstrap/") || f.path.starts_with("bootstrap/"),
        _ => false,
    })
}

/// The [`SHOWN`] most repeated error lines, most repeated first (then the newest first).
pub(crate) fn most_repeated(files: &[BundleFile]) -> Vec<RepeatedError> {
    let mut groups: HashMap<String, (RepeatedError, usize)> = HashMap::new();
    let mut order = 0usize;
    for file in sources(files) {
        for raw in file.text.lines() {
            let (time, message) = split_time(raw);
            let message = message.trim();
            if !is_error(message) {
                continue;
            }
            order += 1;
            let group = groups.entry(shape(message)).or_insert_with(|| {
                let first = RepeatedError {
                    count: 0,
                    first: time.clone(),
                    last: None,
                    line: String::new(),
                    files: Vec::new(),
                };
                (first, 0)
            });
            group.0.count += 1;
            group.0.last = time.or(group.0.last.take());
            group.0.line = message.to_string();
            group.1 = order;
            if !group.0.files.contains(&file.path) {
                group.0.files.push(file.path.clone());
            }
        }
    }
    let mut all: Vec<(RepeatedError, usize)> = groups.into_values().collect();
    all.sort_by(|a, b| b.0.count.cmp(&a.0.count).then(b.1.cmp(&a.1)));
    all.into_iter().take(SHOWN).map(|(g, _)| g).collect()
}

/// Whether a line (without its prefix) reports an error: the words the tools use for one,
/// or the error and warning levels of klog and zap.
fn is_error(message: &str) -> bool {
    if message.is_empty() {
        return false;
    }
    let l = message.to_ascii_lowercase();
    if l.starts_with('{') {
        return [
            "\"level\":\"error\"",
            "\"level\":\"fatal\"",
            "\"level\":\"warn\"",
        ]
        .iter()
        .any(|p| l.contains(p));
    }
    if klog_header(message).is_some_and(|h| h.starts_with(['E', 'F'])) {
        return true;
    }
    [
        "error",
        "failed",
        "failure",
        "refused",
        "timed out",
        "timeout",
        "not found",
        "unable",
        "cannot",
        "denied",
        "forbidden",
        "invalid",
        "no such",
    ]
    .iter()
    .any(|p| l.contains(p))
}

/// The group a line falls in: its digits and hex runs made alike, so that retries that only
/// count, time or address differently are one group.
fn shape(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut in_number = false;
    for c in message.chars() {
        if c.is_ascii_digit() {
            if !in_number {
                out.push('#');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// The line's time and the rest: `journalctl -o short`'s `Mon DD HH:MM:SS host unit[pid]: `
/// or `-o short-iso`'s `YYYY-MM-DDTHH:MM:SS±ZZZZ host unit[pid]: `, else the time in the
/// message itself (klog's header, zap's `ts`), else none.
pub(crate) fn split_time(line: &str) -> (Option<String>, &str) {
    let words: Vec<&str> = line.splitn(6, ' ').collect();
    let journal_unit = |w: &str| w.ends_with(':');
    if words.len() >= 5 && MONTHS.contains(&words[0]) {
        // "Nov 28 08:14:02 host unit[pid]: message" ("Nov  8" has two spaces).
        let rest = line.split_once(' ').map_or("", |(_, r)| r).trim_start();
        let mut parts = rest.splitn(5, ' ');
        let (day, clock, _host, unit) = (parts.next(), parts.next(), parts.next(), parts.next());
        if let (Some(day), Some(clock), Some(unit)) = (day, clock, unit)
            && clock.len() == 8
            && journal_unit(unit)
        {
            let time = format!("{} {day} {clock}", words[0]);
            return (Some(time), parts.next().unwrap_or_default());
        }
    }
    if words.len() >= 4 && is_iso(words[0]) && journal_unit(words[2]) {
        let message = line.splitn(4, ' ').nth(3).unwrap_or_default();
        return (Some(words[0].to_string()), message);
    }
    (message_time(line), line)
}

fn is_iso(word: &str) -> bool {
    let b = word.as_bytes();
    b.len() >= 19 && b[4] == b'-' && b[7] == b'-' && b[10] == b'T' && b[0].is_ascii_digit()
}

/// The time a message carries itself: klog's `E1128 08:14:02.123456` or zap's `"ts":"..."`.
fn message_time(message: &str) -> Option<String> {
    if let Some(h) = klog_header(message) {
        return Some(format!("{}-{} {}", &h[1..3], &h[3..5], &h[6..]));
    }
    let ts = message.split("\"ts\":\"").nth(1)?.split('"').next()?;
    Some(ts.to_string())
}

/// klog's header `Lmmdd hh:mm:ss.uuuuuu`, when the message starts with one.
fn klog_header(message: &str) -> Option<&str> {
    let head = message.get(..21)?;
    let b = head.as_bytes();
    let ok = matches!(b[0], b'I' | b'W' | b'E' | b'F')
        && b[1..5].iter().all(u8::is_ascii_digit)
        && b[5] == b' '
        && b[8] == b':'
        && b[11] == b':'
        && b[14] == b'.';
    ok.then_some(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_come_from_the_journal_or_the_message() {
        let (t, m) = split_time("Nov 28 08:14:02 bootstrap bootkube.sh[2301]: Failed to create");
        assert_eq!(t.as_deref(), Some("Nov 28 08:14:02"));
        assert_eq!(m, "Failed to create");
        let (t, m) = split_time("Nov  8 08:14:02 bootstrap bootkube.sh[2301]: x");
        assert_eq!((t.as_deref(), m), (Some("Nov 8 08:14:02"), "x"));
        let (t, m) = split_time("2026-11-28T08:14:02+0000 bootstrap bootkube.sh[1]: y");
        assert_eq!((t.as_deref(), m), (Some("2026-11-28T08:14:02+0000"), "y"));
        let klog = "E1128 08:14:02.123456       1 run.go:72] boom";
        assert_eq!(
            split_time(klog),
            (Some("11-28 08:14:02.123456".into()), klog)
        );
        let zap = r#"{"level":"warn","ts":"2026-11-26T15:06:36.885Z","msg":"x"}"#;
        assert_eq!(
            split_time(zap).0.as_deref(),
            Some("2026-11-26T15:06:36.885Z")
        );
        assert_eq!(split_time("plain words"), (None, "plain words"));
    }

    #[test]
    fn like_lines_are_one_group_and_the_most_repeated_comes_first() {
        let journal = "Nov 28 08:00:01 b bootkube.sh[1]: [#1] failed to create some manifests:\n\
                       Nov 28 08:00:01 b bootkube.sh[1]: Starting\n\
                       Nov 28 08:00:02 b bootkube.sh[1]: Error: dial tcp 10.0.0.1:6443: connect: connection refused\n\
                       Nov 28 08:00:06 b bootkube.sh[1]: [#2] failed to create some manifests:\n\
                       Nov 28 08:00:11 b bootkube.sh[1]: [#3] failed to create some manifests:\n";
        let files = vec![BundleFile {
            path: "b/bootstrap/journals/bootkube.log".into(),
            kind: Wanted::Journal("bootkube".into()),
            text: journal.into(),
        }];
        let groups = most_repeated(&files);
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].count, 3);
        assert_eq!(groups[0].line, "[#3] failed to create some manifests:");
        assert_eq!(groups[0].first.as_deref(), Some("Nov 28 08:00:01"));
        assert_eq!(groups[0].last.as_deref(), Some("Nov 28 08:00:11"));
        assert_eq!(groups[1].count, 1);
    }
}
