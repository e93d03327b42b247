//! How a bundle's analysis and a named cause are printed: one shape for `analyze`,
//! `gather bootstrap` and `wait-for`, so a script reads the same `diagnosis` event from each.

use crate::cli::OutputFormat;

/// Prints an analysis as text or JSON lines: the `diagnosis` event first (when the bundle
/// names a cause), then the whole analysis as one object.
pub(crate) fn print(analysis: &bundle_analysis::Analysis, output: OutputFormat) {
    match output {
        OutputFormat::Json => {
            if let Some(f) = &analysis.finding {
                println!("{}", diagnosis_event(f, None));
            }
            match serde_json::to_string(analysis) {
                Ok(line) => println!("{line}"),
                Err(e) => tracing::error!("cannot encode the analysis as JSON: {e}"),
            }
        }
        OutputFormat::Text => print!("{}", analysis.render()),
    }
}

/// The `diagnosis` event `wait-for`, `gather` and `analyze` emit with `--output json`:
/// `{"event":"diagnosis","cause":ID,"summary","unit","stage","evidence","remedy"}` plus
/// `exit_code` from `wait-for`.
pub(crate) fn diagnosis_event(f: &contract::cause::Finding, exit_code: Option<i32>) -> String {
    let mut v = serde_json::to_value(f).unwrap_or_default();
    if let Some(obj) = v.as_object_mut() {
        obj.insert("event".into(), "diagnosis".into());
        if let Some(code) = exit_code {
            obj.insert("exit_code".into(), code.into());
        }
    }
    v.to_string()
}
