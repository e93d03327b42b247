//! Bundles made to mislead: escape sequences that would steer a terminal, service records
//! that do not parse, a failure with nothing to show its cause, and more than the analysis
//! reads. Each is built here as a tar.gz.

use bundle_analysis::{Verdict, analyze_bundle};

use testkit::terminal::{STEERING, steering, steering_in_json};

use crate::bundle::{Bundle, record, succeeded};

#[test]
fn escape_sequences_from_every_part_of_a_bundle_are_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let journal = format!("Starting bootkube\n{STEERING}\nstill waiting\n");
    let units = format!("kubelet.service{STEERING} loaded failed failed Kubelet {STEERING}\n");
    let path = Bundle::new("1")
        .service(
            "release-image",
            vec![
                record("service start", "", "", ""),
                record(
                    "service end",
                    &format!("pull{STEERING}"),
                    "failure",
                    &format!(
                        "pulling\nError: initializing source docker://quay.io/okd/release: \
                         unauthorized {STEERING}"
                    ),
                ),
            ],
        )
        .file("bootstrap/journals/bootkube.log", journal)
        .file("bootstrap/journals/release-image.log", STEERING)
        .file(
            &format!("control-plane/10.0.0.1{STEERING}/failed-units.txt"),
            units,
        )
        .file(&format!("bootstrap/services/x{STEERING}.json"), "not json")
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    let text = analysis.render();
    assert_eq!(steering(&text), None, "{text}");
    // The record holding them is read, not refused for them.
    assert!(
        matches!(&analysis.verdict, Verdict::Problem(p) if p.service == "release-image"),
        "{text}"
    );
    let finding = analysis.finding.as_ref().expect("the pull's cause");
    assert!(
        finding.evidence.contains("unauthorized \\x1b]0;owned\\x07"),
        "{finding:?}"
    );
    assert!(
        text.contains("\\x1b]0;owned\\x07"),
        "shown, escaped:\n{text}"
    );
    assert!(text.contains("\\u{202e}bootstrap complete"), "{text}");
    let json = serde_json::to_value(&analysis).unwrap();
    assert_eq!(steering_in_json(&json), None);
    for line in finding.lines() {
        assert_eq!(steering(&line), None, "{line:?}");
    }
}

#[test]
fn service_records_that_do_not_parse_are_a_finding_never_an_all_clear() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("1")
        .file("bootstrap/services/release-image.json", "[{\"phase\": ")
        .file("bootstrap/services/bootkube.json", "{\"not\": \"a list\"}")
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    assert_eq!(
        analysis.verdict,
        Verdict::UnreadableRecords {
            none_read: true,
            not_complete: Vec::new()
        }
    );
    let text = analysis.render();
    assert!(
        text.contains("the bundle's service records could not be read (none of them)"),
        "{text}"
    );
    assert!(!text.contains("No problem found"), "{text}");
    for (file, why) in [
        ("bootstrap/services/release-image.json", "EOF while parsing"),
        ("bootstrap/services/bootkube.json", "expected a sequence"),
    ] {
        let line = text
            .lines()
            .find(|l| l.contains(file))
            .unwrap_or_else(|| panic!("{file} not named:\n{text}"));
        assert!(line.contains(why), "{line}");
    }
}

#[test]
fn one_unreadable_record_among_good_ones_is_no_all_clear_either() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("1")
        .service("release-image", succeeded())
        .file(
            "bootstrap/services/bootkube.json",
            "[{\"phase\": \"service start\"},",
        )
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    assert!(
        matches!(
            analysis.verdict,
            Verdict::UnreadableRecords {
                none_read: false,
                ..
            }
        ),
        "{:?}",
        analysis.verdict
    );
    let text = analysis.render();
    assert!(
        text.contains("the bundle's service records could not be read (1 of them)"),
        "{text}"
    );
    assert!(!text.contains("No problem found"), "{text}");
}

/// A service that failed without a word: its record is the only evidence, and it says where,
/// not why. No cause is named, although the release image's is the likely one; nor is an
/// unrelated line of another unit's journal taken for its evidence.
#[test]
fn a_failure_without_an_evidence_line_names_no_cause() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("1")
        .service(
            "release-image",
            vec![
                record("service start", "", "", ""),
                record("service end", "", "failure", ""),
            ],
        )
        .file(
            "bootstrap/journals/bootkube.log",
            "Starting bootkube.sh\nwaiting for the release image\n",
        )
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    assert!(
        matches!(&analysis.verdict, Verdict::Problem(p) if p.service == "release-image"),
        "{:?}",
        analysis.verdict
    );
    assert_eq!(analysis.finding, None, "a cause named without evidence");
    let text = analysis.render();
    assert!(!text.contains("cause ("), "{text}");
    assert!(!text.contains("evidence:"), "{text}");
}

/// A render stage that failed without a word and left no container output: the stage says
/// where, nothing says why, so no cause is named.
#[test]
fn a_render_stage_failed_without_a_line_names_no_cause() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("1")
        .service("release-image", succeeded())
        .service(
            "bootkube",
            vec![
                record("service start", "", "", ""),
                record("stage start", "etcd-bootstrap", "", ""),
                record("stage end", "etcd-bootstrap", "failure", ""),
                record("service end", "", "failure", ""),
            ],
        )
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    assert!(
        matches!(&analysis.verdict, Verdict::Problem(p) if p.service == "bootkube"),
        "{:?}",
        analysis.verdict
    );
    assert_eq!(analysis.finding, None, "{}", analysis.render());
}

/// The same failure with the host's error line names the cause with that line.
#[test]
fn the_same_failure_with_its_line_names_the_cause_with_that_line() {
    let dir = tempfile::tempdir().unwrap();
    let line = "Error: initializing source docker://quay.io/okd/release: unauthorized";
    let path = Bundle::new("1")
        .service(
            "release-image",
            vec![
                record("service start", "", "", ""),
                record("service end", "", "failure", line),
            ],
        )
        .write(dir.path(), "b.tar.gz");
    let finding = analyze_bundle(&path).unwrap().finding.expect("a cause");
    assert_eq!(finding.evidence, line);
}

/// Records larger than the analysis reads of one file, and journals more than it reads of a
/// bundle: each is left out, a note says which and why, and an unread record is no all-clear.
#[test]
fn a_bundle_larger_than_the_budget_is_read_in_part_and_says_what_it_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let entry = record("stage end", "pull", "failure", &"x".repeat(1000));
    let huge: Vec<serde_json::Value> = std::iter::repeat_n(entry, 17 * 1024).collect();
    let journal = "a line of the bootstrap journal\n".repeat(14 << 20 >> 5);
    let mut bundle = Bundle::new("1");
    for service in ["release-image", "bootkube", "node-image-pull"] {
        bundle = bundle.service(service, huge.clone());
    }
    for unit in [
        "bootkube",
        "release-image",
        "node-image-pull",
        "node-image-overlay",
    ] {
        bundle = bundle.file(&format!("bootstrap/journals/{unit}.log"), &journal);
    }
    let path = bundle.write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    assert!(
        matches!(
            analysis.verdict,
            Verdict::UnreadableRecords {
                none_read: true,
                ..
            }
        ),
        "{:?}",
        analysis.verdict
    );
    assert_eq!(analysis.unreadable_records.len(), 3);
    for u in &analysis.unreadable_records {
        assert!(
            u.error
                .contains("more than the 16 MiB the analysis reads of one file"),
            "{u:?}"
        );
    }
    let text = analysis.render();
    let note = text
        .lines()
        .find(|l| l.starts_with("Note: the bundle holds more than the analysis reads"))
        .unwrap_or_else(|| panic!("no line says what was skipped:\n{text}"));
    assert!(note.contains("skipped 4 file(s)"), "{note}");
    assert!(
        note.contains("node-image-overlay.log (14 MiB, more than is left of the 48 MiB"),
        "{note}"
    );
}
