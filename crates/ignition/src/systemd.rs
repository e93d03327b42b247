//! systemd naming rules the bootstrap config has to follow.

/// The name of the mount unit for `path`, as `systemd-escape --path --suffix=mount` gives it.
///
/// systemd only loads a mount unit whose name is the escaped form of its `Where=`, so a unit
/// whose path comes from the release table must get its name the same way: `/var/ostree-container`
/// is `var-ostree\x2dcontainer.mount`, because `-` stands for `/` in unit names.
pub fn mount_unit_name(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    if parts.is_empty() {
        return "-.mount".into();
    }
    let mut name = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            name.push('-');
        }
        escape_part(part, i == 0, &mut name);
    }
    name.push_str(".mount");
    name
}

/// Appends one path component with systemd's escaping: ASCII letters, digits, `:`, `_` and
/// (except first) `.` stay, every other byte becomes `\xNN`.
fn escape_part(part: &str, first: bool, out: &mut String) {
    for (j, byte) in part.bytes().enumerate() {
        let plain = byte.is_ascii_alphanumeric()
            || byte == b':'
            || byte == b'_'
            || (byte == b'.' && !(first && j == 0));
        if plain {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::mount_unit_name;

    #[test]
    fn names_match_systemd_escape() {
        for (path, unit) in [
            ("/var/ostree-container", r"var-ostree\x2dcontainer.mount"),
            ("/var/ostreecontainer", "var-ostreecontainer.mount"),
            ("/var//lib/", "var-lib.mount"),
            ("/", "-.mount"),
            ("/.hidden/a.b", r"\x2ehidden-a.b.mount"),
            ("/mnt/ä x", r"mnt-\xc3\xa4\x20x.mount"),
        ] {
            assert_eq!(mount_unit_name(path), unit, "{path}");
        }
    }

    /// The same answers as systemd's own tool, where it is installed.
    #[test]
    fn agrees_with_systemd_escape_when_installed() {
        let paths = ["/var/ostree-container", "/var/ostreecontainer", "/a b/c.d"];
        for path in paths {
            let Ok(out) = std::process::Command::new("systemd-escape")
                .args(["--path", "--suffix=mount", path])
                .output()
            else {
                eprintln!("systemd-escape not installed; the table above is the check");
                return;
            };
            let theirs = String::from_utf8(out.stdout).unwrap();
            assert_eq!(mount_unit_name(path), theirs.trim(), "{path}");
        }
    }
}
