//! The OS pivot check, for bundles of bootstrap hosts made by okd-install before it targeted
//! OKD 4.19 (which lays the node image over /usr instead: see the node-image checks): there
//! release-image-pivot.service rebased the host onto the release's machine-OS image and
//! rebooted, before CRI-O, kubelet and bootkube started.
//!
//! Its record file is `release-image-pivot.json`, one stage per step of our
//! release-image-pivot.sh: `resolve-machine-os-image`, `inspect-deployments`,
//! `rebase-host-os`, `reboot`. The unit runs on every boot: a pivot that worked leaves one
//! run that ended in `reboot` and a later run that found the image booted and succeeded.
//! Live systems skip the unit, and bundles from OpenShift or older scripts have no record
//! file, so a missing record is not a problem.
//!
//! This module names the service and says what to check per stage; the ordered checks (see
//! `checks`) judge its record like those of the other services, between release-image (whose payload names the OS image)
//! and bootkube (which would run on the wrong OS after a failed pivot).

/// The record file stem of the OS pivot service.
pub(crate) const SERVICE: &str = "release-image-pivot";

/// What the service does, completing "could not ...".
pub(crate) const TASK: &str = "move the bootstrap host onto the release's machine-OS image";

/// What to look at when the pivot failed (or still was) in `stage`.
pub(crate) fn stage_hint(stage: Option<&str>) -> &'static str {
    match stage {
        Some("resolve-machine-os-image") => {
            "the release names none of the bootable OS images stream-coreos, fedora-coreos or \
             rhel-coreos (or its image could not be run to read them): check that the release \
             image is an OKD payload that carries one (`oc adm release info --image-for \
             stream-coreos <release image>`) and that release-image.service succeeded"
        }
        Some("inspect-deployments") => {
            "the host had been moved to the release's OS image once (/opt/openshift/.pivot-done) \
             but booted another deployment, so the pivot stopped instead of rebooting in a loop: \
             the new deployment most likely failed to boot and was rolled back; look at the \
             host's console and `rpm-ostree status`, and at the earlier boot in \
             bootstrap/journals/release-image-pivot.log"
        }
        Some("rebase-host-os") => {
            "rpm-ostree could not pull the machine-OS image: check that the bootstrap host \
             reaches the registry serving it (DNS, proxy, firewall), that the pull secret \
             (handed to rpm-ostree as /run/ostree/auth.json) holds credentials for that \
             registry, and in a disconnected install that imageDigestSources mirror the \
             repository of the release's component images, where the OS image lives, not only \
             that of the release image"
        }
        Some("reboot") => {
            "the reboot into the new deployment could not be requested: the OS image is staged \
             already, so rebooting the host by hand finishes the pivot"
        }
        _ => {
            "see bootstrap/journals/release-image-pivot.log in the bundle (the unit's journal \
             of every boot) or `journalctl -u release-image-pivot.service` on the bootstrap host"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stages the retired script recorded (it no longer ships; its bundles still come).
    fn script_stages() -> Vec<String> {
        [
            "resolve-machine-os-image",
            "inspect-deployments",
            "rebase-host-os",
            "reboot",
        ]
        .map(String::from)
        .to_vec()
    }

    #[test]
    fn every_stage_of_the_script_has_its_own_hint() {
        let mut stages = script_stages();
        stages.sort();
        assert_eq!(
            stages,
            [
                "inspect-deployments",
                "rebase-host-os",
                "reboot",
                "resolve-machine-os-image"
            ]
        );
        let fallback = stage_hint(None);
        let hints: std::collections::BTreeSet<&str> =
            stages.iter().map(|s| stage_hint(Some(s))).collect();
        assert_eq!(hints.len(), stages.len(), "one distinct hint per stage");
        assert!(!hints.contains(fallback));
        assert_eq!(stage_hint(Some("some-new-stage")), fallback);
    }
}
