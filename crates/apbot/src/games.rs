//! The games as AP plays them: AP's move strings to ours and back, AP's
//! history replayed through the rules library, and a move chosen by the
//! search under AP's rules.

use std::sync::Arc;

use stackfish_games::coinstack::{CoinStack, CoinStackVariant};
use stackfish_games::mixtour::ap::{ap_variant, ApMixtour};
use stackfish_games::mixtour::{parse_square, square_name, MoveKind, Standard};
use stackfish_games::{find_legal, Game, Networks, Outcome};
use stackfish_search::{search, Heuristics, Limits, SearchParams, Shared};

/// What AP's history or notation does not allow; the notification is
/// refused (400) with this as the logged reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("unsupported game '{0}' (this bot plays mixtour and focus)")]
    UnknownGame(String),
    #[error("unsupported variants {0:?} for mixtour (none, [\"three\"] or [\"five\"])")]
    UnknownVariant(Vec<String>),
    #[error("move {ply} '{text}': {reason}")]
    Illegal {
        ply: usize,
        text: String,
        reason: String,
    },
    #[error("the game is already over ({0})")]
    Over(&'static str),
}

/// A supported game, as AP names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApGame {
    /// `goal`: the points that win (AP's variant none, `three`, `five`).
    Mixtour {
        goal: u8,
    },
    Focus,
}

impl ApGame {
    /// The game of a challenge: Mixtour with at most one of its variants;
    /// Focus, whose variants AP ignores, with any.
    pub fn from_challenge(meta: &str, variants: &[String]) -> Result<ApGame, PlayError> {
        match meta {
            "mixtour" => {
                let goal = match variants {
                    [] => 1,
                    [v] if v == "three" => 2,
                    [v] if v == "five" => 3,
                    _ => return Err(PlayError::UnknownVariant(variants.to_vec())),
                };
                Ok(ApGame::Mixtour { goal })
            }
            "focus" => Ok(ApGame::Focus),
            other => Err(PlayError::UnknownGame(other.to_string())),
        }
    }
}

/// A position reached by replaying AP's history.
#[derive(Clone, Debug)]
pub enum Replayed {
    Mixtour(ApMixtour),
    Focus(CoinStack),
}

/// Mixtour's target when a move notification arrives. AP loses the variant
/// in every Mixtour notification (its variants are always `[]`), so the
/// goal is inferred from play: the game goes on, so nobody has reached it
/// yet; it is at least one more than the best score, and never less than a
/// variant the notification does name (should AP fix the bug).
fn mixtour_goal(named: u8, best_score: u8) -> u8 {
    named.max(best_score + 1)
}

/// Replays AP's history (moves in order, both players) of `game`.
pub fn replay(game: ApGame, moves: &[String]) -> Result<Replayed, PlayError> {
    match game {
        ApGame::Mixtour { goal } => {
            // Replay with AP's largest goal, so that no point ends the
            // replay early, then set the goal inferred from the scores.
            let mut pos = ApMixtour::start(&ap_variant(u8::MAX));
            for (i, text) in moves.iter().enumerate() {
                let ours = mixtour_from_ap(&pos, text).map_err(|reason| PlayError::Illegal {
                    ply: i + 1,
                    text: text.clone(),
                    reason,
                })?;
                let mv = find_legal(&pos, &ours).map_err(|e| PlayError::Illegal {
                    ply: i + 1,
                    text: text.clone(),
                    reason: e.to_string(),
                })?;
                pos.play(mv);
            }
            let std = pos.standard();
            let best = std
                .score(stackfish_games::Side::P1)
                .max(std.score(stackfish_games::Side::P2));
            let goal = mixtour_goal(goal, best);
            let fen = std.fen();
            let mut fields: Vec<&str> = fen.split(' ').collect();
            let goal_text = goal.to_string();
            fields[4] = &goal_text;
            let pos = ApMixtour::from_fen(&ap_variant(goal), &fields.join(" ")).map_err(|e| {
                PlayError::Illegal {
                    ply: moves.len(),
                    text: String::new(),
                    reason: e.to_string(),
                }
            })?;
            Ok(Replayed::Mixtour(pos))
        }
        ApGame::Focus => {
            let mut pos = CoinStack::start(&CoinStackVariant::Focus);
            for (i, text) in moves.iter().enumerate() {
                let illegal = |reason: String| PlayError::Illegal {
                    ply: i + 1,
                    text: text.clone(),
                    reason,
                };
                let ours = focus_from_ap(text).map_err(illegal)?;
                let mv = find_legal(&pos, &ours).map_err(|e| illegal(e.to_string()))?;
                pos.play(mv);
            }
            if let Outcome::Over { reason, .. } = pos.outcome() {
                return Err(PlayError::Over(reason));
            }
            Ok(Replayed::Focus(pos))
        }
    }
}

/// How hard to think about one move.
#[derive(Clone, Debug)]
pub struct Think {
    pub move_ms: u64,
    pub depth: Option<i32>,
}

/// What the bot answers in a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// A move in AP's notation, and the search's depth and nodes.
    Move {
        text: String,
        depth: i32,
        nodes: u64,
    },
    /// The only legal move is a pass, which AP refuses (its validator reads
    /// `pass` as a square): nothing is submitted.
    OnlyPass,
}

impl Replayed {
    /// Searches the position (on the calling thread, with `table`, armed
    /// by the caller) and answers in AP's notation. No game history goes to
    /// the search: AP has no repetition rule, so an earlier occurrence of a
    /// position must not end a line. The search plays the game's networks
    /// of `networks`.
    pub fn choose(
        &self,
        think: &Think,
        networks: &Networks,
        table: &Arc<Shared>,
    ) -> Result<Choice, PlayError> {
        let limits = Limits {
            move_time: Some(think.move_ms.max(1)),
            depth: think.depth,
            ..Limits::default()
        };
        match self {
            Replayed::Mixtour(pos) => {
                if let Outcome::Over { reason, .. } = pos.outcome() {
                    return Err(PlayError::Over(reason));
                }
                let (mv, depth, nodes) = run(pos, &limits, networks, table)?;
                if mv.kind() == MoveKind::Pass {
                    return Ok(Choice::OnlyPass);
                }
                let text = mixtour_to_ap(pos, &mv.to_string())
                    .map_err(|reason| illegal_answer(&mv.to_string(), reason))?;
                Ok(Choice::Move { text, depth, nodes })
            }
            Replayed::Focus(pos) => {
                if let Outcome::Over { reason, .. } = pos.outcome() {
                    return Err(PlayError::Over(reason));
                }
                let (mv, depth, nodes) = run(pos, &limits, networks, table)?;
                let text = focus_to_ap(&mv.to_string())
                    .map_err(|reason| illegal_answer(&mv.to_string(), reason))?;
                Ok(Choice::Move { text, depth, nodes })
            }
        }
    }
}

impl Replayed {
    /// Whether AP's move `text` ends the game here (so no notification of
    /// the game will follow it). Mixtour's goal is inferred from play
    /// (`mixtour_goal`), so a Mixtour game may go on after a move this
    /// calls the end; the cost is documented at `StateDir::prune`.
    pub fn ends_game(&self, text: &str) -> bool {
        match self {
            Replayed::Mixtour(pos) => {
                let mut pos = *pos;
                let Ok(ours) = mixtour_from_ap(&pos, text) else {
                    return false;
                };
                let Ok(mv) = find_legal(&pos, &ours) else {
                    return false;
                };
                pos.play(mv);
                pos.outcome().is_over()
            }
            Replayed::Focus(pos) => {
                let mut pos = *pos;
                let Ok(ours) = focus_from_ap(text) else {
                    return false;
                };
                let Ok(mv) = find_legal(&pos, &ours) else {
                    return false;
                };
                pos.play(mv);
                pos.outcome().is_over()
            }
        }
    }
}

fn illegal_answer(text: &str, reason: String) -> PlayError {
    PlayError::Illegal {
        ply: 0,
        text: text.to_string(),
        reason,
    }
}

fn run<G: Game>(
    pos: &G,
    limits: &Limits,
    networks: &Networks,
    table: &Arc<Shared>,
) -> Result<(G::Move, i32, u64), PlayError> {
    let mut heuristics = vec![Heuristics::default()];
    let params = SearchParams {
        limits,
        move_overhead_ms: 0,
        threads: 1,
        exact: false,
        multipv: 1,
        root_moves: &[],
        nets: &G::nets(networks),
    };
    let found = search(
        pos,
        &[pos.repetition_key()],
        table,
        &mut heuristics,
        &params,
        &mut |_| {},
    );
    found
        .map(|r| (r.best, r.depth, r.nodes))
        .ok_or(PlayError::Over("no legal move"))
}

/// AP's Mixtour move in our notation. The count needs the position: AP
/// leaves it out for a whole stack, we leave it out for one piece.
pub fn mixtour_from_ap(pos: &ApMixtour, text: &str) -> Result<String, String> {
    if text == "pass" {
        return Ok("pass".to_string());
    }
    let square = |s: &str| {
        parse_square::<Standard>(s)
            .ok_or_else(|| format!("'{s}' is not a square of the 5 x 5 board"))
    };
    let Some((source, to)) = text.split_once('-') else {
        square(text)?;
        return Ok(text.to_string());
    };
    let (from, count) = match source.split_once(':') {
        Some((from, n)) => {
            let n: u32 = n
                .parse()
                .ok()
                .filter(|_| n.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| format!("'{n}' is not a piece count"))?;
            (from, Some(n))
        }
        None => (source, None),
    };
    let from_cell = square(from)?;
    square(to)?;
    let height = pos.standard().height(from_cell);
    let n = match count {
        // AP refuses a count equal to the whole stack, and 0.
        Some(n) if n == 0 || n >= height => {
            return Err(format!(
                "AP writes a count from 1 to {} for this stack",
                height.saturating_sub(1)
            ))
        }
        Some(n) => n,
        None if height == 0 => return Err(format!("no stack on {from}")),
        None => height,
    };
    Ok(if n == 1 {
        format!("{from}{to}")
    } else {
        format!("{n}{from}{to}")
    })
}

/// Our Mixtour move (as the rules library prints it) in AP's notation.
pub fn mixtour_to_ap(pos: &ApMixtour, text: &str) -> Result<String, String> {
    let mv = find_legal(pos, text).map_err(|e| e.to_string())?;
    Ok(match mv.kind() {
        MoveKind::Place(cell) => square_name::<Standard>(cell),
        MoveKind::Stack { count, from, to } => {
            let (f, t) = (square_name::<Standard>(from), square_name::<Standard>(to));
            if count as u32 == pos.standard().height(from) {
                format!("{f}-{t}")
            } else {
                format!("{f}:{count}-{t}")
            }
        }
        MoveKind::Pass => "pass".to_string(),
    })
}

/// AP's Focus board is ours upside down: rank r is our rank 9 - r.
fn flip_square(square: &str) -> Result<String, String> {
    let bytes = square.as_bytes();
    match bytes {
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            Ok(format!("{}{}", *f as char, (b'1' + b'8' - r) as char))
        }
        _ => Err(format!("'{square}' is not a square of the 8 x 8 board")),
    }
}

/// AP's Focus move (`d2-d3`, `+c2`) in our notation (`d7d6`, `c7`).
pub fn focus_from_ap(text: &str) -> Result<String, String> {
    if let Some(square) = text.strip_prefix('+') {
        return flip_square(square);
    }
    let (from, to) = text
        .split_once('-')
        .ok_or_else(|| format!("'{text}' is neither a drop (+c2) nor a move (d2-d3)"))?;
    Ok(format!("{}{}", flip_square(from)?, flip_square(to)?))
}

/// Our Focus move (`d7d6`, `c7`) in AP's notation (`d2-d3`, `+c2`).
pub fn focus_to_ap(text: &str) -> Result<String, String> {
    // Split by `get`: four bytes need not be four characters.
    match (text.len(), text.get(..2), text.get(2..)) {
        (2, _, _) => Ok(format!("+{}", flip_square(text)?)),
        (4, Some(from), Some(to)) => Ok(format!("{}-{}", flip_square(from)?, flip_square(to)?)),
        _ => Err(format!("'{text}' is not a Focus move")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the fuzz target `apbot_webhook`: a four-byte move text
    /// whose second byte is inside a character (`aéb`) panicked when cut.
    #[test]
    fn fuzz_apbot_webhook_focus_move_of_four_bytes_not_four_characters() {
        assert_eq!(
            focus_to_ap("aéb"),
            Err("'aéb' is not a Focus move".to_string())
        );
        assert_eq!(focus_to_ap("d7d6").as_deref(), Ok("d2-d3"));
    }

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    /// AP's own random game, and its conversion, from AP's code (the facts).
    const AP_GAME: &str = "a3 b2 d5 b4 e4 c2 c3 c3-b2 b4-b2 a4 e2 a4-a3 e5 c5 d5-c5 a2 d5 \
        e5-e4 d3 e2-d3 c3 c5:1-a3 b5 d3-c2 c2:2-e4 e4:3-d5 b2:2-a2 d5:3-e4 d1 a2:2-b2 e3 e4-e3";
    const OUR_GAME: &str = "a3 b2 d5 b4 e4 c2 c3 c3b2 b4b2 a4 e2 a4a3 e5 c5 d5c5 a2 d5 e5e4 d3 \
        e2d3 c3 c5a3 b5 2d3c2 2c2e4 3e4d5 2b2a2 3d5e4 d1 2a2b2 e3 4e4e3";

    #[test]
    fn aps_mixtour_game_converts_both_ways() {
        let mut pos = ApMixtour::start(&ap_variant(1));
        for (ap, ours) in words(AP_GAME).iter().zip(words(OUR_GAME)) {
            assert_eq!(mixtour_from_ap(&pos, ap).unwrap(), ours, "{ap}");
            assert_eq!(&mixtour_to_ap(&pos, &ours).unwrap(), ap, "{ours}");
            pos.play(find_legal(&pos, &ours).unwrap());
        }
        // AP player 1 won with the last move.
        assert_eq!(
            pos.outcome().result(),
            Some(stackfish_games::GameResult::P1Win)
        );
        let game = ApGame::Mixtour { goal: 1 };
        let history = words(AP_GAME);
        // The last move ended the game: the position before it replays.
        assert!(replay(game, &history[..history.len() - 1]).is_ok());
    }

    #[test]
    fn aps_take_back_replays() {
        let history = words("c3 b2 b2-c3 d4 c3:1-d4 d4:1-c3");
        assert!(replay(ApGame::Mixtour { goal: 1 }, &history).is_ok());
    }

    #[test]
    fn bad_mixtour_histories_are_refused_with_the_move() {
        let game = ApGame::Mixtour { goal: 1 };
        for (history, ply) in [
            ("c3 c3", 2),         // onto a stack
            ("c3 b2 b2:1-c3", 3), // a count equal to the whole stack
            ("c3 f1", 2),         // off the board
            ("c3 b2 b2-d4", 3),   // onto an empty square
            ("c3 b2 c3-b2 b2:0-a1", 4),
        ] {
            match replay(game, &words(history)) {
                Err(PlayError::Illegal { ply: p, .. }) => assert_eq!(p, ply, "{history}"),
                other => panic!("{history}: {other:?}"),
            }
        }
    }

    #[test]
    fn mixtours_goal_is_inferred_from_the_scores() {
        assert_eq!(mixtour_goal(1, 0), 1);
        assert_eq!(mixtour_goal(1, 1), 2);
        assert_eq!(mixtour_goal(3, 1), 3);
    }

    #[test]
    fn focus_is_ours_upside_down() {
        // The facts' check: AP d2-d3 c2-d2 d3-d5 e3-e4 is our d7d6 c7d7 d6d4 e6e5.
        let ap = words("d2-d3 c2-d2 d3-d5 e3-e4");
        let ours = words("d7d6 c7d7 d6d4 e6e5");
        for (a, o) in ap.iter().zip(&ours) {
            assert_eq!(&focus_from_ap(a).unwrap(), o);
            assert_eq!(&focus_to_ap(o).unwrap(), a);
        }
        assert_eq!(focus_from_ap("+c2").unwrap(), "c7");
        assert_eq!(focus_to_ap("b2c2").unwrap(), "b7-c7");
        let Replayed::Focus(pos) = replay(ApGame::Focus, &ap).unwrap() else {
            panic!("not focus");
        };
        assert_eq!(pos.count_moves(), 72);
        assert!(focus_from_ap("i2-i3").is_err());
        assert!(matches!(
            replay(ApGame::Focus, &words("d2-d4")),
            Err(PlayError::Illegal { ply: 1, .. })
        ));
    }

    #[test]
    fn challenges_name_the_games_we_play() {
        let v = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            ApGame::from_challenge("mixtour", &v(&[])),
            Ok(ApGame::Mixtour { goal: 1 })
        );
        assert_eq!(
            ApGame::from_challenge("mixtour", &v(&["five"])),
            Ok(ApGame::Mixtour { goal: 3 })
        );
        assert!(ApGame::from_challenge("mixtour", &v(&["three", "five"])).is_err());
        assert!(ApGame::from_challenge("mixtour", &v(&["seven"])).is_err());
        assert_eq!(
            ApGame::from_challenge("focus", &v(&["x"])),
            Ok(ApGame::Focus)
        );
        assert!(ApGame::from_challenge("chess", &v(&[])).is_err());
    }

    #[test]
    fn a_forced_pass_is_never_submitted() {
        // Player 2 to move with an empty hand and no stack move.
        let fen = "1,x3,2/x5/x5/x5/2,x3,1 2 16,0 0,0 1 -";
        let pos = ApMixtour::from_fen(&ap_variant(1), fen).unwrap();
        let think = Think {
            move_ms: 50,
            depth: Some(2),
        };
        let table = Arc::new(Shared::new(1));
        assert_eq!(
            Replayed::Mixtour(pos).choose(&think, &Networks::default(), &table),
            Ok(Choice::OnlyPass)
        );
    }

    #[test]
    fn the_search_answers_a_legal_move_in_aps_notation() {
        let history = words("c3 b2 b2-c3 d4 c3:1-d4");
        let replayed = replay(ApGame::Mixtour { goal: 1 }, &history).unwrap();
        let think = Think {
            move_ms: 1000,
            depth: Some(3),
        };
        let Choice::Move { text, .. } = replayed
            .choose(&think, &Networks::default(), &Arc::new(Shared::new(1)))
            .unwrap()
        else {
            panic!("no move");
        };
        let mut longer = history.clone();
        longer.push(text);
        assert!(
            replay(ApGame::Mixtour { goal: 1 }, &longer).is_ok(),
            "{longer:?}"
        );
    }
}
