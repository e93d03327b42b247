//! Size budget: compare config sizes with the user-data limits of platforms.
//!
//! The table lives in `data/platform-limits.json` (with a source note per entry) so it can
//! be reviewed and extended without reading code.

use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;

const LIMITS_JSON: &str = include_str!("../../../data/platform-limits.json");

/// A known user-data size limit.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformLimit {
    /// Platform name as in the install-config.
    pub platform: String,
    /// The limit in bytes.
    pub bytes: u64,
    /// `raw` (limit on the bytes themselves) or `base64` (on their base64 encoding).
    pub measured: String,
    /// What the limit applies to, e.g. "EC2 instance user data".
    pub what: String,
    /// `documented` or `typical` (deployments may differ).
    pub certainty: String,
    /// Where the number comes from.
    pub source: String,
}

#[derive(Deserialize)]
struct LimitsFile {
    #[allow(dead_code)]
    comment: String,
    limits: Vec<PlatformLimit>,
}

/// All known limits, parsed once from the embedded table.
pub fn platform_limits() -> &'static [PlatformLimit] {
    static LIMITS: OnceLock<Vec<PlatformLimit>> = OnceLock::new();
    LIMITS.get_or_init(|| {
        let file: LimitsFile =
            serde_json::from_str(LIMITS_JSON).expect("data/platform-limits.json is valid");
        file.limits
    })
}

/// The limit of one platform, if one is known.
pub fn platform_limit(platform: &str) -> Option<&'static PlatformLimit> {
    platform_limits().iter().find(|l| l.platform == platform)
}

/// Size of one output file against its platform's limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizeLine {
    /// File name, e.g. `bootstrap.ign`.
    pub name: String,
    /// Size of the file in bytes.
    pub bytes: u64,
    /// Size as the limit counts it (the base64 length when the limit is on base64).
    pub counted_bytes: u64,
    /// The platform's limit, if known.
    pub limit: Option<PlatformLimit>,
    /// Whether the counted size exceeds the limit.
    pub over: bool,
}

/// Size line for `name` of `bytes` bytes on `platform`.
pub fn size_report(name: &str, bytes: u64, platform: &str) -> SizeLine {
    let limit = platform_limit(platform).cloned();
    let counted_bytes = match &limit {
        Some(l) if l.measured == "base64" => bytes.div_ceil(3) * 4,
        _ => bytes,
    };
    let over = limit.as_ref().is_some_and(|l| counted_bytes > l.bytes);
    SizeLine {
        name: name.to_string(),
        bytes,
        counted_bytes,
        limit,
        over,
    }
}

impl fmt::Display for SizeLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, human(self.bytes))?;
        let Some(limit) = &self.limit else {
            return Ok(());
        };
        let encoded = if limit.measured == "base64" {
            " after base64 encoding"
        } else {
            ""
        };
        let verdict = if self.over { "exceeds" } else { "within" };
        write!(
            f,
            " ({verdict} the {} limit for {} of {} bytes{encoded}, {})",
            limit.platform, limit.what, limit.bytes, limit.certainty
        )?;
        if self.over {
            f.write_str(
                "; pass a small pointer config as user data and serve this file over HTTPS, \
                 or compress it",
            )?;
        }
        Ok(())
    }
}

/// Bytes in B, KiB or MiB with one decimal.
fn human(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / KIB / KIB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_parses_and_human_sizes() {
        assert!(
            platform_limits()
                .iter()
                .all(|l| l.bytes > 0 && !l.source.is_empty())
        );
        assert!(
            platform_limits()
                .iter()
                .all(|l| matches!(l.measured.as_str(), "raw" | "base64"))
        );
        assert_eq!(human(512), "512 B");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(3 * 1024 * 1024), "3.0 MiB");
    }
}
