//! The two directories manifests live in: a leaf module, so the generators and the loader of
//! the user's files both name them without depending on each other.

use std::fmt;

use serde::Serialize;

/// The two output directories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Dir {
    /// `manifests/`: applied by cluster-bootstrap.
    Manifests,
    /// `openshift/`: copied into `manifests/` on the bootstrap node, then applied.
    Openshift,
}

impl Dir {
    /// The directory name inside the install dir.
    pub fn as_str(self) -> &'static str {
        match self {
            Dir::Manifests => "manifests",
            Dir::Openshift => "openshift",
        }
    }

    /// `<dir>/<name>`: the path of file `name` of this directory, relative to the install dir.
    pub fn file(self, name: &str) -> String {
        format!("{}/{name}", self.as_str())
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
