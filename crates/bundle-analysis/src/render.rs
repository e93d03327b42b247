//! Human-readable report of an [`Analysis`].

use std::fmt::Write;

use super::{Analysis, ImageModeState, PoolOsImage, ServiceStatus, ServiceSummary, Verdict};

impl Analysis {
    /// Renders the analysis for a terminal: the verdict first, then the supporting evidence.
    /// Nothing of the bundle in it can steer the terminal: every control character is shown
    /// escaped ([`crate::escape_controls`]).
    pub fn render(&self) -> String {
        let mut out = String::new();
        if let Some(f) = &self.finding {
            for line in f.lines() {
                let _ = writeln!(out, "{line}");
            }
        }
        self.render_verdict(&mut out);
        self.render_manifest_failures(&mut out);
        self.render_repeated_errors(&mut out);
        self.render_cause(&mut out);
        self.render_crash_loops(&mut out);
        self.render_other_failures(&mut out);
        self.render_unreadable(&mut out);
        self.render_failed_units(&mut out);
        self.render_journals(&mut out);
        self.render_machine_os(&mut out);
        if let Some(state) = &self.image_mode {
            render_image_mode(&mut out, state);
        }
        self.render_services(&mut out);
        for note in &self.notes {
            let _ = writeln!(out, "Note: {note}");
        }
        crate::escape_controls(&out).into_owned()
    }

    fn render_verdict(&self, out: &mut String) {
        match &self.verdict {
            Verdict::NoServiceRecords => {
                let _ = writeln!(
                    out,
                    "No service records in {}: the bundle has no bootstrap/services/*.json, so the \
                     bootstrap services cannot be judged (the host may have been unreachable, or \
                     its scripts do not write service records). Look at the journals in the \
                     bundle instead.",
                    self.bundle.display()
                );
            }
            Verdict::Healthy => {
                let _ = writeln!(
                    out,
                    "No problem found: the bootstrap services recorded in the bundle succeeded."
                );
            }
            Verdict::UnreadableRecords {
                none_read,
                not_complete,
            } => self.render_unreadable_verdict(out, *none_read, not_complete),
            Verdict::Incomplete { reasons } => {
                let _ = writeln!(
                    out,
                    "Not complete: the bootstrap services' records show no failure, but the \
                     bootstrap did not complete:"
                );
                for r in reasons {
                    let _ = writeln!(out, "  - {r}");
                }
                if self.finding.is_none() {
                    let _ = writeln!(
                        out,
                        "  No rule of the analysis names the cause; the error lines the \
                         bootstrap repeated most are below."
                    );
                }
            }
            Verdict::Problem(p) => {
                let _ = writeln!(out, "Problem: {}.", p.summary);
                if !p.error_lines.is_empty() {
                    let _ = writeln!(out, "  Last error lines:");
                    write_tail(out, &p.error_lines);
                }
                let _ = writeln!(out, "  Next: {}.", p.hint);
            }
        }
    }

    fn render_manifest_failures(&self, out: &mut String) {
        if self.manifest_failures.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "Manifests cluster-bootstrap had not created by the end of its journal:"
        );
        for m in &self.manifest_failures {
            let f = &m.failure;
            let when = match (&m.first, &m.last) {
                (Some(a), Some(b)) if a != b => format!(", {a} to {b}"),
                (_, Some(b)) => format!(", at {b}"),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "  - {} ({}): {}; refused {} time(s){when}; {}",
                f.file,
                f.object(),
                f.refusal.words(),
                m.attempts,
                judgement_words(&m.judgement)
            );
        }
    }

    fn render_repeated_errors(&self, out: &mut String) {
        if self.repeated_errors.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "Error lines repeated most in the bootstrap's journals and container logs:"
        );
        for r in &self.repeated_errors {
            let when = match (&r.first, &r.last) {
                (Some(a), Some(b)) if a != b => format!(", {a} to {b}"),
                (_, Some(b)) => format!(", at {b}"),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "  - {} time(s){when} in {}:",
                r.count,
                r.files.join(", ")
            );
            let _ = writeln!(out, "    | {}", r.line);
        }
    }

    fn render_cause(&self, out: &mut String) {
        let Some(c) = &self.cause else {
            return;
        };
        let _ = writeln!(out, "Cause ({}): {}.", c.component.label(), c.summary);
        for fact in &c.evidence {
            let _ = writeln!(out, "  - {fact}");
        }
        if let Some(file) = &c.log_file {
            let _ = writeln!(out, "  End of {file}:");
            write_tail(out, &c.log_tail);
        }
        let _ = writeln!(out, "  Next: {}.", c.hint);
    }

    fn render_crash_loops(&self, out: &mut String) {
        if self.crash_loops.is_empty() {
            return;
        }
        let _ = writeln!(out, "Crash-looping containers:");
        for l in &self.crash_loops {
            let _ = writeln!(
                out,
                "  - {}: {}/{} container {} restarted {} times, last exit code {}",
                l.host, l.namespace, l.pod, l.container, l.restarts, l.exit_code
            );
            if let Some(file) = &l.log_file {
                let _ = writeln!(out, "    End of {file}:");
                write_tail(out, &l.log_tail);
            }
        }
    }

    fn render_other_failures(&self, out: &mut String) {
        if self.other_failures.is_empty() {
            return;
        }
        let _ = writeln!(out, "Other services that recorded a failure:");
        for name in &self.other_failures {
            for s in self.services.iter().filter(|s| &s.name == name) {
                let _ = writeln!(out, "  - {}", describe(s));
            }
        }
    }

    fn render_unreadable(&self, out: &mut String) {
        if matches!(self.verdict, Verdict::UnreadableRecords { .. }) {
            return; // The verdict lists them.
        }
        for u in &self.unreadable_records {
            let _ = writeln!(
                out,
                "Could not read service record {}: {} (the other records were analysed)",
                u.file, u.error
            );
        }
    }

    fn render_failed_units(&self, out: &mut String) {
        if self.failed_units.is_empty() {
            return;
        }
        let _ = writeln!(out, "Failed systemd units:");
        for u in &self.failed_units {
            let _ = write!(out, "  - {}: {}", u.host, u.unit);
            if !u.description.is_empty() {
                let _ = write!(out, " ({})", u.description);
            }
            out.push('\n');
        }
    }

    fn render_journals(&self, out: &mut String) {
        let journals = [
            (
                "the release-image-pivot journal (bootstrap/journals/release-image-pivot.log, all boots)",
                &self.os_pivot_journal_tail,
            ),
            (
                "the bootkube journal (bootstrap/journals/bootkube.log)",
                &self.bootkube_journal_tail,
            ),
        ];
        for (title, tail) in journals.iter().filter(|(_, tail)| !tail.is_empty()) {
            let _ = writeln!(out, "End of {title}:");
            write_tail(out, tail);
        }
    }

    fn render_machine_os(&self, out: &mut String) {
        let Some(mos) = &self.machine_os else {
            return;
        };
        let _ = writeln!(
            out,
            "On-cluster layering: {} MachineOSConfig(s), {} MachineOSBuild(s)",
            mos.configs.len(),
            mos.builds.len()
        );
        for c in &mos.configs {
            let pool = c.pool.as_deref().unwrap_or("?");
            let image = c.current_image.as_deref().unwrap_or("no image yet");
            let _ = writeln!(out, "  - MachineOSConfig {} (pool {pool}): {image}", c.name);
            if let Some(w) = &c.warning {
                let _ = writeln!(out, "    warning: {w}");
            }
        }
        for b in mos.builds.iter().filter(|b| !b.succeeded()) {
            let _ = write!(out, "  - MachineOSBuild {} is {}", b.name, b.state);
            if let Some(r) = &b.reason {
                let _ = write!(out, " ({r})");
            }
            if let Some(m) = &b.message {
                let _ = write!(out, ": {m}");
            }
            out.push('\n');
        }
    }

    fn render_services(&self, out: &mut String) {
        if self.services.is_empty() {
            return;
        }
        let _ = writeln!(out, "Service records:");
        for s in &self.services {
            let _ = writeln!(out, "  - {}", describe(s));
        }
    }
}

/// Per pool the image it was told to boot and where it arrived, then the problems and notes.
fn render_image_mode(out: &mut String, state: &ImageModeState) {
    let _ = writeln!(
        out,
        "Image mode: the OS image each pool was told to boot, and what booted:"
    );
    for pool in &state.pools {
        render_pool(out, pool);
    }
    for p in &state.problems {
        let _ = writeln!(out, "Image-mode problem: {}.", p.summary());
        let _ = writeln!(out, "  Next: {}.", p.hint());
    }
    for note in &state.notes {
        let _ = writeln!(out, "Image-mode note: {note}");
    }
}

fn render_pool(out: &mut String, pool: &PoolOsImage) {
    let told = &pool.told;
    let _ = writeln!(
        out,
        "  - pool {}: {} ({} in {})",
        pool.pool, told.image, told.object, told.file
    );
    for r in &pool.rendered {
        let carries = match (&r.image, r.matches) {
            (_, true) => "carries it".to_string(),
            (Some(image), false) => format!("carries {image} instead"),
            (None, false) => "has no osImageURL".to_string(),
        };
        let _ = writeln!(
            out,
            "    rendered config {} {} {carries}",
            r.config,
            r.by.label()
        );
    }
    for h in &pool.hosts {
        let tool = h.tool.name();
        match h.matches {
            true => {
                let _ = writeln!(out, "    {} booted it ({tool})", h.host);
            }
            false => {
                let _ = writeln!(out, "    {} booted {} instead ({tool})", h.host, h.booted);
            }
        }
    }
    if pool.hosts.is_empty() {
        let _ = writeln!(
            out,
            "    no host of this pool in the bundle (the gather reaches the bootstrap host and \
             the masters only)"
        );
    }
}

/// What a refused manifest means for the bootstrap, in words.
fn judgement_words(j: &super::Judgement) -> String {
    use super::Judgement;
    match j {
        Judgement::Blocks => "this holds the bootstrap".into(),
        Judgement::AwaitsRelease => {
            "it waits for what the release brings (every bootstrap has some for a while)".into()
        }
        Judgement::NamespaceFromManifest { file } => {
            format!("its namespace comes from {file}, which cluster-bootstrap creates too")
        }
        Judgement::NamespaceExists => "its namespace exists now (resources/namespaces.json)".into(),
        Judgement::AwaitsDefinition { file } => format!(
            "its CustomResourceDefinition is {file}, which cluster-bootstrap creates too: it is \
             tried again until the definition is established"
        ),
        Judgement::Transient => "a reason that may pass when tried again".into(),
        Judgement::Unrecognised => {
            "a reason okd-install does not recognise: whether it passes is not known".into()
        }
    }
}

/// Log lines, indented and marked as quoted output.
fn write_tail(out: &mut String, lines: &[String]) {
    for line in lines {
        let _ = writeln!(out, "    | {line}");
    }
}

/// One line about a service.
fn describe(s: &ServiceSummary) -> String {
    let status = match s.status {
        ServiceStatus::Succeeded => "succeeded".to_string(),
        ServiceStatus::NotStarted => "never started".to_string(),
        ServiceStatus::Failed => "failed".to_string(),
        ServiceStatus::Running => match &s.current_stage {
            Some(stage) => format!("still running (stage {stage})"),
            None => "still running".to_string(),
        },
    };
    let mut line = format!("{}: {status}, started {} time(s)", s.name, s.starts);
    if let Some(f) = &s.last_failure {
        let stage = f.stage.as_deref().unwrap_or("outside any stage");
        let _ = write!(line, "; last failure at {stage}");
        if let Some(first) = f.error_message.as_deref().and_then(|m| m.lines().last()) {
            let _ = write!(line, ": {first}");
        }
    }
    line
}
