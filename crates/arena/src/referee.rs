//! Plays one game between two running engines. The rules library decides
//! legality and the end of the game; the engines are never trusted. Each
//! ply is judged in a fixed order (as fastchess does): game over by the
//! rules, adjudication, engine alive (ping), reply in time, reply legal.

use std::time::{Duration, Instant};

use super::config::{Limits, Proto, Referee, ScoreAdjudication, MOVE_GRACE_MS};
use super::openings::Opening;
use stackfish_client::engine::{Engine, Fault, FaultKind, Reply, SearchError, SearchInfo};
use stackfish_games::{AnyGame, GameResult, MoveError, Outcome, Side};
use stackfish_record::{today, GameRecord, MoveRecord};
use stackfish_tables::TableSet;

/// A mate score counts as this many centi-units for adjudication.
const MATE_AS_CP: i32 = 100_000;

/// Everything about a game but the engines.
pub struct GameSetup<'a> {
    pub game: u32,
    pub round: u32,
    pub opening_index: usize,
    pub opening: &'a Opening,
    pub variant: &'a str,
    pub event: &'a str,
    /// Names and limits of player 1 and player 2.
    pub names: [&'a str; 2],
    pub limits: [Limits; 2],
    pub max_plies: u32,
    pub resign: Option<ScoreAdjudication>,
    pub draw: Option<ScoreAdjudication>,
    /// Endgame tables: a position they cover ends the game with its value.
    pub tables: Option<&'a TableSet>,
    pub max_move_ms: u64,
    pub referee: Referee,
}

/// How a game ended for the runner.
pub struct Played {
    /// `None` when the arena was interrupted: the game is not recorded.
    pub record: Option<GameRecord>,
    /// Which players' engines must be killed and restarted.
    pub restart: [bool; 2],
}

fn side_idx(s: Side) -> usize {
    s.index()
}

/// The go command for the mover: clocks of both sides when they have one,
/// and every other limit of the mover.
fn go_command(proto: Proto, limits: &[Limits; 2], mover: usize, time_left: &[u64; 2]) -> String {
    let mut go = String::from("go");
    let names = match proto {
        Proto::Ugi => [("p1time", "p1inc"), ("p2time", "p2inc")],
        Proto::Uci => [("wtime", "winc"), ("btime", "binc")],
    };
    for s in 0..2 {
        if let Some(tc) = limits[s].tc {
            go.push_str(&format!(" {} {}", names[s].0, time_left[s]));
            go.push_str(&format!(" {} {}", names[s].1, tc.inc_ms));
        }
    }
    let l = &limits[mover];
    if let Some(ms) = l.movetime_ms {
        go.push_str(&format!(" movetime {ms}"));
    }
    if let Some(d) = l.depth {
        go.push_str(&format!(" depth {d}"));
    }
    if let Some(n) = l.nodes {
        go.push_str(&format!(" nodes {n}"));
    }
    go
}

fn position_command(start_fen: &str, is_startpos: bool, moves: &[MoveRecord]) -> String {
    let mut s = if is_startpos {
        "position startpos".to_string()
    } else {
        format!("position fen {start_fen}")
    };
    if !moves.is_empty() {
        s.push_str(" moves");
        for m in moves {
            s.push(' ');
            s.push_str(&m.mv);
        }
    }
    s
}

fn score_cp(info: &SearchInfo) -> Option<i32> {
    match (info.cp, info.mate) {
        (_, Some(m)) if m > 0 => Some(MATE_AS_CP),
        (_, Some(_)) => Some(-MATE_AS_CP),
        (Some(cp), None) => Some(cp),
        (None, None) => None,
    }
}

/// The score adjudications, checked after every engine move. `scores[s]`
/// are side `s`'s own scores (from its point of view), oldest first.
pub fn adjudicate(
    scores: &[Vec<Option<i32>>; 2],
    plies: usize,
    resign: Option<ScoreAdjudication>,
    draw: Option<ScoreAdjudication>,
) -> Option<(GameResult, &'static str)> {
    let last = |s: usize, k: u32| -> Option<Vec<i32>> {
        let v = &scores[s];
        let k = k as usize;
        if k == 0 || v.len() < k {
            return None;
        }
        v[v.len() - k..].iter().copied().collect()
    };
    if let Some(r) = resign {
        for loser in 0..2 {
            let Some(l) = last(loser, r.moves) else {
                continue;
            };
            let winner_agrees =
                || last(1 - loser, r.moves).is_some_and(|w| w.iter().all(|&s| s >= r.score));
            // In i64: `-score` of i32::MIN would overflow.
            let lost = |&s: &i32| i64::from(s) <= -i64::from(r.score);
            if l.iter().all(lost) && (!r.twosided || winner_agrees()) {
                let winner = if loser == 0 { Side::P2 } else { Side::P1 };
                return Some((GameResult::win_for(winner), "adjudication: resign by score"));
            }
        }
    }
    if let Some(d) = draw {
        if plies >= 2 * d.movenumber as usize {
            if let (Some(a), Some(b)) = (last(0, d.moves), last(1, d.moves)) {
                // An engine's score is any i32: `abs` of i32::MIN overflows
                // (and wraps to itself, a "draw"), so compare in i64.
                let even = |&s: &i32| i64::from(s).abs() <= i64::from(d.score);
                if a.iter().chain(&b).all(even) {
                    return Some((GameResult::Draw, "adjudication: draw by score"));
                }
            }
        }
    }
    None
}

/// Who decides legality and the end of the game.
enum Judge {
    /// Our rules library (the default): every move checked.
    Rules(Box<dyn AnyGame>),
    /// For a game the library does not know: the engines are asked with
    /// `query gameover/p1turn/result`, as cutegames does; moves are taken as
    /// sent, and a disagreement voids the game.
    Engines,
}

/// The player whose fault ended a game and the fault's words, read back from
/// a termination the referee wrote as `NAME: crashed (...)`, `NAME: illegal
/// move ...` and the like; `None` for every other ending.
pub(crate) fn fault_of<'a>(
    termination: &'a str,
    players: [&'a str; 2],
) -> Option<(&'a str, &'a str)> {
    players.into_iter().find_map(|name| {
        let detail = termination.strip_prefix(name)?.strip_prefix(": ")?;
        Some((name, detail))
    })
}

/// How a game ends inside the loop: a result (`None`: voided) and the
/// termination text.
type Ending = (Option<GameResult>, String);

/// The result a table gives the position of `board`, with the termination
/// text: `table: player 1 wins in 37 plies`, or `table: draw`.
fn table_verdict(board: &dyn AnyGame, tables: &TableSet) -> Option<Ending> {
    if board.outcome().is_over() {
        return None;
    }
    let (_, plies) = tables.probe_any(board.position_any())?;
    let mover = board.side_to_move();
    let winner = match plies {
        0 => return Some((Some(GameResult::Draw), "table: draw".into())),
        p if p > 0 => mover,
        _ => mover.opponent(),
    };
    Some((
        Some(GameResult::win_for(winner)),
        format!(
            "table: player {} wins in {} plies",
            winner.digit(),
            plies.unsigned_abs()
        ),
    ))
}

/// Plays a game from `setup.opening`. `engines[0]` plays player 1.
pub fn play_game(setup: &GameSetup, engines: [&mut Engine; 2]) -> Played {
    let started = Instant::now();
    let date = today();
    let judge = match setup.referee {
        Referee::Engines => Judge::Engines,
        Referee::Rules => match setup.opening.board(setup.variant) {
            Ok(b) => Judge::Rules(b),
            Err(e) => {
                // Openings are checked when loaded; this is a bug, not an engine fault.
                let rec = finish(
                    setup,
                    &date,
                    started,
                    String::new(),
                    Vec::new(),
                    None,
                    format!("bad opening: {e}"),
                );
                return Played {
                    record: Some(rec),
                    restart: [false, false],
                };
            }
        },
    };
    let mut game = Game::new(setup, date, started, judge);
    let [e1, e2] = engines;
    let mut engines = [e1, e2];
    for e in engines.iter_mut() {
        e.game_no = setup.game;
    }
    let stop = match game.new_game(&mut engines) {
        Err(stop) => stop,
        Ok(()) => loop {
            if let Err(stop) = game.ply(&mut engines) {
                break stop;
            }
        },
    };
    game.played(stop)
}

/// Why a game ends before its next ply.
enum Stop {
    /// Its result and termination text.
    End(Ending),
    /// Ctrl-C: the game is not recorded.
    Interrupted,
}

/// A game in progress: the judge, the moves so far, the clocks, the scores
/// the adjudication reads, and which engines must restart.
struct Game<'s, 'a> {
    setup: &'s GameSetup<'a>,
    date: String,
    started: Instant,
    judge: Judge,
    start_fen: String,
    is_startpos: bool,
    moves: Vec<MoveRecord>,
    time_left: [u64; 2],
    scores: [Vec<Option<i32>>; 2],
    restart: [bool; 2],
}

impl<'s, 'a> Game<'s, 'a> {
    fn new(setup: &'s GameSetup<'a>, date: String, started: Instant, judge: Judge) -> Self {
        let start_fen = match (&judge, &setup.opening.fen) {
            (Judge::Rules(b), _) => b.start_fen(),
            (Judge::Engines, Some(f)) => f.clone(),
            (Judge::Engines, None) => "startpos".to_string(),
        };
        let moves = setup
            .opening
            .moves
            .iter()
            .map(|m| MoveRecord::book(m))
            .collect();
        let time_left_of = |s: usize| setup.limits[s].tc.map_or(0, |tc| tc.base_ms);
        Game {
            setup,
            date,
            started,
            judge,
            start_fen,
            is_startpos: setup.opening.fen.is_none(),
            moves,
            time_left: [time_left_of(0), time_left_of(1)],
            scores: [Vec::new(), Vec::new()],
            restart: [false, false],
        }
    }

    /// A loss for player `s` with `text`.
    fn loss(&self, s: usize, text: &str) -> Ending {
        let winner = if s == 0 { Side::P2 } else { Side::P1 };
        (
            Some(GameResult::win_for(winner)),
            format!("{}: {text}", self.setup.names[s]),
        )
    }

    /// An engine's fault loses the game for its player and restarts the
    /// engine; a Ctrl-C stops the game unrecorded.
    fn fault(&mut self, s: usize, f: Fault) -> Stop {
        if f.kind == FaultKind::Interrupted {
            return Stop::Interrupted;
        }
        self.restart[s] = true;
        Stop::End(self.loss(s, &f.text))
    }

    /// New game for both; a fault here forfeits the game.
    fn new_game(&mut self, engines: &mut [&mut Engine; 2]) -> Result<(), Stop> {
        for (s, e) in engines.iter_mut().enumerate() {
            if let Err(f) = e.new_game() {
                return Err(self.fault(s, f));
            }
        }
        Ok(())
    }

    /// One ply, judged in a fixed order: game over, adjudication, engine
    /// alive, reply in time, reply legal.
    fn ply(&mut self, engines: &mut [&mut Engine; 2]) -> Result<(), Stop> {
        let position = position_command(&self.start_fen, self.is_startpos, &self.moves);
        let mover = self.mover(engines, &position)?;
        self.adjudicate()?;
        let engine = &mut *engines[mover];
        // Step 3: the engine is alive.
        if let Err(f) = engine.ping() {
            return Err(self.fault(mover, f));
        }
        let (reply, elapsed) = self.reply_in_time(engine, mover, &position)?;
        self.play_reply(mover, reply, elapsed)
    }

    /// Step 1: game over (by the rules, or by the engines' agreement), or
    /// the player to move.
    fn mover(&mut self, engines: &mut [&mut Engine; 2], position: &str) -> Result<usize, Stop> {
        match &self.judge {
            Judge::Rules(board) => {
                if let Outcome::Over { result, reason } = board.outcome() {
                    return Err(Stop::End((Some(result), reason.to_string())));
                }
                Ok(side_idx(board.side_to_move()))
            }
            Judge::Engines => match ask_engines(self.setup, engines, position) {
                Ok(Asked::Over(ending)) => Err(Stop::End(ending)),
                Ok(Asked::ToMove(mover)) => Ok(mover),
                Err((s, f)) => Err(self.fault(s, f)),
            },
        }
    }

    /// Step 2, adjudication: an exact table value first, then the ply
    /// limit, then the scores.
    fn adjudicate(&self) -> Result<(), Stop> {
        let setup = self.setup;
        if let (Some(tables), Judge::Rules(board)) = (setup.tables, &self.judge) {
            if let Some(ending) = table_verdict(board.as_ref(), tables) {
                return Err(Stop::End(ending));
            }
        }
        let engine_plies = self.moves.iter().filter(|m| !m.book).count();
        if engine_plies >= setup.max_plies as usize {
            return Err(Stop::End((
                Some(GameResult::Draw),
                format!("adjudication: max plies ({})", setup.max_plies),
            )));
        }
        let adjudged = adjudicate(&self.scores, self.moves.len(), setup.resign, setup.draw);
        match adjudged {
            Some((result, reason)) => Err(Stop::End((Some(result), reason.to_string()))),
            None => Ok(()),
        }
    }

    /// Step 4: the mover's reply, in time, with the milliseconds it took;
    /// its clock is charged and given the increment.
    fn reply_in_time(
        &mut self,
        engine: &mut Engine,
        mover: usize,
        position: &str,
    ) -> Result<(Reply, u64), Stop> {
        let limits = self.setup.limits[mover];
        let budget_ms = match (limits.tc, limits.movetime_ms) {
            (Some(_), _) => Some(self.time_left[mover]),
            (None, Some(ms)) => Some(ms),
            (None, None) => None,
        };
        let wait_ms = match budget_ms {
            Some(b) => b + limits.margin_ms + MOVE_GRACE_MS,
            None => self.setup.max_move_ms,
        };
        let go = go_command(engine.proto, &self.setup.limits, mover, &self.time_left);
        let deadline = Instant::now() + Duration::from_millis(wait_ms);
        let reply = match engine.search(position, &go, deadline) {
            Ok(r) => r,
            Err(SearchError::Fault(f)) => return Err(self.fault(mover, f)),
            Err(SearchError::NoReply { waited }) => {
                self.restart[mover] = true;
                let waited = waited.as_millis() as u64;
                let text = match budget_ms {
                    Some(b) => format!(
                        "timeout: {} ms over (no bestmove)",
                        waited.saturating_sub(b)
                    ),
                    None => format!("no bestmove within {wait_ms} ms"),
                };
                return Err(Stop::End(self.loss(mover, &text)));
            }
        };
        let elapsed = reply.elapsed.as_millis() as u64;
        if let Some(b) = budget_ms {
            if elapsed > b + limits.margin_ms {
                let text = format!("timeout: {} ms over", elapsed - b);
                return Err(Stop::End(self.loss(mover, &text)));
            }
        }
        if let Some(tc) = limits.tc {
            self.time_left[mover] = self.time_left[mover].saturating_sub(elapsed) + tc.inc_ms;
        }
        Ok((reply, elapsed))
    }

    /// Step 5: the reply is legal, played and recorded with its score.
    fn play_reply(&mut self, mover: usize, reply: Reply, elapsed: u64) -> Result<(), Stop> {
        let canonical = match &mut self.judge {
            Judge::Engines => reply.mv.clone(),
            Judge::Rules(board) => match board.play_text(&reply.mv) {
                Ok(m) => m,
                Err(e) => {
                    let what = match e {
                        MoveError::Syntax { .. } => "malformed move",
                        MoveError::Illegal { .. } => "illegal move",
                    };
                    return Err(Stop::End(self.loss(mover, &format!("{what} {}", reply.mv))));
                }
            },
        };
        self.scores[mover].push(score_cp(&reply.info));
        self.moves.push(MoveRecord {
            mv: canonical,
            book: false,
            cp: reply.info.cp,
            mate: reply.info.mate,
            depth: reply.info.depth,
            ms: Some(elapsed),
        });
        Ok(())
    }

    /// The record of the game that ended with `stop` (none when stopped).
    fn played(self, stop: Stop) -> Played {
        let record = match stop {
            Stop::Interrupted => None,
            Stop::End((result, reason)) => Some(finish(
                self.setup,
                &self.date,
                self.started,
                self.start_fen,
                self.moves,
                result,
                reason,
            )),
        };
        Played {
            record,
            restart: self.restart,
        }
    }
}

/// What the engines say about the position under `--referee engines`.
enum Asked {
    Over(Ending),
    /// Index of the player to move (0 = player 1).
    ToMove(usize),
}

/// Timeout for a `query` answer.
const QUERY_MS: u64 = 5_000;

/// Sends the position to both engines and asks `query gameover` (and then
/// `result`, or player 1's engine `p1turn`). An answer that is not one of
/// the protocol's tokens is a fault of that engine.
fn ask_engines(
    setup: &GameSetup,
    engines: &mut [&mut Engine; 2],
    position: &str,
) -> Result<Asked, (usize, Fault)> {
    let timeout = Duration::from_millis(QUERY_MS);
    let garbage = |what: &str, got: &str| Fault {
        kind: FaultKind::Garbage,
        text: format!("garbage output: 'response {got}' to query {what}"),
        waited_ms: 0,
    };
    let mut over = [false; 2];
    for s in 0..2 {
        engines[s].send(position).map_err(|f| (s, f))?;
        let got = engines[s].query("gameover", timeout).map_err(|f| (s, f))?;
        over[s] = match got.as_str() {
            "true" => true,
            "false" => false,
            _ => return Err((s, garbage("gameover", &got))),
        };
    }
    if over[0] != over[1] {
        return Ok(Asked::Over((
            None,
            format!(
                "voided: engines disagree on game over ({}: {}, {}: {})",
                setup.names[0], over[0], setup.names[1], over[1]
            ),
        )));
    }
    if over[0] {
        let mut results = [None; 2];
        let mut texts = [String::new(), String::new()];
        for s in 0..2 {
            let got = engines[s].query("result", timeout).map_err(|f| (s, f))?;
            results[s] = match got.as_str() {
                "p1win" => Some(GameResult::P1Win),
                "p2win" => Some(GameResult::P2Win),
                "draw" => Some(GameResult::Draw),
                "none" => None,
                _ => return Err((s, garbage("result", &got))),
            };
            texts[s] = got;
        }
        return Ok(Asked::Over(match results {
            [Some(a), Some(b)] if a == b => (Some(a), "game over (engines agree)".to_string()),
            _ => (
                None,
                format!(
                    "voided: engines disagree on the result ({}: {}, {}: {})",
                    setup.names[0], texts[0], setup.names[1], texts[1]
                ),
            ),
        }));
    }
    let got = engines[0].query("p1turn", timeout).map_err(|f| (0, f))?;
    match got.as_str() {
        "true" => Ok(Asked::ToMove(0)),
        "false" => Ok(Asked::ToMove(1)),
        _ => Err((0, garbage("p1turn", &got))),
    }
}

/// The record of a game an engine forfeited before the first move (it
/// failed to start): the opening's moves, a loss for `side` with `text`.
pub fn forfeit_record(setup: &GameSetup, side: usize, text: &str, opening: &Opening) -> GameRecord {
    let fen = match (setup.referee, &opening.fen) {
        (Referee::Rules, _) => opening
            .board(setup.variant)
            .map(|b| b.start_fen())
            .unwrap_or_default(),
        (Referee::Engines, Some(f)) => f.clone(),
        (Referee::Engines, None) => "startpos".to_string(),
    };
    let moves = opening.moves.iter().map(|m| MoveRecord::book(m)).collect();
    let winner = if side == 0 { Side::P2 } else { Side::P1 };
    finish(
        setup,
        &today(),
        Instant::now(),
        fen,
        moves,
        Some(GameResult::win_for(winner)),
        format!("{}: {text}", setup.names[side]),
    )
}

fn finish(
    setup: &GameSetup,
    date: &str,
    started: Instant,
    fen: String,
    moves: Vec<MoveRecord>,
    result: Option<GameResult>,
    termination: String,
) -> GameRecord {
    let tc = {
        let (a, b) = (setup.limits[0].describe(), setup.limits[1].describe());
        if a == b {
            a
        } else {
            format!("{}: {a}, {}: {b}", setup.names[0], setup.names[1])
        }
    };
    GameRecord {
        game: setup.game,
        round: Some(setup.round),
        opening: Some(setup.opening_index),
        event: setup.event.to_string(),
        date: Some(date.to_string()),
        variant: setup.variant.to_string(),
        player1: setup.names[0].to_string(),
        player2: setup.names[1].to_string(),
        fen: Some(fen),
        moves,
        // `*`: a voided game (engines disagreed under `--referee engines`).
        result: result.map_or("*", GameResult::pgn).to_string(),
        termination,
        time_control: Some(tc),
        duration_ms: Some(started.elapsed().as_millis() as u64),
        nodes: None,
        seed: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{TimeControl, Timeouts};
    use stackfish_client::engine::Logger;
    use stackfish_client::transport::FakeTransport;
    use stackfish_games::variants::new_game;
    use std::sync::{Arc, Mutex};

    /// A fake engine that plays the first legal move of the position it was
    /// given, or `bad` at ply `bad_at` of its own.
    fn player(bad_at: Option<usize>, bad: &'static str) -> Engine {
        let pos: Arc<Mutex<Box<dyn stackfish_games::AnyGame>>> =
            Arc::new(Mutex::new(new_game("mixtour").unwrap()));
        let mut own = 0usize;
        let script = move |line: &str| -> Option<Vec<String>> {
            let out: Vec<String> = if line == "isready" {
                vec!["readyok".into()]
            } else if let Some(rest) = line.strip_prefix("position startpos") {
                let mut g = new_game("mixtour").unwrap();
                for m in rest.split_whitespace().skip(1) {
                    g.play_text(m).unwrap();
                }
                *pos.lock().unwrap() = g;
                vec![]
            } else if line.starts_with("go") {
                own += 1;
                if Some(own) == bad_at {
                    vec![format!("bestmove {bad}")]
                } else {
                    let g = pos.lock().unwrap();
                    vec![
                        "info depth 2 score cp 5".into(),
                        format!("bestmove {}", g.legal_moves()[0]),
                    ]
                }
            } else {
                vec![]
            };
            Some(out)
        };
        Engine::from_transport(
            "fake",
            Proto::Ugi,
            Box::new(FakeTransport::new(script)),
            Timeouts::default(),
            Logger::default(),
        )
    }

    fn setup(opening: &Opening, max_plies: u32) -> GameSetup<'_> {
        let limits = Limits {
            tc: Some(TimeControl {
                base_ms: 10_000,
                inc_ms: 100,
            }),
            movetime_ms: None,
            depth: None,
            nodes: None,
            margin_ms: 100,
        };
        GameSetup {
            game: 1,
            round: 1,
            opening_index: 0,
            opening,
            variant: "mixtour",
            event: "t",
            names: ["A", "B"],
            limits: [limits, limits],
            max_plies,
            resign: None,
            draw: None,
            tables: None,
            max_move_ms: 1000,
            referee: Referee::Rules,
        }
    }

    #[test]
    fn illegal_move_loses_with_its_text() {
        let opening = Opening::parse("mixtour", "startpos moves c3").unwrap();
        let s = setup(&opening, 400);
        let (mut a, mut b) = (player(None, ""), player(Some(2), "3a1b2"));
        let played = play_game(&s, [&mut a, &mut b]);
        let rec = played.record.unwrap();
        assert_eq!(rec.result, "1-0");
        assert_eq!(rec.termination, "B: illegal move 3a1b2");
        assert_eq!(rec.moves.len(), 3, "book move + one move each");
        assert!(rec.moves[0].book);
        assert_eq!(rec.moves[1].cp, Some(5));
        let (mut a, mut b) = (player(Some(1), "zz9"), player(None, ""));
        let rec = play_game(&s, [&mut a, &mut b]).record.unwrap();
        assert_eq!(
            (rec.result.as_str(), rec.termination.as_str()),
            ("0-1", "A: malformed move zz9")
        );
    }

    #[test]
    fn max_plies_draw_and_the_go_command() {
        let opening = Opening::startpos();
        let s = setup(&opening, 6);
        let (mut a, mut b) = (player(None, ""), player(None, ""));
        let rec = play_game(&s, [&mut a, &mut b]).record.unwrap();
        assert_eq!(rec.moves.len(), 6);
        assert_eq!(rec.result, "1/2-1/2");
        assert_eq!(rec.termination, "adjudication: max plies (6)");
        let go = go_command(Proto::Ugi, &s.limits, 0, &[900, 800]);
        assert_eq!(go, "go p1time 900 p1inc 100 p2time 800 p2inc 100");
        let go = go_command(Proto::Uci, &s.limits, 1, &[900, 800]);
        assert_eq!(go, "go wtime 900 winc 100 btime 800 binc 100");
    }

    #[test]
    fn score_adjudication_needs_both_engines() {
        let r = ScoreAdjudication {
            moves: 2,
            score: 500,
            movenumber: 0,
            twosided: true,
        };
        let s = |v: &[i32]| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
        assert_eq!(
            adjudicate(&[s(&[-600, -700]), s(&[600, 650])], 4, Some(r), None).map(|x| x.0),
            Some(GameResult::P2Win)
        );
        assert_eq!(
            adjudicate(&[s(&[-600, -700]), s(&[600, 400])], 4, Some(r), None),
            None
        );
        assert_eq!(adjudicate(&[s(&[-600]), s(&[600])], 2, Some(r), None), None);
        // One-sided (fastchess's twosided=false): the loser's scores alone.
        let one = ScoreAdjudication {
            twosided: false,
            ..r
        };
        assert_eq!(
            adjudicate(&[s(&[-600, -700]), s(&[600, 400])], 4, Some(one), None).map(|x| x.0),
            Some(GameResult::P2Win)
        );
        assert_eq!(
            adjudicate(&[s(&[50, 80]), s(&[-600, -501])], 4, Some(one), None).map(|x| x.0),
            Some(GameResult::P1Win)
        );
        assert_eq!(
            adjudicate(&[s(&[-600, -400]), s(&[0, 0])], 4, Some(one), None),
            None
        );
        let d = ScoreAdjudication {
            moves: 2,
            score: 10,
            movenumber: 3,
            twosided: true,
        };
        assert_eq!(
            adjudicate(&[s(&[0, 5]), s(&[-3, 0])], 4, None, Some(d)),
            None,
            "too early"
        );
        assert_eq!(
            adjudicate(&[s(&[0, 5]), s(&[-3, 0])], 6, None, Some(d)).map(|x| x.0),
            Some(GameResult::Draw)
        );
        let mut missing = s(&[0, 5]);
        missing[1] = None;
        assert_eq!(adjudicate(&[missing, s(&[-3, 0])], 6, None, Some(d)), None);
    }

    #[test]
    fn extreme_scores_never_overflow_into_a_verdict() {
        // |i32::MIN| does not fit an i32: it wrapped to itself and passed
        // for "within 10 cp of even" (issue 43).
        let s = |v: &[i32]| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
        let d = ScoreAdjudication {
            moves: 1,
            score: 10,
            movenumber: 0,
            twosided: true,
        };
        let worst = s(&[i32::MIN]);
        assert_eq!(
            adjudicate(&[worst.clone(), worst.clone()], 2, None, Some(d)),
            None
        );
        assert_eq!(
            adjudicate(&[s(&[i32::MAX]), worst.clone()], 2, None, Some(d)),
            None
        );
        // A resign threshold of i32::MIN: everything is at most its negation.
        let r = ScoreAdjudication {
            moves: 1,
            score: i32::MIN,
            movenumber: 0,
            twosided: false,
        };
        assert_eq!(
            adjudicate(&[worst, s(&[0])], 2, Some(r), None).map(|x| x.0),
            Some(GameResult::P2Win)
        );
        // `mate -0` (mated now) counts as lost, `mate 0` too: never a draw.
        let mated = score_cp(&SearchInfo {
            depth: None,
            cp: None,
            mate: Some(0),
        });
        assert_eq!(mated, Some(-MATE_AS_CP));
    }
}
