//! One engine as the arena sees it: the UGI/UCI conversation (handshake,
//! options, pings, searches) over a `Transport`, turning anything unexpected
//! into a `Fault` with the text that ends up as the game's termination.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::spec::{resolve_cmd, EngineSpec, Proto, Timeouts, QUIT_TIMEOUT_MS};
use crate::transport::{ChildTransport, Recv, Transport};
use crate::ClientError;
/// The text of `info` lines, shared with the engine that writes them and the
/// board that reads them in WebAssembly.
pub use stackfish_ugi::{InfoLine, Score};

/// Longest piece of an engine's output quoted in a termination text.
const QUOTE_CHARS: usize = 60;
/// How often `search_live` looks whether it should send `stop`.
const STOP_POLL: Duration = Duration::from_millis(20);

/// Why an engine forfeits a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// The process ended or closed its pipes.
    Crash,
    /// No answer before the deadline (handshake, ping or search).
    Stall,
    /// Output that is not the protocol.
    Garbage,
    /// The arena is stopping; the game is not recorded.
    Interrupted,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    /// e.g. `crashed (exit status 101)`, `no readyok within 60000 ms`.
    pub text: String,
    /// For a stall: how long the arena waited.
    pub waited_ms: u64,
}

impl Fault {
    fn new(kind: FaultKind, text: impl Into<String>) -> Fault {
        Fault {
            kind,
            text: text.into(),
            waited_ms: 0,
        }
    }

    /// Whether the engine must be killed and restarted before its next game.
    pub fn needs_restart(&self) -> bool {
        self.kind != FaultKind::Interrupted
    }
}

/// Why an engine could not be used.
#[derive(Debug)]
pub enum StartError {
    /// The command cannot be run at all: the match cannot go on.
    Spawn(ClientError),
    /// It ran but failed the handshake: it forfeits the game.
    Fault(Fault),
}

/// The engine's report of its search, as recorded per move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchInfo {
    pub depth: Option<u32>,
    pub cp: Option<i32>,
    pub mate: Option<i32>,
}

/// A `bestmove` and what came with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub mv: String,
    pub elapsed: Duration,
    pub info: SearchInfo,
}

/// Why a search gave no usable move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchError {
    /// No `bestmove` by the deadline; `waited` is how long we waited.
    NoReply {
        waited: Duration,
    },
    Fault(Fault),
}

/// The open log file, when it was started, and the first write that failed.
struct LogFile {
    start: Instant,
    path: PathBuf,
    out: BufWriter<File>,
    failed: Option<String>,
}

/// The protocol log (`--log`): every line with time, direction, engine and
/// game. Cheap to clone; does nothing without a file. A write that fails
/// (a full disk) stops the log, and `failed` says so: its user stops too,
/// rather than go on with a log cut off without a word.
#[derive(Clone, Default)]
pub struct Logger {
    inner: Option<Arc<Mutex<LogFile>>>,
}

impl Logger {
    pub fn to_file(path: &Path, append: bool) -> Result<Logger, ClientError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(append)
            .write(true)
            .truncate(!append)
            .open(path)
            .map_err(|e| ClientError::Io(format!("cannot open log {}: {e}", path.display())))?;
        Ok(Logger {
            inner: Some(Arc::new(Mutex::new(LogFile {
                start: Instant::now(),
                path: path.to_path_buf(),
                out: BufWriter::new(file),
                failed: None,
            }))),
        })
    }

    /// `dir` is `>` (to the engine), `<` (from it), `!` (its stderr) or `#`
    /// (an arena remark).
    pub fn line(&self, game: u32, engine: &str, dir: char, text: &str) {
        let Some(inner) = &self.inner else { return };
        // A poisoned lock: a thread panicked while logging, and a panic
        // ends the arena anyway.
        let Ok(mut log) = inner.lock() else { return };
        if log.failed.is_some() {
            return;
        }
        let t = log.start.elapsed().as_secs_f64();
        let written = writeln!(log.out, "{t:.3} g{game} {engine} {dir} {text}")
            .and_then(|()| log.out.flush());
        if let Err(e) = written {
            log.failed = Some(format!("cannot write the log {}: {e}", log.path.display()));
        }
    }

    /// The first write to the log that failed, in words; `None` while every
    /// line has been written (or without a log).
    pub fn failed(&self) -> Option<String> {
        let inner = self.inner.as_ref()?;
        match inner.lock() {
            Ok(log) => log.failed.clone(),
            Err(_) => Some("the log was left half-written by a panic".into()),
        }
    }
}

/// An option the engine advertised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionDecl {
    pub name: String,
    pub line: String,
}

/// An option of the engine's settings that the engine did not take: one
/// it never advertised, or one it answered with `info string error`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionRefusal {
    pub engine: String,
    pub option: String,
    pub value: String,
    /// The engine's words, or what was missing.
    pub said: String,
}

impl std::fmt::Display for OptionRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "engine {}: option {}={}: {}",
            self.engine, self.option, self.value, self.said
        )
    }
}

/// Text without spaces, in lower case: option names as UCI compares them.
fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

fn same_option(a: &str, b: &str) -> bool {
    squash(a) == squash(b)
}

/// The log's remark for a stdout line over `MAX_LINE_BYTES`.
pub fn too_long_remark() -> String {
    format!(
        "dropped a line of more than {} bytes",
        crate::transport::MAX_LINE_BYTES
    )
}

/// `info string error...`: an engine refusing what it was told.
fn is_error_line(line: &str) -> bool {
    let mut t = line.split_whitespace();
    t.next() == Some("info")
        && t.next() == Some("string")
        && t.next()
            .is_some_and(|w| w.to_ascii_lowercase().starts_with("error"))
}

/// A running engine.
pub struct Engine {
    pub name: String,
    pub proto: Proto,
    /// The `id name` the engine gave.
    pub id_name: Option<String>,
    pub options: Vec<OptionDecl>,
    /// The configured options the engine did not take at start-up (its
    /// user decides whether that stops anything).
    pub refused: Vec<OptionRefusal>,
    transport: Box<dyn Transport>,
    log: Logger,
    timeouts: Timeouts,
    /// The game the log lines are filed under.
    pub game_no: u32,
}

pub type Spawner<'a> = &'a (dyn Fn(&EngineSpec) -> Result<Box<dyn Transport>, ClientError> + Sync);

/// Starts the engine process of `spec` (the usual spawner).
pub fn spawn_process(spec: &EngineSpec) -> Result<Box<dyn Transport>, ClientError> {
    let cmd = resolve_cmd(&spec.cmd);
    ChildTransport::spawn(&cmd, &spec.args, spec.dir.as_deref().map(Path::new))
        .map(|t| Box::new(t) as Box<dyn Transport>)
        .map_err(|e| ClientError::Spawn(format!("{} ({}): {e}", spec.name, cmd.display())))
}

fn quote(line: &str) -> String {
    let mut q: String = line.chars().take(QUOTE_CHARS).collect();
    if line.chars().count() > QUOTE_CHARS {
        q.push_str("...");
    }
    format!("'{q}'")
}

impl Engine {
    /// Spawns, shakes hands, sets the options (and `Game` to `game` when the
    /// engine has such an option and the config does not set it) and pings.
    pub fn start(
        spec: &EngineSpec,
        game: &str,
        timeouts: Timeouts,
        log: Logger,
        game_no: u32,
        spawn: Spawner,
    ) -> Result<Engine, StartError> {
        let transport = spawn(spec).map_err(StartError::Spawn)?;
        let mut engine = Engine {
            name: spec.name.clone(),
            proto: spec.proto,
            id_name: None,
            options: Vec::new(),
            refused: Vec::new(),
            transport,
            log,
            timeouts,
            game_no,
        };
        engine.handshake().map_err(StartError::Fault)?;
        let game_option = engine
            .options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case("game"))
            .map(|o| o.name.clone());
        let configured_game = spec.options.keys().any(|k| k.eq_ignore_ascii_case("game"));
        if let (Some(opt), false) = (game_option, configured_game) {
            engine
                .send(&format!("setoption name {opt} value {game}"))
                .map_err(StartError::Fault)?;
        }
        for (k, v) in &spec.options {
            if !engine.options.iter().any(|o| same_option(&o.name, k)) {
                engine.refused.push(OptionRefusal {
                    engine: spec.name.clone(),
                    option: k.clone(),
                    value: v.clone(),
                    said: "not among the options it advertised".into(),
                });
            }
            engine
                .send(&format!("setoption name {k} value {v}"))
                .map_err(StartError::Fault)?;
        }
        // The answers to the `setoption` lines come before the `readyok`.
        let errors = engine.ping_errors().map_err(StartError::Fault)?;
        for said in errors {
            let squashed = squash(&said);
            let named = spec
                .options
                .iter()
                .find(|(k, _)| squashed.contains(&squash(k)));
            // A line naming none of them is theirs when they are the only
            // thing set besides the game.
            let (k, v) = match (named, spec.options.len()) {
                (Some((k, v)), _) => (k.clone(), v.clone()),
                (None, 1) => {
                    let (k, v) = spec.options.iter().next().expect("one option");
                    (k.clone(), v.clone())
                }
                (None, 0) => continue,
                (None, _) => ("?".to_string(), "?".to_string()),
            };
            match engine.refused.iter_mut().find(|r| r.option == k) {
                Some(r) => r.said = format!("{}; it said: {said}", r.said),
                None => engine.refused.push(OptionRefusal {
                    engine: spec.name.clone(),
                    option: k,
                    value: v,
                    said: format!("it said: {said}"),
                }),
            }
        }
        Ok(engine)
    }

    /// Wraps an already open transport (tests, compliance).
    pub fn from_transport(
        name: &str,
        proto: Proto,
        transport: Box<dyn Transport>,
        timeouts: Timeouts,
        log: Logger,
    ) -> Engine {
        Engine {
            name: name.to_string(),
            proto,
            id_name: None,
            options: Vec::new(),
            refused: Vec::new(),
            transport,
            log,
            timeouts,
            game_no: 0,
        }
    }

    pub fn send(&mut self, line: &str) -> Result<(), Fault> {
        self.log.line(self.game_no, &self.name, '>', line);
        self.transport
            .send(line)
            .map_err(|status| Fault::new(FaultKind::Crash, format!("crashed ({status})")))
    }

    /// The next stdout line before `deadline`; stderr lines and over-long
    /// stdout lines are logged and skipped.
    pub fn recv(&mut self, deadline: Instant) -> Recv {
        loop {
            match self.transport.recv(deadline) {
                Recv::Line(l) => {
                    self.log.line(self.game_no, &self.name, '<', &l);
                    return Recv::Line(l);
                }
                Recv::Stderr(l) => self.log.line(self.game_no, &self.name, '!', &l),
                // Dropped, never parsed: a cut line could read as another reply.
                Recv::TooLong => self
                    .log
                    .line(self.game_no, &self.name, '#', &too_long_remark()),
                other => {
                    if let Recv::Closed(text) = &other {
                        self.log.line(self.game_no, &self.name, '#', text);
                    }
                    return other;
                }
            }
        }
    }

    fn wait_for(
        &mut self,
        what: &str,
        timeout: Duration,
        mut on_line: impl FnMut(&mut Engine, &str) -> bool,
    ) -> Result<(), Fault> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.recv(deadline) {
                Recv::Line(l) => {
                    if on_line(self, &l) {
                        return Ok(());
                    }
                }
                Recv::Stderr(_) | Recv::TooLong => {}
                Recv::Timeout => {
                    let mut f = Fault::new(
                        FaultKind::Stall,
                        format!("no {what} within {} ms", timeout.as_millis()),
                    );
                    f.waited_ms = timeout.as_millis() as u64;
                    return Err(f);
                }
                Recv::Closed(text) => {
                    return Err(Fault::new(FaultKind::Crash, format!("crashed ({text})")))
                }
                Recv::Interrupted => return Err(Fault::new(FaultKind::Interrupted, "interrupted")),
            }
        }
    }

    /// `ugi` → `ugiok` (or `uci` → `uciok`), collecting `id` and `option`
    /// lines; anything else before the ok (banners) is tolerated.
    pub fn handshake(&mut self) -> Result<(), Fault> {
        let (hello, ok) = match self.proto {
            Proto::Ugi => ("ugi", "ugiok"),
            Proto::Uci => ("uci", "uciok"),
        };
        self.send(hello)?;
        let timeout = self.timeouts.startup();
        self.wait_for(ok, timeout, |e, line| {
            let mut tokens = line.split_whitespace();
            match tokens.next() {
                Some(t) if t == ok && tokens.next().is_none() => return true,
                Some("id") if tokens.next() == Some("name") => {
                    e.id_name = Some(tokens.collect::<Vec<_>>().join(" "));
                }
                Some("option") => {
                    if let Some(name) = option_name(line) {
                        e.options.push(OptionDecl {
                            name,
                            line: line.to_string(),
                        });
                    }
                }
                _ => {}
            }
            false
        })
    }

    /// `isready` → `readyok`; other lines in between are ignored.
    pub fn ping(&mut self) -> Result<(), Fault> {
        self.send("isready")?;
        let timeout = self.timeouts.ping();
        self.wait_for("readyok", timeout, |_, l| l.trim() == "readyok")
    }

    /// `ping`, collecting the `info string error` lines that come before
    /// the `readyok`.
    fn ping_errors(&mut self) -> Result<Vec<String>, Fault> {
        self.send("isready")?;
        let timeout = self.timeouts.ping();
        let mut errors = Vec::new();
        self.wait_for("readyok", timeout, |_, l| {
            let l = l.trim();
            if is_error_line(l) {
                errors.push(l.to_string());
            }
            l == "readyok"
        })?;
        Ok(errors)
    }

    pub fn new_game(&mut self) -> Result<(), Fault> {
        self.send(match self.proto {
            Proto::Ugi => "uginewgame",
            Proto::Uci => "ucinewgame",
        })?;
        self.ping()
    }

    /// Sends `position` and `go`, then reads until `bestmove` or `deadline`.
    /// Unknown lines during a search are garbage: the protocol has no room
    /// for them (`info string` is the place for free text).
    pub fn search(
        &mut self,
        position: &str,
        go: &str,
        deadline: Instant,
    ) -> Result<Reply, SearchError> {
        let never = AtomicBool::new(false);
        self.search_live(position, go, deadline, &never, Duration::ZERO, &mut |_| {})
    }

    /// `search`, handing every `info` line to `on_info` as it comes, and
    /// sending `stop` once `stop` is set (checked every `STOP_POLL`); after
    /// that the engine has `stop_grace` to answer `bestmove`.
    pub fn search_live(
        &mut self,
        position: &str,
        go: &str,
        mut deadline: Instant,
        stop: &AtomicBool,
        stop_grace: Duration,
        on_info: &mut dyn FnMut(&str),
    ) -> Result<Reply, SearchError> {
        self.send(position).map_err(SearchError::Fault)?;
        self.send(go).map_err(SearchError::Fault)?;
        let start = Instant::now();
        let mut info = SearchInfo::default();
        let mut stop_sent = false;
        loop {
            if !stop_sent && stop.load(Ordering::Relaxed) {
                stop_sent = true;
                self.send("stop").map_err(SearchError::Fault)?;
                deadline = deadline.min(Instant::now() + stop_grace);
            }
            let slice = if stop_sent {
                deadline
            } else {
                deadline.min(Instant::now() + STOP_POLL)
            };
            match self.recv(slice) {
                Recv::Timeout if Instant::now() < deadline => {}
                Recv::Line(line) => {
                    let mut tokens = line.split_whitespace();
                    match tokens.next() {
                        None => {}
                        Some("info") => {
                            parse_info(&line, &mut info);
                            on_info(&line);
                        }
                        Some("bestmove") => {
                            let elapsed = start.elapsed();
                            let rest: Vec<&str> = tokens.collect();
                            let ok = matches!(
                                (self.proto, rest.as_slice()),
                                (_, [_]) | (Proto::Uci, [_, "ponder", _])
                            );
                            if !ok {
                                return Err(SearchError::Fault(Fault::new(
                                    FaultKind::Garbage,
                                    format!(
                                        "garbage output: {} (bestmove takes exactly one move)",
                                        quote(&line)
                                    ),
                                )));
                            }
                            return Ok(Reply {
                                mv: rest[0].to_string(),
                                elapsed,
                                info,
                            });
                        }
                        Some("readyok" | "id" | "option" | "response" | "ugiok" | "uciok") => {}
                        Some(_) => {
                            return Err(SearchError::Fault(Fault::new(
                                FaultKind::Garbage,
                                format!("garbage output: {}", quote(&line)),
                            )))
                        }
                    }
                }
                Recv::Stderr(_) | Recv::TooLong => {}
                Recv::Timeout => {
                    return Err(SearchError::NoReply {
                        waited: start.elapsed(),
                    })
                }
                Recv::Closed(text) => {
                    return Err(SearchError::Fault(Fault::new(
                        FaultKind::Crash,
                        format!("crashed ({text})"),
                    )))
                }
                Recv::Interrupted => {
                    return Err(SearchError::Fault(Fault::new(
                        FaultKind::Interrupted,
                        "interrupted",
                    )))
                }
            }
        }
    }

    /// Sends `query <what>` and returns the token of the `response` line.
    pub fn query(&mut self, what: &str, timeout: Duration) -> Result<String, Fault> {
        self.send(&format!("query {what}"))?;
        let mut answer = String::new();
        self.wait_for("response", timeout, |_, l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            if t.first() == Some(&"response") {
                answer = t[1..].join(" ");
                true
            } else {
                false
            }
        })?;
        Ok(answer)
    }

    /// `quit`, a short wait, then the process group is killed.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        self.transport.close(Duration::from_millis(QUIT_TIMEOUT_MS));
    }

    /// Kills the engine at once (after a fault).
    pub fn kill(mut self) {
        self.log.line(self.game_no, &self.name, '#', "killed");
        self.transport.close(Duration::ZERO);
    }
}

/// The name in `option name <name...> type ...`.
pub fn option_name(line: &str) -> Option<String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let start = tokens.iter().position(|&t| t == "name")? + 1;
    let end = tokens[start..]
        .iter()
        .position(|&t| t == "type")
        .map_or(tokens.len(), |i| start + i);
    (end > start).then(|| tokens[start..end].join(" "))
}

/// Takes depth and score from an `info` line; keeps earlier values for what
/// the line does not have. Only the best line (`multipv 1` or none) counts.
pub fn parse_info(line: &str, info: &mut SearchInfo) {
    let fields = InfoLine::parse(line);
    if fields.multipv.is_some_and(|k| k != 1) {
        return;
    }
    if fields.depth.is_some() {
        info.depth = fields.depth;
    }
    if let Some(score) = fields.score {
        (info.cp, info.mate) = match score {
            Score::Cp(v) => (Some(v), None),
            Score::Mate(v) => (None, Some(v)),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::FakeTransport;

    fn fake(script: impl FnMut(&str) -> Option<Vec<String>> + Send + 'static) -> Engine {
        let timeouts = Timeouts {
            startup_ms: 50,
            ping_ms: 50,
            max_move_ms: 50,
        };
        Engine::from_transport(
            "fake",
            Proto::Ugi,
            Box::new(FakeTransport::new(script)),
            timeouts,
            Logger::default(),
        )
    }

    fn lines(v: &[&str]) -> Option<Vec<String>> {
        Some(v.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn handshake_collects_options() {
        let mut e = fake(|l| match l {
            "ugi" => lines(&[
                "Fancy banner",
                "id name Foo 1.0",
                "option name Game type combo default mixtour var mixtour",
                "option name Move Overhead type spin default 10 min 0 max 100",
                "ugiok",
            ]),
            "isready" => lines(&["readyok"]),
            _ => lines(&[]),
        });
        e.handshake().unwrap();
        assert_eq!(e.id_name.as_deref(), Some("Foo 1.0"));
        let names: Vec<&str> = e.options.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, vec!["Game", "Move Overhead"]);
        e.ping().unwrap();
    }

    #[test]
    fn silent_and_dead_engines_are_faults() {
        let mut e = fake(|_| lines(&[]));
        let f = e.handshake().unwrap_err();
        assert_eq!(f.kind, FaultKind::Stall);
        assert_eq!(f.text, "no ugiok within 50 ms");
        let mut e = fake(|_| None);
        e.send("ugi").unwrap();
        let f = e.ping().unwrap_err();
        assert_eq!(f.kind, FaultKind::Crash);
        assert_eq!(f.text, "crashed (exit status 1)");
    }

    #[test]
    fn only_the_first_multipv_line_is_recorded() {
        let mut info = SearchInfo::default();
        for line in [
            "info depth 5 multipv 1 score cp 40 pv c3",
            "info depth 5 multipv 2 score cp -10 pv d4",
            "info depth 5 multipv 3 score mate -1 pv e1",
            "info string multipv 2 is not a field here: depth 9",
        ] {
            parse_info(line, &mut info);
        }
        assert_eq!(
            info,
            SearchInfo {
                depth: Some(5),
                cp: Some(40),
                mate: None
            }
        );
    }

    #[test]
    fn search_reads_info_and_strict_bestmove() {
        let far = Instant::now() + Duration::from_secs(5);
        let mut e = fake(|l| {
            if l.starts_with("go") {
                lines(&[
                    "info depth 3 score cp 12 pv c3",
                    "info depth 4 seldepth 6 score mate -2 nodes 5 pv c3 d4",
                    "",
                    "bestmove c3",
                ])
            } else {
                lines(&[])
            }
        });
        let r = e.search("position startpos", "go depth 4", far).unwrap();
        assert_eq!(r.mv, "c3");
        assert_eq!(
            r.info,
            SearchInfo {
                depth: Some(4),
                cp: None,
                mate: Some(-2)
            }
        );
        let mut e = fake(|l| {
            if l.starts_with("go") {
                lines(&["bestmove c3 ponder d4"])
            } else {
                lines(&[])
            }
        });
        let err = e
            .search("position startpos", "go depth 1", far)
            .unwrap_err();
        let SearchError::Fault(f) = err else {
            panic!("{err:?}")
        };
        assert_eq!(f.kind, FaultKind::Garbage);
        assert!(
            f.text.contains("bestmove takes exactly one move"),
            "{}",
            f.text
        );
        let mut e = fake(|l| {
            if l.starts_with("go") {
                lines(&["hello there"])
            } else {
                lines(&[])
            }
        });
        let err = e
            .search("position startpos", "go depth 1", far)
            .unwrap_err();
        assert_eq!(
            err,
            SearchError::Fault(Fault::new(
                FaultKind::Garbage,
                "garbage output: 'hello there'"
            ))
        );
    }

    #[test]
    fn only_the_best_line_is_the_score_of_the_record() {
        // Only the best line is the engine's score for the record.
        let mut info = SearchInfo::default();
        parse_info("info multipv 1 depth 5 score cp 30 pv c3", &mut info);
        parse_info("info multipv 2 depth 5 score cp -80 pv d4", &mut info);
        assert_eq!((info.depth, info.cp), (Some(5), Some(30)));
    }

    #[test]
    fn a_live_search_hands_on_info_and_stops_on_request() {
        let mut e = fake(|l| match l {
            l if l.starts_with("go") => lines(&["info depth 1 score cp 3 pv c3"]),
            "stop" => lines(&["info depth 2 score cp 4 pv d4", "bestmove d4"]),
            _ => lines(&[]),
        });
        let stop = AtomicBool::new(true);
        let mut seen = Vec::new();
        let far = Instant::now() + Duration::from_secs(60);
        let r = e
            .search_live(
                "position startpos",
                "go infinite",
                far,
                &stop,
                Duration::from_millis(50),
                &mut |l| seen.push(l.to_string()),
            )
            .unwrap();
        assert_eq!(r.mv, "d4");
        assert_eq!(seen.len(), 2, "{seen:?}");
        // An engine that ignores `stop` has the grace, then it is silent.
        let mut e = fake(|_| lines(&[]));
        let t0 = Instant::now();
        let err = e
            .search_live(
                "position startpos",
                "go infinite",
                far,
                &stop,
                Duration::from_millis(50),
                &mut |_| {},
            )
            .unwrap_err();
        assert!(matches!(err, SearchError::NoReply { .. }), "{err:?}");
        assert!(t0.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn an_over_long_engine_line_is_logged_and_the_search_goes_on() {
        let log_path = std::env::temp_dir().join(format!("sf-too-long-{}.log", std::process::id()));
        let log = Logger::to_file(&log_path, false).unwrap();
        // Answers `go` with 100 KB of `bestmove x...` on one line, then a
        // normal bestmove: the cut line must not be taken as the move.
        let script = "read p; read g; printf 'bestmove '; \
                      head -c 100000 /dev/zero | tr '\\0' x; echo; echo bestmove a1; read q";
        let transport = ChildTransport::spawn(
            std::path::Path::new("sh"),
            &["-c".into(), script.into()],
            None,
        )
        .unwrap();
        let timeouts = Timeouts {
            startup_ms: 5000,
            ping_ms: 5000,
            max_move_ms: 5000,
        };
        let mut e = Engine::from_transport("long", Proto::Ugi, Box::new(transport), timeouts, log);
        let deadline = Instant::now() + Duration::from_secs(10);
        let reply = e
            .search("position startpos", "go depth 1", deadline)
            .unwrap();
        assert_eq!(reply.mv, "a1");
        e.kill();
        let text = std::fs::read_to_string(&log_path).unwrap();
        let _ = std::fs::remove_file(&log_path);
        assert!(
            text.contains("long # dropped a line of more than 65536 bytes"),
            "{text}"
        );
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_log_write_that_fails_is_reported_not_dropped() {
        // /dev/full opens, and every write to it fails as on a full disk.
        let log = Logger::to_file(Path::new("/dev/full"), true).unwrap();
        assert_eq!(log.failed(), None);
        log.line(1, "a", '>', "go depth 1");
        let failed = log.failed().expect("the failure is kept");
        assert!(
            failed.starts_with("cannot write the log /dev/full: ") && failed.contains("space"),
            "{failed}"
        );
        // Later lines change nothing, and no log at all never fails.
        log.line(1, "a", '<', "bestmove c3");
        assert_eq!(log.failed().as_deref(), Some(failed.as_str()));
        assert_eq!(Logger::default().failed(), None);
    }

    #[test]
    fn option_names_with_spaces() {
        assert_eq!(
            option_name("option name Move Overhead type spin").as_deref(),
            Some("Move Overhead")
        );
        assert_eq!(option_name("option name type spin"), None);
        assert_eq!(option_name("option"), None);
    }
}
