//! `stackfish apbot`: a player for Abstract Play (AP). AP posts signed
//! webhooks (challenge, move) and the bot answers at once; a move is
//! written to the state directory, searched in the background under AP's
//! rules, and submitted to AP's `/botQuery` with an OAuth token. The
//! protocol, options and files are in protocol.md; running it is in
//! docs/abstractplay.md.

pub mod client;
pub mod games;
pub mod key;
pub mod log;
pub mod metrics;
mod platform;
mod play;
mod pool;
mod server;
pub mod state;
pub mod webhook;

use stackfish_games::Networks;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use client::{ApClient, CallError, Credentials, Submitted};
pub use games::{ApGame, Choice, PlayError, Replayed, Think};
pub use key::{KeyError, PublicKey, SignatureError, AP_PUBLIC_KEY};
pub use log::LogFormat;
pub use state::{JobKey, StateDir, StateError};

/// AP's production stage (docs/abstractplay.md has the dev stage).
pub const DEFAULT_TOKEN_URL: &str = "https://botauth.abstractplay.com/oauth2/token";
pub const DEFAULT_SCOPE: &str = "default-m2m-resource-server-zssvzy/communicate";
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8089";
/// After a stop signal, the most time the bot takes to exit; systemd's
/// `TimeoutStopSec` in packaging/stackfish-apbot.service is this plus a margin.
pub const DEFAULT_STOP_TIMEOUT_MS: u64 = 5_000;
/// How long the newest marker of a game whose end the bot did not see is
/// kept in `done/` (`StateDir::prune`).
pub const DEFAULT_KEEP_DONE_HOURS: u64 = 30 * 24;
/// The last part of the path of every AP stage's botQuery URL.
pub const BOT_QUERY_PATH: &str = "/botQuery";

/// The flags of `stackfish apbot` (protocol.md, "stackfish apbot").
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// Address and port to listen on (plain HTTP unless --tls-cert is given).
    #[arg(long, default_value = DEFAULT_LISTEN, value_name = "ADDR:PORT")]
    pub listen: SocketAddr,
    /// AP's botQuery URL, where moves are submitted (from AP, per stage).
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,
    /// AP's OAuth token URL.
    #[arg(long, default_value = DEFAULT_TOKEN_URL, value_name = "URL")]
    pub token_url: String,
    /// The OAuth scope of AP's stage.
    #[arg(long, default_value = DEFAULT_SCOPE)]
    pub scope: String,
    /// AP's webhook public key: an RFC 4716 SSH2 file, an OpenSSH
    /// `ssh-ed25519` line or a PEM public key [default: AP's current key, built in].
    #[arg(long, value_name = "FILE")]
    pub public_key: Option<PathBuf>,
    /// Where notifications wait until their move is submitted.
    #[arg(long, default_value = "apbot-state", value_name = "DIR")]
    pub state_dir: PathBuf,
    /// The most thinking time for one move, milliseconds.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    pub max_move_ms: u64,
    /// Also stop each search at this depth (weaker and faster).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..=100))]
    pub depth: Option<i32>,
    /// The most searches at once, each on a thread of its own at a lower
    /// priority than the webhook's; more notifications wait their turn
    /// [default: the number of cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub searches: Option<u32>,
    /// Transposition table of each search thread, MB, made once at start.
    #[arg(long, default_value_t = 64, value_name = "MB", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub hash: u32,
    /// Certificate chain (PEM) for built-in TLS; needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// Private key (PEM) for built-in TLS; needs --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// The first wait before a submission is retried, milliseconds; each
    /// retry doubles it, up to a minute.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub retry_ms: u64,
    /// Check the configuration, the key and the credentials (fetch a token), then exit.
    #[arg(long)]
    pub check: bool,
    /// After SIGTERM or SIGINT, the most time to finish running searches
    /// and submissions before exiting (what is left stays pending).
    #[arg(long, default_value_t = DEFAULT_STOP_TIMEOUT_MS, value_name = "MS")]
    pub stop_timeout_ms: u64,
    /// Serve `GET /metrics` on this address instead of the webhook listener.
    #[arg(long, value_name = "ADDR:PORT")]
    pub metrics_listen: Option<SocketAddr>,
    /// How long the newest `done/` marker of a game is kept when the bot
    /// did not see the game end, hours.
    #[arg(long, default_value_t = DEFAULT_KEEP_DONE_HOURS, value_name = "HOURS", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub keep_done_hours: u64,
    /// Sync each notification to disk before its 202, so that a 202
    /// survives a power cut too; by default it is synced right after (a
    /// 202 then never waits for the disk, and only a power cut in that
    /// instant can lose it).
    #[arg(long)]
    pub sync_before_202: bool,
    /// The log lines' format: text (`apbot: event key=value …`) or json
    /// (one object a line, the same fields).
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// Why the bot could not start (exit status 2) or `--check` failed (1).
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    #[error(
        "{0} is not set (the bot's credentials come from the environment, never the command line)"
    )]
    MissingEnv(&'static str),
    #[error("--api-url is required (AP's botQuery URL of the stage the bot is registered on)")]
    MissingApiUrl,
    #[error("--api-url {url}: {why}; AP's URL looks like https://<api-id>.execute-api.<region>.amazonaws.com/<stage>/botQuery")]
    ApiUrl { url: String, why: &'static str },
    #[error("cannot install the stop signals' handlers: {0}")]
    Signals(std::io::Error),
    #[error("cannot start the search threads: {0}")]
    SearchThreads(std::io::Error),
    #[error("cannot start the state's sync thread: {0}")]
    SyncThread(std::io::Error),
    #[error("{path}: {message}")]
    File { path: PathBuf, message: String },
    #[error("public key {path}: {source}")]
    Key {
        path: PathBuf,
        #[source]
        source: KeyError,
    },
    #[error(transparent)]
    State(#[from] StateError),
    #[error("TLS: {0}")]
    Tls(String),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("check failed: cannot fetch a token: {0}")]
    Token(#[from] CallError),
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
}

impl BotError {
    /// 1 for a `--check` whose token fetch failed, 2 for a configuration
    /// the bot cannot run with.
    pub fn exit_code(&self) -> u8 {
        match self {
            BotError::Token(_) => 1,
            _ => 2,
        }
    }
}

/// Everything the running bot needs, read and checked.
pub struct Config {
    pub listen: SocketAddr,
    pub api_url: String,
    pub token_url: String,
    pub scope: String,
    pub key: PublicKey,
    pub credentials: Credentials,
    pub state_dir: PathBuf,
    pub tls: Option<(PathBuf, PathBuf)>,
    pub max_move_ms: u64,
    pub depth: Option<i32>,
    pub searches: usize,
    pub hash_mb: usize,
    pub retry: Duration,
    pub stop_timeout: Duration,
    pub metrics_listen: Option<SocketAddr>,
    pub keep_done: Duration,
    pub sync_before_202: bool,
}

/// Checks that `url` is a botQuery URL: http(s), a host, a path ending in
/// `/botQuery`, no query. A URL without the path (`…/dev`) would have
/// every move refused by AP with 403.
pub fn check_api_url(url: &str) -> Result<(), BotError> {
    let refuse = |why| BotError::ApiUrl {
        url: url.to_string(),
        why,
    };
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| refuse("not an http(s) URL"))?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    if host.is_empty() {
        return Err(refuse("no host"));
    }
    if path.contains(['?', '#']) {
        return Err(refuse("a query or fragment is not part of it"));
    }
    if !format!("/{path}").ends_with(BOT_QUERY_PATH) {
        return Err(refuse("the path does not end in /botQuery"));
    }
    Ok(())
}

/// Reads a secret from `NAME`, or from the file named by `NAME_FILE`,
/// which must be readable by its owner only.
fn secret(name: &'static str, file_var: &'static str) -> Result<String, BotError> {
    if let Ok(value) = std::env::var(name) {
        if !value.is_empty() {
            return Ok(value);
        }
    }
    let Ok(path) = std::env::var(file_var) else {
        return Err(BotError::MissingEnv(name));
    };
    let path = PathBuf::from(path);
    let file_error = |message: String| BotError::File {
        path: path.clone(),
        message,
    };
    platform::check_private(&path).map_err(file_error)?;
    let text = std::fs::read_to_string(&path).map_err(|e| file_error(e.to_string()))?;
    Ok(text.trim().to_string())
}

fn read_key(path: &Path) -> Result<PublicKey, BotError> {
    let text = std::fs::read_to_string(path).map_err(|e| BotError::File {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    PublicKey::parse(&text).map_err(|source| BotError::Key {
        path: path.to_path_buf(),
        source,
    })
}

impl Config {
    pub fn from_args(args: &Args) -> Result<Config, BotError> {
        let client_id = std::env::var("AP_CLIENT_ID")
            .ok()
            .filter(|v| !v.is_empty())
            .ok_or(BotError::MissingEnv("AP_CLIENT_ID"))?;
        let client_secret = secret("AP_CLIENT_SECRET", "AP_CLIENT_SECRET_FILE")?;
        let key = match &args.public_key {
            Some(path) => read_key(path)?,
            None => PublicKey::default(),
        };
        let api_url = args.api_url.clone().ok_or(BotError::MissingApiUrl)?;
        check_api_url(&api_url)?;
        Ok(Config {
            listen: args.listen,
            api_url,
            token_url: args.token_url.clone(),
            scope: args.scope.clone(),
            key,
            credentials: Credentials {
                client_id,
                client_secret,
            },
            state_dir: args.state_dir.clone(),
            tls: args.tls_cert.clone().zip(args.tls_key.clone()),
            max_move_ms: args.max_move_ms,
            depth: args.depth,
            searches: args.searches.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get().min(64)),
                |n| n as usize,
            ),
            hash_mb: args.hash as usize,
            retry: Duration::from_millis(args.retry_ms.max(1)),
            stop_timeout: Duration::from_millis(args.stop_timeout_ms),
            metrics_listen: args.metrics_listen,
            keep_done: Duration::from_secs(args.keep_done_hours * 3600),
            sync_before_202: args.sync_before_202,
        })
    }
}

/// `stackfish apbot`: runs until a stop signal (then drains and returns
/// `Ok`), or with `--check` checks and returns.
pub fn main(args: &Args, networks: &Networks) -> Result<(), BotError> {
    log::set_format(args.log_format);
    let config = Config::from_args(args)?;
    let state = StateDir::open(&config.state_dir)?;
    let tls = match &config.tls {
        Some((cert, key)) => Some(server::tls_acceptor(cert, key)?),
        None => None,
    };
    let client = ApClient::new(
        &config.token_url,
        &config.api_url,
        &config.scope,
        config.credentials.clone(),
    );
    if args.check {
        client.token()?;
        log::line("check")
            .message(format!(
                "ok: key {}, state {}, token from {}, botQuery {}, {}",
                key_id(&config.key),
                config.state_dir.display(),
                config.token_url,
                config.api_url,
                if tls.is_some() { "TLS" } else { "plain HTTP" }
            ))
            .log();
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(BotError::Runtime)?;
    let served = runtime.block_on(server::serve(config, state, client, tls, networks.clone()));
    // A search the stop's deadline cut off runs on a blocking thread that
    // nothing waits for: its notification is pending on disk.
    runtime.shutdown_background();
    served
}

/// The key's first bytes, for the log (never the secret's).
fn key_id(key: &PublicKey) -> String {
    key.0[..6].iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_botquery_url_is_taken_as_the_api_url() {
        for ok in [
            "https://abc.execute-api.us-east-1.amazonaws.com/prod/botQuery",
            "http://127.0.0.1:9/botQuery",
        ] {
            assert!(check_api_url(ok).is_ok(), "{ok}");
        }
        for (bad, why) in [
            (
                "https://abc.execute-api.us-east-1.amazonaws.com/dev",
                "does not end in /botQuery",
            ),
            ("https://abc.example/dev/", "does not end in /botQuery"),
            ("https://abc.example/botQuery/", "does not end in /botQuery"),
            ("https://abc.example/xbotQuery", "does not end in /botQuery"),
            ("https://abc.example/botQuery?x=1", "query"),
            ("ftp://abc.example/botQuery", "http(s)"),
            ("https:///botQuery", "no host"),
        ] {
            let e = check_api_url(bad).expect_err(bad).to_string();
            assert!(
                e.contains(why) && e.contains("looks like https://"),
                "{bad}: {e}"
            );
            assert_eq!(e.lines().count(), 1, "{e}");
        }
    }
}
