//! The iPXE script of a PXE boot: the live kernel with the arguments without which the live
//! system would boot but skip Ignition, the live initramfs, and the config image as a second
//! initrd (named, so UEFI firmware loads both).

use crate::kargs;

/// Where the PXE boot fetches each part from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PxeUrls {
    /// The live kernel.
    pub kernel: String,
    /// The live initramfs.
    pub initramfs: String,
    /// The live root file system (`coreos.live.rootfs_url`).
    pub rootfs: String,
    /// The config image (`ROLE.ign.img`).
    pub config: String,
}

/// The kernel arguments of a PXE boot: the live rootfs, the ones Ignition needs, `extra`.
pub fn kernel_args(urls: &PxeUrls, extra: &[String]) -> String {
    let mut args = vec![
        "initrd=main".to_string(),
        "initrd=config".to_string(),
        format!("coreos.live.rootfs_url={}", urls.rootfs),
    ];
    args.extend(crate::REQUIRED_KARGS.iter().map(|s| s.to_string()));
    args.extend(extra.iter().cloned());
    args.join(" ")
}

/// The iPXE script.
pub fn ipxe_script(urls: &PxeUrls, extra: &[String]) -> String {
    format!(
        "#!ipxe\n\
         # Written by okd-install: boots the CoreOS live system with this machine's Ignition\n\
         # config as the second initrd.\n\
         kernel {} {}\n\
         initrd --name main {}\n\
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
    if !kargs::split(&args)
        .iter()
        .any(|a| a.starts_with("coreos.live.rootfs_url="))
    {
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
            rootfs: "http://pxe/rootfs.img".into(),
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
}
