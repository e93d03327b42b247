//! The checked dependency graph: registration, validation, ordering and rendering.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use crate::asset::{Asset, Dep, Erased, ErasedAsset};
use crate::error::GraphError;

/// A named set of assets whose files one command writes, e.g. `"manifests"`.
#[derive(Clone, Debug)]
pub struct Target {
    /// Name the caller uses to run it.
    pub name: &'static str,
    /// The assets whose files are written (their parents are resolved too).
    pub assets: Vec<Dep>,
}

/// Whether a node is generated or must be supplied by the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Asset,
    Input,
}

/// One registered asset type.
pub(crate) struct Node {
    pub dep: Dep,
    pub kind: Kind,
    pub version: u32,
    pub deps: Vec<Dep>,
    pub ops: Box<dyn ErasedAsset>,
}

/// Collects asset types and targets; [`GraphBuilder::build`] checks them.
#[derive(Default)]
pub struct GraphBuilder {
    nodes: Vec<Node>,
    targets: Vec<Target>,
}

impl GraphBuilder {
    /// Registers a generated asset. Registering the same type twice is harmless.
    pub fn asset<T: Asset>(self) -> Self {
        self.add::<T>(Kind::Asset)
    }

    /// Registers an asset whose value the caller must inject with `Store::provide` (run
    /// options, CLI flags, a secrets bundle). Its `generate` is never called.
    pub fn input<T: Asset>(self) -> Self {
        self.add::<T>(Kind::Input)
    }

    /// Adds a target.
    pub fn target(mut self, target: Target) -> Self {
        self.targets.push(target);
        self
    }

    fn add<T: Asset>(mut self, kind: Kind) -> Self {
        self.nodes.push(Node {
            dep: Dep::of::<T>(),
            kind,
            version: T::VERSION,
            deps: T::dependencies(),
            ops: Erased::<T>::boxed(),
        });
        self
    }

    /// Checks the graph: unique ids, known dependencies and target assets, no cycles.
    pub fn build(self) -> Result<Graph, GraphError> {
        let nodes = dedup(self.nodes)?;
        let index = Index::new(&nodes);
        let mut parents = Vec::with_capacity(nodes.len());
        for node in &nodes {
            let mut unique: Vec<usize> = Vec::new();
            for d in &node.deps {
                let i = index.lookup(node.dep.name, d)?;
                if !unique.contains(&i) {
                    unique.push(i);
                }
            }
            parents.push(unique);
        }
        let mut targets: Vec<(Target, Vec<usize>)> = Vec::new();
        for t in self.targets {
            if targets.iter().any(|(known, _)| known.name == t.name) {
                return Err(GraphError::DuplicateTarget {
                    name: t.name.to_string(),
                });
            }
            let owner = format!("target {}", t.name);
            let ids: Result<Vec<usize>, _> =
                t.assets.iter().map(|d| index.lookup(&owner, d)).collect();
            targets.push((t.clone(), ids?));
        }
        find_cycle(&nodes, &parents)?;
        let order = topo_order(&parents);
        let mut children = vec![Vec::new(); nodes.len()];
        for (i, ps) in parents.iter().enumerate() {
            for &p in ps {
                children[p].push(i);
            }
        }
        Ok(Graph {
            nodes,
            parents,
            children,
            order,
            targets,
        })
    }
}

/// Id -> node lookup used while checking edges.
struct Index<'a> {
    nodes: &'a [Node],
    by_id: HashMap<&'static str, usize>,
}

impl<'a> Index<'a> {
    fn new(nodes: &'a [Node]) -> Self {
        let by_id = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.dep.id, i))
            .collect();
        Index { nodes, by_id }
    }

    /// The node `owner` refers to with `d`: it must be registered, with the same type.
    fn lookup(&self, owner: &str, d: &Dep) -> Result<usize, GraphError> {
        match self.by_id.get(d.id) {
            Some(&i) if self.nodes[i].dep.type_id == d.type_id => Ok(i),
            Some(&i) => Err(GraphError::DuplicateId {
                id: d.id,
                first: self.nodes[i].dep.name,
                second: d.name,
            }),
            None => Err(GraphError::UnknownDependency {
                asset: owner.to_string(),
                dependency: d.name,
                id: d.id,
            }),
        }
    }
}

/// Drops repeated registrations of one type; rejects one id used by two types.
fn dedup(nodes: Vec<Node>) -> Result<Vec<Node>, GraphError> {
    let mut out: Vec<Node> = Vec::with_capacity(nodes.len());
    for node in nodes {
        match out.iter_mut().find(|n| n.dep.id == node.dep.id) {
            Some(n) if n.dep.type_id != node.dep.type_id => {
                return Err(GraphError::DuplicateId {
                    id: node.dep.id,
                    first: n.dep.name,
                    second: node.dep.name,
                });
            }
            // An explicit `input` registration wins over an `asset` one.
            Some(n) if node.kind == Kind::Input => n.kind = Kind::Input,
            Some(_) => {}
            None => out.push(node),
        }
    }
    Ok(out)
}

/// Depth-first search; on a back edge, reports the cycle with names and ids.
fn find_cycle(nodes: &[Node], parents: &[Vec<usize>]) -> Result<(), GraphError> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Active,
        Done,
    }
    fn visit(
        i: usize,
        parents: &[Vec<usize>],
        marks: &mut [Mark],
        stack: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        marks[i] = Mark::Active;
        stack.push(i);
        for &p in &parents[i] {
            match marks[p] {
                Mark::Active => {
                    let start = stack.iter().position(|&s| s == p).unwrap_or(0);
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(p);
                    return Some(cycle);
                }
                Mark::New => {
                    if let Some(c) = visit(p, parents, marks, stack) {
                        return Some(c);
                    }
                }
                Mark::Done => {}
            }
        }
        stack.pop();
        marks[i] = Mark::Done;
        None
    }
    let mut marks = vec![Mark::New; nodes.len()];
    for i in 0..nodes.len() {
        if marks[i] == Mark::New
            && let Some(cycle) = visit(i, parents, &mut marks, &mut Vec::new())
        {
            let path: Vec<String> = cycle
                .iter()
                .map(|&n| format!("{} ({})", nodes[n].dep.name, nodes[n].dep.id))
                .collect();
            return Err(GraphError::Cycle {
                path: path.join(" -> "),
            });
        }
    }
    Ok(())
}

/// Kahn's algorithm, ties broken by registration order so the order is reproducible.
fn topo_order(parents: &[Vec<usize>]) -> Vec<usize> {
    let mut missing: Vec<usize> = parents.iter().map(Vec::len).collect();
    let mut ready: BTreeSet<usize> = (0..parents.len()).filter(|&i| missing[i] == 0).collect();
    let mut order = Vec::with_capacity(parents.len());
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for (c, ps) in parents.iter().enumerate() {
            let uses = ps.iter().filter(|&&p| p == i).count();
            if uses > 0 {
                missing[c] -= uses;
                if missing[c] == 0 {
                    ready.insert(c);
                }
            }
        }
    }
    order
}

/// A validated, acyclic asset graph. Build it with [`Graph::builder`].
pub struct Graph {
    pub(crate) nodes: Vec<Node>,
    pub(crate) parents: Vec<Vec<usize>>,
    pub(crate) children: Vec<Vec<usize>>,
    /// All nodes, parents before children.
    pub(crate) order: Vec<usize>,
    targets: Vec<(Target, Vec<usize>)>,
}

impl Graph {
    /// Starts registering assets.
    pub fn builder() -> GraphBuilder {
        GraphBuilder::default()
    }

    /// The defined targets, in definition order.
    pub fn targets(&self) -> impl Iterator<Item = &Target> {
        self.targets.iter().map(|(t, _)| t)
    }

    /// Every registered asset, parents before dependants.
    pub fn assets(&self) -> impl Iterator<Item = Dep> + '_ {
        self.order.iter().map(|&i| self.nodes[i].dep)
    }

    /// Registered assets that no target needs, directly or through its parents. A test can
    /// assert this is empty to catch an asset that was registered but never wired in.
    pub fn unused(&self) -> Vec<Dep> {
        let roots: Vec<usize> = self
            .targets
            .iter()
            .flat_map(|(_, ids)| ids.iter().copied())
            .collect();
        let used = self.closure(&roots);
        self.order
            .iter()
            .filter(|i| !used.contains(i))
            .map(|&i| self.nodes[i].dep)
            .collect()
    }

    /// Node indices of a target's assets.
    pub(crate) fn target_nodes(&self, name: &str) -> Result<&[usize], GraphError> {
        self.targets
            .iter()
            .find(|(t, _)| t.name == name)
            .map(|(_, ids)| ids.as_slice())
            .ok_or_else(|| GraphError::UnknownTarget {
                name: name.to_string(),
                known: self
                    .targets()
                    .map(|t| t.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// Node index of a dependency, if registered with the same type.
    pub(crate) fn index_of(&self, dep: &Dep) -> Option<usize> {
        self.nodes.iter().position(|n| n.dep == *dep)
    }

    /// `roots` and all their ancestors, parents before dependants.
    pub(crate) fn closure(&self, roots: &[usize]) -> Vec<usize> {
        let mut wanted = vec![false; self.nodes.len()];
        let mut todo = roots.to_vec();
        while let Some(i) = todo.pop() {
            if !wanted[i] {
                wanted[i] = true;
                todo.extend(&self.parents[i]);
            }
        }
        self.order.iter().copied().filter(|&i| wanted[i]).collect()
    }

    /// Numbered list of all assets in generation order, each with its direct dependencies.
    pub fn render_list(&self) -> String {
        let mut out = String::new();
        for (n, &i) in self.order.iter().enumerate() {
            let node = &self.nodes[i];
            let _ = write!(out, "{:>3}. {} ({})", n + 1, node.dep.name, node.dep.id);
            if node.kind == Kind::Input {
                out.push_str(" [input]");
            }
            let names: Vec<&str> = self.parents[i]
                .iter()
                .map(|&p| self.nodes[p].dep.name)
                .collect();
            if !names.is_empty() {
                let _ = write!(out, " <- {}", names.join(", "));
            }
            out.push('\n');
        }
        out
    }

    /// Indented dependency tree of one target (or of every target when `None`). A subtree
    /// already shown is abbreviated to `(see above)`.
    pub fn render_tree(&self, target: Option<&str>) -> Result<String, GraphError> {
        let chosen: Vec<&(Target, Vec<usize>)> = match target {
            Some(name) => {
                self.target_nodes(name)?;
                self.targets
                    .iter()
                    .filter(|(t, _)| t.name == name)
                    .collect()
            }
            None => self.targets.iter().collect(),
        };
        let mut out = String::new();
        for (t, roots) in chosen {
            let _ = writeln!(out, "{}", t.name);
            let mut shown = vec![false; self.nodes.len()];
            for (k, &r) in roots.iter().enumerate() {
                self.tree_node(r, "", k + 1 == roots.len(), &mut shown, &mut out);
            }
        }
        Ok(out)
    }

    fn tree_node(&self, i: usize, prefix: &str, last: bool, shown: &mut [bool], out: &mut String) {
        let node = &self.nodes[i];
        let branch = if last { "└─ " } else { "├─ " };
        let _ = write!(out, "{prefix}{branch}{} ({})", node.dep.name, node.dep.id);
        if shown[i] && !self.parents[i].is_empty() {
            out.push_str(" (see above)\n");
            return;
        }
        out.push('\n');
        shown[i] = true;
        let inner = format!("{prefix}{}", if last { "   " } else { "│  " });
        let ps = &self.parents[i];
        for (k, &p) in ps.iter().enumerate() {
            self.tree_node(p, &inner, k + 1 == ps.len(), shown, out);
        }
    }

    /// Graphviz rendering. Edges point from a dependency to the asset that uses it (the
    /// direction data flows); inputs are boxes, targets are double octagons.
    pub fn render_dot(&self) -> String {
        let q = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
        let mut out = String::from("digraph assets {\n  rankdir=LR;\n  node [shape=ellipse];\n");
        for &i in &self.order {
            let node = &self.nodes[i];
            let shape = if node.kind == Kind::Input {
                " shape=box"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "  {} [label={}{shape}];",
                q(node.dep.id),
                q(node.dep.name)
            );
        }
        for &i in &self.order {
            for &p in &self.parents[i] {
                let _ = writeln!(
                    out,
                    "  {} -> {};",
                    q(self.nodes[p].dep.id),
                    q(self.nodes[i].dep.id)
                );
            }
        }
        for (t, roots) in &self.targets {
            let id = q(&format!("target:{}", t.name));
            let _ = writeln!(out, "  {id} [label={} shape=doubleoctagon];", q(t.name));
            for &r in roots {
                let _ = writeln!(out, "  {} -> {id};", q(self.nodes[r].dep.id));
            }
        }
        out.push_str("}\n");
        out
    }
}
