//! `explain`: documentation of any install-config field, generated from the schemars schema
//! of the types (descriptions are the doc comments; defaults and allowed values come from
//! serde defaults, `extend` attributes and the enums themselves).

use std::fmt::Write;

use serde_json::Value as Json;

use crate::schema_check::{enum_values, resolve, root_schema, strip_null, suggest, types_of};

/// Name of the only resource `explain` knows.
pub const RESOURCE: &str = "installconfig";

/// Why a path cannot be explained.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ExplainError {
    /// Nothing to explain.
    #[error(
        "name what to explain, e.g. `explain installconfig` or `explain installconfig.networking`"
    )]
    Empty,
    /// The path does not start with `installconfig`.
    #[error(
        "{0:?} cannot be explained: only the installconfig resource is supported (try `explain installconfig`)"
    )]
    UnsupportedResource(String),
    /// A field on the path does not exist.
    #[error("{path:?} has no field {field:?}{}", .suggestion.as_ref().map(|s| format!("; did you mean {s:?}?")).unwrap_or_else(|| "; list the fields with `explain` on the parent".into()))]
    UnknownField {
        /// The path up to and including the unknown field.
        path: String,
        /// The unknown field.
        field: String,
        /// The closest existing field.
        suggestion: Option<String>,
    },
}

/// Explains `installconfig[.field[.field...]]` (a trailing `.` is ignored).
pub fn explain(path: &str) -> Result<String, ExplainError> {
    let path = path.trim().trim_end_matches('.');
    if path.is_empty() {
        return Err(ExplainError::Empty);
    }
    let mut parts = path.split('.');
    let resource = parts.next().unwrap_or_default();
    if !resource.eq_ignore_ascii_case(RESOURCE) {
        return Err(ExplainError::UnsupportedResource(resource.to_string()));
    }
    let root = root_schema();
    let mut prop: &Json = root;
    let mut name = String::new();
    let mut walked = RESOURCE.to_string();
    for field in parts {
        walked.push('.');
        walked.push_str(field);
        let parent = element_schema(root, prop);
        let props = parent.get("properties").and_then(Json::as_object);
        match props.and_then(|p| p.get(field)) {
            Some(next) => {
                prop = next;
                name = field.to_string();
            }
            None => {
                let names = props.into_iter().flat_map(|p| p.keys().map(String::as_str));
                return Err(ExplainError::UnknownField {
                    path: walked,
                    field: field.to_string(),
                    suggestion: suggest(field, names).map(String::from),
                });
            }
        }
    }
    Ok(render(root, &name, prop))
}

/// The object schema a property leads to (through Option, $ref and list items).
fn element_schema<'a>(root: &'a Json, prop: &'a Json) -> &'a Json {
    let s = strip_null(root, prop);
    if types_of(s).contains(&"array") {
        return s.get("items").map_or(s, |i| strip_null(root, i));
    }
    s
}

/// The type of a property in `<...>` notation.
fn type_name(root: &Json, prop: &Json) -> String {
    let s = strip_null(root, prop);
    if enum_values(root, s).is_some() {
        return "string".into();
    }
    let types = types_of(s);
    if types.contains(&"array") {
        let item = s
            .get("items")
            .map_or_else(|| "any".to_string(), |i| type_name(root, i));
        return format!("[]{item}");
    }
    if types.contains(&"object") {
        if let Some(extra) = s.get("additionalProperties").filter(|e| e.is_object()) {
            return format!("map[string]{}", type_name(root, extra));
        }
        return "object".into();
    }
    match types.iter().find(|t| **t != "null") {
        Some(t) => (*t).to_string(),
        None => "any".into(),
    }
}

fn description(root: &Json, prop: &Json) -> String {
    let own = prop.get("description").and_then(Json::as_str);
    let target = own.or_else(|| {
        strip_null(root, prop)
            .get("description")
            .and_then(Json::as_str)
    });
    target
        .map(|d| d.replace("\n\n", "\n").replace('\n', " "))
        .unwrap_or_else(|| "<empty>".into())
}

fn is_required(parent: &Json, name: &str, prop: &Json) -> bool {
    let listed = parent
        .get("required")
        .and_then(Json::as_array)
        .is_some_and(|r| r.iter().any(|n| n == name));
    listed || prop.get("x-required") == Some(&Json::Bool(true))
}

/// Defaults that carry information (not the empty values serde fills in).
fn meaningful_default(prop: &Json) -> Option<&Json> {
    fn empty(v: &Json) -> bool {
        match v {
            Json::String(s) => s.is_empty(),
            Json::Array(a) => a.is_empty(),
            Json::Object(o) => o.values().all(empty),
            Json::Null => true,
            _ => false,
        }
    }
    prop.get("default").filter(|d| !empty(d))
}

fn render(root: &Json, name: &str, prop: &Json) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "KIND:     InstallConfig\nVERSION:  v1\n");
    let ty = if name.is_empty() {
        "object".to_string()
    } else {
        type_name(root, prop)
    };
    let title = if name.is_empty() {
        format!("<{ty}>")
    } else {
        format!("{name} <{ty}>")
    };
    let _ = writeln!(out, "RESOURCE: {title}\n");
    let _ = writeln!(out, "DESCRIPTION:");
    for line in wrap(&description(root, prop), 76) {
        let _ = writeln!(out, "  {line}");
    }
    details(&mut out, root, prop, "  ");
    let element = element_schema(root, prop);
    if let Some(props) = element.get("properties").and_then(Json::as_object) {
        let _ = writeln!(out, "\nFIELDS:");
        let mut names: Vec<&String> = props.keys().collect();
        names.sort();
        for field in names {
            let p = &props[field];
            let req = if is_required(element, field, p) {
                " -required-"
            } else {
                ""
            };
            let _ = writeln!(out, "    {field} <{}>{req}", type_name(root, p));
            details(&mut out, root, p, "      ");
            for line in wrap(&description(root, p), 72) {
                let _ = writeln!(out, "      {line}");
            }
            out.push('\n');
        }
    }
    out
}

fn details(out: &mut String, root: &Json, prop: &Json, indent: &str) {
    if let Some(d) = meaningful_default(prop) {
        let _ = writeln!(out, "{indent}Default: {d}");
    }
    let s = strip_null(root, prop);
    let fmt = s
        .get("format")
        .or_else(|| s.get("items").and_then(|i| i.get("format")));
    if let Some(f) = fmt.and_then(Json::as_str) {
        let _ = writeln!(out, "{indent}Format: {f}");
    }
    let values = enum_values(root, s).or_else(|| {
        s.get("items")
            .and_then(|i| enum_values(root, resolve(root, i)))
    });
    if let Some(values) = values {
        let list: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
        let _ = writeln!(out, "{indent}Valid Values: {}", list.join(", "));
    }
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}
