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

/// Accepts connections on `listener` with a runtime of the calling thread's own, handing each
/// to `accept` (inside the runtime, so it may spawn the connection's task), until `stopped`
/// fires: the loop of every lab server.
pub(crate) fn accept_until(
    listener: std::net::TcpListener,
    mut stopped: oneshot::Receiver<()>,
    mut accept: impl FnMut(tokio::net::TcpStream),
) {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    runtime.block_on(async move {
        let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
            return;
        };
        loop {
            tokio::select! {
                _ = &mut stopped => break,
                accepted = listener.accept() => {
                    if let Ok((tcp, _)) = accepted {
                        accept(tcp);
                    }
                }
            }
        }
    });
}
