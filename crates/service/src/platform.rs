//! The stop signals a service drains on: SIGTERM and SIGINT on Unix;
//! Ctrl-C, Ctrl-Break and the console's close on Windows.

/// A stop signal that has been installed and can be waited for.
pub struct Signals(imp::Handlers);

impl Signals {
    /// Installs the handlers; from now on a stop signal no longer ends the
    /// process at once, it wakes `next`.
    pub fn install() -> std::io::Result<Signals> {
        imp::install().map(Signals)
    }

    /// The next stop signal's name.
    pub async fn next(&mut self) -> &'static str {
        imp::next(&mut self.0).await
    }
}

#[cfg(unix)]
mod imp {
    use tokio::signal::unix::{signal, Signal, SignalKind};

    pub struct Handlers {
        term: Signal,
        int: Signal,
    }

    pub fn install() -> std::io::Result<Handlers> {
        Ok(Handlers {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
        })
    }

    pub async fn next(h: &mut Handlers) -> &'static str {
        tokio::select! {
            _ = h.term.recv() => "SIGTERM",
            _ = h.int.recv() => "SIGINT",
        }
    }
}

#[cfg(windows)]
mod imp {
    use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close, CtrlBreak, CtrlC, CtrlClose};

    /// Ctrl-C is required; Ctrl-Break and the console's close are taken
    /// when the process has a console to get them from.
    pub struct Handlers {
        c: CtrlC,
        brk: Option<CtrlBreak>,
        close: Option<CtrlClose>,
    }

    pub fn install() -> std::io::Result<Handlers> {
        Ok(Handlers {
            c: ctrl_c()?,
            brk: ctrl_break().ok(),
            close: ctrl_close().ok(),
        })
    }

    pub async fn next(h: &mut Handlers) -> &'static str {
        let brk = async {
            match &mut h.brk {
                Some(b) => b.recv().await,
                None => std::future::pending().await,
            }
        };
        let close = async {
            match &mut h.close {
                Some(c) => c.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = h.c.recv() => "Ctrl-C",
            _ = brk => "Ctrl-Break",
            _ = close => "console closed",
        }
    }
}

#[cfg(not(any(unix, windows)))]
mod imp {
    /// No signals to wait for: the service runs until it is killed.
    pub struct Handlers;

    pub fn install() -> std::io::Result<Handlers> {
        Ok(Handlers)
    }

    pub async fn next(_: &mut Handlers) -> &'static str {
        std::future::pending().await
    }
}
