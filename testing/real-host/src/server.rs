//! A lab server on a thread of its own (the token service, the fault front), told to stop and
//! joined when its owner is dropped, so no test leaves one answering behind it.

use std::thread::JoinHandle;

use tokio::sync::oneshot;

/// The thread serving, and the sender that tells it to stop.
pub(crate) struct ServerThread {
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl ServerThread {
    /// Runs `serve` on a new thread; it returns once the receiver it is given fires (or
    /// sooner, on an error of its own).
    pub(crate) fn spawn(serve: impl FnOnce(oneshot::Receiver<()>) + Send + 'static) -> Self {
        let (stop, stopped) = oneshot::channel();
        let thread = std::thread::spawn(move || serve(stopped));
        ServerThread {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for ServerThread {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            // A thread that ended on its own has dropped the receiver: nothing to tell.
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
