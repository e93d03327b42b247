//! Graph construction checks and rendering.

use asset_graph::{Asset, BoxError, Context, Dep, Graph, GraphError, Parents, Target};
use serde::{Deserialize, Serialize};

use crate::assets::{Config, Leaf, Opts, Root, full_graph};

/// Declares a unit asset type with fixed dependencies whose generator just succeeds.
macro_rules! unit_asset {
    ($ty:ident, $id:literal, $name:literal, [$($dep:ty),*]) => {
        #[derive(Clone, Serialize, Deserialize)]
        struct $ty;
        impl Asset for $ty {
            const ID: &'static str = $id;
            const NAME: &'static str = $name;
            fn dependencies() -> Vec<Dep> {
                vec![$(Dep::of::<$dep>()),*]
            }
            fn generate(_: &Context, _: &Parents) -> Result<Self, BoxError> {
                Ok($ty)
            }
        }
    };
}

unit_asset!(CycA, "cyc/a", "Cycle A", [CycB]);
unit_asset!(CycB, "cyc/b", "Cycle B", [CycC]);
unit_asset!(CycC, "cyc/c", "Cycle C", [CycA]);
unit_asset!(Entry, "cyc/entry", "Entry", [CycA]);
unit_asset!(SameIdAsRoot, "t/root", "Impostor", []);

#[test]
fn cycle_is_named_with_every_member() {
    let err = Graph::builder()
        .asset::<Entry>()
        .asset::<CycA>()
        .asset::<CycB>()
        .asset::<CycC>()
        .build()
        .err()
        .expect("a cycle must be rejected");
    let msg = err.to_string();
    assert!(matches!(err, GraphError::Cycle { .. }), "{msg}");
    assert!(
        msg.contains("Cycle A (cyc/a) -> Cycle B (cyc/b) -> Cycle C (cyc/c) -> Cycle A (cyc/a)"),
        "{msg}"
    );
    assert!(
        !msg.contains("Entry"),
        "only cycle members are named: {msg}"
    );
}

#[test]
fn dependency_on_unregistered_asset_is_rejected() {
    let err = Graph::builder()
        .input::<Opts>()
        .asset::<Leaf>()
        .build()
        .err()
        .expect("Root is missing");
    assert!(
        matches!(
            err,
            GraphError::UnknownDependency {
                dependency: "Root",
                id: "t/root",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().starts_with("Leaf depends on Root"), "{err}");
}

#[test]
fn target_with_unregistered_asset_is_rejected() {
    let err = Graph::builder()
        .asset::<Root>()
        .target(Target {
            name: "broken",
            assets: vec![Dep::of::<Config>()],
        })
        .build()
        .err()
        .expect("Config is missing");
    assert!(
        err.to_string()
            .starts_with("target broken depends on Config"),
        "{err}"
    );
}

#[test]
fn duplicate_ids_and_targets_are_rejected() {
    let err = Graph::builder()
        .asset::<Root>()
        .asset::<SameIdAsRoot>()
        .build()
        .err()
        .expect("two types share t/root");
    assert!(
        matches!(err, GraphError::DuplicateId { id: "t/root", .. }),
        "{err}"
    );

    let same = || Target {
        name: "x",
        assets: vec![Dep::of::<Root>()],
    };
    let err = Graph::builder()
        .asset::<Root>()
        .target(same())
        .target(same())
        .build()
        .err()
        .expect("target x twice");
    assert!(matches!(err, GraphError::DuplicateTarget { .. }), "{err}");
    // Registering the same type twice is fine (several crates may register shared assets).
    assert!(
        Graph::builder()
            .asset::<Root>()
            .asset::<Root>()
            .build()
            .is_ok()
    );
}

#[test]
fn unknown_target_lists_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = crate::open(dir.path(), crate::T0, "a");
    let err = store.run("manifests").unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown target \"manifests\"; known targets: all, config"
    );
    assert!(full_graph().render_tree(Some("nope")).is_err());
}

#[test]
fn dot_output_has_nodes_edges_and_targets() {
    let dot = full_graph().render_dot();
    assert!(dot.starts_with("digraph assets {"), "{dot}");
    assert!(dot.contains("\"t/root\" -> \"t/leaf\";"), "{dot}");
    assert!(dot.contains("\"t/opts\" -> \"t/leaf\";"), "{dot}");
    assert!(
        dot.contains("\"t/opts\" [label=\"Opts\" shape=box];"),
        "{dot}"
    );
    assert!(dot.contains("\"t/config\" -> \"target:config\";"), "{dot}");
    assert!(dot.trim_end().ends_with('}'));
}

#[test]
fn list_is_topological_and_tree_is_indented() {
    let graph = full_graph();
    let list = graph.render_list();
    let pos = |needle: &str| {
        list.find(needle)
            .unwrap_or_else(|| panic!("{needle} in\n{list}"))
    };
    assert!(pos("Root (t/root)") < pos("Leaf (t/leaf)"));
    assert!(pos("Config (t/config)") < pos("Derived (t/derived)"));
    assert!(list.contains("Opts (t/opts) [input]"), "{list}");
    assert!(list.contains("Leaf (t/leaf) <- Root, Opts"), "{list}");

    let tree = graph.render_tree(Some("config")).unwrap();
    assert_eq!(tree, "config\n└─ Config (t/config)\n   └─ Opts (t/opts)\n");
    let all = graph.render_tree(None).unwrap();
    assert!(all.contains("│  └─ Opts (t/opts)"), "{all}");
    assert!(all.contains("(see above)"), "{all}");
}

#[test]
fn assets_no_target_needs_are_listed() {
    assert_eq!(full_graph().unused(), Vec::<Dep>::new());
    unit_asset!(Lonely, "u/lonely", "Lonely", []);
    let graph = Graph::builder()
        .asset::<Root>()
        .asset::<Lonely>()
        .target(Target {
            name: "root",
            assets: vec![Dep::of::<Root>()],
        })
        .build()
        .unwrap();
    let unused: Vec<&str> = graph.unused().iter().map(|d| d.id()).collect();
    assert_eq!(unused, ["u/lonely"]);
}
