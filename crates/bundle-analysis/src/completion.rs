//! Whether the bundle shows the bootstrap complete: the services' records can all read
//! success while the bootstrap is not (a record of an earlier run, scripts that record less),
//! so the analysis asks the two things only a complete bootstrap leaves.
//!
//! bootkube.sh writes `.bootkube.done` into its asset directory as its last act, and
//! cluster-bootstrap creates the ConfigMap `kube-system/bootstrap` with `status: complete`
//! when the control plane has moved to the masters. Each counts only when the bundle could
//! show it: without the asset tree (older bundles, a host not reached) or the ConfigMap dump
//! (the API did not answer), nothing is said.

use serde::Serialize;
use serde_json::Value;

use super::bundle::{BOOTKUBE_DONE, BundleFile, Wanted};
use super::evidence::items;

/// What the bundle shows about completion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Completion {
    /// It shows the bootstrap complete.
    Complete,
    /// It shows the bootstrap not complete; each reason names the file it rests on.
    NotComplete {
        /// What is missing, in words.
        reasons: Vec<String>,
    },
    /// It holds neither the asset tree nor the ConfigMaps.
    Unknown,
}

pub(crate) fn completion(files: &[BundleFile], manifests_seen: bool) -> Completion {
    let done = files.iter().any(|f| f.kind == Wanted::BootkubeDone);
    if done {
        return Completion::Complete;
    }
    let mut reasons = Vec::new();
    if manifests_seen {
        reasons.push(format!(
            "rendered-assets/openshift/ has no {BOOTKUBE_DONE}, which bootkube.sh writes when \
             it ends successfully"
        ));
    }
    let configmaps = files
        .iter()
        .find(|f| f.kind == Wanted::Resource("configmaps.json".into()))
        .and_then(|f| items(&f.text).ok());
    match configmaps {
        Some(items) if items.iter().any(bootstrap_complete) && reasons.is_empty() => {
            return Completion::Complete;
        }
        Some(items) if items.iter().any(bootstrap_complete) => {}
        Some(_) => reasons.push(
            "resources/configmaps.json holds no ConfigMap kube-system/bootstrap with status \
             complete, which cluster-bootstrap creates when the control plane has moved to the \
             masters"
                .into(),
        ),
        None => {}
    }
    if reasons.is_empty() {
        Completion::Unknown
    } else {
        Completion::NotComplete { reasons }
    }
}

fn bootstrap_complete(item: &Value) -> bool {
    let s = |p: &str| item.pointer(p).and_then(Value::as_str);
    s("/metadata/namespace") == Some("kube-system")
        && s("/metadata/name") == Some("bootstrap")
        && s("/data/status") == Some("complete")
}
