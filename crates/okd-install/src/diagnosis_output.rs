//! How a bundle's analysis and a named cause are printed: one shape for `analyze`,
//! `gather bootstrap` and `wait-for`, so a script reads the same `diagnosis` event from each.

use crate::cli::OutputFormat;
use crate::console::emit;

/// Prints an analysis as text or JSON lines: the `diagnosis` event first (when the bundle
/// names a cause), then the whole analysis as one object. In either form every control
/// character of the bundle is shown escaped (`bundle_analysis::escape_controls`): the text
/// cannot steer the terminal, and a JSON field printed raw shows the same.
pub(crate) fn print(
    analysis: &bundle_analysis::Analysis,
    output: OutputFormat,
) -> anyhow::Result<()> {
    match output {
        OutputFormat::Json => {
            if let Some(f) = &analysis.finding {
                emit(&format!("{}\n", diagnosis_event(f, None)))?;
            }
            match serde_json::to_value(analysis) {
                Ok(mut value) => {
                    bundle_analysis::escape_json_strings(&mut value);
                    emit(&format!("{value}\n"))
                }
                Err(e) => {
                    tracing::error!("cannot encode the analysis as JSON: {e}");
                    Ok(())
                }
            }
        }
        OutputFormat::Text => emit(&analysis.render()),
    }
}

/// The `diagnosis` event `wait-for`, `gather` and `analyze` emit with `--output json`:
/// `{"event":"diagnosis","cause":ID,"summary","unit","stage","evidence","remedy"}` plus
/// `exit_code` from `wait-for`.
pub(crate) fn diagnosis_event(f: &contract::cause::Finding, exit_code: Option<i32>) -> String {
    let mut v = serde_json::to_value(f).unwrap_or_default();
    bundle_analysis::escape_json_strings(&mut v);
    if let Some(obj) = v.as_object_mut() {
        obj.insert("event".into(), "diagnosis".into());
        if let Some(code) = exit_code {
            obj.insert("exit_code".into(), code.into());
        }
    }
    v.to_string()
}
