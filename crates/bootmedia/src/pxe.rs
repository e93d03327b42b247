//! The iPXE script of a PXE boot: the live kernel with the arguments without which the live
//! system would boot but skip Ignition, the live initramfs, and the config image as a further
//! initrd (named, so UEFI firmware loads each).

use crate::kargs;

/// Where the PXE boot fetches each part from. A URL may be relative: iPXE resolves it
/// against the script's own URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PxeUrls {
    /// The live kernel.
    pub kernel: String,
    /// The live initramfs.
    pub initramfs: String,
    /// The live root file system.
    pub rootfs: Rootfs,
    /// The config image (`ROLE.ign.img`).
    pub config: String,
}

/// How the live system gets its root file system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rootfs {
    /// Fetched by the live initramfs from this absolute URL (`coreos.live.rootfs_url`); the
    /// machine needs 2 GiB of memory.
    Url(String),
    /// Loaded by iPXE as one more initrd from this URL (relative ones too); the machine
    /// needs 4 GiB.
    Initrd(String),
}

/// The kernel arguments of a PXE boot: the initrds, the live rootfs, the ones Ignition needs,
/// `extra`.
pub fn kernel_args(urls: &PxeUrls, extra: &[String]) -> String {
    let mut args = vec!["initrd=main".to_string()];
    match &urls.rootfs {
        Rootfs::Url(url) => args.push(format!("coreos.live.rootfs_url={url}")),
        Rootfs::Initrd(_) => args.push("initrd=rootfs".to_string()),
    }
    args.push("initrd=config".to_string());
    args.extend(crate::REQUIRED_KARGS.iter().map(|s| s.to_string()));
    args.extend(extra.iter().cloned());
    args.join(" ")
}

/// The iPXE script.
pub fn ipxe_script(urls: &PxeUrls, extra: &[String]) -> String {
    let rootfs_initrd = match &urls.rootfs {
        Rootfs::Initrd(url) => format!("initrd --name rootfs {url}\n"),
        Rootfs::Url(_) => String::new(),
    };
    format!(
        "#!ipxe\n\
         # Written by okd-install: boots the CoreOS live system with this machine's Ignition\n\
         # config as the last initrd.\n\
         kernel {} {}\n\
         initrd --name main {}\n\
         {rootfs_initrd}\
         initrd --name config {}\n\
         boot\n",
        urls.kernel,
        kernel_args(urls, extra),
        urls.initramfs,
        urls.config
    )
}

/// The arguments of the script's `kernel` line (without the kernel's URL).
pub fn script_kargs(script: &str) -> Option<String> {
    script.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next() == Some("kernel")).then(|| words.skip(1).collect::<Vec<_>>().join(" "))
    })
}

/// The script's initrd URLs.
pub fn script_initrds(script: &str) -> Vec<String> {
    script
        .lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            (words.first() == Some(&"initrd")).then(|| words.last().map(|w| w.to_string()))?
        })
        .collect()
}

/// The required arguments the script's kernel line lacks (all of them without one).
pub fn missing_kargs(script: &str) -> Vec<&'static str> {
    let args = script_kargs(script).unwrap_or_default();
    let mut missing = kargs::missing(&args, crate::REQUIRED_KARGS);
    let has_rootfs = kargs::split(&args)
        .iter()
        .any(|a| a.starts_with("coreos.live.rootfs_url=") || *a == "initrd=rootfs");
    if !has_rootfs {
        missing.push("coreos.live.rootfs_url=");
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_boots_with_ignition_and_both_initrds() {
        let urls = PxeUrls {
            kernel: "http://pxe/kernel".into(),
            initramfs: "http://pxe/initramfs.img".into(),
            rootfs: Rootfs::Url("http://pxe/rootfs.img".into()),
            config: "http://pxe/master.ign.img".into(),
        };
        let script = ipxe_script(&urls, &["console=ttyS0".into()]);
        assert!(script.starts_with("#!ipxe\n"));
        let args = script_kargs(&script).unwrap();
        assert!(
            args.contains("coreos.live.rootfs_url=http://pxe/rootfs.img"),
            "{args}"
        );
        assert!(args.ends_with("console=ttyS0"), "{args}");
        assert!(missing_kargs(&script).is_empty());
        assert_eq!(
            script_initrds(&script),
            ["http://pxe/initramfs.img", "http://pxe/master.ign.img"]
        );
        assert_eq!(missing_kargs("#!ipxe\nboot\n").len(), 3);
    }

    #[test]
    fn a_rootfs_beside_the_script_is_one_more_initrd() {
        let urls = PxeUrls {
            kernel: "kernel".into(),
            initramfs: "initramfs.img".into(),
            rootfs: Rootfs::Initrd("rootfs.img".into()),
            config: "worker.ign.img".into(),
        };
        let script = ipxe_script(&urls, &[]);
        let args = script_kargs(&script).unwrap();
        assert!(!args.contains("rootfs_url"), "{args}");
        assert!(
            args.starts_with("initrd=main initrd=rootfs initrd=config "),
            "{args}"
        );
        assert!(missing_kargs(&script).is_empty());
        assert_eq!(
            script_initrds(&script),
            ["initramfs.img", "rootfs.img", "worker.ign.img"]
        );
    }
}
