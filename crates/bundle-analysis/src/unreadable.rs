//! The verdict when service records could not be read: which, why, and what to do.

use std::fmt::Write;

use super::Analysis;

impl Analysis {
    /// "The bundle's service records could not be read", each record with its reason: a
    /// record cut short or left out is no all-clear.
    pub(crate) fn render_unreadable_verdict(
        &self,
        out: &mut String,
        none_read: bool,
        not_complete: &[String],
    ) {
        let how_many = if none_read {
            "none of them".to_string()
        } else {
            format!("{} of them", self.unreadable_records.len())
        };
        let _ = writeln!(
            out,
            "Not judged: the bundle's service records could not be read ({how_many}), so the \
             bootstrap services cannot be judged from them:"
        );
        for u in &self.unreadable_records {
            let _ = writeln!(out, "  - {}: {}", u.file, u.error);
        }
        if !not_complete.is_empty() {
            let _ = writeln!(out, "  The bundle shows the bootstrap not complete:");
            for r in not_complete {
                let _ = writeln!(out, "  - {r}");
            }
        }
        let _ = writeln!(
            out,
            "  Next: a record cut short (a full disk, a host that went down while writing) \
             or a bundle damaged on its way reads so: gather the bundle again \
             (okd-install gather bootstrap), and read the journals in this one meanwhile."
        );
    }
}
