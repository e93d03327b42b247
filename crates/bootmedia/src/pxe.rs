//! The iPXE script of a PXE boot: the live kernel with the arguments without which the live
//! system would boot but skip Ignition, the live initramfs, and the config image as a further
//! initrd (named, so UEFI firmware loads each).

use crate::error::{Error, Result};
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

/// The iPXE script. Every URL and argument is checked first: iPXE reads the script line by
/// line and word by word, so a newline in a flag would add a command of its own (`shell`,
/// `chain http://elsewhere/`), and a space would split an argument in two.
pub fn ipxe_script(urls: &PxeUrls, extra: &[String]) -> Result<String> {
    check_url("--kernel-url", &urls.kernel)?;
    check_url("--initramfs-url", &urls.initramfs)?;
    match &urls.rootfs {
        Rootfs::Url(url) | Rootfs::Initrd(url) => check_url("--rootfs-url", url)?,
    }
    check_url("--config-url", &urls.config)?;
    for arg in extra {
        check_karg("--karg", arg)?;
    }
    let rootfs_initrd = match &urls.rootfs {
        Rootfs::Initrd(url) => format!("initrd --name rootfs {url}\n"),
        Rootfs::Url(_) => String::new(),
    };
    Ok(format!(
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
    ))
}

/// Whether `s` holds whitespace or a control character (a newline, an escape, a NUL).
pub(crate) fn has_space_or_control(s: &str) -> bool {
    s.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// `--base-url`: an absolute http or https URL with a host (iPXE fetches the parts from it,
/// so `file://`, a bare path or anything else would only fail on the machine at boot).
pub fn check_base_url(url: &str) -> Result<()> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"));
    let host = rest.map(|r| r.split(['/', '?', '#']).next().unwrap_or_default());
    if has_space_or_control(url) || host.is_none_or(|h| h.is_empty() || h.starts_with(':')) {
        return Err(Error::Input(format!(
            "--base-url {url:?} is not an http or https URL; give the address where you serve \
             the files, such as http://192.168.1.10:8080/okd (no spaces or control characters)"
        )));
    }
    Ok(())
}

/// A URL flag: one word (it may be relative, iPXE resolves it against the script's URL).
fn check_url(flag: &str, url: &str) -> Result<()> {
    if url.is_empty() || has_space_or_control(url) {
        return Err(Error::Input(format!(
            "{flag} (or --base-url) gives the URL {url:?}, which is empty or holds whitespace \
             or a control character; iPXE would read it as more than one word or line: give \
             the URL alone"
        )));
    }
    Ok(())
}

/// A kernel argument flag: one non-empty word without control characters.
pub(crate) fn check_karg(flag: &str, arg: &str) -> Result<()> {
    if arg.is_empty() || has_space_or_control(arg) {
        return Err(Error::Input(format!(
            "{flag} {arg:?} is empty or holds whitespace or a control character; give one \
             kernel argument per {flag}"
        )));
    }
    Ok(())
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
        let script = ipxe_script(&urls, &["console=ttyS0".into()]).unwrap();
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
        let script = ipxe_script(&urls, &[]).unwrap();
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

    #[test]
    fn no_flag_can_add_a_line_or_a_word_to_the_script() {
        let urls = PxeUrls {
            kernel: "http://pxe/kernel".into(),
            initramfs: "http://pxe/initramfs.img".into(),
            rootfs: Rootfs::Url("http://pxe/rootfs.img".into()),
            config: "http://pxe/master.ign.img".into(),
        };
        for karg in ["quiet\nshell", "a b", "", "x\u{1b}]0;title\u{7}", "\r"] {
            let err = ipxe_script(&urls, &[karg.to_string()]).unwrap_err();
            assert!(err.to_string().contains("--karg"), "{err}");
            assert!(!err.to_string().contains('\n'), "{err}");
        }
        let mut bad = urls.clone();
        bad.kernel = "http://pxe/kernel\nchain http://evil/x".into();
        let err = ipxe_script(&bad, &[]).unwrap_err().to_string();
        assert!(err.contains("--kernel-url (or --base-url)"), "{err}");
        let mut bad = urls.clone();
        bad.rootfs = Rootfs::Initrd("rootfs.img\tx".into());
        assert!(ipxe_script(&bad, &[]).is_err());
    }

    #[test]
    fn the_base_url_must_be_http_or_https() {
        for good in [
            "http://10.0.0.1",
            "https://pxe.example.com:8443/okd/",
            "http://[fd00::1]/x",
        ] {
            check_base_url(good).unwrap();
        }
        for bad in [
            "file:///srv/okd",
            "not a url",
            "ftp://host/x",
            "http://",
            "http:///path",
            "http://:80/x",
            "http://host/x\nshell",
            "//host/x",
        ] {
            let err = check_base_url(bad).unwrap_err().to_string();
            assert!(err.contains("is not an http or https URL"), "{bad}: {err}");
        }
    }
}
