//! `okd-install version`: the binary's version and the release it would install.

/// `okd-install version`.
pub(crate) fn version() {
    println!("okd-install {}", env!("CARGO_PKG_VERSION"));
    let image = std::env::var("OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE").ok();
    let source = match image.as_deref() {
        Some(i) if !i.trim().is_empty() => " (from OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE)",
        _ => " (built-in default)",
    };
    match crate::release::choose(image.as_deref(), None) {
        Ok(chosen) => {
            let r = chosen.resolved.release;
            println!("release image {}{source}", chosen.image);
            println!(
                "release OKD {} (version {} from {})",
                r.version, chosen.resolved.version, chosen.resolved.from
            );
            println!("release channel {}", r.channel);
            println!("node operating system {}", r.node_os);
            println!(
                "bootstrap content targets OKD {} (the operator render interfaces of that release)",
                r.version
            );
        }
        Err(e) => {
            println!("release image {}{source}", image.unwrap_or_default());
            println!("release unknown: {e}");
        }
    }
    println!("release architecture amd64");
    print!("{}", crate::release::supported_text());
}
