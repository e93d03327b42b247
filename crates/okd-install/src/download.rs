//! Boot image downloads with a progress bar: the cache flags every command that needs a live
//! ISO or PXE files shares, and [`download_with_bar`], which fetches one artifact of the
//! release's stream metadata (crates/download) and draws its progress.

use std::path::PathBuf;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use releases::Artifact;

use crate::cli::CacheArgs;

impl CacheArgs {
    /// The download options these flags ask for.
    pub(crate) fn options(&self) -> Result<download::FetchOptions> {
        let dir = match &self.cache_dir {
            Some(dir) => dir.clone(),
            None => download::default_cache_dir()?,
        };
        let mut options = download::FetchOptions::new(dir);
        options.offline = self.offline;
        Ok(options)
    }
}

/// Fetches `artifact` into the cache (or finds it there) and returns the cached file, with a
/// bar on stderr while bytes arrive. A file already cached draws no bar.
pub(crate) fn download_with_bar(
    artifact: &Artifact,
    options: &download::FetchOptions,
) -> Result<PathBuf> {
    let name = artifact.file_name().to_string();
    let mut bar: Option<ProgressBar> = None;
    let result = download::fetch(&artifact.location, &artifact.sha256, options, &mut |p| {
        // A cache hit reports once, complete: nothing to draw.
        if bar.is_none() && p.total == Some(p.done) {
            return;
        }
        let bar = bar.get_or_insert_with(|| new_bar(&name));
        if let Some(total) = p.total {
            bar.set_length(total);
        }
        bar.set_position(p.done);
    });
    crate::console::hide();
    let path = result.with_context(|| format!("getting {name}"))?;
    tracing::info!("{name}: {}", path.display());
    Ok(path)
}

/// A byte bar for `name`, made the console's active bar so log lines step around it.
fn new_bar(name: &str) -> ProgressBar {
    let bar = ProgressBar::new(0);
    let style = ProgressStyle::with_template(
        "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} {eta}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(name.to_string());
    crate::console::show(&bar);
    bar
}
