//! Ready-queue scheduling of asset resolution on worker threads.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use super::{Resolved, Store};
use crate::error::GraphError;

/// Ready-queue scheduling: an asset starts as soon as all its parents are done.
struct Queue {
    ready: VecDeque<usize>,
    waiting: HashMap<usize, usize>,
    done: HashMap<usize, Arc<Resolved>>,
    results: Vec<(usize, Result<Arc<Resolved>, GraphError>)>,
    remaining: usize,
    failed: bool,
}

impl Store {
    /// Resolves `todo` (in dependency order) on up to `jobs` threads. After the first failure
    /// no new asset starts; running ones finish so their (costly) values are kept.
    pub(super) fn schedule(
        &self,
        todo: &[usize],
    ) -> Vec<(usize, Result<Arc<Resolved>, GraphError>)> {
        let mut queue = Queue {
            ready: VecDeque::new(),
            waiting: HashMap::new(),
            done: HashMap::new(),
            results: Vec::new(),
            remaining: todo.len(),
            failed: false,
        };
        for &i in todo {
            let pending = self.graph.parents[i]
                .iter()
                .filter(|&&p| self.resolved[p].is_none())
                .count();
            if pending == 0 {
                queue.ready.push_back(i);
            } else {
                queue.waiting.insert(i, pending);
            }
        }
        let shared = (Mutex::new(queue), Condvar::new());
        let workers = self.jobs.min(todo.len());
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| self.work(&shared));
            }
        });
        let queue = shared
            .0
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        queue.results
    }

    fn work(&self, (lock, wake): &(Mutex<Queue>, Condvar)) {
        loop {
            let (i, parents) = {
                let mut q = lock.lock().unwrap_or_else(PoisonError::into_inner);
                let i = loop {
                    if q.failed || q.remaining == 0 {
                        return;
                    }
                    if let Some(i) = q.ready.pop_front() {
                        break i;
                    }
                    q = wake.wait(q).unwrap_or_else(PoisonError::into_inner);
                };
                // Aligned with `graph.parents[i]`; all present by construction of the queue.
                let parents: Option<Vec<Arc<Resolved>>> = self.graph.parents[i]
                    .iter()
                    .map(|&p| self.resolved[p].clone().or_else(|| q.done.get(&p).cloned()))
                    .collect();
                (i, parents)
            };
            let result = match parents {
                Some(parents) => self.resolve_guarded(i, &parents).map(Arc::new),
                None => Err(GraphError::Generate {
                    asset: self.graph.nodes[i].dep.name,
                    source: "internal error: scheduled before its parents were resolved".into(),
                }),
            };
            let mut q = lock.lock().unwrap_or_else(PoisonError::into_inner);
            q.remaining -= 1;
            match &result {
                Ok(res) => {
                    q.done.insert(i, Arc::clone(res));
                    for &c in &self.graph.children[i] {
                        if let Some(n) = q.waiting.get_mut(&c) {
                            *n -= 1;
                            if *n == 0 {
                                q.waiting.remove(&c);
                                q.ready.push_back(c);
                            }
                        }
                    }
                }
                Err(_) => q.failed = true,
            }
            q.results.push((i, result));
            wake.notify_all();
        }
    }
}
