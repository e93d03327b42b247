//! What a terminal obeys: text that would steer it, and the check that output holds none.

use serde_json::Value;

/// Would set the terminal's title, erase the line and the screen (C0 and C1 forms), move the
/// cursor up and back, reverse the text's direction and claim success.
pub const STEERING: &str =
    "\u{1b}]0;owned\u{7}\u{1b}[2K\r\u{1b}[1A\u{8}\u{9b}2J\u{202e}bootstrap complete";

/// The first character of `text` a terminal would obey rather than show: a control character
/// other than the line feed and the tab (C0, DEL, C1), or a bidirectional override.
pub fn steering(text: &str) -> Option<char> {
    text.chars().find(|&c| {
        (c.is_control() && c != '\n' && c != '\t')
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    })
}

/// The first string of `value` (a key or a value, at any depth) that holds a character a
/// terminal would obey ([`steering`]): what `jq -r` would print raw.
pub fn steering_in_json(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => steering(s).map(|_| s.clone()),
        Value::Array(items) => items.iter().find_map(steering_in_json),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            steering(k)
                .map(|_| k.clone())
                .or_else(|| steering_in_json(v))
        }),
        Value::Null | Value::Bool(_) | Value::Number(_) => None,
    }
}
