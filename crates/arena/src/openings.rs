//! Opening suites: reading them (one per line: a FEN or `startpos moves ...`,
//! `#` comments) checked against the rules, and generating random ones.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::HashSet;
use std::path::Path;

use super::ArenaError;
use stackfish_games::variants::{dealt_start_fen, new_game};
use stackfish_games::AnyGame;

/// An opening that does not fit the rules, or a suite that cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningError {
    #[error("unknown game '{0}'")]
    UnknownGame(String),
    /// A position string or move the rules refuse, in the rules' words.
    #[error("{0}")]
    Rules(String),
    #[error("the game is already over ({0})")]
    Over(String),
    #[error("the start is already over ({0})")]
    StartOver(String),
    #[error("no position")]
    NoPosition,
    /// The filter of `generate` gave up (the balanced filter's engine failed).
    #[error("{0}")]
    Filter(String),
}

/// A start for a game pair: a position and moves played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// `None`: the variant's start position (sent as `position startpos`).
    pub fen: Option<String>,
    /// Canonical move texts, checked legal.
    pub moves: Vec<String>,
}

impl Opening {
    pub fn startpos() -> Opening {
        Opening {
            fen: None,
            moves: Vec::new(),
        }
    }

    /// Reads one line of a suite: `startpos [moves ...]`, `[fen] <fen> [moves ...]`.
    /// The result is checked against the rules of `game`: it must be legal
    /// and not already finished.
    pub fn parse(game: &str, line: &str) -> Result<Opening, OpeningError> {
        let line = line.trim();
        let (head, moves) = match line.split_once(" moves") {
            Some((h, m)) if m.is_empty() || m.starts_with(char::is_whitespace) => (h.trim(), m),
            _ => (line, ""),
        };
        let head = head.strip_prefix("fen ").unwrap_or(head).trim();
        let fen = if head == "startpos" {
            None
        } else {
            Some(head.to_string())
        };
        let moves: Vec<&str> = moves.split_whitespace().collect();
        let board = replay(game, fen.as_deref(), &moves)?;
        if let stackfish_games::Outcome::Over { reason, .. } = board.outcome() {
            return Err(OpeningError::Over(reason.to_string()));
        }
        // Store the FEN in the game's own spelling, and drop it when it is the start.
        let fen = match fen {
            Some(_) if board.start_fen() == start_fen(game)? => None,
            Some(_) => Some(board.start_fen()),
            None => None,
        };
        Ok(Opening {
            fen,
            moves: board.moves(),
        })
    }

    /// Reads a line without checking it (`--referee engines`: a game the
    /// library does not know).
    pub fn parse_unchecked(line: &str) -> Result<Opening, OpeningError> {
        let line = line.trim();
        let (head, moves) = match line.split_once(" moves") {
            Some((h, m)) if m.is_empty() || m.starts_with(char::is_whitespace) => (h.trim(), m),
            _ => (line, ""),
        };
        let head = head.strip_prefix("fen ").unwrap_or(head).trim();
        if head.is_empty() {
            return Err(OpeningError::NoPosition);
        }
        Ok(Opening {
            fen: (head != "startpos").then(|| head.to_string()),
            moves: moves.split_whitespace().map(str::to_string).collect(),
        })
    }

    /// The line as written to a suite file.
    pub fn to_line(&self) -> String {
        let mut s = match &self.fen {
            None => "startpos".to_string(),
            Some(f) => f.clone(),
        };
        if !self.moves.is_empty() {
            s.push_str(" moves ");
            s.push_str(&self.moves.join(" "));
        }
        s
    }

    /// The `position` command that sets this opening up in an engine.
    pub fn position_command(&self) -> String {
        match &self.fen {
            None => format!("position {}", self.to_line()),
            Some(_) => format!("position fen {}", self.to_line()),
        }
    }

    /// A fresh referee board at this opening, with its moves played.
    pub fn board(&self, game: &str) -> Result<Box<dyn AnyGame>, OpeningError> {
        let moves: Vec<&str> = self.moves.iter().map(String::as_str).collect();
        replay(game, self.fen.as_deref(), &moves)
    }
}

fn fresh_board(game: &str) -> Result<Box<dyn AnyGame>, OpeningError> {
    new_game(game).ok_or_else(|| OpeningError::UnknownGame(game.to_string()))
}

fn start_fen(game: &str) -> Result<String, OpeningError> {
    fresh_board(game).map(|g| g.start_fen())
}

fn rules(e: impl std::fmt::Display) -> OpeningError {
    OpeningError::Rules(e.to_string())
}

fn replay(game: &str, fen: Option<&str>, moves: &[&str]) -> Result<Box<dyn AnyGame>, OpeningError> {
    let mut board = fresh_board(game)?;
    if let Some(fen) = fen {
        board.set_fen(fen).map_err(rules)?;
    }
    for mv in moves {
        board.play_text(mv).map_err(rules)?;
    }
    Ok(board)
}

/// Reads a suite file, every line checked by the rules of `game`; errors
/// name the line.
pub fn load(game: &str, path: &Path) -> Result<Vec<Opening>, ArenaError> {
    load_with(path, &|line| Opening::parse(game, line))
}

/// A line without its comment. `#` is also a hole in a Mixtour position
/// string (`#,x3,#/...`), so a `#` starts a comment only at the start of the
/// line or after a blank, and not when a hole's `,`, `/` or count follows.
fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let after_blank = i == 0 || bytes[i - 1].is_ascii_whitespace();
        let hole = matches!(bytes.get(i + 1), Some(b',' | b'/' | b'0'..=b'9'));
        if b == b'#' && after_blank && !hole {
            return &line[..i];
        }
    }
    line
}

/// Reads a suite file with `parse` for each opening line.
pub fn load_with(
    path: &Path,
    parse: &dyn Fn(&str) -> Result<Opening, OpeningError>,
) -> Result<Vec<Opening>, ArenaError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ArenaError::Config(format!("cannot read {}: {e}", path.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = strip_comment(line).trim();
        if line.is_empty() {
            continue;
        }
        let opening = parse(line)
            .map_err(|e| ArenaError::Config(format!("{} line {}: {e}", path.display(), i + 1)))?;
        out.push(opening);
    }
    if out.is_empty() {
        return Err(ArenaError::Config(format!(
            "{}: no openings in the file",
            path.display()
        )));
    }
    Ok(out)
}

/// Random openings of exactly `plies` moves from the start, distinct by
/// final position, none finished. For a game whose start is dealt at random
/// (`Game::dealt_start`: Castle's skull layouts) each opening starts from a
/// start dealt for it, written as its FEN, and no two openings share a
/// start. `keep` can reject a candidate (the balanced filter); it returns
/// `Err` to abort. Gives up after a bounded number of attempts and returns
/// what it found.
pub fn generate(
    game: &str,
    plies: u32,
    count: usize,
    seed: u64,
    keep: &mut dyn FnMut(&Opening) -> Result<bool, OpeningError>,
) -> Result<Vec<Opening>, OpeningError> {
    generate_from(game, None, plies, count, seed, keep)
}

/// `generate`, from the position string `start` when given (another board:
/// every opening is written as that start and its moves) instead of the
/// variant's start.
pub fn generate_from(
    game: &str,
    start: Option<&str>,
    plies: u32,
    count: usize,
    seed: u64,
    keep: &mut dyn FnMut(&Opening) -> Result<bool, OpeningError>,
) -> Result<Vec<Opening>, OpeningError> {
    let mut rng = StdRng::seed_from_u64(seed);
    // Starts are dealt from a stream of their own, so games with a fixed
    // start draw exactly the moves they always drew.
    let mut deal_rng = StdRng::seed_from_u64(seed ^ 0x5EED_5CA1_AB1E_0001);
    let standard = start_fen(game)?;
    // The given start in the game's own spelling, checked once.
    let start = match start {
        Some(fen) => {
            let board = replay(game, Some(fen), &[])?;
            if let stackfish_games::Outcome::Over { reason, .. } = board.outcome() {
                return Err(OpeningError::StartOver(reason.to_string()));
            }
            Some(board.fen())
        }
        None => None,
    };
    let mut seen = HashSet::new();
    let mut seen_starts = HashSet::new();
    let mut out = Vec::new();
    let max_attempts = count.saturating_mul(50).max(1000);
    for _ in 0..max_attempts {
        if out.len() >= count {
            break;
        }
        let mut board = fresh_board(game)?;
        let dealt = match &start {
            Some(fen) => Some(fen.clone()),
            None => dealt_start_fen(game, deal_rng.gen()),
        };
        if let Some(fen) = &dealt {
            if start.is_none() && seen_starts.contains(fen) {
                continue;
            }
            board.set_fen(fen).map_err(rules)?;
        }
        let mut ok = true;
        for _ in 0..plies {
            let legal = board.legal_moves();
            let Some(mv) = legal.choose(&mut rng) else {
                ok = false;
                break;
            };
            board.play_text(mv).map_err(rules)?;
            if board.outcome().is_over() {
                ok = false;
                break;
            }
        }
        if !ok || !seen.insert(board.fen()) {
            continue;
        }
        let opening = Opening {
            // The standard start is written `startpos`, as `parse` would.
            fen: dealt.clone().filter(|fen| *fen != standard),
            moves: board.moves(),
        };
        if keep(&opening)? {
            out.push(opening);
            seen_starts.extend(dealt);
        }
    }
    Ok(out)
}

/// Shuffled (with a seed) or sequential opening order.
pub fn order(n: usize, seed: Option<u64>) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    if let Some(seed) = seed {
        idx.shuffle(&mut StdRng::seed_from_u64(seed));
    }
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_forms() {
        let o = Opening::parse("mixtour", "startpos moves c3 d4").unwrap();
        assert_eq!(o.fen, None);
        assert_eq!(o.moves, vec!["c3", "d4"]);
        assert_eq!(o.to_line(), "startpos moves c3 d4");
        let o = Opening::parse("mixtour", "x5/x5/x5/x5/x5 1 20,20 0,0 1 -").unwrap();
        assert_eq!(o, Opening::startpos());
        let o = Opening::parse("mixtour", "fen x5/x5/x5/x5/x5 1 20,20 0,0 1 - moves a1").unwrap();
        assert_eq!(o.moves, vec!["a1"]);
        let o = Opening::parse("mixtour", "x5/x5/x5/x5/1,x4 2 19,20 0,0 1 a1 moves b2").unwrap();
        assert!(o.fen.is_some());
        assert!(Opening::parse("mixtour", "startpos moves c3 c3").is_err());
        assert!(Opening::parse("mixtour", "nonsense").is_err());
    }

    #[test]
    fn generated_openings_are_distinct_and_reproducible() {
        let a = generate("mixtour", 4, 30, 7, &mut |_| Ok(true)).unwrap();
        let b = generate("mixtour", 4, 30, 7, &mut |_| Ok(true)).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.len(), 30);
        let lines: HashSet<String> = a.iter().map(|o| o.to_line()).collect();
        assert_eq!(lines.len(), 30);
        for o in &a {
            assert_eq!(o.moves.len(), 4);
            assert_eq!(Opening::parse("mixtour", &o.to_line()).as_ref(), Ok(o));
        }
    }

    /// The skulls of a Castle opening's start, checked through the rules.
    fn castle_skulls(game: &str, o: &Opening) -> Vec<usize> {
        use stackfish_games::castle::{Castle, CastleVariant};
        use stackfish_games::Game;
        let fen = o.fen.as_deref().expect("a dealt start is written as a FEN");
        let pos = Castle::from_fen(&CastleVariant::LEVEL_1, fen).unwrap();
        // The variant's passes, knights and side: only the skulls differ.
        let start = new_game(game).unwrap().start_fen();
        let strip = |f: &str| {
            f.split_whitespace()
                .enumerate()
                .filter(|&(i, _)| i != 3)
                .map(|(_, t)| t.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(fen), strip(&start));
        pos.skull_squares().collect()
    }

    #[test]
    fn castle_openings_deal_distinct_mirrored_skull_layouts() {
        use stackfish_games::castle::tables::mirror;
        for game in ["castle", "castle-2", "castle-3"] {
            for plies in [0, 3] {
                let a = generate(game, plies, 40, 11, &mut |_| Ok(true)).unwrap();
                assert_eq!(a, generate(game, plies, 40, 11, &mut |_| Ok(true)).unwrap());
                assert_ne!(a, generate(game, plies, 40, 12, &mut |_| Ok(true)).unwrap());
                assert_eq!(a.len(), 40);
                let mut layouts = HashSet::new();
                for o in &a {
                    assert_eq!(o.moves.len(), plies as usize);
                    // Valid through the rules, and written back unchanged.
                    assert_eq!(Opening::parse(game, &o.to_line()).as_ref(), Ok(o), "{game}");
                    assert!(!o.board(game).unwrap().outcome().is_over());
                    let mut skulls = castle_skulls(game, o);
                    assert_eq!(skulls.len(), 4);
                    for &sq in &skulls {
                        assert_ne!(mirror(sq), sq);
                        assert!(skulls.contains(&mirror(sq)), "{}", o.to_line());
                    }
                    skulls.sort_unstable();
                    assert!(layouts.insert(skulls), "layout dealt twice");
                }
            }
        }
    }

    #[test]
    fn castle_suites_are_capped_by_the_layouts_there_are() {
        // 28 pairs, 2 of them: 378 layouts (the standard one written `startpos`).
        let a = generate("castle", 0, 400, 5, &mut |_| Ok(true)).unwrap();
        assert_eq!(a.len(), 378);
        assert_eq!(a.iter().filter(|o| o.fen.is_none()).count(), 1);
    }

    #[test]
    fn castle_openings_play_in_colour_swapped_pairs() {
        use crate::schedule::schedule;
        let suite = generate("castle", 2, 6, 3, &mut |_| Ok(true)).unwrap();
        let games = schedule(2, 12, suite.len(), Some(9));
        assert_eq!(games.len(), 12);
        for pair in games.chunks(2) {
            assert_eq!(pair[0].opening, pair[1].opening);
            assert_eq!((pair[0].p1, pair[0].p2), (pair[1].p2, pair[1].p1));
            let o = &suite[pair[0].opening];
            assert!(o.position_command().starts_with("position fen x19/"));
            assert!(o.board("castle").is_ok());
        }
        let used: HashSet<usize> = games.iter().map(|g| g.opening).collect();
        assert_eq!(used.len(), 6);
    }

    #[test]
    fn openings_from_another_start_keep_it_and_are_checked() {
        let start = "x5/x5/x2,12,x2/x5/x5 1 18,19 0,0 2 -";
        let a = generate_from("mixtour", Some(start), 3, 20, 4, &mut |_| Ok(true)).unwrap();
        assert_eq!(a.len(), 20);
        assert_eq!(
            a,
            generate_from("mixtour", Some(start), 3, 20, 4, &mut |_| Ok(true)).unwrap()
        );
        for o in &a {
            assert_eq!(o.fen.as_deref(), Some(start));
            assert_eq!(o.moves.len(), 3);
            assert_eq!(Opening::parse("mixtour", &o.to_line()).as_ref(), Ok(o));
        }
        // The standard start given as a board is still written `startpos`.
        let std = generate_from(
            "mixtour",
            Some("x5/x5/x5/x5/x5 1 20,20 0,0 1 -"),
            2,
            3,
            1,
            &mut |_| Ok(true),
        );
        assert_eq!(std, generate("mixtour", 2, 3, 1, &mut |_| Ok(true)));
        // A bad or finished start is refused, not played from.
        assert!(generate_from(
            "mixtour",
            Some("x5/x4/x5/x5/x5 1 20,20 0,0 1 -"),
            2,
            3,
            1,
            &mut |_| Ok(true)
        )
        .is_err());
        let over = generate_from(
            "mixtour",
            Some("x5/x5/x5/x5/x5 1 20,20 1,0 1 -"),
            2,
            3,
            1,
            &mut |_| Ok(true),
        );
        assert!(over.unwrap_err().to_string().contains("already over"));
    }

    #[test]
    fn comments_are_cut_but_holes_are_kept() {
        assert_eq!(strip_comment("# a comment"), "");
        assert_eq!(strip_comment("#comment"), "");
        assert_eq!(
            strip_comment("startpos moves a1 # note"),
            "startpos moves a1 "
        );
        let fen = "#,x3,#/x5/x5/x5/#,x3,# 1 20,20 0,0 1 - moves b1";
        assert_eq!(strip_comment(fen), fen);
        assert_eq!(
            strip_comment("#2,x3/x5 1 20,20 0,0 1 - # x"),
            "#2,x3/x5 1 20,20 0,0 1 - "
        );
    }

    #[test]
    fn fixed_start_games_are_unchanged() {
        // Games without a dealt start still write `startpos moves ...`.
        for o in generate("silo", 2, 5, 1, &mut |_| Ok(true)).unwrap() {
            assert_eq!(o.fen, None);
        }
    }

    #[test]
    fn order_is_a_permutation() {
        let mut o = order(10, Some(3));
        assert_eq!(o, order(10, Some(3)));
        o.sort_unstable();
        assert_eq!(o, (0..10).collect::<Vec<_>>());
        assert_eq!(order(3, None), vec![0, 1, 2]);
    }
}
