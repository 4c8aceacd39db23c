//! A fake Abstract Play for tests/apbot*.rs, on 127.0.0.1: a token endpoint,
//! a `/botQuery` that referees every submitted move with the rules library
//! and answers with a random player's move, and a webhook sender signing
//! with a test Ed25519 key. Plus the bot as a child process and its state
//! folder.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use rand::{Rng, SeedableRng};
use ring::signature::{Ed25519KeyPair, KeyPair};
use stackfish::apbot::games::{focus_from_ap, focus_to_ap, mixtour_from_ap, mixtour_to_ap};
use stackfish::game::coinstack::{CoinStack, CoinStackVariant};
use stackfish::game::mixtour::ap::{ap_variant, ApMixtour};
use stackfish::game::{find_legal, Game as _, Outcome};

pub const CLIENT_ID: &str = "bot-under-test";
pub const CLIENT_SECRET: &str = "s3cret-never-logged";
pub const SCOPE: &str = "test-scope/communicate";

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// An Ed25519 key from a fixed seed, and its OpenSSH line.
pub struct Signer(Ed25519KeyPair);

impl Signer {
    pub fn new(seed: u8) -> Signer {
        Signer(Ed25519KeyPair::from_seed_unchecked(&[seed; 32]).unwrap())
    }

    pub fn openssh(&self) -> String {
        let mut wire = Vec::new();
        for field in [b"ssh-ed25519".as_slice(), self.0.public_key().as_ref()] {
            wire.extend_from_slice(&(field.len() as u32).to_be_bytes());
            wire.extend_from_slice(field);
        }
        format!("ssh-ed25519 {} test-key", BASE64.encode(wire))
    }

    /// The three signature headers for `body` at `ts` with `nonce`.
    pub fn headers(&self, ts: u64, nonce: &str, body: &str) -> Vec<(String, String)> {
        let message = format!("{ts}.{nonce}.{body}");
        let sig = BASE64.encode(self.0.sign(message.as_bytes()));
        vec![
            ("X-Signature-Timestamp".into(), ts.to_string()),
            ("X-Signature-Nonce".into(), nonce.to_string()),
            ("X-Signature".into(), sig),
        ]
    }
}

pub fn nonce() -> String {
    let n: u128 = rand::thread_rng().gen();
    format!("{n:032x}")
}

/// Sends one raw HTTP request; the status and the time to the answer's
/// first line.
pub fn request(
    addr: SocketAddr,
    method: &str,
    headers: &[(String, String)],
    body: &str,
) -> (u16, String, Duration) {
    let start = Instant::now();
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut head = format!(
        "{method} /apbot HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    // One write, as a real client sends a small request: a second small
    // write would wait for the first one's delayed ACK (Nagle), 40 ms on
    // Linux, which the bot has no part in.
    head.push_str(body);
    s.write_all(head.as_bytes()).unwrap();
    let mut reader = BufReader::new(s);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let took = start.elapsed();
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let mut rest = String::new();
    let _ = reader.read_to_string(&mut rest);
    let body = rest.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (status, body, took)
}

/// A signed POST; the status and the time to it.
pub fn post_signed(addr: SocketAddr, signer: &Signer, body: &str) -> (u16, Duration) {
    let (status, _, took) = request(addr, "POST", &signer.headers(now(), &nonce(), body), body);
    (status, took)
}

/// One game on the fake site.
#[derive(Clone, Debug)]
pub enum Board {
    Mixtour(ApMixtour),
    Focus(CoinStack),
}

impl Board {
    pub fn new(meta: &str, goal: u8) -> Board {
        match meta {
            "mixtour" => Board::Mixtour(ApMixtour::start(&ap_variant(goal))),
            _ => Board::Focus(CoinStack::start(&CoinStackVariant::Focus)),
        }
    }

    /// Plays AP move `text` if our rules allow it.
    pub fn play(&mut self, text: &str) -> Result<(), String> {
        match self {
            Board::Mixtour(p) => {
                let ours = mixtour_from_ap(p, text)?;
                let mv = find_legal(p, &ours).map_err(|e| e.to_string())?;
                p.play(mv);
            }
            Board::Focus(p) => {
                let ours = focus_from_ap(text)?;
                let mv = find_legal(p, &ours).map_err(|e| e.to_string())?;
                p.play(mv);
            }
        }
        Ok(())
    }

    pub fn over(&self) -> Option<Outcome> {
        let o = match self {
            Board::Mixtour(p) => p.outcome(),
            Board::Focus(p) => p.outcome(),
        };
        o.is_over().then_some(o)
    }

    /// A random legal move in AP's notation.
    pub fn random(&self, rng: &mut impl Rng) -> String {
        match self {
            Board::Mixtour(p) => {
                let mut moves = Vec::new();
                p.generate_moves(&mut moves);
                let mv = moves[rng.gen_range(0..moves.len())];
                mixtour_to_ap(p, &mv.to_string()).unwrap()
            }
            Board::Focus(p) => {
                let mut moves = Vec::new();
                p.generate_moves(&mut moves);
                let mv = moves[rng.gen_range(0..moves.len())];
                focus_to_ap(&mv.to_string()).unwrap()
            }
        }
    }
}

pub struct Game {
    pub meta: String,
    pub goal: u8,
    pub board: Board,
    pub moves: Vec<String>,
    /// The bot's seat: 0 moves first.
    pub bot_seat: usize,
    pub refused: Vec<String>,
}

impl Game {
    /// A game of `meta` (goal `goal`) at its start, no move played, the bot
    /// in seat `bot_seat`.
    pub fn fresh(meta: &str, goal: u8, bot_seat: usize) -> Game {
        Game {
            meta: meta.to_string(),
            goal,
            board: Board::new(meta, goal),
            moves: Vec::new(),
            bot_seat,
            refused: Vec::new(),
        }
    }

    fn bot_to_move(&self) -> bool {
        self.moves.len() % 2 == self.bot_seat
    }

    /// AP's notification body for the bot (variants lost for Mixtour, as AP
    /// does).
    pub fn notification(&self, id: &str) -> String {
        let rounds: Vec<Vec<String>> = self.moves.chunks(2).map(|c| c.to_vec()).collect();
        serde_json::json!({
            "verb": "move",
            "metaGame": self.meta,
            "variants": [],
            "gameid": id,
            "clockCurr": 72,
            "numPlayers": 2,
            "moves": rounds,
        })
        .to_string()
    }
}

/// What the fake is told to do to the bot's calls.
#[derive(Default)]
pub struct Faults {
    /// Answer this many botQuery calls with 503.
    pub down: u32,
    /// Answer this many botQuery calls with 401 (as if the token expired).
    pub unauthorized: u32,
    /// The `expires_in` of new tokens.
    pub expires_in: Option<u64>,
    /// Hold every botQuery call this long before answering.
    pub stall_ms: u64,
    /// Do not notify the bot after a move (the game stops there).
    pub quiet: bool,
    /// Do not notify the bot once a game has this many moves.
    pub max_plies: Option<usize>,
    /// The random player thinks a time drawn from this range (ms, fixed by
    /// the game and the ply) before its move's notification goes out, as
    /// a person or another bot does; `None`: it answers at once.
    pub think_ms: Option<(u64, u64)>,
}

#[derive(Default)]
pub struct Site {
    pub games: HashMap<String, Game>,
    pub tokens: Vec<(String, Instant)>,
    pub token_requests: u32,
    pub submissions: Vec<(String, String, u16)>,
    pub faults: Faults,
    pub bot: Option<SocketAddr>,
    /// Each move notification sent: game id, time sent, and when the bot's
    /// answer to it arrived.
    pub sent: Vec<(String, Instant)>,
    pub answered: Vec<(String, Duration)>,
    pub webhook_202: Vec<Duration>,
    pub log: Vec<String>,
}

pub struct FakeAp {
    pub addr: SocketAddr,
    pub site: Arc<Mutex<Site>>,
    pub signer: Arc<Signer>,
}

impl FakeAp {
    pub fn start(signer: Signer) -> FakeAp {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let site = Arc::new(Mutex::new(Site::default()));
        let signer = Arc::new(signer);
        let (s, k) = (site.clone(), signer.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (s, k) = (s.clone(), k.clone());
                std::thread::spawn(move || serve(stream, &s, &k));
            }
        });
        FakeAp { addr, site, signer }
    }

    pub fn api_url(&self) -> String {
        format!("http://{}/botQuery", self.addr)
    }

    pub fn token_url(&self) -> String {
        format!("http://{}/token", self.addr)
    }

    /// Starts a game; if the bot moves first, notifies it.
    pub fn new_game(&self, id: &str, meta: &str, goal: u8, bot_seat: usize, seed: u64) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut game = Game::fresh(meta, goal, bot_seat);
        if bot_seat == 1 {
            let mv = game.board.random(&mut rng);
            game.board.play(&mv).unwrap();
            game.moves.push(mv);
        }
        let body = game.notification(id);
        self.site.lock().unwrap().games.insert(id.to_string(), game);
        notify(&self.site, &self.signer, id, body, Duration::ZERO);
    }

    /// Waits until `done` holds of the site, at most `secs`.
    pub fn wait_for(&self, secs: u64, done: impl Fn(&Site) -> bool) -> bool {
        let until = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < until {
            if done(&self.site.lock().unwrap()) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

/// Sends the bot a signed move notification from a thread of its own, as
/// AP's worker does, after `delay` (the opponent's thinking), and notes
/// the time to its 202.
fn notify(site: &Arc<Mutex<Site>>, signer: &Arc<Signer>, id: &str, body: String, delay: Duration) {
    let Some(bot) = site.lock().unwrap().bot else {
        return;
    };
    let (site, signer, id) = (site.clone(), signer.clone(), id.to_string());
    std::thread::spawn(move || {
        std::thread::sleep(delay);
        site.lock().unwrap().sent.push((id, Instant::now()));
        let (status, took) = post_signed(bot, &signer, &body);
        let mut s = site.lock().unwrap();
        s.log.push(format!("notify -> {status}"));
        if status == 202 {
            s.webhook_202.push(took);
        }
    });
}

fn respond(stream: &mut TcpStream, status: u16, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn serve(mut stream: TcpStream, site: &Arc<Mutex<Site>>, signer: &Arc<Signer>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() {
        return;
    }
    let path = first.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = HashMap::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let len: usize = headers
        .get("content-length")
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let body = String::from_utf8_lossy(&body).to_string();
    match path.as_str() {
        "/token" => token(&mut stream, site, &body),
        "/botQuery" => {
            let stall = site.lock().unwrap().faults.stall_ms;
            std::thread::sleep(Duration::from_millis(stall));
            bot_query(&mut stream, site, signer, &headers, &body)
        }
        _ => respond(&mut stream, 404, "{}"),
    }
}

fn token(stream: &mut TcpStream, site: &Arc<Mutex<Site>>, body: &str) {
    let form: HashMap<&str, &str> = body
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .collect();
    let mut s = site.lock().unwrap();
    s.token_requests += 1;
    let scope = SCOPE.replace('/', "%2F");
    let ok = form.get("grant_type") == Some(&"client_credentials")
        && form.get("client_id") == Some(&CLIENT_ID)
        && form.get("client_secret") == Some(&CLIENT_SECRET)
        && form
            .get("scope")
            .is_some_and(|v| *v == scope || *v == SCOPE);
    if !ok {
        return respond(stream, 400, r#"{"error":"invalid_client"}"#);
    }
    let expires = s.faults.expires_in.unwrap_or(3600);
    let token = format!("tok-{}", s.token_requests);
    s.tokens
        .push((token.clone(), Instant::now() + Duration::from_secs(expires)));
    let answer =
        serde_json::json!({"access_token": token, "expires_in": expires, "token_type": "Bearer"});
    respond(stream, 200, &answer.to_string());
}

fn bot_query(
    stream: &mut TcpStream,
    site: &Arc<Mutex<Site>>,
    signer: &Arc<Signer>,
    headers: &HashMap<String, String>,
    body: &str,
) {
    let mut s = site.lock().unwrap();
    if s.faults.down > 0 {
        s.faults.down -= 1;
        return respond(stream, 503, "Service Unavailable");
    }
    let bearer = headers
        .get("authorization")
        .and_then(|a| a.strip_prefix("Bearer "))
        .unwrap_or("");
    let valid = s
        .tokens
        .iter()
        .any(|(t, until)| t == bearer && Instant::now() < *until);
    if s.faults.unauthorized > 0 || !valid {
        s.faults.unauthorized = s.faults.unauthorized.saturating_sub(1);
        s.submissions.push(("-".into(), "-".into(), 401));
        return respond(stream, 401, r#"{"message":"Unauthorized"}"#);
    }
    let v: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    let (id, mv) = (
        v["gameid"].as_str().unwrap_or("").to_string(),
        v["move"].as_str().unwrap_or("").to_string(),
    );
    if v["verb"] != "move" || v["metaGame"].as_str().is_none() {
        return respond(stream, 400, r#"{"message":"bad request"}"#);
    }
    let Some(game) = s.games.get_mut(&id) else {
        return respond(stream, 500, r#"{"message":"Game not found"}"#);
    };
    if game.board.over().is_some() || !game.bot_to_move() {
        s.submissions.push((id, mv, 500));
        return respond(
            stream,
            500,
            r#"{"message":"It is not bot bot-under-test's turn"}"#,
        );
    }
    if let Err(e) = game.board.play(&mv) {
        game.refused.push(format!("{mv}: {e}"));
        s.submissions.push((id, mv, 500));
        return respond(
            stream,
            500,
            &serde_json::json!({ "message": e }).to_string(),
        );
    }
    game.moves.push(mv.clone());
    // The random player answers, unless the game is over: at once, or
    // after thinking (`Faults::think_ms`).
    let seed = game.moves.len() as u64 * 7919 + id.len() as u64;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    if game.board.over().is_none() {
        let reply = game.board.random(&mut rng);
        game.board.play(&reply).unwrap();
        game.moves.push(reply);
    }
    let think = s.faults.think_ms.map_or(Duration::ZERO, |(lo, hi)| {
        Duration::from_millis(rng.gen_range(lo..=hi))
    });
    let quiet = s.faults.quiet;
    let max_plies = s.faults.max_plies.unwrap_or(usize::MAX);
    let game = s.games.get_mut(&id).unwrap();
    let next = (game.board.over().is_none() && !quiet && game.moves.len() < max_plies)
        .then(|| game.notification(&id));
    if let Some(at) = s.sent.iter().rev().find(|(g, _)| *g == id).map(|(_, t)| *t) {
        s.answered.push((id.clone(), at.elapsed()));
    }
    s.submissions.push((id.clone(), mv, 200));
    drop(s);
    respond(stream, 200, r#"{"ok":true}"#);
    if let Some(body) = next {
        notify(site, signer, &id, body, think);
    }
}

/// The bot as a child process, its stderr collected.
pub struct Bot {
    pub child: Child,
    pub addr: SocketAddr,
    pub log: Arc<Mutex<Vec<String>>>,
}

/// `stackfish apbot` set up against `ap`, with its key file and the test
/// credentials in the environment.
pub fn bot_command(ap: &FakeAp, state: &Path, extra: &[&str]) -> Command {
    bot_command_to(ap, &ap.api_url(), state, extra)
}

/// `bot_command` with `api_url` as `--api-url`.
pub fn bot_command_to(ap: &FakeAp, api_url: &str, state: &Path, extra: &[&str]) -> Command {
    let key = state.with_extension("pub");
    std::fs::write(&key, ap.signer.openssh()).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_stackfish"));
    command
        .args(["apbot", "--listen", "127.0.0.1:0", "--api-url"])
        .arg(api_url)
        .arg("--token-url")
        .arg(ap.token_url())
        .args(["--scope", SCOPE, "--public-key"])
        .arg(&key)
        .arg("--state-dir")
        .arg(state)
        .args(["--retry-ms", "50"])
        // A small table, unless the test is about the table.
        .args(if extra.contains(&"--hash") {
            &[][..]
        } else {
            &["--hash", "4"][..]
        })
        .args(extra)
        .env("AP_CLIENT_ID", CLIENT_ID)
        .env("AP_CLIENT_SECRET", CLIENT_SECRET)
        .env_remove("AP_CLIENT_SECRET_FILE")
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    command
}

/// A fake AP (test key 25), a state folder named `name`, and the bot
/// started against them with `extra` flags.
pub fn started(name: &str, extra: &[&str]) -> (FakeAp, Bot, PathBuf) {
    let ap = FakeAp::start(Signer::new(25));
    let state = temp_dir(name);
    let bot = Bot::start(&ap, &state, extra);
    (ap, bot, state)
}

/// The notifications waiting in the state folder's `pending/`.
pub fn pending(state: &Path) -> usize {
    std::fs::read_dir(state.join("pending"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
                .count()
        })
        .unwrap_or(0)
}

/// A fresh folder for one test, under cargo's `target/tmp` (not the
/// system's temp folder, which the tests would fill run after run).
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("apbot")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

impl Bot {
    /// Waits (at most 5 s) for a log line containing `text`.
    pub fn logged(&self, text: &str) -> bool {
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until {
            if self.log.lock().unwrap().iter().any(|l| l.contains(text)) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    pub fn start(ap: &FakeAp, state: &Path, extra: &[&str]) -> Bot {
        let mut child = bot_command(ap, state, extra)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let lines = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let listening = line
                    .strip_prefix("apbot: listening on http://")
                    .or_else(|| line.strip_prefix("apbot: listening on https://"))
                    .map(str::to_string)
                    .or_else(|| {
                        // --log-format json
                        let v: serde_json::Value = serde_json::from_str(&line).ok()?;
                        let url = v["url"].as_str()?;
                        (v["event"] == "listening")
                            .then(|| url.rsplit("://").next().unwrap_or("").to_string())
                    });
                if let Some(addr) = listening {
                    let _ = tx.send(addr.parse::<SocketAddr>().unwrap());
                }
                lines.lock().unwrap().push(line);
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("the bot did not start: {:?}", log.lock().unwrap()));
        ap.site.lock().unwrap().bot = Some(addr);
        Bot { child, addr, log }
    }

    pub fn lines(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// Sends SIGTERM (the graceful stop) and waits at most `secs` for the
    /// exit: its status code and how long it took, `None` if it did not end.
    pub fn terminate(&mut self, secs: u64) -> (Option<i32>, Duration) {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        assert!(sent, "kill -TERM failed");
        self.wait_exit(secs)
    }

    /// Waits at most `secs` for the bot to exit: its status code and how
    /// long it took, `None` if it did not end.
    pub fn wait_exit(&mut self, secs: u64) -> (Option<i32>, Duration) {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(secs) {
            if let Ok(Some(status)) = self.child.try_wait() {
                return (status.code(), start.elapsed());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        (None, start.elapsed())
    }

    /// The bot's peak resident memory (VmHWM), kB.
    pub fn peak_rss_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Bot {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `GET path` on the bot; the status and the body.
pub fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, body.to_string())
}

/// The value of the sample `name` (with its labels as written, e.g.
/// `apbot_requests_total{verb="move",status="202"}`) in a Prometheus text.
pub fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}
