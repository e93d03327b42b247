//! Every stand-in of the real host, in one place: what a CoreOS node has from the release's
//! node image or its own packages that Debian does not package. Each is a small script in the
//! host root at the real program's path; it says which real program it stands for, does only
//! what [`StandIn::covers`] says, and fails loudly (exit 70, one line on stderr naming the
//! call) on anything else, so a test can never pass because a stand-in answered something it
//! does not know.
//!
//! Everything else on the host is real: systemd, Ignition, NetworkManager, sshd, podman,
//! ostree, the journal gateway.

use std::path::Path;

use crate::coreos::write;
use crate::error::Result;

/// One stand-in.
#[derive(Debug, Clone, Copy)]
pub struct StandIn {
    /// Where it is installed: in the host root at the real program's path on CoreOS, or in
    /// the release image the test builds ([`IMAGE_LOOKUP`]).
    pub path: &'static str,
    /// The real program.
    pub real: &'static str,
    /// What it answers; every other call fails.
    pub covers: &'static str,
    /// The script.
    script: &'static str,
}

/// The stand-ins of the real host.
pub const STAND_INS: &[StandIn] = &[
    StandIn {
        path: "/usr/bin/rpm",
        real: "rpm, the RPM package manager (CoreOS keeps its package database in /usr)",
        covers: "`rpm -q PACKAGE` for the node image's packages (openshift-clients): not installed, \
                 as on a CoreOS boot image before the node image is laid over /usr",
        script: r#"#!/bin/sh
# Stand-in for rpm (CoreOS's package database query); see testing/real-host/src/standins.rs.
if [ "$#" -eq 2 ] && [ "$1" = "-q" ] && [ "$2" = "openshift-clients" ]; then
    echo "package $2 is not installed"
    exit 1
fi
echo "stand-in for rpm: 'rpm $*' is not covered (only rpm -q openshift-clients)" >&2
exit 70
"#,
    },
    StandIn {
        path: "/usr/bin/rpm-ostree",
        real: "rpm-ostree, CoreOS's image-based update client",
        covers: "`rpm-ostree status --json`: one booted deployment of the boot image",
        script: r#"#!/bin/sh
# Stand-in for rpm-ostree; see testing/real-host/src/standins.rs.
if [ "$*" = "status --json" ]; then
    echo '{"deployments":[{"booted":true,"version":"debian-bookworm-real-host","osname":"debian"}]}'
    exit 0
fi
echo "stand-in for rpm-ostree: 'rpm-ostree $*' is not covered (only rpm-ostree status --json)" >&2
exit 70
"#,
    },
];

/// The release image's `image NAME` lookup, the entry point of the release image the test
/// builds from data (`crate::release`): it prints the pull spec the image's
/// `/release-manifests/image-references` gives a component, as the real release image's
/// cluster-version-operator does for `podman run RELEASE image NAME`. It runs under busybox
/// (Debian's busybox-static), the image's only program.
pub const IMAGE_LOOKUP: StandIn = StandIn {
    path: "/usr/bin/release-image-lookup",
    real: "the release image's `image` lookup (cluster-version-operator image NAME)",
    covers: "`image NAME` for a component listed in /release-manifests/image-references",
    script: r#"#!/bin/sh
# Stand-in for the release image's image lookup; see testing/real-host/src/standins.rs.
refs=/release-manifests/image-references
if [ "$#" -eq 2 ] && [ "$1" = image ]; then
    spec="$(/bin/busybox grep -F "\"name\":\"$2\"," "$refs" |
        /bin/busybox sed -n 's/.*"from":{"kind":"DockerImage","name":"\([^"]*\)".*/\1/p')"
    if [ -n "$spec" ]; then
        echo "$spec"
        exit 0
    fi
    echo "the release image lists no component $2" >&2
    exit 1
fi
echo "stand-in for the release image's image lookup: '$*' is not covered (only image NAME)" >&2
exit 70
"#,
};

impl StandIn {
    /// The script.
    pub fn script(&self) -> &'static str {
        self.script
    }
}

/// Installs every stand-in of the host into the host `root`.
pub fn install(root: &Path) -> Result<()> {
    for stand_in in STAND_INS {
        write(
            root,
            stand_in.path.trim_start_matches('/'),
            stand_in.script,
            0o755,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stand_in_names_its_real_program_and_refuses_what_it_does_not_cover() {
        for stand_in in STAND_INS.iter().chain([&IMAGE_LOOKUP]) {
            let program = stand_in.path.rsplit('/').next().unwrap();
            let named = match program {
                "release-image-lookup" => "the release image's image lookup",
                other => other,
            };
            assert!(
                stand_in.script.contains(&format!("Stand-in for {named}")),
                "{program}: the script names what it stands for"
            );
            assert!(
                stand_in.script.contains("is not covered") && stand_in.script.contains("exit 70"),
                "{program}: anything else fails loudly"
            );
        }
    }

    #[test]
    fn the_stand_ins_answer_what_they_cover_and_fail_on_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        install(dir.path()).unwrap();
        let run = |path: &str, args: &[&str]| {
            std::process::Command::new(dir.path().join(path.trim_start_matches('/')))
                .args(args)
                .output()
                .unwrap()
        };
        let rpm = run("/usr/bin/rpm", &["-q", "openshift-clients"]);
        assert_eq!(rpm.status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&rpm.stdout),
            "package openshift-clients is not installed\n"
        );
        let other = run("/usr/bin/rpm", &["-qa"]);
        assert_eq!(other.status.code(), Some(70));
        assert!(String::from_utf8_lossy(&other.stderr).contains("'rpm -qa' is not covered"));
        let status = run("/usr/bin/rpm-ostree", &["status", "--json"]);
        let json: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
        assert_eq!(json["deployments"][0]["booted"], true);
        assert_eq!(
            run("/usr/bin/rpm-ostree", &["upgrade"]).status.code(),
            Some(70)
        );
    }
}
