//! `auth/kubeadmin-password` against the bcrypt hash the cluster receives.
//!
//! The cluster learns only the hash (a Secret in `openshift/`, also embedded in the bootstrap
//! config); a password file from another run means a console login that never works.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::material::Material;
use crate::report::Report;

/// The password file in the asset directory.
const PASSWORD_FILE: &str = assets::layout::KUBEADMIN_PASSWORD;
/// Where the hash comes from (name for messages) and the manifest text: `openshift/` when
/// present (it is what the next run embeds), else the bootstrap config.
fn secret_source(m: &Material) -> Option<(String, String)> {
    let secret = manifests::Dir::Openshift.file(manifests::generate::KUBEADMIN_SECRET_FILE);
    if let Ok(text) = crate::material::read_text(&m.dir, &secret) {
        return Some((secret, text));
    }
    let b = m.bootstrap.as_ref()?;
    let node = crate::material::node_path(&secret);
    Some((format!("{}:{node}", b.name), b.text(&node)?))
}

fn hash_of(secret_yaml: &str) -> Result<String, String> {
    let v: Value = serde_saphyr::from_str(secret_yaml).map_err(|e| format!("is not YAML: {e}"))?;
    let b64 = v
        .pointer("/data/kubeadmin")
        .and_then(Value::as_str)
        .ok_or("has no data.kubeadmin")?;
    let bytes = STANDARD
        .decode(b64.trim())
        .map_err(|e| format!("data.kubeadmin is not base64: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "data.kubeadmin is not a bcrypt hash".to_string())
}

/// Checks the password file against the hash, when both exist.
pub(crate) fn check_password(m: &Material, report: &mut Report) {
    let Ok(password) = crate::material::read_text(&m.dir, PASSWORD_FILE) else {
        return;
    };
    let Some((source, text)) = secret_source(m) else {
        return;
    };
    let hash = match hash_of(&text) {
        Ok(h) => h,
        Err(e) => return report.error("auth.password", &source, e),
    };
    match bcrypt::verify(password.trim_end_matches('\n'), &hash) {
        Ok(true) => report.ok(
            "auth.password",
            PASSWORD_FILE,
            format!("matches the hash in {source}"),
        ),
        Ok(false) => report.error(
            "auth.password",
            PASSWORD_FILE,
            format!(
                "does not match the hash in {source}: the kubeadmin console login would be \
                 refused. The two files come from different runs; keep the password of the run \
                 that made {source}"
            ),
        ),
        Err(e) => report.error("auth.password", &source, format!("unusable hash: {e}")),
    }
}
