//! Plain minimax with the same leaf rules as the real search (wins in one,
//! threats no move parries, quiescence over noisy moves, repetitions, win
//! distances): the oracle alpha-beta is
//! checked against. Exponential; for tests at small depths only.

use super::{outcome_score, EVAL_LIMIT, MAX_PLY, WIN};
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
        if repeated(keys) {
            let result = pos
                .repetition_outcome()
                .result()
                .unwrap_or(GameResult::Draw);
            return outcome_score(result, pos.side_to_move(), ply);
        }
    }
    if depth <= 0 || ply >= MAX_PLY {
        return quiet(pos, ply, 0, keys);
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

/// The horizon's value: a win in one wins; a side facing a win in one
/// that no move of its own stops loses (at the horizon itself, `qply` 0);
/// otherwise the best of standing pat and the noisy moves.
fn quiet<G: Game>(pos: &G, ply: usize, qply: usize, keys: &mut Vec<u64>) -> i32 {
    if let Outcome::Over { result, .. } = pos.outcome() {
        return outcome_score(result, pos.side_to_move(), ply);
    }
    if pos.winning_move().is_some() {
        return WIN - ply as i32 - 1;
    }
    let stand = pos.evaluate().clamp(-EVAL_LIMIT + 1, EVAL_LIMIT - 1);
    if ply >= MAX_PLY {
        return stand;
    }
    if qply == 0 && pos.threatened() && !parried(pos, keys) {
        return -(WIN - ply as i32 - 2);
    }
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    let mut best = stand;
    for mv in moves.into_iter().filter(|&m| pos.is_noisy(m)) {
        let mut child = pos.clone();
        child.play(mv);
        best = best.max(-quiet(&child, ply + 1, qply + 1, keys));
    }
    best
}

/// Whether some legal move of `pos` leaves the opponent no win in one:
/// the game over but not won by them, a repetition (a draw), or no
/// winning move for them.
fn parried<G: Game>(pos: &G, keys: &mut Vec<u64>) -> bool {
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    let them = pos.side_to_move().opponent();
    moves.into_iter().any(|mv| {
        let mut child = pos.clone();
        child.play(mv);
        if let Outcome::Over { result, .. } = child.outcome() {
            return result.winner() != Some(them);
        }
        keys.push(child.repetition_key());
        let repeated = repeated(keys);
        keys.pop();
        repeated || child.winning_move().is_none()
    })
}

/// Whether the last of `keys` occurred before with the same side to move.
fn repeated(keys: &[u64]) -> bool {
    let n = keys.len();
    (0..n - 1)
        .rev()
        .filter(|i| (n - 1 - i).is_multiple_of(2))
        .any(|i| keys[i] == keys[n - 1])
}
