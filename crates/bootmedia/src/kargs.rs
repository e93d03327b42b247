//! Kernel arguments in the live ISO's fixed-size areas (in grub.cfg, isolinux.cfg, ...):
//! the arguments, an end character, then padding up to the area's size, so a boot loader
//! reads the rest of the line as a comment.

/// Arguments split on whitespace (CoreOS' defaults have no quoted values).
pub fn split(kargs: &str) -> Vec<&str> {
    kargs.split_whitespace().collect()
}

/// `base` without every argument equal to one of `delete`, then `append` (each argument
/// added once).
pub fn edit(base: &str, append: &[String], delete: &[String]) -> String {
    let mut out: Vec<&str> = split(base)
        .into_iter()
        .filter(|a| !delete.iter().any(|d| d == a))
        .collect();
    for arg in append {
        if !out.contains(&arg.as_str()) {
            out.push(arg);
        }
    }
    out.join(" ")
}

/// The area's bytes for `kargs`: the arguments, `end`, then `pad` up to `size`; `None` when
/// they do not fit.
pub fn format_area(kargs: &str, size: usize, pad: char, end: char) -> Option<Vec<u8>> {
    let text = format!("{}{end}", kargs.trim());
    if text.len() > size || !pad.is_ascii() {
        return None;
    }
    let mut area = vec![pad as u8; size];
    area[..text.len()].copy_from_slice(text.as_bytes());
    Some(area)
}

/// The arguments an area holds (padding and end character dropped).
pub fn parse_area(area: &[u8], pad: char, end: char) -> String {
    String::from_utf8_lossy(area)
        .trim_end_matches(pad)
        .trim_end_matches(end)
        .trim()
        .to_string()
}

/// Whether `kargs` holds every argument in `required`.
pub fn missing<'a>(kargs: &str, required: &[&'a str]) -> Vec<&'a str> {
    let have = split(kargs);
    required
        .iter()
        .copied()
        .filter(|r| !have.contains(r))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_area_round_trips_and_refuses_what_does_not_fit() {
        let area = format_area("quiet ignition.firstboot", 32, '#', '\n').unwrap();
        assert_eq!(area.len(), 32);
        assert!(area.starts_with(b"quiet ignition.firstboot\n###"));
        assert_eq!(parse_area(&area, '#', '\n'), "quiet ignition.firstboot");
        assert!(format_area(&"x".repeat(32), 32, '#', '\n').is_none());
        assert!(format_area(&"x".repeat(31), 32, '#', '\n').is_some());
    }

    #[test]
    fn edits_delete_exact_arguments_and_append_once() {
        let base = "coreos.liveiso=X ignition.firstboot ignition.platform.id=metal";
        let out = edit(
            base,
            &["console=ttyS0".into(), "ignition.firstboot".into()],
            &["coreos.liveiso=X".into()],
        );
        assert_eq!(
            out,
            "ignition.firstboot ignition.platform.id=metal console=ttyS0"
        );
        assert_eq!(missing(&out, crate::REQUIRED_KARGS), Vec::<&str>::new());
        assert_eq!(missing("quiet", crate::REQUIRED_KARGS).len(), 2);
    }
}
