//! Text from a bundle is shown, never obeyed.
//!
//! A bundle comes from a host that may be broken or hostile, and everything the analysis
//! prints of it (journal lines, record messages, file and container names) reaches a
//! terminal or a script. A raw escape sequence could set the terminal's title, erase the
//! lines above it and print "bootstrap complete" in their place; a carriage return or a
//! backspace could hide what precedes it on its line. So every control character, and every
//! character that reorders the text around it (the bidirectional overrides), is written as
//! a visible escape (`\x1b`, `\r`, `\u{202e}`) the moment it is read out of the bundle: in
//! file text, in the strings of the JSON and YAML documents, in the archive's entry names.
//! A backslash is left as it is, so ordinary text (paths, regular expressions) reads the
//! same; the escapes are for reading, not for decoding back.

use std::borrow::Cow;
use std::fmt::Write;

use serde_json::Value;

/// Keys of the JSON documents whose strings are several lines by design (a service record's
/// journal excerpt): their line breaks are kept, and split into lines before they are shown.
const MULTILINE_KEYS: &[&str] = &["errorMessage"];

/// `text` with every control character but the line feed and the tab escaped (see the
/// module): for text that is split into lines before anything of it is shown, and for the
/// whole report, whose lines are ours.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// `text` as one line: like [`escape_controls`], and a line feed is escaped too, so a value
/// shown inside a line of the report cannot start a line of its own.
pub(crate) fn escape_line(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// `text` escaped as one line ([`escape_line`]), in place.
pub(crate) fn escape_line_in_place(text: &mut Option<String>) {
    if let Some(t) = text
        && let Cow::Owned(escaped) = escape_line(t)
    {
        *t = escaped;
    }
}

/// `text` escaped keeping its line feeds ([`escape_controls`]), in place.
pub(crate) fn escape_lines_in_place(text: &mut Option<String>) {
    if let Some(t) = text
        && let Cow::Owned(escaped) = escape_controls(t)
    {
        *t = escaped;
    }
}

/// Every string of `value` escaped in place, keys too, keeping line feeds and tabs
/// ([`escape_controls`]): for a JSON form of the report. JSON stays JSON (the escapes are
/// ordinary characters), and a consumer that prints a field raw (`jq -r`) shows the same
/// escaped text as the console.
pub fn escape_json_strings(value: &mut Value) {
    walk(value, &|_| true);
}

/// Every string of a document read out of the bundle escaped in place, keys too: as one
/// line ([`escape_line`]), except the values of [`MULTILINE_KEYS`], which keep their line
/// breaks.
pub(crate) fn escape_document(value: &mut Value) {
    walk(value, &|key| {
        key.is_some_and(|k| MULTILINE_KEYS.contains(&k))
    });
}

/// Escapes every string under `value`; `keeps_lines` says by the key a string is the value
/// of (`None` in an array or at the top) whether it keeps its line feeds.
fn walk(value: &mut Value, keeps_lines: &dyn Fn(Option<&str>) -> bool) {
    walk_under(value, None, keeps_lines);
}

fn walk_under(value: &mut Value, key: Option<&str>, keeps_lines: &dyn Fn(Option<&str>) -> bool) {
    match value {
        Value::String(s) => {
            if let Cow::Owned(escaped) = escape(s, keeps_lines(key)) {
                *s = escaped;
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| walk_under(v, None, keeps_lines)),
        Value::Object(map) => {
            let needs_new_keys = map.keys().any(|k| matches!(escape_line(k), Cow::Owned(_)));
            if needs_new_keys {
                let old = std::mem::take(map);
                map.extend(
                    old.into_iter()
                        .map(|(k, v)| (escape_line(&k).into_owned(), v)),
                );
            }
            for (k, v) in map.iter_mut() {
                walk_under(v, Some(k), keeps_lines);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Parses `text` as JSON with every string escaped ([`escape_document`]).
pub(crate) fn json_value(text: &str) -> Result<Value, serde_json::Error> {
    let mut value: Value = json(text)?;
    escape_document(&mut value);
    Ok(value)
}

/// The most keys and values a JSON document of the bundle may hold: parsed, each costs some
/// tens of bytes, so a file of a few MiB of `[{},{},...]` would take gigabytes. The YAML
/// parser has the same limit of its own (250 000 nodes); real dumps hold some thousands.
const MAX_JSON_NODES: usize = 500_000;

/// Parses `text` as a `T` when it holds at most [`MAX_JSON_NODES`] keys and values.
pub(crate) fn json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    let nodes = json_nodes(text);
    if nodes > MAX_JSON_NODES {
        return Err(serde::de::Error::custom(format!(
            "it holds about {nodes} keys and values, more than the {MAX_JSON_NODES} the \
             analysis reads of one document"
        )));
    }
    serde_json::from_str(text)
}

/// About how many keys and values the JSON `text` holds: its separators and openings outside
/// strings, counted without parsing.
fn json_nodes(text: &str) -> usize {
    let (mut nodes, mut in_string, mut escaped) = (1usize, false, false);
    for b in text.bytes() {
        match (in_string, escaped, b) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') => in_string = false,
            (true, false, _) => {}
            (false, _, b'"') => in_string = true,
            (false, _, b'[' | b'{' | b',' | b':') => nodes += 1,
            (false, _, _) => {}
        }
    }
    nodes
}

/// Whether `c` is shown escaped: a control character (C0, DEL, C1) or one that reorders the
/// text around it.
fn hidden(c: char, keep_line_feed: bool) -> bool {
    match c {
        '\t' => false,
        '\n' => !keep_line_feed,
        '\u{200e}' | '\u{200f}' | '\u{061c}' => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        c => c.is_control(),
    }
}

fn escape(text: &str, keep_line_feed: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| hidden(c, keep_line_feed)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            c if !hidden(c, keep_line_feed) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

/// The text of a file of the bundle: lossy UTF-8, line ends of either kind, every control
/// character escaped ([`escape_controls`]).
pub(crate) fn file_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = if text.contains("\r\n") {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        text
    };
    escape_controls(&text).into_owned()
}

/// The text of a JSON or YAML document of the bundle: lossy UTF-8 with every control
/// character but the line ends and the tab written as a JSON escape (`\u001b`), which the
/// document's strings decode and [`escape_document`] then shows escaped. A visible escape
/// (`\x1b`) would make a valid document invalid; this one keeps it valid, while the text
/// itself, shown anywhere (the start of a document that does not parse), steers nothing.
pub(crate) fn document_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let hidden_here = |c: char| c != '\r' && hidden(c, true);
    if !text.chars().any(hidden_here) {
        return text.into_owned();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if hidden_here(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        let title = "\u{1b}]0;owned\u{7}bootstrap complete\r\u{8}\u{9b}2K\u{202e}txt";
        assert_eq!(
            escape_controls(title),
            "\\x1b]0;owned\\x07bootstrap complete\\r\\x08\\x9b2K\\u{202e}txt"
        );
        assert_eq!(escape_controls("a\tb\nc\\d"), "a\tb\nc\\d");
        assert!(matches!(escape_controls("plain line"), Cow::Borrowed(_)));
        assert_eq!(
            escape_line("one\nNo problem found"),
            "one\\nNo problem found"
        );
    }

    #[test]
    fn files_keep_their_lines_and_lose_their_escapes() {
        let text = file_text(b"first\r\nsecond\x1b[2J\rover\xff\n");
        assert_eq!(text, "first\nsecond\\x1b[2J\\rover\u{fffd}\n");
    }

    #[test]
    fn a_document_of_too_many_values_is_refused_unparsed() {
        let bomb = format!("[{}{{}}]", "{},".repeat(MAX_JSON_NODES));
        let err = json_value(&bomb).unwrap_err().to_string();
        assert!(
            err.contains("more than the 500000 the analysis reads"),
            "{err}"
        );
        assert_eq!(json_nodes(r#"{"a,[{:": [1, {"b": "\"]"}]}"#), 7);
    }

    #[test]
    fn documents_stay_valid_and_steer_nothing() {
        let raw = "[{\"stage\": \"a\u{9b}2J\u{202e}\u{7f}\", \"errorMessage\": \"x\u{1b}\"}]\r\n";
        let text = document_text(raw.as_bytes());
        assert_eq!(
            text,
            "[{\"stage\": \"a\\u009b2J\\u202e\\u007f\", \"errorMessage\": \"x\\u001b\"}]\r\n"
        );
        assert_eq!(
            json_value(&text).unwrap(),
            serde_json::json!([{"stage": "a\\x9b2J\\u{202e}\\x7f", "errorMessage": "x\\x1b"}])
        );
    }

    #[test]
    fn a_report_in_json_keeps_its_line_feeds() {
        let mut value = serde_json::json!({"a\u{1b}": ["x\ny\u{7}"]});
        escape_json_strings(&mut value);
        assert_eq!(value, serde_json::json!({"a\\x1b": ["x\ny\\x07"]}));
    }

    #[test]
    fn json_strings_and_keys_are_escaped_and_messages_keep_their_lines() {
        let value = json_value(
            r#"[{"stage":"a\nb","errorMessage":"l1\nl2\u001b[1A","k\u0007":{"x":["\u001b"]}}]"#,
        )
        .unwrap();
        assert_eq!(
            value,
            serde_json::json!([{
                "stage": "a\\nb",
                "errorMessage": "l1\nl2\\x1b[1A",
                "k\\x07": {"x": ["\\x1b"]}
            }])
        );
    }
}
