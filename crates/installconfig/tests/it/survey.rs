use std::collections::VecDeque;
use std::path::PathBuf;

use installconfig::HostRole;
use installconfig::survey::{NO_SSH_KEY, Prompter, SurveyError, Validator, run_survey};

use crate::fixture_text;

/// Answers questions from a script; an answer the validator rejects is recorded and the
/// next scripted answer is tried, like a user typing again.
struct Script {
    answers: VecDeque<&'static str>,
    asked: Vec<String>,
    rejected: Vec<(String, String)>,
    options: Vec<(String, Vec<String>)>,
}

impl Script {
    fn new(answers: &[&'static str]) -> Self {
        Script {
            answers: answers.iter().copied().collect(),
            asked: vec![],
            rejected: vec![],
            options: vec![],
        }
    }
    fn next(&mut self, message: &str) -> Result<String, SurveyError> {
        self.asked.push(message.to_string());
        self.answers
            .pop_front()
            .map(String::from)
            .ok_or(SurveyError::Cancelled)
    }
    fn until_valid(
        &mut self,
        message: &str,
        default: Option<String>,
        v: Validator<'_>,
    ) -> Result<String, SurveyError> {
        loop {
            let mut answer = self.next(message)?;
            if answer.is_empty() {
                answer = default.clone().unwrap_or_default();
            }
            match v(&answer) {
                Ok(()) => return Ok(answer),
                Err(msg) => self.rejected.push((message.to_string(), msg)),
            }
        }
    }
}

impl Prompter for Script {
    fn select(&mut self, message: &str, options: &[String]) -> Result<String, SurveyError> {
        self.options.push((message.to_string(), options.to_vec()));
        self.next(message)
    }
    fn text(
        &mut self,
        message: &str,
        default: Option<String>,
        v: Validator<'_>,
    ) -> Result<String, SurveyError> {
        self.until_valid(message, default, v)
    }
    fn secret(&mut self, message: &str, v: Validator<'_>) -> Result<String, SurveyError> {
        self.until_valid(message, None, v)
    }
}

const PULL: &str = r#"{"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}}"#;

fn keys() -> Vec<(PathBuf, String)> {
    vec![
        (
            PathBuf::from("/home/u/.ssh/id_ed25519.pub"),
            fixture_text("ed25519.pub"),
        ),
        (
            PathBuf::from("/home/u/.ssh/broken.pub"),
            "ssh-rsa AAAA".to_string(),
        ),
    ]
}

#[test]
fn none_platform_survey() {
    let mut s = Script::new(&[
        "/home/u/.ssh/id_ed25519.pub",
        "none",
        "Bad Domain",
        "example.com",
        "sno",
        "{}",
        PULL,
    ]);
    let cfg = run_survey(&mut s, keys()).unwrap();
    assert_eq!(cfg.platform_name(), "none");
    assert_eq!(cfg.cluster_domain(), "sno.example.com");
    assert_eq!(cfg.ssh_key, fixture_text("ed25519.pub").trim());
    assert_eq!(cfg.pull_secret, PULL);
    // The broken key is not offered; "<none>" always is.
    assert_eq!(
        s.options[0].1,
        vec![
            "/home/u/.ssh/id_ed25519.pub".to_string(),
            NO_SSH_KEY.to_string()
        ]
    );
    assert_eq!(s.options[1].1, vec!["none", "baremetal", "vsphere"]);
    let rejected: Vec<&str> = s.rejected.iter().map(|(q, _)| q.as_str()).collect();
    assert_eq!(rejected, vec!["Base Domain", "Pull Secret"]);
    // What the survey produced loads back without problems.
    installconfig::parse_str(&cfg.to_yaml(), "install-config.yaml").unwrap();
}

#[test]
fn baremetal_survey_checks_vips() {
    let mut s = Script::new(&[
        NO_SSH_KEY,
        "baremetal",
        "not-an-ip",
        "192.168.50.5",
        "",
        "192.168.50.5",
        "10.1.1.1",
        "192.168.50.6",
        "",
        "m0",
        "52:54:00:00:00:01",
        "redfish://10.1.1.10/redfish/v1/Systems/1",
        "admin",
        "pw",
        "m0",
        "m1",
        "52:54:00:00:00:01",
        "52:54:00:00:00:02",
        "redfish://10.1.1.11/redfish/v1/Systems/1",
        "admin",
        "pw",
        "m2",
        "52:54:00:00:00:03",
        "redfish://10.1.1.12/redfish/v1/Systems/1",
        "admin",
        "pw",
        "",
        "lab.example.org.",
        "my.cluster",
        "compact",
        PULL,
    ]);
    let cfg = run_survey(&mut s, keys()).unwrap();
    assert!(cfg.ssh_key.is_empty());
    assert_eq!(cfg.api_vips(), vec!["192.168.50.5".to_string()]);
    assert_eq!(cfg.ingress_vips(), vec!["192.168.50.6".to_string()]);
    assert_eq!(
        cfg.networking().machine_network[0].cidr.to_string(),
        "192.168.50.0/24"
    );
    assert_eq!(cfg.base_domain, "lab.example.org");
    let rejected: Vec<&str> = s.rejected.iter().map(|(q, _)| q.as_str()).collect();
    assert_eq!(
        rejected,
        vec![
            "API VIP",
            "Ingress VIP",
            "Ingress VIP",
            "Host name (empty when done)",
            "Host name (empty when done)",
            "Boot MAC address",
            "Cluster Name"
        ]
    );
    let hosts = &cfg.platform.baremetal.as_ref().unwrap().hosts;
    assert_eq!(hosts.len(), 3);
    assert!(hosts.iter().all(|h| h.role == Some(HostRole::Master)));
    assert_eq!(cfg.compute[0].replicas, Some(0));
    installconfig::parse_str(&cfg.to_yaml(), "install-config.yaml").unwrap();
}

#[test]
fn vsphere_survey_builds_failure_domain() {
    let mut s = Script::new(&[
        NO_SSH_KEY,
        "vsphere",
        "https://vc.example.com",
        "vc.example.com",
        "admin@vsphere.local",
        "",
        "pw",
        "dc1",
        "ds1",
        "cluster1",
        "VM Network",
        "example.com",
        "vs1",
        PULL,
    ]);
    let cfg = run_survey(&mut s, vec![]).unwrap();
    let vs = cfg.platform.vsphere.as_ref().unwrap();
    assert_eq!(vs.vcenters[0].server, "vc.example.com");
    assert_eq!(vs.vcenters[0].password, "pw");
    let t = &vs.failure_domains[0].topology;
    assert_eq!(
        (t.compute_cluster.as_str(), t.datastore.as_str()),
        ("/dc1/host/cluster1", "/dc1/datastore/ds1")
    );
    assert_eq!(s.options[0].1, vec![NO_SSH_KEY.to_string()]);
    let rejected: Vec<&str> = s.rejected.iter().map(|(q, _)| q.as_str()).collect();
    assert_eq!(rejected, vec!["vCenter", "Password"]);
    installconfig::parse_str(&cfg.to_yaml(), "install-config.yaml").unwrap();
}

#[test]
fn cancel_and_bad_choice_are_errors() {
    let mut s = Script::new(&[NO_SSH_KEY, "none"]);
    assert!(matches!(
        run_survey(&mut s, vec![]),
        Err(SurveyError::Cancelled)
    ));
    let mut s = Script::new(&[NO_SSH_KEY, "aws"]);
    assert!(matches!(run_survey(&mut s, vec![]), Err(SurveyError::BadChoice(c)) if c == "aws"));
}
