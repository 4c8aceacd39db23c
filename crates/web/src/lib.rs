//! `stackfish serve`: a local web page to play and analyse with engines.
//! hyper on tokio carries HTTP, with a deadline on every phase of a request
//! (`http.rs`); axum routes each request to the board's JSON API (crate
//! stackfish-board, which the browser runs as WebAssembly too) or to the
//! page, which is compiled into the binary (nothing is ever read from
//! disk). This crate is the board's native host (`host.rs`): the engines
//! on threads and processes (`engines.rs`), the Silo table explorer
//! (`explorer.rs`). The API is documented in protocol.md.

pub mod engines;
pub mod error;
pub mod explorer;
mod host;
mod http;
pub mod metrics;

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;

pub use engines::Roster;
pub use error::{ApiError, EngineError, OpenError, RosterError, ServeError, ShippedError};
pub use host::NativeHost;
pub use stackfish_board::{
    eval, files, position, view, App, StateView, BODY_LIMIT, DEFAULT_MOVE_TIME_MS,
    MAX_ANALYSIS_LINES, MAX_MOVE_TIME_MS, MIN_MOVE_TIME_MS,
};

use stackfish_engine::SharedTables;
use stackfish_engine_tables::SiloTables;
use stackfish_tables::TableSet;

pub const DEFAULT_PORT: u16 = 8080;
pub const DEFAULT_HOST: &str = "127.0.0.1";
/// A request head (request line and headers) must be in by then, counted
/// from the connection's first byte or the end of its previous request; a
/// connection that says nothing for this long is closed too.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
/// A request body must be in by then: a client trickling bytes gets a 408.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(5);
/// A whole request, body and answer: the longest wait inside is a search
/// being cancelled, which takes well under a second.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// Connections open at once (the page keeps one or two per tab); more are
/// closed as soon as they are accepted.
pub const MAX_CONNECTIONS: usize = 256;
/// Event streams open at once (one per open page): a client that never
/// reads its stream would hold its connection for ever, so they are fewer
/// than the connections and the board stays reachable.
pub const MAX_EVENT_STREAMS: usize = 32;
/// After a shutdown starts, open connections get this long to finish.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);
/// Threads answering requests: the page's traffic is a few requests a
/// second; the engines think on threads of their own.
const IO_THREADS: usize = 2;
/// Threads for requests that wait on the game's locks (a cancelled search).
const MAX_BLOCKING_THREADS: usize = 8;
/// An idle blocking thread ends after this, so a burst leaves none behind.
const BLOCKING_KEEP_ALIVE: Duration = Duration::from_secs(1);

/// What a server offers beyond stackfish and the page.
#[derive(Debug, Default)]
pub struct ServeOptions {
    /// The engines `--engine` adds.
    pub roster: Roster,
    /// `--silo-tables`: the Silo tables the explorer shows.
    pub silo_tables: Option<TableSet>,
    /// The networks stackfish plays (`STACKFISH_NET`; the built-in ones
    /// by default).
    pub networks: stackfish_engine::Networks,
}

/// A running server: the runtime, the listening task and the game.
pub struct WebServer {
    runtime: Option<tokio::runtime::Runtime>,
    addr: SocketAddr,
    app: Arc<App>,
    stop: watch::Sender<bool>,
    acceptor: Option<tokio::task::JoinHandle<()>>,
}

impl WebServer {
    /// Binds `host:port` (port 0: any free port) and starts answering,
    /// with stackfish as the only engine.
    pub fn start(host: &str, port: u16) -> Result<WebServer, ServeError> {
        WebServer::start_with(host, port, ServeOptions::default())
    }

    /// `start`, offering the engines and tables of `options`.
    pub fn start_with(
        host: &str,
        port: u16,
        options: ServeOptions,
    ) -> Result<WebServer, ServeError> {
        let listen = |source| ServeError::Listen {
            host: host.to_string(),
            port,
            source,
        };
        let listener = std::net::TcpListener::bind((host, port)).map_err(listen)?;
        let addr = listener.local_addr().map_err(listen)?;
        listener.set_nonblocking(true).map_err(listen)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(IO_THREADS)
            .max_blocking_threads(MAX_BLOCKING_THREADS)
            .thread_keep_alive(BLOCKING_KEEP_ALIVE)
            .thread_name("web-io")
            .enable_io()
            .enable_time()
            .build()
            .map_err(ServeError::Threads)?;
        let listener = {
            let _inside = runtime.enter();
            tokio::net::TcpListener::from_std(listener).map_err(listen)?
        };
        let engines = options.roster.names();
        let metrics = Arc::new(metrics::Metrics::new());
        let tables = options.silo_tables.map(Arc::new);
        // One set of tables for the explorer and for stackfish's reviews.
        let shared = tables.as_ref().map(|t| SharedTables {
            folder: std::path::PathBuf::from("--silo-tables"),
            set: Arc::new(SiloTables(Arc::clone(t), Mutex::default())),
        });
        let roster = options
            .roster
            .with_tables(shared)
            .with_networks(options.networks);
        let board_host = NativeHost::new(roster, metrics.clone());
        let changes = board_host.subscribe();
        let explorer = tables.map(|t| {
            Box::new(explorer::TablesExplorer::new(t)) as Box<dyn stackfish_board::Explorer>
        });
        let app = App::new(engines, Box::new(board_host), explorer)?;
        let (stop, stopped) = watch::channel(false);
        let router = http::router(app.clone(), changes, host, stopped.clone(), metrics);
        let acceptor = runtime.spawn(http::accept_loop(listener, router, stopped));
        Ok(WebServer {
            runtime: Some(runtime),
            addr,
            app,
            stop,
            acceptor: Some(acceptor),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The address to open in a browser.
    pub fn url(&self) -> String {
        let host = match self.addr.ip() {
            ip if ip.is_unspecified() => "127.0.0.1".to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
            IpAddr::V4(ip) => ip.to_string(),
        };
        format!("http://{host}:{}/", self.addr.port())
    }

    /// Serves until the process ends.
    pub fn wait(mut self) {
        if let (Some(runtime), Some(acceptor)) = (&self.runtime, self.acceptor.take()) {
            let _ = runtime.block_on(acceptor);
        }
    }

    /// Serves until a stop signal (SIGTERM or SIGINT; Ctrl-C, Ctrl-Break or
    /// the console's close on Windows), then shuts down as `shutdown` does
    /// and names the signal.
    pub fn serve_until_stopped(mut self) -> Result<&'static str, ServeError> {
        let Some(runtime) = &self.runtime else {
            return Ok("stopped");
        };
        let mut signals = {
            let _inside = runtime.enter();
            stackfish_service::Signals::install().map_err(ServeError::Signals)?
        };
        let acceptor = self.acceptor.take();
        let name = runtime.block_on(async move {
            match acceptor {
                Some(a) => tokio::select! {
                    name = signals.next() => name,
                    _ = a => "the listener ended",
                },
                None => signals.next().await,
            }
        });
        self.close();
        Ok(name)
    }

    /// Stops accepting, closes the connections, stops the engine, and
    /// returns when all of it is done.
    pub fn shutdown(mut self) {
        self.close();
    }

    fn close(&mut self) {
        let _ = self.stop.send(true);
        if let (Some(runtime), Some(acceptor)) = (&self.runtime, self.acceptor.take()) {
            let _ = runtime.block_on(acceptor);
        }
        self.app.shutdown();
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(SHUTDOWN_GRACE);
        }
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        if self.runtime.is_some() {
            self.close();
        }
    }
}

/// Opens the page in the desktop's browser; failing is not an error, the
/// URL is printed anyway.
pub fn open_browser(url: &str) -> Result<(), OpenError> {
    let (program, args): (&str, Vec<&str>) = if cfg!(target_os = "macos") {
        ("open", vec![url])
    } else if cfg!(windows) {
        ("cmd", vec!["/C", "start", "", url])
    } else {
        ("xdg-open", vec![url])
    };
    std::process::Command::new(program)
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
        .map_err(|source| OpenError { program, source })
}

#[cfg(test)]
mod tests {
    /// The board drives engines through the client crate and writes records
    /// through the record crate; the arena is a layer beside it, not below.
    #[test]
    fn the_board_does_not_use_the_arena() {
        let manifest = include_str!("../Cargo.toml");
        assert!(!manifest.contains("stackfish-arena"), "{manifest}");
    }
}
