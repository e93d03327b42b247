//! Logging in: every key in order, one attempt each, and an error that lists them all.

use std::sync::Arc;

use russh::MethodKind;
use russh::client::{AuthResult, Handle};
use russh::keys::agent::client::AgentClient;
use russh::keys::ssh_key::public::KeyData;
use russh::keys::{HashAlg, PrivateKeyWithHashAlg, PublicKey};
use tokio::net::UnixStream;

use crate::connection::Client;
use crate::keys::{Candidate, KeySet, describe_key};
use crate::{GatherError, GatherEvent, GatherOptions};

/// The user's ssh-agent and the identities it offered.
pub(crate) struct LocalAgent {
    pub client: AgentClient<UnixStream>,
    pub identities: Vec<(PublicKey, String)>,
}

/// What happened so far; becomes the error when nothing worked.
struct Attempts {
    tried: Vec<String>,
    seen: Vec<KeyData>,
    server_methods: Vec<String>,
    closed_early: bool,
}

enum Outcome {
    Accepted,
    Rejected,
    /// The server closed the connection: no more attempts are possible.
    Closed,
}

fn method_names(methods: &[MethodKind]) -> Vec<String> {
    methods.iter().map(String::from).collect()
}

fn judge(
    result: Result<AuthResult, String>,
    handle: &Handle<Client>,
    attempts: &mut Attempts,
) -> Outcome {
    match result {
        Ok(AuthResult::Success) => Outcome::Accepted,
        Ok(AuthResult::Failure {
            remaining_methods, ..
        }) => {
            if !remaining_methods.is_empty() {
                attempts.server_methods = method_names(&remaining_methods);
            }
            if handle.is_closed() {
                Outcome::Closed
            } else {
                Outcome::Rejected
            }
        }
        Err(_) if handle.is_closed() => Outcome::Closed,
        Err(_) => Outcome::Rejected,
    }
}

/// Logs in as `opts.user`, returning a description of the method that worked.
pub(crate) async fn authenticate(
    handle: &mut Handle<Client>,
    opts: &GatherOptions,
    keys: &KeySet,
    mut agent: Option<&mut LocalAgent>,
    log: &mut dyn FnMut(GatherEvent),
) -> Result<String, GatherError> {
    let mut attempts = Attempts {
        tried: Vec::new(),
        seen: Vec::new(),
        server_methods: Vec::new(),
        closed_early: false,
    };
    // "none" authentication tells us which methods the server accepts.
    let none = handle
        .authenticate_none(&opts.user)
        .await
        .map_err(|e| e.to_string());
    if let Outcome::Accepted = judge(none, handle, &mut attempts) {
        return Ok("no authentication required".to_string());
    }
    let rsa_hash = match handle.best_supported_rsa_hash().await {
        Ok(Some(hash)) => hash,
        _ => Some(HashAlg::Sha256),
    };
    let publickey_allowed = attempts.server_methods.is_empty()
        || attempts.server_methods.iter().any(|m| m == "publickey");
    if publickey_allowed {
        let order = keys
            .first
            .iter()
            .map(Some)
            .chain([None])
            .chain(keys.home.iter().map(Some));
        for slot in order {
            let accepted = match slot {
                Some(candidate) => {
                    try_key(handle, opts, candidate, rsa_hash, &mut attempts, log).await
                }
                None => match agent.as_deref_mut() {
                    Some(agent) => {
                        try_agent(handle, opts, agent, rsa_hash, &mut attempts, log).await
                    }
                    None => None,
                },
            };
            if let Some(label) = accepted {
                return Ok(label);
            }
            if attempts.closed_early {
                break;
            }
        }
    }
    Err(GatherError::AuthFailed {
        user: opts.user.clone(),
        address: crate::connection::address(opts),
        tried: attempts.tried,
        server_methods: attempts.server_methods,
        skipped: keys.skipped.clone(),
        closed_early: attempts.closed_early,
    })
}

/// Records an attempt; returns the label when it was accepted.
fn record(
    outcome: Outcome,
    label: String,
    attempts: &mut Attempts,
    log: &mut dyn FnMut(GatherEvent),
) -> Option<String> {
    let accepted = matches!(outcome, Outcome::Accepted);
    log(GatherEvent::AuthAttempt {
        method: label.clone(),
        accepted,
    });
    match outcome {
        Outcome::Accepted => return Some(label),
        Outcome::Rejected => attempts.tried.push(format!("{label}: rejected")),
        Outcome::Closed => {
            attempts
                .tried
                .push(format!("{label}: connection closed by the server"));
            attempts.closed_early = true;
        }
    }
    None
}

async fn try_key(
    handle: &mut Handle<Client>,
    opts: &GatherOptions,
    candidate: &Candidate,
    rsa_hash: Option<HashAlg>,
    attempts: &mut Attempts,
    log: &mut dyn FnMut(GatherEvent),
) -> Option<String> {
    let data = candidate.key.public_key().key_data().clone();
    if attempts.seen.contains(&data) {
        return None;
    }
    attempts.seen.push(data);
    let key = PrivateKeyWithHashAlg::new(Arc::clone(&candidate.key), rsa_hash);
    let result = handle
        .authenticate_publickey(&opts.user, key)
        .await
        .map_err(|e| e.to_string());
    let outcome = judge(result, handle, attempts);
    record(outcome, candidate.label.clone(), attempts, log)
}

async fn try_agent(
    handle: &mut Handle<Client>,
    opts: &GatherOptions,
    agent: &mut LocalAgent,
    rsa_hash: Option<HashAlg>,
    attempts: &mut Attempts,
    log: &mut dyn FnMut(GatherEvent),
) -> Option<String> {
    for (key, comment) in agent.identities.clone() {
        if attempts.seen.contains(key.key_data()) {
            continue;
        }
        attempts.seen.push(key.key_data().clone());
        let label = format!("ssh-agent key {comment} ({})", describe_key(key.key_data()));
        let hash = if key.algorithm().is_rsa() {
            rsa_hash
        } else {
            None
        };
        let result = handle
            .authenticate_publickey_with(&opts.user, key, hash, &mut agent.client)
            .await
            .map_err(|e| e.to_string());
        let outcome = judge(result, handle, attempts);
        if let Some(label) = record(outcome, label, attempts, log) {
            return Some(label);
        }
        if attempts.closed_early {
            return None;
        }
    }
    None
}
