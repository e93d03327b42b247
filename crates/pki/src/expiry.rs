//! Expiry checks for certificates the tool created earlier (or that a user supplied).

use time::format_description::well_known::Rfc3339;
use time::{Duration, OffsetDateTime};
use x509_parser::prelude::{FromDer as _, X509Certificate};

use crate::error::{Error, Result};
use crate::pem;

/// NotBefore and NotAfter of every certificate in `cert_pem`, in file order.
fn validity_all(cert_pem: &str, file: &str) -> Result<Vec<(OffsetDateTime, OffsetDateTime)>> {
    let ders = pem::certificates(cert_pem, file)?;
    if ders.is_empty() {
        return Err(Error::parse(file, "no PEM CERTIFICATE block found"));
    }
    ders.iter()
        .map(|der| {
            let (_, cert) = X509Certificate::from_der(der)
                .map_err(|e| Error::parse(file, format!("not a valid X.509 certificate: {e}")))?;
            let validity = cert.validity();
            Ok((
                validity.not_before.to_datetime(),
                validity.not_after.to_datetime(),
            ))
        })
        .collect()
}

/// NotAfter of every certificate in `cert_pem`, in file order.
pub fn not_after_all(cert_pem: &str, file: &str) -> Result<Vec<OffsetDateTime>> {
    Ok(validity_all(cert_pem, file)?
        .into_iter()
        .map(|(_, end)| end)
        .collect())
}

/// NotAfter of the first certificate in `cert_pem`.
pub fn not_after(cert_pem: &str, file: &str) -> Result<OffsetDateTime> {
    Ok(not_after_all(cert_pem, file)?[0])
}

/// Says why the certificates in `cert_pem` should not be used at `now`: one is not valid
/// yet (made on a clock ahead of this one: no host whose clock is right accepts it), one has
/// expired, or one expires within `margin`. Looks at every certificate (a chain is only as
/// good as its latest start and earliest expiry). `None` means all are fine.
pub fn expiry_problem(
    cert_pem: &str,
    file: &str,
    now: OffsetDateTime,
    margin: Duration,
) -> Result<Option<String>> {
    let validity = validity_all(cert_pem, file)?;
    let format = |t: OffsetDateTime| t.format(&Rfc3339).unwrap_or_else(|_| t.to_string());
    if let Some(start) = validity.iter().map(|v| v.0).max()
        && start > now
    {
        return Ok(Some(format!(
            "not valid until {} ({} from now): it was made on a clock ahead of this one",
            format(start),
            human(start - now)
        )));
    }
    let Some(earliest) = validity.iter().map(|v| v.1).min() else {
        return Ok(None);
    };
    let at = format(earliest);
    Ok(if earliest <= now {
        Some(format!("expired at {at}"))
    } else if earliest - now <= margin {
        Some(format!(
            "expires at {at} (in {}), within the {} margin",
            human(earliest - now),
            human(margin)
        ))
    } else {
        None
    })
}

/// A short duration text such as `3h`, `2h30m`, `4d6h` or `45s`.
pub fn human(d: Duration) -> String {
    let secs = d.whole_seconds().max(0);
    let (days, hours, mins) = (secs / 86_400, secs % 86_400 / 3600, secs % 3600 / 60);
    let parts = [(days, "d"), (hours, "h"), (mins, "m")];
    let text: String = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, unit)| format!("{n}{unit}"))
        .collect();
    if text.is_empty() {
        format!("{secs}s")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_durations_are_compact() {
        assert_eq!(human(Duration::hours(3)), "3h");
        assert_eq!(human(Duration::minutes(150)), "2h30m");
        assert_eq!(human(Duration::hours(102)), "4d6h");
        assert_eq!(human(Duration::seconds(45)), "45s");
    }
}
