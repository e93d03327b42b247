//! The interactive survey's logic, without any terminal code: questions go through a
//! [`Prompter`] (the binary implements it with inquire, tests with a script), and every
//! answer is checked with the same validators the install-config rules use.

use std::net::IpAddr;
use std::path::PathBuf;

use crate::errors::FieldError;
use crate::types::*;
use crate::validate::{dns_subdomain_problem, pull_secret_problem, ssh_key_problem};
use crate::{defaults, validate};

/// Choice offered when no SSH key should be installed.
pub const NO_SSH_KEY: &str = "<none>";

/// A validator of one answer: `Err` carries the message to show before asking again.
pub type Validator<'a> = &'a dyn Fn(&str) -> Result<(), String>;

/// Why the survey stopped.
#[derive(Debug, thiserror::Error)]
pub enum SurveyError {
    /// The user cancelled (e.g. Ctrl-C or Esc).
    #[error("survey cancelled; no install-config.yaml was written")]
    Cancelled,
    /// The prompt itself failed (no terminal, I/O error).
    #[error(
        "cannot ask questions: {0}; create install-config.yaml by hand (see `okd-install explain installconfig`)"
    )]
    Prompt(String),
    /// The prompter returned an answer that is not one of the options.
    #[error("{0:?} is not one of the offered choices")]
    BadChoice(String),
    /// The answers do not form a valid config (a validator let something through).
    #[error("the answers do not form a valid install config:{}", .0.iter().map(|e| format!("\n  {e}")).collect::<String>())]
    Invalid(Vec<FieldError>),
}

/// Asks questions. Implementations loop until the validator accepts an answer.
pub trait Prompter {
    /// Lets the user pick one of `options`; returns the chosen option.
    fn select(&mut self, message: &str, options: &[String]) -> Result<String, SurveyError>;
    /// Asks for text, offering `default`.
    fn text(
        &mut self,
        message: &str,
        default: Option<String>,
        validator: Validator<'_>,
    ) -> Result<String, SurveyError>;
    /// Asks for a secret without echoing it.
    fn secret(&mut self, message: &str, validator: Validator<'_>) -> Result<String, SurveyError>;
}

/// Runs the survey and returns a defaulted, validated config.
pub fn run_survey(
    p: &mut dyn Prompter,
    found_ssh_keys: Vec<(PathBuf, String)>,
) -> Result<InstallConfig, SurveyError> {
    let ssh_key = ask_ssh_key(p, found_ssh_keys)?;
    let kind = choose_platform(p)?;
    let mut machine_network = None;
    let platform = match kind {
        Platform::Baremetal => {
            let (bm, net) = ask_baremetal(p)?;
            machine_network = Some(net);
            PlatformSection {
                baremetal: Some(bm),
                ..PlatformSection::default()
            }
        }
        Platform::Vsphere => PlatformSection {
            vsphere: Some(ask_vsphere(p)?),
            ..PlatformSection::default()
        },
        Platform::None => PlatformSection {
            none: Some(NonePlatform {}),
            ..PlatformSection::default()
        },
    };
    let base_domain = p.text("Base Domain", None, &base_domain_ok)?;
    let dotted_ok = kind.allows_dotted_cluster_name();
    let name = p.text("Cluster Name", None, &|s: &str| {
        cluster_name_ok(s, dotted_ok)
    })?;
    let pull_secret = p.secret("Pull Secret", &|s: &str| {
        pull_secret_problem(s.trim()).map_or(Ok(()), Err)
    })?;
    let mut cfg = empty_config();
    cfg.metadata.name = name.trim().to_string();
    cfg.base_domain = base_domain.trim().to_string();
    cfg.ssh_key = ssh_key;
    cfg.pull_secret = pull_secret.trim().to_string();
    cfg.platform = platform;
    if let Some(net) = machine_network {
        cfg.networking = Some(Networking {
            machine_network: vec![MachineNetworkEntry { cidr: net }],
            ..Networking::default()
        });
    }
    if let Some(bm) = &cfg.platform.baremetal {
        let workers = bm.hosts.len().saturating_sub(SURVEY_MIN_HOSTS) as i64;
        let mut pool = MachinePool::named(WORKER_POOL);
        pool.replicas = Some(workers);
        cfg.compute = vec![pool];
    }
    defaults::apply(&mut cfg);
    let v = validate::validate(&cfg);
    if v.errors.is_empty() {
        Ok(cfg)
    } else {
        Err(SurveyError::Invalid(v.errors))
    }
}

fn empty_config() -> InstallConfig {
    let mut cfg: InstallConfig = serde_json::from_value(serde_json::json!({}))
        .unwrap_or_else(|e| panic!("an empty install config always deserializes: {e}"));
    cfg.api_version = API_VERSION.to_string();
    cfg
}

fn choose(p: &mut dyn Prompter, message: &str, options: &[String]) -> Result<String, SurveyError> {
    let answer = p.select(message, options)?;
    if options.contains(&answer) {
        Ok(answer)
    } else {
        Err(SurveyError::BadChoice(answer))
    }
}

/// Offers every implemented platform.
fn choose_platform(p: &mut dyn Prompter) -> Result<Platform, SurveyError> {
    let names = Platform::ALL.map(|k| k.name().to_string());
    let answer = choose(p, "Platform", &names)?;
    Platform::from_name(&answer).ok_or(SurveyError::BadChoice(answer))
}

fn ask_ssh_key(p: &mut dyn Prompter, found: Vec<(PathBuf, String)>) -> Result<String, SurveyError> {
    let usable: Vec<(String, String)> = found
        .into_iter()
        .filter(|(_, key)| ssh_key_problem(key, false).is_none())
        .map(|(path, key)| (path.display().to_string(), key.trim().to_string()))
        .collect();
    let mut options: Vec<String> = usable.iter().map(|(label, _)| label.clone()).collect();
    options.push(NO_SSH_KEY.to_string());
    let answer = choose(p, "SSH Public Key", &options)?;
    Ok(usable
        .into_iter()
        .find(|(label, _)| *label == answer)
        .map(|(_, key)| key)
        .unwrap_or_default())
}

/// Validator of a base domain answer.
pub fn base_domain_ok(s: &str) -> Result<(), String> {
    let d = s.trim().trim_end_matches('.');
    dns_subdomain_problem(d).map_or(Ok(()), |p| Err(format!("the base domain {p}")))
}

/// Validator of a cluster name answer.
pub fn cluster_name_ok(s: &str, dots_allowed: bool) -> Result<(), String> {
    let s = s.trim();
    if let Some(p) = dns_subdomain_problem(s) {
        return Err(format!("the cluster name {p}"));
    }
    if s.len() > validate::MAX_NAME_LEN {
        return Err(format!(
            "the cluster name may have at most {} characters",
            validate::MAX_NAME_LEN
        ));
    }
    if !dots_allowed && s.contains('.') {
        return Err("the cluster name must not contain '.' on this platform".into());
    }
    Ok(())
}

fn non_empty(s: &str) -> Result<(), String> {
    if s.trim().is_empty() {
        Err("an answer is required".into())
    } else {
        Ok(())
    }
}

fn ip_ok(s: &str) -> Result<IpAddr, String> {
    s.trim()
        .parse::<IpAddr>()
        .map_err(|_| format!("{:?} is not an IP address", s.trim()))
}

fn ask_baremetal(p: &mut dyn Prompter) -> Result<(BaremetalPlatform, Cidr), SurveyError> {
    let api = p.text("API VIP", None, &|s: &str| ip_ok(s).map(|_| ()))?;
    let api_ip = ip_ok(&api).map_err(SurveyError::Prompt)?;
    let suggested = default_network(api_ip);
    let net_ok = |s: &str| -> Result<(), String> {
        let c = Cidr::parse(s.trim())?;
        if c.0.addr() != c.0.network() {
            return Err(format!("use the network address {}", c.masked()));
        }
        if !c.masked().contains(&api_ip) {
            return Err(format!("the network must contain the API VIP {api_ip}"));
        }
        Ok(())
    };
    let net = p.text("Machine Network", Some(suggested.to_string()), &net_ok)?;
    let net = Cidr::parse(net.trim()).map_err(SurveyError::Prompt)?;
    let ingress_ok = |s: &str| -> Result<(), String> {
        let ip = ip_ok(s)?;
        if ip == api_ip {
            return Err("the ingress VIP must differ from the API VIP".into());
        }
        if !net.masked().contains(&ip) {
            return Err(format!(
                "the ingress VIP must lie in the machine network {net}"
            ));
        }
        Ok(())
    };
    let ingress = p.text("Ingress VIP", None, &ingress_ok)?;
    let bm = BaremetalPlatform {
        api_vips: vec![IpAddrString(api.trim().to_string())],
        ingress_vips: vec![IpAddrString(ingress.trim().to_string())],
        hosts: ask_hosts(p)?,
        ..BaremetalPlatform::default()
    };
    Ok((bm, net))
}

/// Hosts the survey needs before it stops asking: the three control-plane hosts.
const SURVEY_MIN_HOSTS: usize = 3;

/// Asks for bare-metal hosts until an empty name; the first three become control-plane
/// hosts and the rest compute hosts (the compute replicas follow the host count).
fn ask_hosts(p: &mut dyn Prompter) -> Result<Vec<BaremetalHost>, SurveyError> {
    let mut hosts: Vec<BaremetalHost> = Vec::new();
    loop {
        let taken: Vec<String> = hosts.iter().map(|h| h.name.clone()).collect();
        let name_ok = |s: &str| -> Result<(), String> {
            let s = s.trim();
            if s.is_empty() {
                return (taken.len() >= SURVEY_MIN_HOSTS)
                    .then_some(())
                    .ok_or_else(|| {
                        format!("give at least {SURVEY_MIN_HOSTS} hosts (the control plane)")
                    });
            }
            if taken.iter().any(|t| t == s) {
                return Err(format!("host {s} is already listed"));
            }
            dns_subdomain_problem(s).map_or(Ok(()), |e| Err(format!("the host name {e}")))
        };
        let name = p.text("Host name (empty when done)", None, &name_ok)?;
        if name.trim().is_empty() {
            return Ok(hosts);
        }
        hosts.push(ask_host(p, name.trim(), &hosts)?);
    }
}

fn ask_host(
    p: &mut dyn Prompter,
    name: &str,
    earlier: &[BaremetalHost],
) -> Result<BaremetalHost, SurveyError> {
    let mac_ok = |s: &str| -> Result<(), String> {
        let s = s.trim();
        if !validate::is_mac(s) {
            return Err(validate::MAC_HINT.into());
        }
        let dup = earlier.iter().filter_map(|h| h.boot_mac_address.as_deref());
        match dup.into_iter().find(|m| m.eq_ignore_ascii_case(s)) {
            Some(m) => Err(format!("{m} is already the boot MAC of another host")),
            None => Ok(()),
        }
    };
    let mac = p.text("Boot MAC address", None, &mac_ok)?;
    let address = p.text("BMC address", None, &non_empty)?;
    let username = p.text("BMC user", None, &non_empty)?;
    let password = p.secret("BMC password", &non_empty)?;
    let role = if earlier.len() < SURVEY_MIN_HOSTS {
        HostRole::Master
    } else {
        HostRole::Worker
    };
    Ok(BaremetalHost {
        name: name.to_string(),
        role: Some(role),
        boot_mac_address: Some(mac.trim().to_string()),
        bmc: Some(Bmc {
            username: username.trim().to_string(),
            password,
            address: address.trim().to_string(),
            disable_certificate_verification: false,
        }),
        ..BaremetalHost::default()
    })
}

/// A /24 (IPv4) or /64 (IPv6) around the API VIP, offered as the machine network.
fn default_network(ip: IpAddr) -> Cidr {
    let prefix = if ip.is_ipv4() { 24 } else { 64 };
    let net = ipnet::IpNet::new(ip, prefix)
        .map(|n| n.trunc())
        .unwrap_or_else(|e| panic!("prefix {prefix} is valid: {e}"));
    Cidr(net)
}

fn ask_vsphere(p: &mut dyn Prompter) -> Result<VspherePlatform, SurveyError> {
    let server = p.text("vCenter", None, &|s: &str| {
        non_empty(s)?;
        if s.contains("://") || s.contains('/') {
            Err("give the host name only, without scheme or path".into())
        } else {
            Ok(())
        }
    })?;
    let user = p.text("Username", None, &non_empty)?;
    let password = p.secret("Password", &non_empty)?;
    let dc = p.text("Datacenter", None, &non_empty)?;
    let ds = p.text("Default Datastore", None, &non_empty)?;
    let cluster = p.text("Cluster", None, &non_empty)?;
    let network = p.text("Network", None, &non_empty)?;
    let (server, dc) = (server.trim().to_string(), dc.trim().to_string());
    let path = |kind: &str, v: String| {
        let v = v.trim().to_string();
        if v.starts_with('/') {
            v
        } else {
            format!("/{dc}/{kind}/{v}")
        }
    };
    Ok(VspherePlatform {
        vcenters: vec![VCenter {
            server: server.clone(),
            port: Some(DEFAULT_VCENTER_PORT),
            user: user.trim().to_string(),
            password,
            datacenters: vec![dc.clone()],
        }],
        failure_domains: vec![FailureDomain {
            name: crate::convert::GENERATED_FAILURE_DOMAIN.into(),
            region: "generated-region".into(),
            zone: "generated-zone".into(),
            server,
            topology: Topology {
                datacenter: dc.clone(),
                compute_cluster: path("host", cluster),
                networks: vec![network.trim().to_string()],
                datastore: path("datastore", ds),
                ..Topology::default()
            },
            region_type: None,
            zone_type: None,
        }],
        ..VspherePlatform::default()
    })
}
