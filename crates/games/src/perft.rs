//! Perft: count the leaves of the legal-move tree, the standard check that a
//! move generator is exact. A pass is a move; a finished game has no children;
//! repetitions are not applied (as in chess).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::{FenError, Game, MoveError, UnknownGame};

/// Why `perft_command` could not run: the game, the position or a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PerftError {
    #[error(transparent)]
    UnknownGame(#[from] UnknownGame),
    #[error(transparent)]
    Fen(#[from] FenError),
    #[error(transparent)]
    Move(#[from] MoveError),
}

/// Leaves at `depth` plies below `pos`, the last ply counted in bulk.
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    perft_with(pos, depth, true)
}

/// Perft with the last ply either counted from the position (`bulk`) or
/// generated and played move by move; the two must agree.
pub fn perft_with<G: Game>(pos: &G, depth: u32, bulk: bool) -> u64 {
    count(pos, depth, bulk, &|| false)
}

/// Leaves below `pos`; a meaningless count once `stop` says so (the
/// caller asks `stop` again and throws it away).
fn count<G: Game, S: Fn() -> bool>(pos: &G, depth: u32, bulk: bool, stop: &S) -> u64 {
    let mut buffers = vec![Vec::new(); depth as usize];
    walk(pos, depth, bulk, &mut buffers, stop)
}

fn walk<G: Game, S: Fn() -> bool>(
    pos: &G,
    depth: u32,
    bulk: bool,
    buffers: &mut [Vec<G::Move>],
    stop: &S,
) -> u64 {
    if depth == 0 {
        return 1;
    }
    // Asked at interior nodes only, so the leaves counted in bulk stay fast.
    if depth > 1 && stop() {
        return 0;
    }
    if pos.outcome().is_over() {
        return 0;
    }
    if depth == 1 && bulk {
        return pos.count_moves();
    }
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
    moves.clear();
    pos.generate_moves(moves);
    let mut total = 0;
    for &mv in moves.iter() {
        let mut child = pos.clone();
        child.play(mv);
        total += walk(&child, depth - 1, bulk, rest, stop);
    }
    total
}

/// Per root move: its text and the leaves below it, sorted by move text
/// (Stockfish's `go perft` divide output).
pub fn perft_divide<G: Game>(pos: &G, depth: u32) -> Vec<(String, u64)> {
    divide(pos, depth, &|| false)
}

fn divide<G: Game, S: Fn() -> bool>(pos: &G, depth: u32, stop: &S) -> Vec<(String, u64)> {
    if depth == 0 || pos.outcome().is_over() {
        return Vec::new();
    }
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    let mut rows: Vec<(String, u64)> = moves
        .iter()
        .map(|&mv| {
            let mut child = pos.clone();
            child.play(mv);
            (mv.to_string(), count(&child, depth - 1, true, stop))
        })
        .collect();
    rows.sort();
    rows
}

/// The text of a perft run in Stockfish's convention: with `divide`, one
/// `<move>: <count>` line per root move and a blank line; always a last line
/// `Nodes searched: <N>`.
pub fn perft_report<G: Game>(pos: &G, depth: u32, divide: bool) -> String {
    report(pos, depth, divide, &|| false).unwrap_or_default()
}

/// `perft_report`, given up once `stop` is set: `None`, as no count of a
/// run cut short is a true one.
pub fn perft_report_until<G: Game>(
    pos: &G,
    depth: u32,
    divide: bool,
    stop: &AtomicBool,
) -> Option<String> {
    report(pos, depth, divide, &|| stop.load(Relaxed))
}

fn report<G: Game, S: Fn() -> bool>(
    pos: &G,
    depth: u32,
    with_divide: bool,
    stop: &S,
) -> Option<String> {
    let mut out = String::new();
    let total = if with_divide {
        let rows = divide(pos, depth, stop);
        for (mv, n) in &rows {
            out.push_str(&format!("{mv}: {n}\n"));
        }
        out.push('\n');
        if depth == 0 {
            1
        } else {
            rows.iter().map(|(_, n)| n).sum()
        }
    } else {
        count(pos, depth, true, stop)
    };
    if stop() {
        return None;
    }
    out.push_str(&format!("Nodes searched: {total}\n"));
    Some(out)
}

/// Runs perft on variant `name` from `fen` (or its start) after `moves`;
/// the report text, or an error naming what was wrong.
pub fn perft_command(
    name: &str,
    fen: Option<&str>,
    moves: &[&str],
    depth: u32,
    divide: bool,
) -> Result<String, PerftError> {
    struct Run<'a> {
        fen: Option<&'a str>,
        moves: &'a [&'a str],
        depth: u32,
        divide: bool,
    }
    impl super::VariantVisitor for Run<'_> {
        type Output = Result<String, PerftError>;
        fn visit<G: Game>(self, _: &'static str, variant: G::Variant) -> Self::Output {
            let mut line = match self.fen {
                Some(fen) => super::Line::<G>::from_fen(variant, fen)?,
                None => super::Line::<G>::new(variant),
            };
            for text in self.moves {
                line.play_text(text)?;
            }
            Ok(perft_report(line.position(), self.depth, self.divide))
        }

        /// The fast board type whenever the position is on it.
        fn visit_shaped<F: Game, G: Game<Variant = F::Variant>>(
            self,
            name: &'static str,
            variant: G::Variant,
        ) -> Self::Output {
            if self
                .fen
                .is_none_or(|fen| F::from_fen(&variant, fen).is_ok())
            {
                self.visit::<F>(name, variant)
            } else {
                self.visit::<G>(name, variant)
            }
        }
    }
    super::with_variant(
        name,
        Run {
            fen,
            moves,
            depth,
            divide,
        },
    )
    .unwrap_or_else(|| Err(UnknownGame::new(name).into()))
}
