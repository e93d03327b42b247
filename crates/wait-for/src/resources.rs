//! The OpenShift API resources the waits read without typed bindings.

use kube::core::{ApiResource, GroupVersionKind};

/// `etcds.operator.openshift.io`: the etcd operator's configuration and conditions.
pub(crate) fn etcd_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("operator.openshift.io", "v1", "Etcd"),
        "etcds",
    )
}
