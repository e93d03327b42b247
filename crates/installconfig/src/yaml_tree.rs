//! A YAML document as a tree of values with line/column positions.
//!
//! The schema walk and the error positions need to know where every value came from, so
//! install-config.yaml is first read into this tree (through serde-saphyr's `Spanned`) before
//! it is checked and turned into the typed [`crate::InstallConfig`].

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{DuplicateKeyPolicy, Spanned};

use crate::errors::Position;

/// A value with its position.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where it starts.
    pub pos: Position,
}

/// A YAML value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`, `~` or nothing.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i128),
    /// A floating-point number.
    Float(f64),
    /// A string.
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in document order (duplicate keys kept so they can be reported).
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// A short name of the YAML type for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Seq(_) => "list",
            Value::Map(_) => "mapping",
        }
    }

    /// The scalar as text (for error values); collections render as their type.
    pub fn scalar_text(&self) -> String {
        match self {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(x) => x.to_string(),
            Value::Str(s) => s.clone(),
            other => other.type_name().into(),
        }
    }
}

impl Node {
    /// The value of mapping key `key`, if this is a mapping that has it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| matches!(&k.value, Value::Str(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The position of the node at a field path such as `a.b[2].c`, or the closest parent.
    pub fn position_of(&self, path: &str) -> Option<Position> {
        let mut node = self;
        let mut matched = false;
        for seg in path_segments(path) {
            let next = match (&node.value, seg) {
                (Value::Map(_), Segment::Key(k)) => node.get(k),
                (Value::Seq(items), Segment::Index(i)) => items.get(i),
                _ => None,
            };
            match next {
                Some(n) => {
                    node = n;
                    matched = true;
                }
                None => break,
            }
        }
        (matched && node.pos.line > 0).then_some(node.pos)
    }

    /// Converts to JSON (scalars keep their YAML type; duplicate keys: the last one wins).
    pub fn to_json(&self) -> serde_json::Value {
        match &self.value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => (*b).into(),
            Value::Int(i) => i64::try_from(*i)
                .map(Into::into)
                .or_else(|_| u64::try_from(*i).map(Into::into))
                .unwrap_or_else(|_| (*i as f64).into()),
            Value::Float(x) => serde_json::Number::from_f64(*x)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Value::Str(s) => s.clone().into(),
            Value::Seq(items) => items.iter().map(Node::to_json).collect(),
            Value::Map(entries) => entries
                .iter()
                .map(|(k, v)| (k.value.scalar_text(), v.to_json()))
                .collect::<serde_json::Map<_, _>>()
                .into(),
        }
    }
}

/// One step of a field path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment<'a> {
    /// `.name`
    Key(&'a str),
    /// `[i]`
    Index(usize),
}

/// Splits `a.b[2].c` into segments.
pub fn path_segments(path: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            out.push(Segment::Key(key));
        }
        for idx in rest.split('[') {
            if let Ok(i) = idx.trim_end_matches(']').parse() {
                out.push(Segment::Index(i));
            }
        }
    }
    out
}

/// A YAML syntax (or structure) error with its position.
#[derive(Debug, Clone)]
pub struct SyntaxError {
    /// Where, when known.
    pub position: Position,
    /// The parser's message.
    pub message: String,
}

/// How deep mappings and lists may nest in install-config.yaml.
const MAX_DEPTH: usize = 32;

/// Parses one YAML document into a positioned tree.
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let opts = serde_saphyr::options! {
        duplicate_keys: DuplicateKeyPolicy::PassThrough,
        with_snippet: false,
        strict_booleans: true,
        // No install config nests more than 10 levels; the default of 64 needs more stack
        // than a worker thread of a debug build has.
        budget: serde_saphyr::budget! { max_depth: MAX_DEPTH },
    };
    if text.trim().is_empty() {
        return Ok(Node {
            value: Value::Map(Vec::new()),
            pos: Position { line: 1, column: 1 },
        });
    }
    let mut tree = serde_saphyr::from_str_with_options::<Node>(text, opts).map_err(|e| {
        let position = e
            .location()
            .map(|l| Position {
                line: l.line(),
                column: l.column(),
            })
            .unwrap_or(Position { line: 1, column: 1 });
        SyntaxError {
            position,
            message: syntax_message(&e.to_string()),
        }
    })?;
    let lines: Vec<&str> = text.lines().collect();
    exact_integers(&mut tree, &lines);
    Ok(tree)
}

/// The parser reads an integer beyond 64 bits as a float, which messages would then show
/// rounded (99999999999999999999999 as 100000000000000000000000): such a value written as
/// an integer literal is read again from the source, exactly.
fn exact_integers(node: &mut Node, lines: &[&str]) {
    match &mut node.value {
        Value::Float(_) => {
            let literal = usize::try_from(node.pos.line)
                .ok()
                .and_then(|l| lines.get(l.checked_sub(1)?))
                .and_then(|line| {
                    let column = usize::try_from(node.pos.column).ok()?.checked_sub(1)?;
                    let rest: String = line.chars().skip(column).collect();
                    let token = rest
                        .split(|c: char| c.is_whitespace() || ",]}#".contains(c))
                        .next()?
                        .to_string();
                    token.parse::<i128>().ok()
                });
            if let Some(i) = literal {
                node.value = Value::Int(i);
            }
        }
        Value::Seq(items) => items.iter_mut().for_each(|n| exact_integers(n, lines)),
        Value::Map(entries) => entries
            .iter_mut()
            .for_each(|(_, v)| exact_integers(v, lines)),
        _ => {}
    }
}

/// The parser's first message line without its own position suffix (the error carries the
/// position separately) and without hints aimed at programmers.
fn syntax_message(raw: &str) -> String {
    let first = raw.lines().next().unwrap_or_default();
    if let Some(breach) = first.strip_prefix("budget breached: ") {
        return budget_message(breach);
    }
    if first.contains("multiple YAML documents") {
        return "the file holds more than one YAML document; keep only the install config (remove the `---` separators)".into();
    }
    match first.rfind(" at line ") {
        Some(i) if first[i..].contains(", column ") => first[..i].to_string(),
        _ => first.to_string(),
    }
}

/// The parser's resource limits in words (its own text is a Rust debug dump such as
/// `Depth { depth: 65 }`).
fn budget_message(breach: &str) -> String {
    if breach.starts_with("Depth") || breach.starts_with("InclusionDepth") {
        "the file nests mappings and lists deeper than the parser allows (no install config \
         comes close); check the indentation, or whether this is the right file"
            .into()
    } else {
        "the file expands to far more values than any install config holds (YAML anchors and \
         aliases that multiply each other, or a very large file); write the values out \
         without aliases"
            .into()
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Spanned::<Value>::deserialize(d)?;
        let pos = Position {
            line: s.referenced.line(),
            column: s.referenced.column(),
        };
        Ok(Node {
            value: s.value,
            pos,
        })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        i128::try_from(v)
            .map(Value::Int)
            .map_err(|_| E::custom("integer too large"))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Str(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(n) = seq.next_element::<Node>()? {
            items.push(n);
        }
        Ok(Value::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<Node, Node>()? {
            entries.push((k, v));
        }
        Ok(Value::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_recorded_for_nested_values() {
        let n = parse("a: 1\nb:\n  c: [x, 2]\n  d: true\n").unwrap();
        assert_eq!(n.get("a").unwrap().value, Value::Int(1));
        let c = n.get("b").unwrap().get("c").unwrap();
        assert_eq!(c.pos.line, 3);
        assert_eq!(n.position_of("b.d").unwrap().line, 4);
        assert_eq!(
            n.position_of("b.c[1]").unwrap(),
            Position {
                line: 3,
                column: 10
            }
        );
    }

    #[test]
    fn duplicate_keys_are_kept() {
        let n = parse("a: 1\na: 2\n").unwrap();
        let Value::Map(entries) = n.value else {
            panic!("not a map")
        };
        assert_eq!(entries.len(), 2);
    }

    #[test]
    fn syntax_error_has_position() {
        let err = parse("a: 1\nb: [1, 2\nc: 3\n").unwrap_err();
        assert!(err.position.line >= 2, "{err:?}");
    }

    #[test]
    fn yaml_1_1_booleans_are_strings() {
        let n = parse("a: yes\nb: off\nc: true\n").unwrap();
        assert_eq!(n.get("a").unwrap().value, Value::Str("yes".into()));
        assert_eq!(n.get("b").unwrap().value, Value::Str("off".into()));
        assert_eq!(n.get("c").unwrap().value, Value::Bool(true));
    }

    #[test]
    fn resource_limits_are_explained_in_words() {
        let deep = format!("{}1{}", "[".repeat(40), "]".repeat(40));
        let err = parse(&deep).unwrap_err();
        assert!(
            err.message.contains("nests mappings and lists deeper"),
            "{err:?}"
        );
        assert!(!err.message.contains("Depth {"), "{err:?}");
        let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 0..12 {
            let prev = if i == 0 {
                "a".to_string()
            } else {
                format!("l{}", i - 1)
            };
            bomb.push_str(&format!(
                "l{i}: &l{i} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
            ));
        }
        let err = parse(&bomb).unwrap_err();
        assert!(err.message.contains("anchors and aliases"), "{err:?}");
        assert!(!err.message.contains("budget"), "{err:?}");
    }

    #[test]
    fn huge_integers_are_kept_exact() {
        let n =
            parse("a: 99999999999999999999999\nb: [1.5, 123456789012345678901234567]\n").unwrap();
        assert_eq!(
            n.get("a").unwrap().value,
            Value::Int(99_999_999_999_999_999_999_999)
        );
        let Value::Seq(b) = &n.get("b").unwrap().value else {
            panic!("not a list")
        };
        assert_eq!(b[0].value, Value::Float(1.5));
        assert_eq!(b[1].value, Value::Int(123_456_789_012_345_678_901_234_567));
    }

    #[test]
    fn quoted_numbers_stay_strings() {
        let n = parse("a: '23'\nb: 23\n").unwrap();
        assert_eq!(n.get("a").unwrap().value, Value::Str("23".into()));
        assert_eq!(n.get("b").unwrap().value, Value::Int(23));
    }
}
