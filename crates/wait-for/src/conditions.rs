//! Reading `status.conditions` of OpenShift objects (ClusterOperator, ClusterVersion, etcd).
//!
//! These are CRDs without typed Rust bindings, so they are read from JSON. Only the fields the
//! waits need are looked at.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

/// One `status.conditions[]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Condition {
    pub type_: String,
    pub status: String,
    pub reason: String,
    pub message: String,
    pub last_transition: Option<String>,
}

fn text(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// All conditions of an object given as JSON (the whole object, not only `status`).
pub(crate) fn conditions(obj: &Value) -> Vec<Condition> {
    let Some(list) = obj.pointer("/status/conditions").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .map(|c| Condition {
            type_: text(c, "type"),
            status: text(c, "status"),
            reason: text(c, "reason"),
            message: text(c, "message"),
            last_transition: c
                .get("lastTransitionTime")
                .and_then(Value::as_str)
                .map(str::to_string),
        })
        .collect()
}

/// The condition of the given type, if reported.
pub(crate) fn find<'a>(conds: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conds.iter().find(|c| c.type_ == type_)
}

/// True when the condition is reported with the given status.
pub(crate) fn is(conds: &[Condition], type_: &str, status: &str) -> bool {
    find(conds, type_).is_some_and(|c| c.status == status)
}

/// A ClusterOperator condition worth showing after a failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnhealthyCondition {
    /// ClusterOperator name.
    pub name: String,
    /// Condition type (`Available`, `Degraded`, `Progressing`, ...).
    #[serde(rename = "type")]
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    pub status: String,
    /// Machine-readable reason.
    pub reason: String,
    /// Human message from the operator.
    pub message: String,
}

impl fmt::Display for UnhealthyCondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cluster operator {} {} is {}",
            self.name, self.type_, self.status
        )?;
        if !self.reason.is_empty() {
            write!(f, " with {}", self.reason)?;
        }
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        Ok(())
    }
}

/// Healthy means: Upgradeable (never interesting here), Available=True, Degraded=False,
/// Progressing=False. Everything else is shown.
fn healthy(c: &Condition) -> bool {
    matches!(
        (c.type_.as_str(), c.status.as_str()),
        ("Upgradeable", _)
            | ("Available", "True")
            | ("Degraded", "False")
            | ("Progressing", "False")
    )
}

/// Unhealthy conditions of a list of ClusterOperators (JSON objects), sorted by name.
pub(crate) fn unhealthy_operators(operators: &[Value]) -> Vec<UnhealthyCondition> {
    let mut out: Vec<UnhealthyCondition> = operators
        .iter()
        .flat_map(|op| {
            let name = op
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("<unnamed>")
                .to_string();
            conditions(op)
                .into_iter()
                .filter(|c| !healthy(c))
                .map(move |c| UnhealthyCondition {
                    name: name.clone(),
                    type_: c.type_,
                    status: c.status,
                    reason: c.reason,
                    message: c.message,
                })
        })
        .collect();
    out.sort_by(|a, b| (&a.name, &a.type_).cmp(&(&b.name, &b.type_)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_unhealthy_conditions_are_kept() {
        let op = json!({"metadata": {"name": "dns"}, "status": {"conditions": [
            {"type": "Available", "status": "True"},
            {"type": "Available2", "status": "True"},
            {"type": "Degraded", "status": "True", "reason": "Crash", "message": "pod crashed"},
            {"type": "Progressing", "status": "False"},
            {"type": "Upgradeable", "status": "False"},
        ]}});
        let bad = unhealthy_operators(&[op]);
        assert_eq!(bad.len(), 2);
        assert_eq!(bad[0].type_, "Available2");
        assert_eq!(bad[1].type_, "Degraded");
        assert_eq!(
            bad[1].to_string(),
            "cluster operator dns Degraded is True with Crash: pod crashed"
        );
    }
}
