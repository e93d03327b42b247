//! Assembly of bootstrap configs from template trees.

use ignition::{
    Error, NodeFile, TemplateContext, Variant, bootstrap_config, bootstrap_config_from, check,
    embedded_templates, parse, to_json,
};
use ignition_config::v3_2::{File, Unit};

use crate::util::{
    STANDARD_TREE, build, context, context_for, decoded, fixture_tree, templates_dir,
};

fn files(config: &ignition::Config) -> &[File] {
    config.storage.as_ref().unwrap().files.as_deref().unwrap()
}

fn units(config: &ignition::Config) -> &[Unit] {
    config.systemd.as_ref().unwrap().units.as_deref().unwrap()
}

fn file<'a>(config: &'a ignition::Config, path: &str) -> &'a File {
    files(config)
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("{path} missing"))
}

#[test]
fn files_get_modes_owner_and_order_of_the_tree() {
    let config = build(Variant::Bootstrap, vec![], vec![]);
    let paths: Vec<&str> = files(&config).iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/etc/containers/registries.conf",
            "/etc/motd",
            "/root/.docker/config.json",
            "/usr/local/bin/bootkube.sh",
        ],
        "sorted per directory, README.md/CONTEXT.md skipped, .j2 dropped"
    );
    let modes: Vec<i64> = files(&config).iter().map(|f| f.mode.unwrap()).collect();
    assert_eq!(modes, [0o644, 0o644, 0o600, 0o555]);
    for f in files(&config) {
        assert_eq!(f.user.as_ref().unwrap().name.as_deref(), Some("root"));
    }
    let script = file(&config, "/usr/local/bin/bootkube.sh");
    assert_eq!(script.overwrite, Some(true));
    let source = script.contents.as_ref().unwrap().source.as_deref().unwrap();
    assert!(source.starts_with("data:text/plain;charset=utf-8;base64,"));
    assert_eq!(
        decoded(source),
        format!("#!/bin/bash\necho {}\n", context().release_image)
    );
    let registries = file(&config, "/etc/containers/registries.conf");
    let text = decoded(
        registries
            .contents
            .as_ref()
            .unwrap()
            .source
            .as_deref()
            .unwrap(),
    );
    assert_eq!(text, "[[registry]]\nlocation = \"quay.io/okd\"\n");
}

#[test]
fn motd_is_appended_not_overwritten() {
    let config = build(Variant::Bootstrap, vec![], vec![]);
    let motd = file(&config, "/etc/motd");
    assert!(motd.contents.is_none());
    assert_eq!(
        motd.overwrite, None,
        "overwrite needs contents, so it stays unset"
    );
    let append = motd.append.as_ref().unwrap();
    assert_eq!(append.len(), 1);
    assert_eq!(
        decoded(append[0].source.as_deref().unwrap()),
        "This is a bootstrap node.\n"
    );
}

#[test]
fn units_have_contents_dropins_and_enable_flags() {
    let config = build(Variant::Bootstrap, vec![], vec![]);
    let got: Vec<(&str, Option<bool>, bool, usize)> = units(&config)
        .iter()
        .map(|u| {
            let dropins = u.dropins.as_ref().map_or(0, Vec::len);
            (u.name.as_str(), u.enabled, u.contents.is_some(), dropins)
        })
        .collect();
    assert_eq!(
        got,
        [
            ("bootkube.service", None, true, 0),
            ("kubelet.service", Some(true), true, 0),
            ("systemd-journal-gatewayd.service", None, false, 1),
            ("systemd-journal-gatewayd.socket", Some(true), true, 0),
        ]
    );
    let bootkube = &units(&config)[0];
    assert_eq!(
        bootkube.contents.as_deref(),
        Some("[Unit]\nDescription=bootkube for demo\n")
    );
    let dropin = &units(&config)[2].dropins.as_ref().unwrap()[0];
    assert_eq!(dropin.name, "certs.conf");
    assert_eq!(dropin.contents.as_deref(), Some("[Service]\nExecStart=\n"));
}

#[test]
fn single_node_adds_its_files_and_enabled_unit_and_replaces_in_place() {
    let config = build(Variant::SingleNode, vec![], vec![]);
    let paths: Vec<&str> = files(&config).iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths[1], "/etc/motd",
        "replacement keeps the common position"
    );
    assert_eq!(paths.last(), Some(&"/usr/local/bin/install-to-disk.sh"));
    let motd = file(&config, "/etc/motd");
    let text = decoded(motd.append.as_ref().unwrap()[0].source.as_deref().unwrap());
    assert_eq!(text, "This is a single-node bootstrap.\n");
    let install = units(&config).last().unwrap();
    assert_eq!(install.name, "install-to-disk.service");
    assert_eq!(install.enabled, Some(true));
    let script = file(&config, "/usr/local/bin/install-to-disk.sh");
    let text = decoded(script.contents.as_ref().unwrap().source.as_deref().unwrap());
    assert!(text.contains("install /dev/sda\n"), "{text}");
}

#[test]
fn pivot_and_bootstrap_only_take_their_own_directories() {
    let pivot = build(Variant::Pivot, vec![], vec![]);
    let names: Vec<&str> = units(&pivot).iter().map(|u| u.name.as_str()).collect();
    assert!(names.contains(&"bootstrap-pivot.service"));
    assert!(!names.contains(&"install-to-disk.service"));
    assert_eq!(units(&pivot).last().unwrap().enabled, Some(true));
    let plain = build(Variant::Bootstrap, vec![], vec![]);
    assert!(
        units(&plain)
            .iter()
            .all(|u| u.name != "bootstrap-pivot.service")
    );
}

#[test]
fn extra_files_replace_in_place_and_append_at_the_end() {
    let extra = vec![
        NodeFile::new("/opt/openshift/manifests/a.yaml", 0o644, "kind: A\n"),
        NodeFile::new("/root/.docker/config.json", 0o600, "{}"),
        NodeFile::new("/opt/openshift/tls/root-ca.crt", 0o644, "PEM"),
        NodeFile::new("/opt/openshift/manifests/a.yaml", 0o644, "kind: B\n"),
    ];
    let config = build(Variant::Bootstrap, extra, vec![]);
    let got: Vec<(&str, i64)> = files(&config)
        .iter()
        .map(|f| (f.path.as_str(), f.mode.unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("/etc/containers/registries.conf", 0o644),
            ("/etc/motd", 0o644),
            ("/root/.docker/config.json", 0o600),
            ("/usr/local/bin/bootkube.sh", 0o555),
            ("/opt/openshift/manifests/a.yaml", 0o644),
            ("/opt/openshift/tls/root-ca.crt", 0o644),
        ]
    );
    let source = |p| {
        let f = file(&config, p);
        decoded(f.contents.as_ref().unwrap().source.as_deref().unwrap())
    };
    assert_eq!(source("/root/.docker/config.json"), "{}");
    assert_eq!(source("/opt/openshift/manifests/a.yaml"), "kind: B\n");
}

#[test]
fn core_user_keeps_key_order_and_skips_empty_keys() {
    let install_key = "ssh-ed25519 AAAA one@x\nssh-rsa BBBB two@x".to_string();
    let bootstrap_key = "ssh-ed25519 CCCC bootstrap\n".to_string();
    let keys = vec![install_key.clone(), bootstrap_key.clone()];
    let config = build(Variant::Bootstrap, vec![], keys);
    let users = config.passwd.as_ref().unwrap().users.as_ref().unwrap();
    assert_eq!(users.len(), 1);
    assert_eq!(users[0].name, "core");
    assert_eq!(
        users[0].ssh_authorized_keys.as_deref(),
        Some(&[install_key, bootstrap_key.clone()][..])
    );
    let config = build(
        Variant::Bootstrap,
        vec![],
        vec![String::new(), bootstrap_key],
    );
    let users = config.passwd.as_ref().unwrap().users.as_ref().unwrap();
    assert_eq!(users[0].ssh_authorized_keys.as_ref().unwrap().len(), 1);
}

#[test]
fn output_is_compact_without_nulls_parses_back_and_passes_checks() {
    let config = build(
        Variant::SingleNode,
        vec![],
        vec!["ssh-ed25519 AAAA a".into()],
    );
    let json = to_json(&config);
    assert!(!json.contains("null"), "{json}");
    assert!(!json.contains('\n') && !json.contains(": "));
    let head = r#"{"ignition":{"version":"3.2.0"},"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["ssh-ed25519 AAAA a"]}]},"storage":{"files":[{"contents":{"source":"data:text/plain;charset=utf-8;base64,"#;
    assert!(json.starts_with(head), "{}", &json[..200]);
    assert!(json.contains(
        r#""mode":384,"overwrite":true,"path":"/root/.docker/config.json","user":{"name":"root"}}"#
    ));
    let parsed = parse(&json).expect("ignition-config parses our output");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert_eq!(parsed.version, "3.2.0");
    assert_eq!(parsed.into_v3_2().expect("3.2.0"), config);
    assert_eq!(check(&config), vec![]);
}

#[test]
fn same_input_gives_identical_bytes() {
    let extra = || vec![NodeFile::new("/opt/openshift/auth/kubeconfig", 0o600, "k")];
    let keys = || vec!["ssh-ed25519 AAAA a".to_string()];
    let a = to_json(&build(Variant::Bootstrap, extra(), keys()));
    let b = to_json(&build(Variant::Bootstrap, extra(), keys()));
    assert_eq!(a, b);
}

#[test]
fn errors_name_the_template_and_the_missing_directory() {
    let (_dir, tree) = fixture_tree(&[("common/files/etc/x.j2", "{{ not_a_variable }}")]);
    let err =
        bootstrap_config_from(&tree, Variant::Bootstrap, &context(), vec![], vec![]).unwrap_err();
    assert!(
        matches!(err, Error::Template { ref template, .. } if template == "common/files/etc/x.j2")
    );
    let (_dir, tree) = fixture_tree(STANDARD_TREE);
    let (_dir2, only_common) = fixture_tree(&[("common/files/etc/a", "a")]);
    assert!(bootstrap_config_from(&tree, Variant::Bootstrap, &context(), vec![], vec![]).is_ok());
    let pivot_ctx = context_for(Variant::Pivot);
    let err = bootstrap_config_from(&only_common, Variant::Pivot, &pivot_ctx, vec![], vec![])
        .unwrap_err();
    assert!(err.to_string().contains("`pivot`"), "{err}");
    let (_dir, nested) = fixture_tree(&[("common/units/foo/bar.service", "x")]);
    let err =
        bootstrap_config_from(&nested, Variant::Bootstrap, &context(), vec![], vec![]).unwrap_err();
    assert!(matches!(err, Error::Layout { .. }), "{err}");
}

/// The real tree: once templates/bootstrap exists, every variant renders with a realistic
/// context and passes all checks; before that, the build reports that none is embedded.
#[test]
fn embedded_templates_render_every_variant() {
    if !templates_dir().is_dir() {
        assert!(matches!(
            embedded_templates(),
            Err(Error::NoEmbeddedTemplates)
        ));
        return;
    }
    let mut ctx = TemplateContext::example();
    for variant in [Variant::Bootstrap, Variant::SingleNode, Variant::Pivot] {
        ctx.bootstrap_in_place =
            (variant == Variant::SingleNode).then(|| ignition::InstallationDisk {
                installation_disk: "/dev/sda".into(),
            });
        ctx.bootstrap_pivot = (variant == Variant::Pivot).then(|| ignition::InstallationDisk {
            installation_disk: "/dev/vda".into(),
        });
        let keys = vec![ctx.ssh_key.clone()];
        let config = bootstrap_config(variant, &ctx, vec![], keys)
            .unwrap_or_else(|e| panic!("{variant:?}: {e}"));
        assert_eq!(check(&config), vec![], "{variant:?}");
        assert!(!files(&config).is_empty() && !units(&config).is_empty());
    }
}

/// The template tests' sample contexts deserialize into `TemplateContext` (which rejects
/// unknown keys), so both sides agree on the contract; each builds the variant it is for.
#[test]
fn template_test_contexts_match_the_struct_and_build() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/scripts"));
    let Ok(entries) = std::fs::read_dir(dir) else {
        assert!(
            !templates_dir().is_dir(),
            "templates exist but their sample contexts do not"
        );
        return;
    };
    let mut seen = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.starts_with("context-") && name.ends_with(".json")) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let ctx: TemplateContext =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let variant = match (&ctx.bootstrap_in_place, &ctx.bootstrap_pivot) {
            (Some(_), _) => Variant::SingleNode,
            (None, Some(_)) => Variant::Pivot,
            (None, None) => Variant::Bootstrap,
        };
        let config = bootstrap_config(variant, &ctx, vec![], vec![ctx.ssh_key.clone()])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(check(&config), vec![], "{name}");
        seen += 1;
    }
    assert!(seen > 0, "no context-*.json in {}", dir.display());
}

#[test]
fn values_that_break_shell_quoting_are_refused() {
    let mut ctx = context();
    ctx.proxy.http_proxy = "http://p'x".into();
    ctx.registries[0].mirrors.push("m\nrm -rf /".into());
    assert_eq!(
        ctx.unsafe_values(),
        ["proxy.http_proxy", "registries[0].mirrors[1]"]
    );
    let (_dir, tree) = fixture_tree(STANDARD_TREE);
    let err = bootstrap_config_from(&tree, Variant::Bootstrap, &ctx, vec![], vec![]).unwrap_err();
    assert!(matches!(err, Error::UnsafeValue { ref keys } if keys.len() == 2));
    assert!(
        err.to_string()
            .contains("proxy.http_proxy, registries[0].mirrors[1]"),
        "{err}"
    );
    let mut ok = context();
    ok.pull_secret = "{'multi\nline'}".into();
    assert!(
        ok.unsafe_values().is_empty(),
        "files hold the pull secret verbatim"
    );
}

#[test]
fn context_must_fit_the_variant() {
    let (_dir, tree) = fixture_tree(STANDARD_TREE);
    let cases = [
        (Variant::Bootstrap, context_for(Variant::SingleNode)),
        (Variant::SingleNode, context()),
        (Variant::SingleNode, context_for(Variant::Pivot)),
        (Variant::Pivot, context_for(Variant::SingleNode)),
    ];
    for (variant, ctx) in cases {
        let err = bootstrap_config_from(&tree, variant, &ctx, vec![], vec![]).unwrap_err();
        assert!(
            matches!(err, Error::VariantContext { .. }),
            "{variant:?}: {err}"
        );
        assert!(err.to_string().contains(variant.file_name()), "{err}");
    }
    for variant in [Variant::Bootstrap, Variant::SingleNode, Variant::Pivot] {
        let ctx = context_for(variant);
        assert!(bootstrap_config_from(&tree, variant, &ctx, vec![], vec![]).is_ok());
    }
}

/// The embedded tree and the same tree read from disk give byte-identical configs, so
/// walking order and suffix handling do not depend on where templates come from.
#[test]
fn embedded_and_on_disk_trees_agree() {
    let Ok(embedded) = embedded_templates() else {
        assert!(
            !templates_dir().is_dir(),
            "templates exist but were not embedded"
        );
        return;
    };
    let disk = ignition::TemplateTree::Disk(templates_dir().to_path_buf());
    let ctx = TemplateContext::example();
    let build = |tree| {
        bootstrap_config_from(tree, Variant::Bootstrap, &ctx, vec![], vec![]).map(|c| to_json(&c))
    };
    assert_eq!(build(&embedded).unwrap(), build(&disk).unwrap());
}

#[test]
fn parent_asset_modes() {
    let cases = [
        ("/opt/openshift/manifests/cvo-overrides.yaml", 0o644),
        (
            "/opt/openshift/openshift/99_openshift-machineconfig_99-master-ssh.yaml",
            0o644,
        ),
        ("/opt/openshift/original_cvo_overrides.patch", 0o644),
        ("/opt/openshift/auth/kubeconfig", 0o600),
    ];
    for (path, mode) in cases {
        assert_eq!(ignition::asset_file_mode(path), mode, "{path}");
        assert_eq!(NodeFile::asset(path, "x").mode, mode, "{path}");
    }
}

/// bootstrap.ign and its variants enable only units whose unit file they carry (a unit that
/// is only a drop-in lives on the OS image and is started by whatever ships it), and every
/// unit the contract says is enabled is enabled by some variant: a name in the list without a
/// template would make a reader believe the bootstrap runs a piece it does not have.
#[test]
fn configs_enable_only_units_they_carry() {
    let mut seen = std::collections::BTreeSet::new();
    for variant in Variant::ALL {
        for on_prem in [false, true] {
            let mut ctx = context_for(variant);
            ctx.on_prem = on_prem;
            let config = bootstrap_config(variant, &ctx, vec![], vec![]).expect("renders");
            for unit in units(&config) {
                if unit.enabled != Some(true) {
                    continue;
                }
                let has_file = unit.contents.as_deref().is_some_and(|c| !c.is_empty());
                assert!(
                    has_file,
                    "{}: {} is enabled but has no unit file",
                    variant.file_name(),
                    unit.name
                );
                seen.insert(unit.name.clone());
            }
        }
    }
    let listed: std::collections::BTreeSet<String> =
        contract::ENABLED_UNITS.map(String::from).into();
    assert_eq!(
        seen, listed,
        "enabled by some config vs the contract's list"
    );
}
