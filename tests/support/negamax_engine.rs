//! `negamax-engine`: a deliberately simple Mixtour opponent, the yardstick of
//! issue 6. It stands in for the kind of CPU player that StackAndConquer (the
//! open-source Mixtour GUI) ships: a fixed-depth negamax over a hand-written
//! "tower threat" evaluation. It is independent of stackfish's engine: it
//! takes only the rules from the `stackfish` library (move generation, making
//! moves, the end of the game, notation) and none of its search or evaluation.
//!
//! Search: plain negamax with alpha-beta to the fixed depth (option `Depth`,
//! default 4; `go depth N` overrides it for one search). No transposition
//! table, no quiescence, no iterative deepening, no repetition detection.
//! Below the root, tower-completing moves are tried first, then the two
//! killer moves of the ply (the last quiet moves that cut off there), then
//! the rest in the rules library's generation order. The order changes only
//! the speed, never a value: fail-hard alpha-beta returns the minimax value
//! clamped to the window whatever the order (option `Ordering false` turns
//! it off, for the test that shows this). The root searches every move,
//! in generation order, with a window one point wider
//! than the best so far, so every move that equals the best is known exactly;
//! among those the move is drawn at random from a generator seeded by the
//! position's hash and the `Seed` option: the same game replays the same
//! moves, different positions or seeds vary.
//!
//! Evaluation, from the side to move (S) against the opponent (O):
//!
//! ```text
//! finished game:  +/-(1_000_000 - ply) for a win/loss (faster wins first), 0 for a draw
//! otherwise:      10_000 * (points(S) - points(O))
//!               +    100 * (towers(S) - towers(O))
//!               + sum over stacks of TALL[height] * (+1 if S's piece is on top, -1 if O's)
//!               +      1 * (reserve(S) - reserve(O))
//! TALL = [0, 1, 3, 6, 10] for heights 0..4
//! ```
//!
//! `towers(X)` is the number of distinct legal stack moves in the position
//! (the moves the side to move could play; both players can move any stack)
//! that would complete a tower (target height + pieces moved >= 5) with X's
//! piece on top, i.e. that would score a point for X (rules:
//! docs/rules/mixtour.md, "Towers").
//!
//! Protocol (UGI, UCI spellings accepted): `ugi`/`uci`, `isready`,
//! `setoption name Depth|Seed|Ordering|Game value V` (`Game`: `mixtour` or
//! `mixtour-5`, anything else is refused with `info string error: ...`),
//! `uginewgame`/`ucinewgame`, `position startpos|fen <fen> [moves ...]`,
//! `go [depth N] [infinite] ...` (clocks, `movetime` and `nodes` are ignored;
//! one `info depth N score cp S nodes N time T pv M` line, then
//! `bestmove M`), `stop`, `query gameover|p1turn|result`, `d`, `quit`.
//! While a search runs, `isready`, `stop` and `quit` act at once and every
//! other command waits for the `bestmove`.

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::time::Instant;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use stackfish::game::mixtour::{Mixtour, MixtourVariant, MoveKind, Standard};

type Move = stackfish::game::mixtour::Move<Standard>;
use stackfish::game::{Game, GameResult, Line, Outcome, Side};

const DEFAULT_DEPTH: u32 = 4;
const MAX_DEPTH: u32 = 12;

const WIN: i32 = 1_000_000;
const POINT: i32 = 10_000;
const TOWER_MOVE: i32 = 100;
const TALL: [i32; 5] = [0, 1, 3, 6, 10];
const RESERVE: i32 = 1;

/// The tower-threat evaluation (formula in the header), from the side to move.
/// The tower moves are counted from the bitboards rather than by generating
/// every move: a source that reaches a target of height k holding h pieces
/// offers one completing move per count from 5 - k to h, all topped by the
/// source's top piece; the forbidden take-back is taken off if it is one.
/// Debug builds (the tests) check it against `evaluate_by_moves`, the
/// formula followed literally.
fn evaluate(pos: &Mixtour) -> i32 {
    let us = pos.side_to_move();
    let them = us.opponent();
    let sign = |side: Option<Side>| match side {
        Some(s) if s == us => 1,
        Some(_) => -1,
        None => 0,
    };
    let mut score = POINT * (i32::from(pos.score(us)) - i32::from(pos.score(them)));
    let exact = pos.exact_heights();
    for by_height in pos.sources_all(&exact) {
        for (k, &sources) in by_height.iter().enumerate() {
            // Onto a target of height k + 1, 4 - k pieces make five.
            let need = 4 - k as u32;
            let mut b = sources & pos.at_least(need as usize);
            while b != 0 {
                let from = b.trailing_zeros() as u8;
                b &= b - 1;
                let moves = (pos.height(from) - need + 1) as i32;
                score += TOWER_MOVE * moves * sign(pos.stack(from).top());
            }
        }
    }
    if let Some(MoveKind::Stack { count, from, to }) = pos.forbidden().map(Move::kind) {
        if pos.stack_move_fits(count, from, to) && pos.height(to) + u32::from(count) >= 5 {
            score -= TOWER_MOVE * sign(pos.stack(from).top());
        }
    }
    for (h, &squares) in exact.iter().enumerate() {
        let mine = (pos.tops(us) & squares).count_ones() as i32;
        let theirs = (pos.tops(them) & squares).count_ones() as i32;
        score += TALL[h + 1] * (mine - theirs);
    }
    let score = score + RESERVE * (i32::from(pos.reserve(us)) - i32::from(pos.reserve(them)));
    debug_assert_eq!(
        score,
        evaluate_by_moves(pos, &mut Vec::new()),
        "{}",
        pos.fen()
    );
    score
}

/// The evaluation exactly as the header's formula reads: every legal move
/// generated and looked at. The reference `evaluate` is checked against.
#[cfg_attr(not(debug_assertions), allow(dead_code))]
fn evaluate_by_moves(pos: &Mixtour, moves: &mut Vec<Move>) -> i32 {
    let us = pos.side_to_move();
    let them = us.opponent();
    let sign = |side: Side| if side == us { 1 } else { -1 };
    let mut score = POINT * (i32::from(pos.score(us)) - i32::from(pos.score(them)));
    moves.clear();
    pos.generate_moves(moves);
    for &mv in moves.iter() {
        if let MoveKind::Stack { count, from, to } = mv.kind() {
            if pos.height(to) + u32::from(count) >= 5 {
                let top = pos
                    .stack(from)
                    .top()
                    .expect("a stack move starts on a stack");
                score += TOWER_MOVE * sign(top);
            }
        }
    }
    for square in 0..25u8 {
        let stack = pos.stack(square);
        if let Some(top) = stack.top() {
            score += TALL[stack.height() as usize] * sign(top);
        }
    }
    score + RESERVE * (i32::from(pos.reserve(us)) - i32::from(pos.reserve(them)))
}

struct Search<'a> {
    nodes: u64,
    stop: &'a AtomicBool,
    /// One move list per ply, so the search allocates only while it warms up.
    lists: Vec<Vec<Move>>,
    /// Per ply, the last two quiet moves that caused a cutoff there.
    killers: Vec<[Option<Move>; 2]>,
    /// Whether moves are ordered at all (`Ordering` option).
    ordering: bool,
}

/// Whether `mv` completes a tower (ends the game in Mixtour's one-point game).
fn completes_tower(pos: &Mixtour, mv: Move) -> bool {
    matches!(mv.kind(), MoveKind::Stack { count, to, .. } if pos.height(to) + u32::from(count) >= 5)
}

impl Search<'_> {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Negamax with alpha-beta, fail-hard, from the side to move.
    fn negamax(&mut self, pos: &Mixtour, depth: u32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if let Outcome::Over { result, .. } = pos.outcome() {
            return match result.winner() {
                None => 0,
                Some(w) if w == pos.side_to_move() => WIN - ply as i32,
                Some(_) => -(WIN - ply as i32),
            };
        }
        while self.lists.len() <= ply {
            self.lists.push(Vec::new());
            self.killers.push([None; 2]);
        }
        if depth == 0 {
            return evaluate(pos);
        }
        let mut moves = std::mem::take(&mut self.lists[ply]);
        moves.clear();
        pos.generate_moves(&mut moves);
        let killers = self.killers[ply];
        // A stable sort keeps generation order within each class.
        let ordering = self.ordering;
        moves.sort_by_key(|&mv| {
            if !ordering {
                return 0;
            }
            if completes_tower(pos, mv) {
                0
            } else if killers.contains(&Some(mv)) {
                1
            } else {
                2
            }
        });
        for &mv in &moves {
            if self.stopped() {
                break;
            }
            let mut child = *pos;
            child.play(mv);
            let score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
            if score >= beta {
                if !completes_tower(pos, mv) && killers[0] != Some(mv) {
                    self.killers[ply] = [Some(mv), killers[0]];
                }
                alpha = beta;
                break;
            }
            alpha = alpha.max(score);
        }
        self.lists[ply] = moves;
        alpha
    }
}

struct Report {
    best: Move,
    score: i32,
    nodes: u64,
}

/// Searches `pos` (not finished) to `depth` and picks among the equal best
/// root moves at random. When `stop` is raised the moves searched so far decide.
fn search_root(pos: &Mixtour, depth: u32, seed: u64, ordering: bool, stop: &AtomicBool) -> Report {
    let mut search = Search {
        nodes: 1,
        stop,
        lists: Vec::new(),
        killers: Vec::new(),
        ordering,
    };
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    let mut best_score = -WIN - 1;
    let mut best: Vec<Move> = Vec::new();
    for &mv in &moves {
        let mut child = *pos;
        child.play(mv);
        // A window reaching one below the best so far: a move that ties the
        // best comes back exact, a worse one fails low.
        let alpha = best_score - 1;
        let score = -search.negamax(&child, depth - 1, -(WIN + 1), -alpha, 1);
        if search.stopped() {
            break;
        }
        if score > best_score {
            best_score = score;
            best.clear();
        }
        if score == best_score {
            best.push(mv);
        }
    }
    let mut rng = StdRng::seed_from_u64(pos.hash() ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    Report {
        best: best.choose(&mut rng).copied().unwrap_or(moves[0]),
        // Stopped before the first move was searched: nothing is known.
        score: if best.is_empty() { 0 } else { best_score },
        nodes: search.nodes,
    }
}

/// `score cp S`, or `score mate N` (moves of the winner) for a forced end.
fn score_text(score: i32) -> String {
    if score.abs() > WIN - 1000 {
        let plies = WIN - score.abs();
        let moves = (plies + 1) / 2;
        format!("mate {}", if score > 0 { moves } else { -moves })
    } else {
        format!("cp {score}")
    }
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

enum Event {
    Line(String),
    Eof,
    /// The search thread printed its `bestmove`.
    Done,
}

struct Engine {
    variant: MixtourVariant,
    game_name: &'static str,
    line: Line<Mixtour>,
    depth: u32,
    seed: u64,
    ordering: bool,
    /// Set while a search runs: raise it to stop the search.
    searching: Option<Arc<AtomicBool>>,
    /// Whether the running search is `go infinite` (waits for `stop`).
    infinite: bool,
    events: Sender<Event>,
}

/// The value after `value` of a `setoption name N value V` line, and the
/// name (spaces removed, lower case).
fn option_parts(tokens: &[&str]) -> (String, Option<String>) {
    let at = tokens.iter().position(|t| t.eq_ignore_ascii_case("value"));
    let end = at.unwrap_or(tokens.len());
    let name = tokens
        .get(2..end)
        .unwrap_or(&[])
        .concat()
        .to_ascii_lowercase();
    let value = at.map(|i| tokens[i + 1..].join(" "));
    (name, value)
}

impl Engine {
    fn handle(&mut self, line: &str) {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        match tokens.first().copied() {
            None => {}
            Some(hello @ ("ugi" | "uci")) => {
                say("id name negamax");
                say("id author stackfish tests (reference opponent)");
                say(&format!(
                    "option name Depth type spin default {DEFAULT_DEPTH} min 1 max {MAX_DEPTH}"
                ));
                say("option name Seed type spin default 0 min 0 max 2147483647");
                say("option name Ordering type check default true");
                say("option name Game type combo default mixtour var mixtour var mixtour-5");
                say(if hello == "ugi" { "ugiok" } else { "uciok" });
            }
            Some("isready") => say("readyok"),
            Some("debug") | Some("ponderhit") | Some("stop") => {}
            Some("setoption") => self.set_option(&tokens),
            Some("uginewgame") | Some("ucinewgame") => self.line = Line::new(self.variant),
            Some("position") => self.set_position(&tokens),
            Some("go") => self.go(&tokens),
            Some("query") => {
                let outcome = self.line.outcome();
                let answer = match tokens.get(1).copied() {
                    Some("gameover") => outcome.is_over().to_string(),
                    Some("p1turn") => (self.line.position().side_to_move() == Side::P1).to_string(),
                    Some("result") => outcome.result().map_or("none", GameResult::ugi).to_string(),
                    _ => {
                        say(&format!("info string error: unknown query: {line}"));
                        return;
                    }
                };
                say(&format!("response {answer}"));
            }
            Some("d") => {
                for l in self.line.position().pretty().lines() {
                    say(l);
                }
                say(&format!("Fen: {}", self.line.position().fen()));
            }
            Some(_) => say(&format!("info string unknown command: {line}")),
        }
    }

    fn set_option(&mut self, tokens: &[&str]) {
        let (name, value) = option_parts(tokens);
        let value = value.unwrap_or_default();
        match name.as_str() {
            "depth" => match value.parse::<u32>() {
                Ok(d) if (1..=MAX_DEPTH).contains(&d) => self.depth = d,
                _ => say(&format!(
                    "info string error: Depth must be 1..{MAX_DEPTH}, not '{value}'"
                )),
            },
            "ordering" => match value.as_str() {
                "true" => self.ordering = true,
                "false" => self.ordering = false,
                _ => say(&format!(
                    "info string error: Ordering must be true or false, not '{value}'"
                )),
            },
            "seed" => match value.parse::<u64>() {
                Ok(s) => self.seed = s,
                _ => say(&format!("info string error: Seed must be a number, not '{value}'")),
            },
            "game" => match value.to_ascii_lowercase().as_str() {
                "mixtour" => self.set_game("mixtour", MixtourVariant::STANDARD),
                "mixtour-5" => self.set_game("mixtour-5", MixtourVariant::FIVE_POINTS),
                _ => say(&format!(
                    "info string error: unsupported game '{value}' (mixtour, mixtour-5); still playing {}",
                    self.game_name
                )),
            },
            _ => say(&format!("info string error: unknown option '{name}'")),
        }
    }

    fn set_game(&mut self, name: &'static str, variant: MixtourVariant) {
        self.game_name = name;
        self.variant = variant;
        self.line = Line::new(variant);
    }

    /// Applies the whole `position` line or nothing.
    fn set_position(&mut self, tokens: &[&str]) {
        let moves_at = tokens
            .iter()
            .position(|&t| t == "moves")
            .unwrap_or(tokens.len());
        let start = match tokens.get(1).copied() {
            Some("startpos") if moves_at == 2 => Ok(Line::new(self.variant)),
            Some("fen") if moves_at > 2 => {
                Line::from_fen(self.variant, &tokens[2..moves_at].join(" "))
                    .map_err(|e| e.to_string())
            }
            _ => Err("expected 'position startpos|fen <fen> [moves ...]'".to_string()),
        };
        let result = start.and_then(|mut line| {
            for (i, text) in tokens.iter().skip(moves_at + 1).enumerate() {
                line.play_text(text)
                    .map_err(|e| format!("{e} (move {} of the list)", i + 1))?;
            }
            Ok(line)
        });
        match result {
            Ok(line) => self.line = line,
            Err(e) => say(&format!("info string error: {e}; position unchanged")),
        }
    }

    fn go(&mut self, tokens: &[&str]) {
        if let Outcome::Over { reason, .. } = self.line.outcome() {
            say(&format!(
                "info string the game is over ({reason}); nothing to search"
            ));
            say("bestmove none");
            return;
        }
        let mut depth = self.depth;
        if let Some(i) = tokens.iter().position(|&t| t == "depth") {
            match tokens.get(i + 1).and_then(|v| v.parse::<u32>().ok()) {
                Some(d) if d >= 1 => depth = d.min(MAX_DEPTH),
                _ => say("info string go: bad depth; ignored"),
            }
        }
        let infinite = tokens.contains(&"infinite");
        self.infinite = infinite;
        let stop = Arc::new(AtomicBool::new(false));
        self.searching = Some(stop.clone());
        let pos = *self.line.position();
        let (seed, ordering) = (self.seed, self.ordering);
        let events = self.events.clone();
        std::thread::spawn(move || {
            let started = Instant::now();
            let report = search_root(&pos, depth, seed, ordering, &stop);
            let ms = started.elapsed().as_millis();
            say(&format!(
                "info depth {depth} score {} nodes {} time {ms} pv {}",
                score_text(report.score),
                report.nodes,
                report.best
            ));
            // `go infinite` answers only on `stop`, as the protocol says.
            while infinite && !stop.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            say(&format!("bestmove {}", report.best));
            let _ = events.send(Event::Done);
        });
    }
}

const USAGE: &str = "Usage: negamax-engine

A fixed-depth negamax Mixtour engine (the reference opponent); speaks UGI on
stdin/stdout. Options: Depth (default 4), Seed, Ordering, Game (mixtour or
mixtour-5).
";

fn main() {
    if std::env::args().skip(1).any(|a| a == "--help" || a == "-h") {
        print!("{USAGE}");
        return;
    }
    // A panic in the search thread must not leave the process waiting.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        std::process::exit(101);
    }));
    let (events, inbox) = channel();
    let reader = events.clone();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if reader.send(Event::Line(line)).is_err() {
                return;
            }
        }
        let _ = reader.send(Event::Eof);
    });
    let mut engine = Engine {
        variant: MixtourVariant::STANDARD,
        game_name: "mixtour",
        line: Line::new(MixtourVariant::STANDARD),
        depth: DEFAULT_DEPTH,
        seed: 0,
        ordering: true,
        searching: None,
        infinite: false,
        events,
    };
    let mut queued: VecDeque<String> = VecDeque::new();
    let mut quitting = false;
    let mut input_ended = false;
    while let Ok(event) = inbox.recv() {
        match event {
            Event::Done => engine.searching = None,
            // End of input: finish what was asked (a piped script), then exit.
            Event::Eof => input_ended = true,
            Event::Line(line) => {
                // Control characters would only confuse the tokenizer.
                let line: String = line
                    .chars()
                    .map(|c| if c.is_control() { ' ' } else { c })
                    .collect();
                let first = line.split_whitespace().next().unwrap_or("");
                match (&engine.searching, first) {
                    (_, "quit") => quitting = true,
                    (Some(stop), "stop") => stop.store(true, Ordering::Relaxed),
                    (Some(_), "isready") => say("readyok"),
                    _ => queued.push_back(line),
                }
            }
        }
        if quitting {
            let Some(stop) = &engine.searching else {
                return;
            };
            // Let the search print its bestmove before the process ends.
            stop.store(true, Ordering::Relaxed);
            continue;
        }
        while engine.searching.is_none() {
            let Some(line) = queued.pop_front() else {
                break;
            };
            engine.handle(&line);
        }
        if input_ended {
            match &engine.searching {
                // Nobody is left to send the `stop` it waits for.
                Some(stop) if engine.infinite => stop.store(true, Ordering::Relaxed),
                None if queued.is_empty() => return,
                _ => {}
            }
        }
    }
}
