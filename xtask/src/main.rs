//! Developer tasks: `cargo xtask golden`, `cargo xtask bench`.
fn main() -> anyhow::Result<()> {
    Ok(())
}
