//! Watching one named object until a predicate says done, surviving what real API servers do
//! to watches: closing them (resume from the last resourceVersion), dropping the connection
//! (resume; if the server is gone, re-list once it is back), and expiring old
//! resourceVersions with 410 Gone (re-list). A watch sees a change as soon as the server
//! sends it, so completion is detected within milliseconds instead of a poll interval.

use std::fmt::Debug;
use std::time::Duration;

use futures::StreamExt;
use kube::api::{ListParams, WatchEvent, WatchParams};
use kube::{Api, Resource, ResourceExt};
use serde::de::DeserializeOwned;

use crate::report::{REQUEST_TIMEOUT, Reporter};

/// Pause before retrying after an error, so a dead server is not hammered.
const RETRY: Duration = Duration::from_secs(1);

/// Server-side watch timeout. Short enough that a silently dead connection (no RST, e.g. a
/// load balancer dropping its backend) delays the next resume by at most a minute.
const WATCH_SECONDS: u32 = 60;

/// What the predicate says about the object's current state.
pub(crate) enum Check<T> {
    Done(T),
    /// Not yet; the message is shown (de-duplicated) and kept for the diagnosis.
    Wait(String),
}

fn is_gone(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 410)
}

/// Watch `name` through `api` until `check` returns `Done`. Never returns otherwise: the
/// caller bounds it with the phase timeout.
pub(crate) async fn watch_named<K, T>(
    api: &Api<K>,
    name: &str,
    rep: &Reporter<'_>,
    mut check: impl FnMut(Option<&K>) -> Check<T>,
) -> T
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + 'static,
{
    let fields = format!("metadata.name={name}");
    let mut observe = |obj: Option<&K>| match check(obj) {
        Check::Done(t) => Some(t),
        Check::Wait(msg) => {
            rep.observe(msg, crate::report::Class::Observation);
            None
        }
    };
    loop {
        let Some(list) = rep
            .request(api.list(&ListParams::default().fields(&fields)))
            .await
        else {
            tokio::time::sleep(RETRY).await;
            continue;
        };
        if let Some(done) = observe(list.items.first()) {
            return done;
        }
        let rv = list.metadata.resource_version.unwrap_or_default();
        if let Some(done) = watch_from(api, &fields, rv, rep, &mut observe).await {
            return done;
        }
    }
}

/// How a watch connection ended.
enum Flow<T> {
    Done(T),
    /// The connection ended; open the next one from the last resourceVersion.
    Resume,
    /// 410 Gone or an error event: list again.
    Relist,
}

/// Follow the watch from `rv`, resuming after closed or dropped connections. Returns `None`
/// when the caller must re-list (410 Gone, or the server could not be reached).
async fn watch_from<K, T>(
    api: &Api<K>,
    fields: &str,
    mut rv: String,
    rep: &Reporter<'_>,
    observe: &mut impl FnMut(Option<&K>) -> Option<T>,
) -> Option<T>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + 'static,
{
    let params = WatchParams::default().fields(fields).timeout(WATCH_SECONDS);
    loop {
        let opened = std::time::Instant::now();
        let stream = match tokio::time::timeout(REQUEST_TIMEOUT, api.watch(&params, &rv)).await {
            Ok(Ok(s)) => s,
            Ok(Err(e)) if is_gone(&e) => {
                rep.note(format!(
                    "resourceVersion {rv} expired (410 Gone), re-listing"
                ));
                return None;
            }
            Ok(Err(e)) => {
                rep.error(&e).await;
                tokio::time::sleep(RETRY).await;
                return None;
            }
            Err(_) => {
                rep.note("no answer to the watch request, re-listing");
                return None;
            }
        };
        match follow(std::pin::pin!(stream), &mut rv, rep, observe).await {
            Flow::Done(t) => return Some(t),
            Flow::Relist => return None,
            Flow::Resume => {}
        }
        // kube ends the stream quietly both at the server's timeout and when the connection
        // drops mid-stream; either way the next watch continues where this one stopped. Only
        // an early end is worth showing.
        if opened.elapsed() < Duration::from_secs(u64::from(WATCH_SECONDS) - 5) {
            rep.note(format!(
                "watch connection closed early, resuming from resourceVersion {rv}"
            ));
        }
    }
}

/// Read events until the stream ends, goes silent for longer than the server's own timeout
/// (a dead connection), or the predicate is satisfied.
async fn follow<K, T>(
    mut stream: std::pin::Pin<&mut impl futures::Stream<Item = Result<WatchEvent<K>, kube::Error>>>,
    rv: &mut String,
    rep: &Reporter<'_>,
    observe: &mut impl FnMut(Option<&K>) -> Option<T>,
) -> Flow<T>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + 'static,
{
    let idle = Duration::from_secs(u64::from(WATCH_SECONDS) + 15);
    loop {
        let item = match tokio::time::timeout(idle, stream.next()).await {
            Err(_) => {
                rep.note(format!("watch silent for {idle:?}, reconnecting"));
                return Flow::Resume;
            }
            Ok(None) => return Flow::Resume,
            Ok(Some(item)) => item,
        };
        let (object, deleted) = match item {
            Ok(WatchEvent::Added(o) | WatchEvent::Modified(o)) => (o, false),
            Ok(WatchEvent::Deleted(o)) => (o, true),
            Ok(WatchEvent::Bookmark(b)) => {
                *rv = b.metadata.resource_version;
                continue;
            }
            Ok(WatchEvent::Error(status)) if status.code == 410 => {
                rep.note(format!(
                    "resourceVersion {rv} expired (410 Gone), re-listing"
                ));
                return Flow::Relist;
            }
            Ok(WatchEvent::Error(status)) => {
                rep.note(format!(
                    "watch error {}: {}, re-listing",
                    status.code, status.message
                ));
                tokio::time::sleep(RETRY).await;
                return Flow::Relist;
            }
            Err(e) => {
                rep.note(format!(
                    "watch failed ({e}), resuming from resourceVersion {rv}"
                ));
                return Flow::Resume;
            }
        };
        if let Some(v) = object.resource_version() {
            *rv = v;
        }
        if let Some(done) = observe((!deleted).then_some(&object)) {
            return Flow::Done(done);
        }
    }
}
