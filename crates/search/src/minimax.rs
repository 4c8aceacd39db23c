//! Plain minimax with the same leaf rules as the real search (quiescence over
//! noisy moves, repetitions, win distances): the oracle alpha-beta is
//! checked against. Exponential; for tests at small depths only.

use super::{outcome_score, EVAL_LIMIT, MAX_PLY};
use stackfish_games::{Game, GameResult, Outcome};

/// The fixed-depth minimax value of `pos`, whose repetition key is the last
/// of `keys` (the game so far).
pub fn minimax<G: Game>(pos: &G, depth: i32, keys: &mut Vec<u64>) -> i32 {
    value(pos, depth, 0, keys)
}

/// The minimax value of every legal move of `pos` (not a finished game) at
/// `depth` (>= 1), in generation order: what the root's best moves are
/// checked against.
pub fn root_values<G: Game>(pos: &G, depth: i32, keys: &mut Vec<u64>) -> Vec<(G::Move, i32)> {
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    moves
        .into_iter()
        .map(|mv| {
            let mut child = pos.clone();
            child.play(mv);
            keys.push(child.repetition_key());
            let v = -value(&child, depth - 1, 1, keys);
            keys.pop();
            (mv, v)
        })
        .collect()
}

fn value<G: Game>(pos: &G, depth: i32, ply: usize, keys: &mut Vec<u64>) -> i32 {
    if ply > 0 {
        if let Outcome::Over { result, .. } = pos.outcome() {
            return outcome_score(result, pos.side_to_move(), ply);
        }
        let n = keys.len();
        let repeated = (0..n - 1)
            .rev()
            .filter(|i| (n - 1 - i).is_multiple_of(2))
            .any(|i| keys[i] == keys[n - 1]);
        if repeated {
            let result = pos
                .repetition_outcome()
                .result()
                .unwrap_or(GameResult::Draw);
            return outcome_score(result, pos.side_to_move(), ply);
        }
    }
    if depth <= 0 || ply >= MAX_PLY {
        return quiet(pos, ply);
    }
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    let mut best = i32::MIN;
    for mv in moves {
        let mut child = pos.clone();
        child.play(mv);
        keys.push(child.repetition_key());
        best = best.max(-value(&child, depth - 1, ply + 1, keys));
        keys.pop();
    }
    best
}

fn quiet<G: Game>(pos: &G, ply: usize) -> i32 {
    if let Outcome::Over { result, .. } = pos.outcome() {
        return outcome_score(result, pos.side_to_move(), ply);
    }
    let stand = pos.evaluate().clamp(-EVAL_LIMIT + 1, EVAL_LIMIT - 1);
    if ply >= MAX_PLY {
        return stand;
    }
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    let mut best = stand;
    for mv in moves.into_iter().filter(|&m| pos.is_noisy(m)) {
        let mut child = pos.clone();
        child.play(mv);
        best = best.max(-quiet(&child, ply + 1));
    }
    best
}
