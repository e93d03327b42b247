//! temporary
pub fn run_interactive() -> anyhow::Result<String> {
    anyhow::bail!("survey pending")
}
