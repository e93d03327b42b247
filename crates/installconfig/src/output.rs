//! Writing the config back out: full YAML and the redacted copy for the cluster.

use crate::types::InstallConfig;

/// Text that replaces secrets in the redacted copy.
const REDACTED: &str = "";

impl InstallConfig {
    /// The config as YAML (deprecated fields are gone after loading, so they are not written).
    pub fn to_yaml(&self) -> String {
        serde_saphyr::to_string(self)
            .unwrap_or_else(|e| panic!("install config always serializes: {e}"))
    }

    /// A copy without secrets, for manifests/cluster-config.yaml: the pull secret is blanked,
    /// the vCenter users and passwords are removed (as upstream does; the cluster reads them
    /// from the kube-system/vsphere-creds secret), and BMC and fencing passwords too.
    pub fn redacted(&self) -> InstallConfig {
        let mut c = self.clone();
        c.pull_secret = REDACTED.to_string();
        if let Some(vs) = c.platform.vsphere.as_mut() {
            for vc in &mut vs.vcenters {
                vc.user = REDACTED.to_string();
                vc.password = REDACTED.to_string();
            }
            vs.deprecated_username = None;
            vs.deprecated_password = None;
        }
        if let Some(bm) = c.platform.baremetal.as_mut() {
            for h in &mut bm.hosts {
                if let Some(bmc) = h.bmc.as_mut() {
                    bmc.password = REDACTED.to_string();
                }
            }
        }
        for pool in c.control_plane.iter_mut().chain(c.arbiter.iter_mut()) {
            if let Some(f) = pool.fencing.as_mut() {
                for cred in &mut f.credentials {
                    cred.password = REDACTED.to_string();
                }
            }
        }
        c
    }
}
