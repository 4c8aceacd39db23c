//! What the games' networks share beyond the machinery of
//! `stackfish_nnue`: the square board's symmetries their trainers learn
//! through, and the tests every game's kept sums pass. Each game's inputs
//! and weights are its own: `mixtour::nnue`, `coinstack::nnue`; the set a
//! host holds is `networks::Networks`.

#[cfg(test)]
use stackfish_nnue::Accumulator;

/// Square `square` (rank by rank, `size` to a rank) of a square board
/// seen through symmetry `sym` (0..8): bit 0 mirrors the files, bit 1 the
/// ranks, bit 2 swaps files and ranks. Mixtour's and Focus's trainers learn
/// each position through one of these (their `symmetric_input`).
pub fn symmetric_square(square: usize, size: usize, sym: usize) -> usize {
    let (mut f, mut r) = (square % size, square / size);
    if sym & 1 != 0 {
        f = size - 1 - f;
    }
    if sym & 2 != 0 {
        r = size - 1 - r;
    }
    if sym & 4 != 0 {
        (f, r) = (r, f);
    }
    r * size + f
}

/// The test every game's kept sums pass: random games from `start` (the
/// game's noisy moves half the time when there are any, so that the
/// counts and scores the inputs have change), the sums kept move by move
/// by `update` equal at every position those `refresh` computes afresh,
/// and `kept` (the evaluation from them) equals `reference` (from the
/// inputs, one at a time). `seen` hears every move; returns how many
/// positions were compared.
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_kept_sums<G: crate::Game + std::fmt::Debug>(
    start: &G,
    games: usize,
    plies: usize,
    seed: u64,
    refresh: impl Fn(&G, &mut Accumulator),
    update: impl Fn(&G, G::Move, &G, &Accumulator, &mut Accumulator),
    check: impl Fn(&G, &Accumulator),
    mut seen: impl FnMut(&G, G::Move, &G),
) -> usize {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut compared = 0;
    let mut moves = Vec::new();
    for _ in 0..games {
        let mut pos = start.clone();
        let mut acc = Accumulator::default();
        refresh(&pos, &mut acc);
        for _ in 0..plies {
            if pos.outcome().is_over() {
                break;
            }
            moves.clear();
            pos.generate_moves(&mut moves);
            let noisy: Vec<G::Move> = moves.iter().copied().filter(|&m| pos.is_noisy(m)).collect();
            let mv = if !noisy.is_empty() && rng.gen_ratio(1, 2) {
                noisy[rng.gen_range(0..noisy.len())]
            } else {
                moves[rng.gen_range(0..moves.len())]
            };
            let mut child = pos.clone();
            child.play(mv);
            seen(&pos, mv, &child);
            let mut next = Accumulator::default();
            update(&pos, mv, &child, &acc, &mut next);
            let mut fresh = Accumulator::default();
            refresh(&child, &mut fresh);
            assert_eq!(next.sums(), fresh.sums(), "{child:?} after {mv:?}");
            check(&child, &next);
            compared += 1;
            (pos, acc) = (child, next);
        }
    }
    compared
}

/// Random games through the engine's path (`Game::eval_refresh`,
/// `Game::eval_update`, `Game::evaluate_with`, with the built-in networks),
/// passes a tenth of the time where the game has them (the search plays
/// them as null moves): at every position the kept sums are valid exactly
/// when sums computed afresh are, and then equal them, and the evaluation
/// from them is the evaluation from scratch. Returns how many positions
/// had valid sums.
#[cfg(test)]
pub(crate) fn check_engine_path<G: crate::Game<Eval = Accumulator> + std::fmt::Debug>(
    start: &G,
    games: usize,
    plies: usize,
    seed: u64,
) -> usize {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let nets = G::nets(&crate::Networks::default());
    let mut valid = 0;
    let mut moves = Vec::new();
    for _ in 0..games {
        let mut pos = start.clone();
        let mut acc = Accumulator::default();
        pos.eval_refresh(&nets, &mut acc);
        for _ in 0..plies {
            if pos.outcome().is_over() {
                break;
            }
            moves.clear();
            pos.generate_moves(&mut moves);
            let mv = match pos.null_move().filter(|_| rng.gen_ratio(1, 10)) {
                Some(pass) => pass,
                None => moves[rng.gen_range(0..moves.len())],
            };
            let mut child = pos.clone();
            child.play(mv);
            let mut next = Accumulator::default();
            pos.eval_update(&nets, mv, &child, &acc, &mut next);
            let mut fresh = Accumulator::default();
            child.eval_refresh(&nets, &mut fresh);
            assert_eq!(next.is_valid(), fresh.is_valid(), "{child:?}");
            if next.is_valid() {
                assert_eq!(next.sums(), fresh.sums(), "{child:?} after {mv:?}");
                valid += 1;
            }
            assert_eq!(
                child.evaluate_with(&nets, &next),
                child.evaluate(),
                "{child:?}"
            );
            (pos, acc) = (child, next);
        }
    }
    valid
}
