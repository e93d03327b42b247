//! Checks a positioned YAML tree against the schemars schema of [`crate::InstallConfig`].
//!
//! Walking the schema (instead of letting serde stop at the first problem) lets one run report
//! every unknown field, type error and unsupported enum value, each with its field path and
//! position. The walk also returns a cleaned JSON value with the bad parts removed, so the
//! rest of the config can still be deserialized and validated in the same run.

use std::sync::OnceLock;

use serde_json::{Map, Value as Json};

use crate::errors::{ErrorKind, FieldError};
use crate::yaml_tree::{Node, Value};

/// The JSON schema of the install config, generated once from the types.
pub fn root_schema() -> &'static Json {
    static SCHEMA: OnceLock<Json> = OnceLock::new();
    SCHEMA.get_or_init(|| schemars::schema_for!(crate::InstallConfig).to_value())
}

/// Result of a walk: the cleaned value and the problems found.
pub struct Walked {
    /// The input as JSON with unknown fields and ill-typed values removed.
    pub value: Json,
    /// Every problem, in document order.
    pub errors: Vec<FieldError>,
    /// Paths whose value (or list element) was removed; validation findings under them are
    /// side effects of the removal and are not reported.
    pub dropped: Vec<String>,
}

/// Walks `node` against the install-config schema.
pub fn walk(node: &Node) -> Walked {
    let mut w = Walker {
        root: root_schema(),
        errors: Vec::new(),
        dropped: Vec::new(),
    };
    let value = w.walk(node, w.root, "").unwrap_or(Json::Object(Map::new()));
    Walked {
        value,
        errors: w.errors,
        dropped: w.dropped,
    }
}

/// Resolves `$ref` (and `allOf` with a single `$ref`) against the root schema's `$defs`.
pub fn resolve<'a>(root: &'a Json, mut schema: &'a Json) -> &'a Json {
    for _ in 0..16 {
        let Some(r) = schema.get("$ref").and_then(Json::as_str) else {
            break;
        };
        let name = r.trim_start_matches("#/$defs/");
        match root.get("$defs").and_then(|d| d.get(name)) {
            Some(s) => schema = s,
            None => break,
        }
    }
    schema
}

/// The non-null alternative of an `anyOf: [X, null]` schema, or the schema itself.
pub fn strip_null<'a>(root: &'a Json, schema: &'a Json) -> &'a Json {
    let schema = resolve(root, schema);
    if let Some(any) = schema.get("anyOf").and_then(Json::as_array) {
        let non_null: Vec<&Json> = any.iter().filter(|s| !is_null_schema(s)).collect();
        if non_null.len() == 1 {
            return resolve(root, non_null[0]);
        }
    }
    schema
}

fn is_null_schema(s: &Json) -> bool {
    s.get("type").and_then(Json::as_str) == Some("null")
}

/// The allowed string values of an enum schema, if it is one.
pub fn enum_values(root: &Json, schema: &Json) -> Option<Vec<String>> {
    let schema = strip_null(root, schema);
    if let Some(list) = schema.get("enum").and_then(Json::as_array) {
        return Some(
            list.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
        );
    }
    let one = schema.get("oneOf").and_then(Json::as_array)?;
    one.iter()
        .map(|s| s.get("const").and_then(Json::as_str).map(String::from))
        .collect()
}

/// The JSON types a schema admits (empty = anything).
pub fn types_of(schema: &Json) -> Vec<&str> {
    match schema.get("type") {
        Some(Json::String(t)) => vec![t.as_str()],
        Some(Json::Array(ts)) => ts.iter().filter_map(Json::as_str).collect(),
        _ => Vec::new(),
    }
}

static ANY: Json = Json::Bool(true);

struct Walker<'s> {
    root: &'s Json,
    errors: Vec<FieldError>,
    dropped: Vec<String>,
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

impl<'s> Walker<'s> {
    fn error(
        &mut self,
        node: &Node,
        path: &str,
        kind: ErrorKind,
        value: Option<String>,
        detail: String,
    ) {
        let mut e = FieldError::new(path, kind, value, detail);
        e.position = (node.pos.line > 0).then_some(node.pos);
        self.errors.push(e);
    }

    fn drop_path(&mut self, path: &str) {
        self.dropped.push(path.to_string());
    }

    /// Returns the cleaned value, or None when the value must be removed.
    fn walk(&mut self, node: &Node, schema: &'s Json, path: &str) -> Option<Json> {
        let schema = resolve(self.root, schema);
        if schema == &ANY
            || schema
                .as_object()
                .is_some_and(|o| o.keys().all(|k| k == "description" || k == "default"))
        {
            return Some(node.to_json());
        }
        if matches!(node.value, Value::Null) {
            // An empty value means "not set": defaults apply, as for an absent key.
            return None;
        }
        let schema = strip_null(self.root, schema);
        if let Some(values) = enum_values(self.root, schema) {
            return self.walk_enum(node, &values, path);
        }
        let types = types_of(schema);
        if types.contains(&"object") {
            return self.walk_object(node, schema, path);
        }
        if types.contains(&"array") {
            return self.walk_array(node, schema, path);
        }
        self.walk_scalar(node, schema, &types, path)
    }

    fn walk_enum(&mut self, node: &Node, values: &[String], path: &str) -> Option<Json> {
        if let Value::Str(s) = &node.value
            && values.iter().any(|v| v == s)
        {
            return Some(Json::String(s.clone()));
        }
        let list: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
        let hint = match &node.value {
            Value::Str(s) => suggest(s, values.iter().map(String::as_str))
                .map(|m| format!("; did you mean {m:?}?"))
                .unwrap_or_default(),
            _ => String::new(),
        };
        let detail = format!("use one of {}{hint}", list.join(", "));
        self.error(
            node,
            path,
            ErrorKind::NotSupported,
            Some(node.value.scalar_text()),
            detail,
        );
        self.drop_path(path);
        None
    }

    fn walk_object(&mut self, node: &Node, schema: &'s Json, path: &str) -> Option<Json> {
        let Value::Map(entries) = &node.value else {
            self.type_error(node, path, "a mapping");
            return None;
        };
        let props = schema.get("properties").and_then(Json::as_object);
        let extra = schema.get("additionalProperties");
        let mut out = Map::new();
        let mut seen: Vec<&str> = Vec::new();
        for (k, v) in entries {
            let Value::Str(key) = &k.value else {
                let p = child(path, &k.value.scalar_text());
                self.error(
                    k,
                    &p,
                    ErrorKind::Invalid,
                    Some(k.value.scalar_text()),
                    "field names must be strings; quote the key".into(),
                );
                continue;
            };
            let p = child(path, key);
            if seen.contains(&key.as_str()) {
                self.error(
                    k,
                    &p,
                    ErrorKind::Duplicate,
                    Some(key.clone()),
                    "this key appears more than once in the same mapping; keep only one".into(),
                );
                continue;
            }
            seen.push(key);
            let sub = match (props.and_then(|m| m.get(key)), extra) {
                (Some(s), _) => s,
                (None, Some(s)) if props.is_none() && !matches!(s, Json::Bool(false)) => s,
                (None, None) if props.is_none() => &ANY,
                _ => {
                    self.unknown_field(k, key, &p, props);
                    continue;
                }
            };
            if let Some(val) = self.walk(v, sub, &p) {
                out.insert(key.clone(), val);
            }
        }
        self.check_required(node, schema, &out, path)
            .then_some(Json::Object(out))
    }

    fn check_required(
        &mut self,
        node: &Node,
        schema: &Json,
        out: &Map<String, Json>,
        path: &str,
    ) -> bool {
        let required = schema.get("required").and_then(Json::as_array);
        let mut ok = true;
        for name in required.into_iter().flatten().filter_map(Json::as_str) {
            if !out.contains_key(name) && !self.errors.iter().any(|e| e.path == child(path, name)) {
                let detail = format!("{name} must be set here");
                self.error(node, &child(path, name), ErrorKind::Required, None, detail);
                ok = false;
            } else if !out.contains_key(name) {
                ok = false;
            }
        }
        if !ok {
            self.drop_path(path);
        }
        ok
    }

    fn unknown_field(
        &mut self,
        k: &Node,
        key: &str,
        path: &str,
        props: Option<&Map<String, Json>>,
    ) {
        let names = props.into_iter().flat_map(|m| m.keys().map(String::as_str));
        let detail = match (suggest(key, names), field_homes(self.root, key).first()) {
            (Some(m), _) => format!("unknown field; did you mean {m:?}?"),
            (None, Some(home)) => {
                format!("unknown field here; {key:?} belongs at {home}, check the indentation")
            }
            (None, None) => {
                "unknown field; remove it (see `okd-install explain installconfig` for the fields)"
                    .to_string()
            }
        };
        self.error(k, path, ErrorKind::Unknown, None, detail);
    }

    fn walk_array(&mut self, node: &Node, schema: &'s Json, path: &str) -> Option<Json> {
        let Value::Seq(items) = &node.value else {
            self.type_error(node, path, "a list");
            return None;
        };
        let item_schema = schema.get("items").unwrap_or(&ANY);
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let p = format!("{path}[{i}]");
            if matches!(item.value, Value::Null) {
                self.error(
                    item,
                    &p,
                    ErrorKind::Invalid,
                    Some("null".into()),
                    "list items must not be empty; remove the empty entry".into(),
                );
                self.drop_path(path);
                continue;
            }
            match self.walk(item, item_schema, &p) {
                Some(v) => out.push(v),
                None => self.drop_path(path),
            }
        }
        Some(Json::Array(out))
    }

    fn walk_scalar(
        &mut self,
        node: &Node,
        schema: &Json,
        types: &[&str],
        path: &str,
    ) -> Option<Json> {
        let format = schema.get("format").and_then(Json::as_str).unwrap_or("");
        match (&node.value, types.first().copied()) {
            (Value::Str(s), Some("string")) => {
                if format == "cidr"
                    && let Err(msg) = crate::types::Cidr::parse(s)
                {
                    self.error(
                        node,
                        path,
                        ErrorKind::Invalid,
                        Some(s.clone()),
                        format!("{msg}; write the network in CIDR notation"),
                    );
                    self.drop_path(path);
                    return None;
                }
                Some(Json::String(s.clone()))
            }
            (Value::Bool(b), Some("boolean")) => Some(Json::Bool(*b)),
            (Value::Int(i), Some("integer")) => self.check_int(node, *i, format, path),
            (Value::Int(_) | Value::Float(_), Some("number")) => Some(node.to_json()),
            (_, Some("string")) => {
                self.type_error(node, path, "a string (put the value in quotes)")
            }
            (_, Some("boolean")) => self.type_error(node, path, "true or false"),
            (_, Some("integer")) => self.type_error(node, path, "a whole number"),
            (_, Some("number")) => self.type_error(node, path, "a number"),
            _ => Some(node.to_json()),
        }
    }

    fn check_int(&mut self, node: &Node, i: i128, format: &str, path: &str) -> Option<Json> {
        let (lo, hi): (i128, i128) = match format {
            "int32" => (i32::MIN.into(), i32::MAX.into()),
            "uint32" => (0, u32::MAX.into()),
            "uint16" => (0, u16::MAX.into()),
            "uint8" => (0, u8::MAX.into()),
            "uint64" | "uint" => (0, u64::MAX.into()),
            _ => (i64::MIN.into(), i64::MAX.into()),
        };
        if i < lo || i > hi {
            let detail = format!("must be between {lo} and {hi}");
            self.error(node, path, ErrorKind::Invalid, Some(i.to_string()), detail);
            self.drop_path(path);
            return None;
        }
        Some(node.to_json())
    }

    fn type_error(&mut self, node: &Node, path: &str, expected: &str) -> Option<Json> {
        let found = node.value.type_name();
        let value = match &node.value {
            Value::Seq(_) | Value::Map(_) => None,
            v => Some(v.scalar_text()),
        };
        let detail = match &node.value {
            Value::Str(s) => format!("expected {expected}, found the string {s:?}"),
            _ => format!("expected {expected}, found a {found}"),
        };
        self.error(node, path, ErrorKind::Invalid, value, detail);
        self.drop_path(path);
        None
    }
}

/// The candidate closest to `word`, when it is close enough to be a plausible typo.
pub fn suggest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_ascii_lowercase();
    candidates
        .map(|c| {
            let exact_case = c.to_ascii_lowercase() == lower;
            let score = if exact_case {
                2.0
            } else {
                strsim::jaro_winkler(&lower, &c.to_ascii_lowercase())
            };
            (c, score)
        })
        .filter(|(_, s)| *s >= 0.85)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(c, _)| c)
}

/// Field paths (up to a few levels deep) where a property called `key` exists, shortest
/// first; used to point at a mis-indented field's proper place.
pub fn field_homes(root: &Json, key: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut queue: Vec<(String, &Json)> = vec![(String::new(), root)];
    for _depth in 0..5 {
        let mut next = Vec::new();
        for (path, schema) in queue {
            let s = strip_null(root, schema);
            let s = match s.get("items") {
                Some(items) if types_of(s).contains(&"array") => strip_null(root, items),
                _ => s,
            };
            let Some(props) = s.get("properties").and_then(Json::as_object) else {
                continue;
            };
            for (name, sub) in props {
                let p = child(&path, name);
                if name == key {
                    found.push(p.clone());
                }
                next.push((p, sub));
            }
        }
        if !found.is_empty() {
            return found;
        }
        queue = next;
    }
    found
}
