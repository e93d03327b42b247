//! `okd-install graph [--dot]`: the asset graph, as a tree or Graphviz dot.

use anyhow::Result;

use crate::console::emit;

/// `okd-install graph [--dot]`.
pub(crate) fn graph(dot: bool) -> Result<()> {
    let graph = assets::graph()?;
    if dot {
        emit(&graph.render_dot())?;
    } else {
        emit(&graph.render_tree(None)?)?;
    }
    Ok(())
}
