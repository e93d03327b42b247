//! The gather itself: connect, log in, run the gather script, download the bundle.

use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

use crate::agent::{ForwardTarget, Keyring};
use crate::auth::{LocalAgent, authenticate};
use crate::connection::connect;
use crate::remote::run_gather;
use crate::{GatherError, GatherEvent, GatherOptions, download, keys};

/// The result of a successful gather.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GatherOutcome {
    /// Where the bundle was saved.
    pub bundle_path: PathBuf,
    /// The bootstrap host's key, `SHA256:...`, accepted without verification.
    pub host_key_fingerprint: String,
    /// Which key or agent identity logged us in.
    pub auth_method: String,
}

/// Collects the bootstrap host's log bundle into `opts.out_dir`.
///
/// Progress goes to `log`: the binary prints key skips, the host key and the result, and
/// logs remote output at debug level. The bundle is written atomically; a download that
/// breaks off leaves `<bundle>.partial` behind and says so.
pub async fn gather_bootstrap(
    opts: &GatherOptions,
    log: &mut dyn FnMut(GatherEvent),
) -> Result<GatherOutcome, GatherError> {
    opts.validate()?;
    let mut keys = keys::load_keys(opts, log)?;
    let mut agent = open_agent(opts, &mut keys.skipped, log).await;
    let agent_keys = agent.as_ref().map_or(0, |a| a.identities.len());
    if keys.all().next().is_none() && agent_keys == 0 {
        return Err(GatherError::NoKeys {
            skipped: keys.skipped.clone(),
        });
    }
    let forward = match opts.forward_agent {
        true => Some(forward_target(opts, &keys, agent.is_some(), log).await),
        false => None,
    };
    let forward_detail = format!(
        "the bootstrap host may use {} key(s) loaded here and {agent_keys} key(s) from ssh-agent \
         to reach the masters while the gather runs",
        keys.all().count()
    );
    let forward_detail = forward.is_some().then_some(forward_detail);
    let (mut handle, host_key) = connect(opts, forward, log).await?;
    let auth_method = authenticate(&mut handle, opts, &keys, agent.as_mut(), log).await?;
    let lines = run_gather(&handle, opts, forward_detail.as_deref(), log).await?;
    let bundle_path = download::fetch_bundle(&handle, opts, &lines, log).await?;
    let _ = handle
        .disconnect(russh::Disconnect::ByApplication, "gather finished", "en")
        .await;
    Ok(GatherOutcome {
        bundle_path,
        host_key_fingerprint: host_key.fingerprint,
        auth_method,
    })
}

/// Where forwarded agent requests go: an in-process agent with the loaded keys, plus the
/// user's ssh-agent when it answered.
async fn forward_target(
    opts: &GatherOptions,
    keys: &keys::KeySet,
    agent_answered: bool,
    log: &mut dyn FnMut(GatherEvent),
) -> ForwardTarget {
    let all: Vec<&keys::Candidate> = keys.all().collect();
    let keyring = match Keyring::start(&all).await {
        Ok(ring) if !all.is_empty() => Some(Arc::new(ring)),
        Ok(_) => None,
        Err(reason) => {
            log(GatherEvent::AgentForwarding { detail: reason });
            None
        }
    };
    ForwardTarget {
        keyring,
        agent_socket: opts.agent_socket.clone().filter(|_| agent_answered),
    }
}

/// Connects to the user's ssh-agent; an unreachable or empty agent is noted in `skipped`.
async fn open_agent(
    opts: &GatherOptions,
    skipped: &mut Vec<String>,
    log: &mut dyn FnMut(GatherEvent),
) -> Option<LocalAgent> {
    let socket = opts.agent_socket.as_ref()?;
    let key = format!("ssh-agent ({})", socket.display());
    let (agent, problem) = match crate::agent::local_identities(socket).await {
        Ok((_, identities)) if identities.is_empty() => (
            None,
            Some("it holds no keys (ssh-add <key> adds one)".to_string()),
        ),
        Ok((client, identities)) => (Some(LocalAgent { client, identities }), None),
        Err(reason) => (None, Some(reason)),
    };
    if let Some(reason) = problem {
        skipped.push(format!("{key}: {reason}"));
        log(GatherEvent::KeySkipped { key, reason });
    }
    agent
}
