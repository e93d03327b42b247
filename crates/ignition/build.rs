//! Build script: tells the compiler whether the bootstrap template tree exists, and makes
//! cargo rebuild the crate when any template changes (include_dir! alone does not track
//! the files it embeds on stable Rust).

use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../templates/bootstrap");
    println!("cargo::rustc-check-cfg=cfg(okd_templates)");
    println!("cargo::rerun-if-changed={}", dir.display());
    println!("cargo::rerun-if-changed=build.rs");
    if dir.is_dir() {
        println!("cargo::rustc-cfg=okd_templates");
    }
}
