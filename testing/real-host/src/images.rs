//! Many small images in the lab's registry at once, pushed with the registry protocol
//! itself (curl, one process for all manifests): one tiny layer and config shared by all, a
//! manifest per image made distinct by an annotation. Enough for a release's component
//! images in the preflight's tests and its benchmark, where only the manifests are asked
//! for; far faster than building and pushing each with podman.

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::machine::{LAB_ADDRESS, Lab};
use crate::registry::{PORT, Registry};
use crate::run::output_of;

/// The OCI image manifest's media type.
const MANIFEST_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// The OCI image index's media type.
const INDEX_TYPE: &str = "application/vnd.oci.image.index.v1+json";

/// Pushes one image per name in `names` to `repository` of `registry`; returns each
/// manifest's digest (`sha256:...`), in the order of `names`. Files go under `work`.
pub fn push(
    registry: &Registry,
    lab: &Lab,
    repository: &str,
    names: &[String],
    work: &Path,
) -> Result<Vec<String>> {
    std::fs::create_dir_all(work).map_err(Error::io(work))?;
    let curl = Curl { registry, lab };
    let blobs = Blobs::upload(&curl, repository, work)?;
    let mut batch: Vec<String> = Vec::new();
    let mut digests = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let manifest = blobs.manifest(name);
        let digest = sha256(manifest.as_bytes());
        let file = work.join(format!("manifest-{i}.json"));
        std::fs::write(&file, &manifest).map_err(Error::io(&file))?;
        batch.push(format!(
            "{}url = \"{}/v2/{repository}/manifests/{digest}\"\nrequest = \"PUT\"\n\
             header = \"Content-Type: {MANIFEST_TYPE}\"\ndata-binary = \"@{}\"\n\
             output = \"/dev/null\"\nwrite-out = \"%{{http_code}}\\n\"\n",
            curl.common(),
            curl.base(),
            file.display()
        ));
        digests.push(digest);
    }
    let config_file = work.join("manifests.curl");
    std::fs::write(&config_file, batch.join("next\n")).map_err(Error::io(&config_file))?;
    let codes = output_of(curl.command().arg("--config").arg(&config_file))?;
    let refused: Vec<&str> = codes.lines().filter(|c| c.trim() != "201").collect();
    if !refused.is_empty() || codes.lines().count() != names.len() {
        return Err(Error::Answer {
            what: format!("pushing {} manifests to {repository}", names.len()),
            detail: format!("the registry answered: {}", codes.replace('\n', " ")),
        });
    }
    Ok(digests)
}

/// The one layer and config every image pushed here shares.
struct Blobs {
    layer: Vec<u8>,
    config: Vec<u8>,
}

impl Blobs {
    /// Makes them and uploads them to `repository`.
    fn upload(curl: &Curl<'_>, repository: &str, work: &Path) -> Result<Blobs> {
        let layer = gzip(&[0u8; 1024])?;
        let diff_id = sha256(&[0u8; 1024]);
        let config = serde_json::json!({
            "architecture": "amd64",
            "os": "linux",
            "config": {},
            "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        })
        .to_string()
        .into_bytes();
        for blob in [&layer, &config] {
            curl.upload_blob(repository, blob, work)?;
        }
        Ok(Blobs { layer, config })
    }

    /// An image manifest of them, told apart from the others by `name`.
    fn manifest(&self, name: &str) -> String {
        serde_json::json!({
            "schemaVersion": 2,
            "mediaType": MANIFEST_TYPE,
            "config": descriptor("application/vnd.oci.image.config.v1+json", &self.config),
            "layers": [descriptor("application/vnd.oci.image.layer.v1.tar+gzip", &self.layer)],
            "annotations": {"org.opencontainers.image.title": name},
        })
        .to_string()
    }
}

/// Pushes an image `name` to `repository` and an OCI index naming it for `platform`
/// (`(os, architecture)`) only; returns the index's digest. A host of another platform
/// finds no image of its own in it.
pub fn push_index(
    registry: &Registry,
    lab: &Lab,
    repository: &str,
    name: &str,
    platform: (&str, &str),
    work: &Path,
) -> Result<String> {
    std::fs::create_dir_all(work).map_err(Error::io(work))?;
    let curl = Curl { registry, lab };
    let blobs = Blobs::upload(&curl, repository, work)?;
    let manifest = blobs.manifest(name);
    let mut entry = descriptor(MANIFEST_TYPE, manifest.as_bytes());
    entry["platform"] = serde_json::json!({"os": platform.0, "architecture": platform.1});
    let index = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": INDEX_TYPE,
        "manifests": [entry],
    })
    .to_string();
    for (text, media) in [(&manifest, MANIFEST_TYPE), (&index, INDEX_TYPE)] {
        let digest = sha256(text.as_bytes());
        let file = work.join("index-part.json");
        std::fs::write(&file, text).map_err(Error::io(&file))?;
        curl.once(
            &format!(
                "url = \"{}/v2/{repository}/manifests/{digest}\"\nrequest = \"PUT\"\n\
                 header = \"Content-Type: {media}\"\ndata-binary = \"@{}\"\noutput = \"/dev/null\"\n",
                curl.base(),
                file.display()
            ),
            work,
        )?;
    }
    Ok(sha256(index.as_bytes()))
}

/// curl against the lab's registry, in the lab's network, trusting its CA, logged in.
struct Curl<'a> {
    registry: &'a Registry,
    lab: &'a Lab,
}

impl Curl<'_> {
    fn base(&self) -> String {
        format!("https://{}", self.registry.host_port())
    }

    /// The options every request of a batch repeats (curl resets them at `next`).
    fn common(&self) -> String {
        format!(
            "silent\nshow-error\ncacert = \"{}\"\nresolve = \"{}:{PORT}:{LAB_ADDRESS}\"\nuser = \"{}:{}\"\n",
            self.registry.dir.join("ca.crt").display(),
            self.registry.spec.name,
            self.registry.spec.user,
            self.registry.spec.password,
        )
    }

    fn command(&self) -> Command {
        let mut cmd = self.lab.command("curl");
        cmd.arg("--fail-with-body");
        cmd
    }

    /// Runs one request given as a curl config; returns what curl printed.
    fn once(&self, request: &str, work: &Path) -> Result<String> {
        let file = work.join("request.curl");
        let mut f = std::fs::File::create(&file).map_err(Error::io(&file))?;
        f.write_all(format!("{}{request}", self.common()).as_bytes())
            .map_err(Error::io(&file))?;
        drop(f);
        output_of(self.command().arg("--config").arg(&file))
    }

    /// Uploads `blob` to `repository`: start an upload, then finish it with the digest.
    fn upload_blob(&self, repository: &str, blob: &[u8], work: &Path) -> Result<()> {
        let headers = self.once(
            &format!(
                "url = \"{}/v2/{repository}/blobs/uploads/\"\nrequest = \"POST\"\n\
                 dump-header = \"-\"\noutput = \"/dev/null\"\n",
                self.base()
            ),
            work,
        )?;
        let location = headers
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("location")
                    .then(|| v.trim().to_string())
            })
            .ok_or_else(|| Error::Answer {
                what: "starting a blob upload".into(),
                detail: headers.clone(),
            })?;
        let url = if location.starts_with('/') {
            format!("{}{location}", self.base())
        } else {
            location
        };
        let sep = if url.contains('?') { '&' } else { '?' };
        let file = work.join("blob");
        std::fs::write(&file, blob).map_err(Error::io(&file))?;
        self.once(
            &format!(
                "url = \"{url}{sep}digest={}\"\nrequest = \"PUT\"\n\
                 header = \"Content-Type: application/octet-stream\"\n\
                 data-binary = \"@{}\"\noutput = \"/dev/null\"\n",
                sha256(blob),
                file.display()
            ),
            work,
        )
        .map(drop)
    }
}

fn descriptor(media: &str, bytes: &[u8]) -> serde_json::Value {
    serde_json::json!({"mediaType": media, "digest": sha256(bytes), "size": bytes.len()})
}

fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// `bytes` gzipped with the system's gzip (the layer is a tar of zeros: an empty archive).
fn gzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut child = Command::new("gzip")
        .args(["-c", "-n"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|source| Error::Spawn {
            command: "gzip -c -n".into(),
            source,
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(bytes)
            .map_err(Error::io(Path::new("gzip")))?;
    }
    let out = child
        .wait_with_output()
        .map_err(Error::io(Path::new("gzip")))?;
    Ok(out.stdout)
}
