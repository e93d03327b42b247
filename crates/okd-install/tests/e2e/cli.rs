//! The small commands (explain, graph, version, completion) and the help texts of every
//! subcommand, walked through the binary's own `--help` output.

use crate::common::run;
use crate::support::okd;

/// Width the help must fit: a classic terminal.
const COLUMNS: usize = 80;

fn okd_here() -> assert_cmd::Command {
    let tmp = std::env::temp_dir();
    okd(&tmp)
}

#[test]
fn explain_root_lists_fields() {
    let out = run(okd_here(), &["explain", "installconfig"]).ok("explain installconfig");
    for needle in [
        "KIND:",
        "InstallConfig",
        "FIELDS:",
        "baseDomain",
        "networking",
    ] {
        assert!(
            out.stdout.contains(needle),
            "{needle} missing:\n{}",
            out.stdout
        );
    }
}

#[test]
fn explain_nested_field_shows_its_type_and_default() {
    let out = run(
        okd_here(),
        &["explain", "installconfig.networking.clusterNetwork"],
    )
    .ok("explain a nested field");
    for needle in ["clusterNetwork", "[]object", "10.128.0.0/14", "hostPrefix"] {
        assert!(
            out.stdout.contains(needle),
            "{needle} missing:\n{}",
            out.stdout
        );
    }
}

#[test]
fn explain_unknown_path_fails_naming_it() {
    let out = run(okd_here(), &["explain", "installconfig.networking.nope"]);
    assert_ne!(out.code, 0);
    out.stderr_has(&["nope"]);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
}

#[test]
fn graph_dot_has_edges_and_the_tree_names_targets() {
    let dot = run(okd_here(), &["graph", "--dot"]).ok("graph --dot");
    assert!(dot.stdout.starts_with("digraph"), "{}", dot.stdout);
    let edges = dot.stdout.lines().filter(|l| l.contains("->")).count();
    assert!(edges > 20, "only {edges} edges");
    assert!(dot.stdout.trim_end().ends_with('}'));
    let tree = run(okd_here(), &["graph"]).ok("graph");
    assert!(tree.stdout.contains("Install Config"), "{}", tree.stdout);
}

#[test]
fn version_prints_the_release_image() {
    let out = run(okd_here(), &["version"]).ok("version");
    let image = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("release image "))
        .unwrap_or_else(|| panic!("no release image line:\n{}", out.stdout));
    assert!(image.contains('/') && image.contains(':'), "{image}");
    assert!(out.stdout.starts_with("okd-install "), "{}", out.stdout);
}

#[test]
fn version_reports_the_release_override() {
    let mut cmd = okd_here();
    cmd.env(
        "OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE",
        "registry.example.com/okd/release:test",
    );
    let out = run(cmd, &["version"]).ok("version with override");
    assert!(
        out.stdout.contains("registry.example.com/okd/release:test"),
        "{}",
        out.stdout
    );
}

#[test]
fn completion_bash_prints_a_script_that_bash_accepts() {
    let out = run(okd_here(), &["completion", "bash"]).ok("completion bash");
    assert!(out.stdout.contains("complete -F"), "{:.200}", out.stdout);
    assert!(out.stdout.contains("ignition-configs"));
    let syntax = std::process::Command::new("bash")
        .args(["-n", "-c", &out.stdout])
        .output()
        .expect("bash is present");
    assert!(
        syntax.status.success(),
        "{}",
        String::from_utf8_lossy(&syntax.stderr)
    );
}

/// `--help` of `path` at [`COLUMNS`] columns.
fn help(path: &[String]) -> String {
    let mut cmd = okd_here();
    cmd.env("COLUMNS", COLUMNS.to_string());
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("--help");
    run(cmd, &args)
        .ok(&format!("{} --help", path.join(" ")))
        .stdout
}

/// Lines of the section titled `title` (up to the next unindented line).
fn section<'a>(text: &'a str, title: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| *l != title)
        .skip(1)
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .collect()
}

/// Subcommand names in the `Commands:` section (clap's own `help` left out).
fn subcommands(text: &str) -> Vec<String> {
    section(text, "Commands:")
        .iter()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect()
}

/// Flags (and positionals) in `section_lines` whose entry has no text.
fn undocumented(section_lines: &[&str]) -> Vec<String> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut missing = Vec::new();
    for (i, line) in section_lines.iter().enumerate() {
        let t = line.trim_start();
        let is_entry =
            (t.starts_with('-') || t.starts_with('<') || t.starts_with('[')) && indent(line) <= 6;
        if !is_entry {
            continue;
        }
        let same_line = t
            .split_once("  ")
            .is_some_and(|(_, rest)| !rest.trim().is_empty());
        let next_line = section_lines
            .get(i + 1)
            .is_some_and(|n| !n.trim().is_empty() && indent(n) > indent(line));
        if !same_line && !next_line {
            missing.push(t.to_string());
        }
    }
    missing
}

/// Every (sub)command's `--help`: fits 80 columns, has a description, documents every flag
/// and argument.
#[test]
fn every_help_fits_80_columns_and_documents_every_flag() {
    let mut queue: Vec<Vec<String>> = vec![Vec::new()];
    let mut seen = 0;
    while let Some(path) = queue.pop() {
        let text = help(&path);
        let name = format!("okd-install {}", path.join(" "));
        for line in text.lines() {
            assert!(
                line.chars().count() <= COLUMNS,
                "{name}: too wide: {line:?}"
            );
        }
        let about = text.lines().next().unwrap_or_default();
        assert!(
            !about.trim().is_empty() && !about.starts_with("Usage"),
            "{name}: no description"
        );
        for title in ["Options:", "Arguments:"] {
            let missing = undocumented(&section(&text, title));
            assert!(missing.is_empty(), "{name}: no help text for {missing:?}");
        }
        for sub in subcommands(&text) {
            let mut p = path.clone();
            p.push(sub);
            queue.push(p);
        }
        seen += 1;
    }
    // okd-install, 6 create targets + create, explain, explain-ignition, graph, wait-for (+2),
    // gather (+1), analyze, version, completion.
    assert!(seen >= 19, "walked only {seen} commands");
}

/// The hand-formatted exit-code table is short enough that clap never re-wraps it.
#[test]
fn exit_code_table_is_not_rewrapped() {
    let text = help(&[]);
    let table = section(&text, "Exit codes:");
    assert!(table.len() >= 8, "{text}");
    for line in table.iter().filter(|l| !l.is_empty()) {
        let code = line.split_whitespace().next().unwrap_or_default();
        assert!(
            code.parse::<u8>().is_ok(),
            "exit-code line wrapped at {COLUMNS} columns: {line:?}"
        );
    }
}

/// The help parser itself: it must notice an entry without text, or the walk proves nothing.
#[test]
fn help_parser_flags_an_undocumented_entry() {
    let text = "Options:\n      --dir <DIR>\n          Where\n\n      --bare\n\n  -h, --help  Print help\n";
    assert_eq!(undocumented(&section(text, "Options:")), vec!["--bare"]);
    let listing = "Commands:\n  create  Make things\n          more words\n  help    Help\n";
    assert_eq!(subcommands(listing), vec!["create"]);
}

#[test]
fn explain_ignition_refuses_a_file_that_is_not_ignition() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("not.ign");
    std::fs::write(&file, "{\"hello\": ").unwrap();
    let path = file.display().to_string();
    let out = run(okd_here(), &["explain-ignition", &path]);
    assert_ne!(out.code, 0);
    out.stderr_has(&[&path]);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
}
