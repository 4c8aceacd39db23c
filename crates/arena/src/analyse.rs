//! `arena analyse`: the engine author's question, which move lost each game
//! of a match. Every game of the records is reviewed (the review crate's
//! plan, searched by an engine as a child process, our own `stackfish` by
//! default, never trusted: its lines are checked by the rules) and its
//! decisive mistake listed under the engine that made it, with the
//! position string to reproduce it.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use stackfish_client::engine::{spawn_process, Engine, Logger, SearchError, Spawner};
use stackfish_client::spec::{EngineSpec, Timeouts};
use stackfish_record::RecordReader;
use stackfish_review::{Decisive, Evaluator, Model, ReviewGame, Searched, Task};
use stackfish_ugi::InfoLine;

use crate::ArenaError;

/// How long an engine has to answer `stop` after a search's deadline.
const STOP_GRACE: Duration = Duration::from_secs(1);

/// The analysing engine and how long it searches each position.
#[derive(Clone, Debug)]
pub struct AnalyseConfig {
    /// Its limit is the spec's own: `nodes=`, `depth=` or `st=` (a clock
    /// means nothing for one position).
    pub engine: EngineSpec,
    pub timeouts: Timeouts,
}

impl AnalyseConfig {
    /// `go nodes N` / `go depth D` / `go movetime MS` of the spec's limits
    /// (all that are given; the spec has one at least, or it does not
    /// read): a review's searches are always bounded.
    pub fn go_line(&self) -> Result<String, ArenaError> {
        let limits = self.engine.limits()?;
        if limits.tc.is_some() {
            return Err(ArenaError::Config(format!(
                "{}: a clock (tc=) is not a limit for one position: give nodes=, depth= or st=",
                self.engine.name
            )));
        }
        let mut go = "go".to_string();
        if let Some(n) = limits.nodes {
            go.push_str(&format!(" nodes {n}"));
        }
        if let Some(d) = limits.depth {
            go.push_str(&format!(" depth {d}"));
        }
        if let Some(ms) = limits.movetime_ms {
            go.push_str(&format!(" movetime {ms}"));
        }
        Ok(go)
    }

    /// How long one search may take before the engine is given up on.
    fn deadline(&self) -> Duration {
        let movetime = self.engine.st.map_or(0, |s| (s * 1000.0) as u64);
        Duration::from_millis(self.timeouts.max_move_ms.max(movetime * 2))
    }
}

/// One game's finding.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// The record file and the game's place in it (from 1).
    pub file: String,
    pub number: usize,
    /// The record's own game number.
    pub game: u32,
    pub result: String,
    pub termination: String,
    /// The loser's and the winner's names (none for a draw).
    pub loser: Option<String>,
    pub winner: Option<String>,
    pub decisive: Option<Decisive>,
    /// The decisive move was an opening move of the suite, not the engine's.
    pub book: bool,
    /// The move the record could not play, if any.
    pub stopped: Option<String>,
}

/// What a run found and skipped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    pub findings: Vec<Finding>,
    /// Games that could not be reviewed, each with why.
    pub skipped: Vec<String>,
}

/// The engine as a child process answering a review's searches.
struct ClientEvaluator<'a> {
    engine: &'a mut Engine,
    go: &'a str,
    deadline: Duration,
}

impl Evaluator for ClientEvaluator<'_> {
    type Error = ArenaError;

    fn evaluate(&mut self, task: &Task) -> Result<Searched, ArenaError> {
        let never = AtomicBool::new(false);
        let mut best: Option<InfoLine> = None;
        let reply = self.engine.search_live(
            &task.position_line(),
            self.go,
            Instant::now() + self.deadline,
            &never,
            STOP_GRACE,
            &mut |line| {
                let info = InfoLine::parse(line);
                if !info.string && info.score.is_some() && info.multipv.unwrap_or(1) == 1 {
                    best = Some(info);
                }
            },
        );
        let name = self.engine.name.clone();
        let reply = reply.map_err(|e| {
            ArenaError::Config(match e {
                SearchError::NoReply { waited } => format!(
                    "{name} did not answer a search in {:.1} s (position after {} moves)",
                    waited.as_secs_f64(),
                    task.index
                ),
                SearchError::Fault(f) => format!("{name}: {}", f.text),
            })
        })?;
        let info = best.ok_or_else(|| {
            ArenaError::Config(format!(
                "{name} gave no score for the position after {} moves: the review needs its info lines",
                task.index
            ))
        })?;
        let mut pv = info.pv.clone();
        if pv.first() != Some(&reply.mv) {
            // The best move is the one it played, whatever its last line said.
            pv = vec![reply.mv.clone()];
        }
        Ok(Searched {
            score: info.score.unwrap_or(stackfish_ugi::Score::Cp(0)),
            depth: info.depth.unwrap_or(0),
            pv,
            nodes: info.nodes.unwrap_or(0),
        })
    }
}

/// The engine for `variant`, started afresh when the variant changes.
struct Analyser<'a> {
    cfg: &'a AnalyseConfig,
    spawn: Spawner<'a>,
    running: Option<(String, Engine)>,
}

impl Analyser<'_> {
    fn engine(&mut self, variant: &str) -> Result<&mut Engine, ArenaError> {
        if self.running.as_ref().is_none_or(|(v, _)| v != variant) {
            if let Some((_, old)) = self.running.take() {
                old.quit();
            }
            let engine = Engine::start(
                &self.cfg.engine,
                variant,
                self.cfg.timeouts,
                Logger::default(),
                0,
                self.spawn,
            )
            .map_err(|e| match e {
                stackfish_client::engine::StartError::Spawn(e) => ArenaError::from(e),
                stackfish_client::engine::StartError::Fault(f) => {
                    ArenaError::Spawn(format!("{}: {}", self.cfg.engine.name, f.text))
                }
            })?;
            self.running = Some((variant.to_string(), engine));
        }
        match &mut self.running {
            Some((_, engine)) => Ok(engine),
            None => unreachable!("started above"),
        }
    }
}

/// Reviews every game of the record file `input` (named `name`) with the
/// engine of `cfg` (started through `spawn`), adding a finding per game to
/// `out`; `progress` hears the file, the game's place and the searches done
/// of its (done, total). A game that cannot be reviewed is skipped with its
/// reason; an engine that fails ends the run.
pub fn analyse_file(
    name: &str,
    input: impl BufRead,
    cfg: &AnalyseConfig,
    spawn: Spawner,
    out: &mut Analysis,
    progress: &mut dyn FnMut(&str, usize, usize, usize),
) -> Result<(), ArenaError> {
    let go = cfg.go_line()?;
    let mut analyser = Analyser {
        cfg,
        spawn,
        running: None,
    };
    let result = analyse_games(name, input, &go, &mut analyser, out, progress);
    if let Some((_, engine)) = analyser.running.take() {
        engine.quit();
    }
    result
}

fn analyse_games(
    name: &str,
    input: impl BufRead,
    go: &str,
    analyser: &mut Analyser,
    out: &mut Analysis,
    progress: &mut dyn FnMut(&str, usize, usize, usize),
) -> Result<(), ArenaError> {
    let deadline = analyser.cfg.deadline();
    for item in RecordReader::new(input) {
        let game = match item
            .parse()
            .map_err(|e| match e {
                stackfish_record::RecordError::Format(m) | stackfish_record::RecordError::Io(m) => {
                    m
                }
            })
            .and_then(|g| ReviewGame::from_record(&g.record, None).map_err(|e| e.to_string()))
        {
            Ok(game) => game,
            Err(e) => {
                out.skipped
                    .push(format!("{name}: game {}: {e}", item.number));
                continue;
            }
        };
        let record = game.record.clone();
        let stopped = game
            .stopped
            .as_ref()
            .map(|s| format!("ply {}: {}", s.ply, s.error));
        let winner = game.result.and_then(|r| r.winner());
        let names = [record.player1.clone(), record.player2.clone()];
        let mut finding = Finding {
            file: name.to_string(),
            number: item.number,
            game: record.game,
            result: record.result.clone(),
            termination: record.termination.clone(),
            loser: winner.map(|w| names[w.opponent().index()].clone()),
            winner: winner.map(|w| names[w.index()].clone()),
            decisive: None,
            book: false,
            stopped,
        };
        if winner.is_some() {
            let engine = analyser.engine(game.variant)?;
            engine
                .new_game()
                .map_err(|f| ArenaError::Spawn(format!("{}: {}", engine.name, f.text)))?;
            let model = Model::for_variant(game.variant);
            let mut evaluator = ClientEvaluator {
                engine,
                go,
                deadline,
            };
            let number = item.number;
            let review =
                stackfish_review::review(game, model, &mut evaluator, &mut |done, total| {
                    progress(name, number, done, total)
                })?;
            finding.book = review
                .decisive
                .as_ref()
                .and_then(|d| record.moves.get(d.ply - 1))
                .is_some_and(|m| m.book);
            finding.decisive = review.decisive;
        }
        out.findings.push(finding);
    }
    Ok(())
}

/// The listing `arena analyse` prints: per engine that lost games, each
/// game with its decisive mistake and the position to reproduce it.
pub fn format_findings(analysis: &Analysis) -> String {
    let mut by_engine: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    let mut drawn = 0;
    for f in &analysis.findings {
        match &f.loser {
            Some(loser) => by_engine.entry(loser).or_default().push(f),
            None => drawn += 1,
        }
    }
    let mut s = String::new();
    for (engine, games) in &by_engine {
        let found = games
            .iter()
            .filter(|g| g.decisive.is_some() && !g.book)
            .count();
        s.push_str(&format!(
            "{engine}: lost {} game{}, {found} with a decisive mistake\n",
            games.len(),
            if games.len() == 1 { "" } else { "s" }
        ));
        for g in games {
            let head = format!(
                "  {} game {} ({}, {}",
                g.file,
                g.game,
                g.result,
                if g.termination.is_empty() {
                    "?"
                } else {
                    &g.termination
                }
            );
            match &g.decisive {
                Some(d) => {
                    let pct = |e: Option<f64>| e.map_or("?".to_string(), |e| format!("{e:.2}"));
                    let class = d.class.map_or(String::new(), |c| c.symbol().to_string());
                    let mut better = d
                        .best
                        .as_ref()
                        .map_or(String::new(), |b| format!("; better {b}"));
                    if g.book {
                        better.push_str("; a book move: the opening lost it");
                    }
                    s.push_str(&format!(
                        "{head}): ply {} {}{class}, expected score {} -> {}{better}\n    position {}\n",
                        d.ply,
                        d.mv,
                        pct(d.before),
                        pct(d.after),
                        d.fen
                    ));
                }
                None => s.push_str(&format!(
                    "{head}): no decisive mistake (the engine never saw the game lost before its end)\n"
                )),
            }
            if let Some(stopped) = &g.stopped {
                s.push_str(&format!("    reviewed up to {stopped}\n"));
            }
        }
    }
    if drawn > 0 {
        s.push_str(&format!(
            "{drawn} drawn or unfinished game{}: no loser\n",
            if drawn == 1 { "" } else { "s" }
        ));
    }
    for skipped in &analysis.skipped {
        s.push_str(&format!("skipped: {skipped}\n"));
    }
    s
}

/// The default analysing engine: our own, beside the arena.
pub fn default_engine() -> EngineSpec {
    EngineSpec {
        name: "stackfish".to_string(),
        cmd: "stackfish".to_string(),
        nodes: Some(100_000),
        ..EngineSpec::default()
    }
}

/// Spawns engine processes as a match does.
pub fn spawner() -> Spawner<'static> {
    &spawn_process
}

#[cfg(test)]
mod tests {
    use super::*;
    use stackfish_games::Side;
    use stackfish_review::Class;

    fn finding(game: u32, loser: Option<&str>, decisive: Option<(usize, bool)>) -> Finding {
        Finding {
            file: "m.jsonl".into(),
            number: game as usize,
            game,
            result: if loser.is_some() { "1-0" } else { "1/2-1/2" }.into(),
            termination: "goal reached".into(),
            loser: loser.map(str::to_string),
            winner: loser.map(|_| "A".to_string()),
            decisive: decisive.map(|(ply, _)| Decisive {
                ply,
                mv: "c3".into(),
                side: Side::P2,
                fen: format!("fen-{game}"),
                before: Some(0.5),
                after: Some(0.1),
                class: Some(Class::Blunder),
                best: Some("d4".into()),
            }),
            book: decisive.is_some_and(|(_, book)| book),
            stopped: None,
        }
    }

    #[test]
    fn the_listing_groups_lost_games_by_engine_with_their_positions() {
        let analysis = Analysis {
            findings: vec![
                finding(1, Some("B"), Some((7, false))),
                finding(2, None, None),
                finding(3, Some("B"), None),
                finding(4, Some("B"), Some((2, true))),
            ],
            skipped: vec!["m.jsonl: game 5: not a game record".into()],
        };
        assert_eq!(
            format_findings(&analysis),
            "B: lost 3 games, 1 with a decisive mistake\n\
             \x20 m.jsonl game 1 (1-0, goal reached): ply 7 c3??, expected score 0.50 -> 0.10; better d4\n\
             \x20   position fen-1\n\
             \x20 m.jsonl game 3 (1-0, goal reached): no decisive mistake (the engine never saw the game lost before its end)\n\
             \x20 m.jsonl game 4 (1-0, goal reached): ply 2 c3??, expected score 0.50 -> 0.10; better d4; a book move: the opening lost it\n\
             \x20   position fen-4\n\
             1 drawn or unfinished game: no loser\n\
             skipped: m.jsonl: game 5: not a game record\n"
        );
    }

    #[test]
    fn the_limit_is_one_position_s_never_a_clock() {
        let mut cfg = AnalyseConfig {
            engine: default_engine(),
            timeouts: Timeouts::default(),
        };
        assert_eq!(cfg.go_line().unwrap(), "go nodes 100000");
        cfg.engine.nodes = None;
        cfg.engine.depth = Some(9);
        cfg.engine.st = Some(0.25);
        assert_eq!(cfg.go_line().unwrap(), "go depth 9 movetime 250");
        cfg.engine.depth = None;
        cfg.engine.st = None;
        assert!(cfg
            .go_line()
            .unwrap_err()
            .to_string()
            .contains("engine 'stackfish' has no limit"));
        cfg.engine.tc = Some("10+0.1".into());
        assert!(cfg
            .go_line()
            .unwrap_err()
            .to_string()
            .contains("a clock (tc=) is not a limit"));
    }
}
