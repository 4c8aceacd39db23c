//! The games of a record file reviewed one by one as they are read: a file
//! of any size (JSON lines, PGN blocks, or both), a range of its games
//! (`--games N..M`), every game that cannot be reviewed, or only in part, a
//! note that names it, and the rest reviewed all the same.

use std::io::BufRead;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;

use stackfish_engine::Engine;
use stackfish_record::{RecordError, RecordReader};
use stackfish_review::{Review, ReviewGame};

use crate::{review_game, AnalyseError, Limits};

/// Which games of a file, by their place in it (from 1, both ends in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameRange {
    pub first: usize,
    pub last: Option<usize>,
}

impl Default for GameRange {
    /// Every game.
    fn default() -> GameRange {
        GameRange {
            first: 1,
            last: None,
        }
    }
}

impl GameRange {
    pub fn contains(&self, n: usize) -> bool {
        n >= self.first && self.last.is_none_or(|l| n <= l)
    }

    /// Whether every game of the range comes before game `n`.
    pub fn before(&self, n: usize) -> bool {
        self.last.is_some_and(|l| n > l)
    }
}

impl std::fmt::Display for GameRange {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self.last {
            Some(l) if l == self.first => write!(f, "{l}"),
            Some(l) => write!(f, "{}..{l}", self.first),
            None => write!(f, "{}..", self.first),
        }
    }
}

/// `N` (game N), `N..M` (N to M), `N..` (N to the end), `..M` (1 to M).
impl FromStr for GameRange {
    type Err = String;

    fn from_str(text: &str) -> Result<GameRange, String> {
        let bad =
            || format!("{text:?}: a game number or a range N..M (from 1), e.g. 3..7, 5.., ..10");
        let number = |t: &str| -> Result<Option<usize>, String> {
            match t.trim() {
                "" => Ok(None),
                t => match t.parse::<usize>() {
                    Ok(0) | Err(_) => Err(bad()),
                    Ok(n) => Ok(Some(n)),
                },
            }
        };
        let range = match text.split_once("..") {
            None => {
                let n = number(text)?.ok_or_else(bad)?;
                GameRange {
                    first: n,
                    last: Some(n),
                }
            }
            Some((a, b)) => GameRange {
                first: number(a)?.unwrap_or(1),
                last: number(b)?,
            },
        };
        if range.last.is_some_and(|l| l < range.first) {
            return Err(format!("{text:?}: the range ends before it starts"));
        }
        Ok(range)
    }
}

/// What happens as a file is reviewed, for the caller to show and write.
pub enum Event {
    /// Game `number` of the file begins: `searches` positions to search.
    Start { number: usize, searches: usize },
    /// Searches done of the game's.
    Progress { done: usize, searches: usize },
    /// Something the user should know: a game skipped or reviewed in part.
    Note(String),
    /// Game `number` reviewed.
    Reviewed { number: usize, review: Box<Review> },
}

/// How many games were reviewed and skipped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileSummary {
    /// Games the file holds up to where reading stopped.
    pub read: usize,
    pub reviewed: usize,
    pub skipped: usize,
}

impl FileSummary {
    /// What a run over the file `name` comes to: an error when it held no
    /// game to review (none at all, none in `range`, none that could be
    /// reviewed), else a note when it held fewer games than `range` asks.
    pub fn outcome(&self, name: &str, range: &GameRange) -> Result<Option<String>, AnalyseError> {
        if self.read == 0 {
            return Err(AnalyseError::Input(format!("{name}: no game in it")));
        }
        if self.read < range.first {
            return Err(AnalyseError::Input(format!(
                "{name}: holds {} games, none in --games {range}",
                self.read
            )));
        }
        if self.reviewed == 0 {
            return Err(AnalyseError::Input(format!(
                "{name}: no game reviewed ({} skipped)",
                self.skipped
            )));
        }
        Ok(range.last.filter(|&l| self.read < l).map(|_| {
            format!(
                "{name}: holds {} games, fewer than --games {range}",
                self.read
            )
        }))
    }
}

/// Reviews one game given whole (`--fen`, `--moves`) with the events of a
/// file's game 1: a note for a move the rules refused, the start, the
/// progress, the review.
pub fn analyse_game(
    game: ReviewGame,
    engine: &mut Engine,
    limits: &Limits,
    interrupt: Option<&AtomicBool>,
    on_event: &mut dyn FnMut(Event) -> Result<(), AnalyseError>,
) -> Result<(), AnalyseError> {
    if let Some(s) = &game.stopped {
        on_event(Event::Note(format!(
            "ply {}: {}; reviewed up to it",
            s.ply, s.error
        )))?;
    }
    review_numbered(1, game, engine, limits, interrupt, on_event)
}

/// Reviews game `number` with its events: the start, the progress, the
/// review. A failed event ends the review with that error.
fn review_numbered(
    number: usize,
    game: ReviewGame,
    engine: &mut Engine,
    limits: &Limits,
    interrupt: Option<&AtomicBool>,
    on_event: &mut dyn FnMut(Event) -> Result<(), AnalyseError>,
) -> Result<(), AnalyseError> {
    let searches = stackfish_review::Reviewer::new(game.clone()).total();
    on_event(Event::Start { number, searches })?;
    let mut progress_error = None;
    let review = review_game(engine, game, limits, interrupt, &mut |done, searches| {
        if progress_error.is_none() {
            progress_error = on_event(Event::Progress { done, searches }).err();
        }
    })?;
    if let Some(e) = progress_error {
        return Err(e);
    }
    on_event(Event::Reviewed {
        number,
        review: Box::new(review),
    })
}

/// Reviews the games in `range` of the record file `input` (named `name`
/// in notes), each of variant `named` when given, with `engine` at
/// `limits`; `on_event` hears each step and may fail (writing the output),
/// which ends the run, as does an interrupt. Reading stops after the
/// range's last game.
#[allow(clippy::too_many_arguments)]
pub fn analyse_records<R: BufRead>(
    input: R,
    name: &str,
    range: &GameRange,
    named: Option<&str>,
    engine: &mut Engine,
    limits: &Limits,
    interrupt: Option<&AtomicBool>,
    on_event: &mut dyn FnMut(Event) -> Result<(), AnalyseError>,
) -> Result<FileSummary, AnalyseError> {
    let mut summary = FileSummary::default();
    for item in RecordReader::new(input) {
        summary.read = item.number;
        if range.before(item.number) {
            break;
        }
        if !range.contains(item.number) {
            continue;
        }
        let parsed = item
            .parse()
            .map_err(|e| match e {
                RecordError::Format(m) | RecordError::Io(m) => m,
            })
            .and_then(|g| {
                ReviewGame::from_record(&g.record, named)
                    .map_err(|e| format!("game {} (line {}): {e}", item.number, item.line))
            });
        let game = match parsed {
            Ok(game) => game,
            Err(e) => {
                summary.skipped += 1;
                on_event(Event::Note(format!("{name}: {e}; skipped")))?;
                if range.last == Some(item.number) {
                    break;
                }
                continue;
            }
        };
        if let Some(s) = &game.stopped {
            on_event(Event::Note(format!(
                "{name}: game {} (line {}): ply {}: {}; reviewed up to it",
                item.number, item.line, s.ply, s.error
            )))?;
        }
        let number = item.number;
        review_numbered(number, game, engine, limits, interrupt, on_event)?;
        summary.reviewed += 1;
        // The range's last game: nothing more is read (a pipe that goes on
        // is not waited for).
        if range.last == Some(number) {
            break;
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_read_and_refuse() {
        let r = |t: &str| t.parse::<GameRange>();
        assert_eq!(
            r("3"),
            Ok(GameRange {
                first: 3,
                last: Some(3)
            })
        );
        assert_eq!(
            r("2..5"),
            Ok(GameRange {
                first: 2,
                last: Some(5)
            })
        );
        assert_eq!(
            r("4.."),
            Ok(GameRange {
                first: 4,
                last: None
            })
        );
        assert_eq!(
            r("..7"),
            Ok(GameRange {
                first: 1,
                last: Some(7)
            })
        );
        for bad in ["0", "x", "3..1", "1..0", "", "..", "-1"] {
            let e = r(bad);
            if bad == ".." {
                // Every game: nothing wrong with it.
                assert_eq!(e, Ok(GameRange::default()));
                continue;
            }
            assert!(e.is_err(), "{bad}");
        }
        let summary = |read, reviewed, skipped| FileSummary {
            read,
            reviewed,
            skipped,
        };
        let outcome = |s: FileSummary, range: &str| {
            s.outcome("f.pgn", &r(range).unwrap())
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            outcome(summary(0, 0, 0), ".."),
            Err("f.pgn: no game in it".into())
        );
        assert_eq!(
            outcome(summary(3, 0, 0), "5.."),
            Err("f.pgn: holds 3 games, none in --games 5..".into())
        );
        assert_eq!(
            outcome(summary(3, 0, 2), "2.."),
            Err("f.pgn: no game reviewed (2 skipped)".into())
        );
        assert_eq!(
            outcome(summary(3, 1, 1), "2..9"),
            Ok(Some("f.pgn: holds 3 games, fewer than --games 2..9".into()))
        );
        assert_eq!(outcome(summary(3, 3, 0), ".."), Ok(None));
        let range = r("2..3").unwrap();
        assert!(!range.contains(1) && range.contains(2) && range.contains(3));
        assert!(!range.before(3) && range.before(4));
        assert!(!GameRange::default().before(usize::MAX));
        assert_eq!(range.to_string(), "2..3");
    }
}
