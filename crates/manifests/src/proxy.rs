//! The computed `noProxy` list of the cluster Proxy status.

use std::collections::BTreeSet;

use crate::inputs::ManifestInputs;

/// The effective noProxy list, or `None` when no HTTP/HTTPS proxy is configured.
///
/// A user value of exactly `*` disables proxying for everything and is kept as is. Otherwise
/// the list is the sorted, de-duplicated union of loopback and cluster-internal names, every
/// cluster, service and machine network, `api-int.<cluster-domain>` and the user's entries.
/// The bootstrap node exports the same list, so it is public for the ignition crate too.
pub fn computed_no_proxy(inputs: &ManifestInputs) -> Option<String> {
    if !inputs.proxy_enabled() {
        return None;
    }
    let user = inputs
        .proxy
        .as_ref()
        .and_then(|p| p.no_proxy.as_deref())
        .unwrap_or("");
    if user.trim() == "*" {
        return Some("*".to_string());
    }
    let mut set: BTreeSet<String> = ["127.0.0.1", "localhost", ".svc", ".cluster.local"]
        .into_iter()
        .map(String::from)
        .collect();
    let net = &inputs.networking;
    set.extend(net.service_network.iter().map(ToString::to_string));
    set.extend(net.machine_network.iter().map(ToString::to_string));
    set.extend(net.cluster_network.iter().map(|c| c.cidr.to_string()));
    set.insert(inputs.names.api_int.clone());
    set.extend(
        user.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from),
    );
    Some(set.into_iter().collect::<Vec<_>>().join(","))
}
