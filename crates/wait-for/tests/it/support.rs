//! Shared fixture: PKI, server, install dir with auth/kubeconfig, event recorder.

use std::cell::RefCell;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use testkit::api::pki::write_kubeconfig;
use testkit::api::{TestApiServer, TestPki};
use wait_for::{BootstrapWaitOptions, Cluster, Event, GatherHint, InstallWaitOptions, Phase};

pub(crate) struct Fixture {
    pub pki: TestPki,
    pub server: TestApiServer,
    pub dir: tempfile::TempDir,
    pub kubeconfig: PathBuf,
}

impl Fixture {
    /// Server running (or not), kubeconfig trusting the right CA with the admin client cert,
    /// connecting to 127.0.0.1 and verifying `api.<domain>` via tls-server-name.
    pub(crate) async fn new(running: bool) -> Fixture {
        let pki = TestPki::generate("test.example.com");
        let server = pki.server(running).await;
        let dir = tempfile::tempdir().expect("tempdir");
        let yaml = pki.admin_kubeconfig(&server);
        let kubeconfig = write_kubeconfig(dir.path(), &yaml);
        Fixture {
            pki,
            server,
            dir,
            kubeconfig,
        }
    }

    /// Replace the kubeconfig (wrong CA, wrong client cert, ...).
    pub(crate) fn rewrite_kubeconfig(&self, yaml: &str) {
        write_kubeconfig(self.dir.path(), yaml);
    }

    pub(crate) async fn cluster(&self) -> Cluster {
        Cluster::from_kubeconfig(&self.kubeconfig)
            .await
            .expect("client from kubeconfig")
    }

    pub(crate) fn hint(&self) -> GatherHint {
        GatherHint {
            dir: self.dir.path().to_path_buf(),
            bootstrap: Some("192.0.2.10".into()),
            masters: vec![
                "192.0.2.11".into(),
                "192.0.2.12".into(),
                "192.0.2.13".into(),
            ],
        }
    }

    pub(crate) fn bootstrap_opts(&self) -> BootstrapWaitOptions {
        let mut o = BootstrapWaitOptions::new(Duration::from_secs(8), self.hint());
        o.api_timeout = Duration::from_secs(8);
        o.bootstrap_timeout = Duration::from_secs(8);
        o.etcd_timeout = Duration::from_secs(5);
        o
    }

    pub(crate) fn install_opts(&self) -> InstallWaitOptions {
        let mut o = InstallWaitOptions::new(Duration::from_secs(8), self.hint());
        o.cluster_timeout = Duration::from_secs(8);
        o.router_ca_timeout = Duration::from_secs(5);
        o.operators_timeout = Duration::from_secs(5);
        o.settle = Duration::from_millis(300);
        o.console_timeout = Duration::from_secs(3);
        o
    }
}

/// Collects events with the time they arrived.
#[derive(Default)]
pub(crate) struct Recorder {
    pub events: RefCell<Vec<(Instant, Event)>>,
}

impl Recorder {
    pub(crate) fn sink(&self) -> impl Fn(Event) + '_ {
        |e| {
            println!("{e}");
            self.events.borrow_mut().push((Instant::now(), e));
        }
    }

    pub(crate) fn statuses(&self, phase: Phase) -> Vec<String> {
        self.events
            .borrow()
            .iter()
            .filter_map(|(_, e)| match e {
                Event::Status {
                    phase: p, message, ..
                } if *p == phase => Some(message.clone()),
                _ => None,
            })
            .collect()
    }

    pub(crate) fn done_at(&self, phase: Phase) -> Option<Instant> {
        self.events.borrow().iter().find_map(|(t, e)| match e {
            Event::PhaseDone { phase: p, .. } if *p == phase => Some(*t),
            _ => None,
        })
    }

    pub(crate) fn has_status(&self, phase: Phase, needle: &str) -> bool {
        self.statuses(phase).iter().any(|m| m.contains(needle))
    }
}

pub(crate) fn never() -> std::future::Pending<()> {
    std::future::pending()
}
