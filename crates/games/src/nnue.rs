//! What the games' networks share beyond the machinery of
//! `stackfish_nnue`: the networks of every game as a host holds them
//! (`Networks`), the square board's symmetries their trainers learn
//! through, and the tests every game's kept sums pass. Each game's inputs
//! and weights are its own: `mixtour::nnue`, `coinstack::nnue`.

use crate::{coinstack, mixtour};
#[cfg(test)]
use stackfish_nnue::Accumulator;
use stackfish_nnue::NetworkError;

/// The networks of every game that has them, as a host holds them (the
/// engine's session, a trainer, a bot) and hands each search its game's
/// (`Game::nets`): the built-in ones, unless the host loaded another
/// (`read`) or none (`none`). Cheap to clone. Reading a file is the
/// host's job; this only decodes its bytes.
#[derive(Clone, Debug, Default)]
pub struct Networks {
    /// `None`: the built-in ones, decoded only when a game of them is
    /// played, so that a host of one game (the StackAndConquer script)
    /// carries no other game's networks.
    mixtour: Option<mixtour::nnue::Nets>,
    focus: Option<coinstack::nnue::Nets>,
}

impl Networks {
    /// No network in any game: the linear evaluations alone.
    pub fn none() -> Networks {
        Networks {
            mixtour: Some(mixtour::nnue::Nets::none()),
            focus: Some(coinstack::nnue::Nets::none()),
        }
    }

    /// The built-in networks with the network file `bytes` played instead
    /// of the built-in one of the game its header names: Focus's file
    /// replaces Focus's network, any other is read (and refused, with the
    /// reason) as Mixtour's, which goes before Mixtour's built-in ones and
    /// evaluates the goals it covers. The other game keeps its own.
    pub fn read(bytes: &[u8]) -> Result<Networks, NetworkError> {
        if stackfish_nnue::game_of(bytes).as_deref() == Some("focus") {
            let net = coinstack::nnue::Network::from_bytes(bytes)?;
            Ok(Networks {
                focus: Some(coinstack::nnue::Nets::new(net)?),
                ..Networks::default()
            })
        } else {
            let net = mixtour::nnue::Network::from_bytes(bytes)?;
            Ok(Networks {
                mixtour: Some(mixtour::nnue::Nets::before_built_in(net)?),
                ..Networks::default()
            })
        }
    }

    /// Mixtour's networks.
    pub fn mixtour(&self) -> mixtour::nnue::Nets {
        match &self.mixtour {
            Some(nets) => nets.clone(),
            None => mixtour::nnue::Nets::built_in().clone(),
        }
    }

    /// Focus's network.
    pub fn focus(&self) -> coinstack::nnue::Nets {
        match &self.focus {
            Some(nets) => nets.clone(),
            None => coinstack::nnue::Nets::built_in().clone(),
        }
    }
}

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
    let nets = G::nets(&Networks::default());
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

#[cfg(test)]
mod tests {
    use super::*;
    use stackfish_nnue::NetworkError;

    /// A network file replaces the network of the game its header names
    /// and no other: Focus's is Focus's alone, Mixtour's goes before
    /// Mixtour's built-in ones; a file of neither is refused.
    #[test]
    fn a_file_replaces_its_own_games_network_only() {
        let focus_bytes = include_bytes!("coinstack/net-focus.bin");
        let focus = coinstack::nnue::Network::from_bytes(focus_bytes).unwrap();
        let read = Networks::read(focus_bytes).unwrap();
        assert_eq!(read.focus().network(), Some(&focus));
        assert_eq!(&read.mixtour(), mixtour::nnue::Nets::built_in());

        let mixtour_bytes = include_bytes!("mixtour/net-g23.bin");
        let g23 = mixtour::nnue::Network::from_bytes(mixtour_bytes).unwrap();
        let read = Networks::read(mixtour_bytes).unwrap();
        let built_in = mixtour::nnue::Nets::built_in().list();
        assert_eq!(read.mixtour().list()[0], g23);
        assert_eq!(read.mixtour().list()[1..], *built_in);
        let focus_built_in = coinstack::nnue::Nets::built_in().network();
        assert_eq!(read.focus().network(), focus_built_in);

        assert_eq!(
            Networks::read(b"not a network").map(|_| ()),
            Err(NetworkError::BadMagic)
        );
        let none = Networks::none();
        assert!(none.mixtour().list().is_empty() && none.focus().network().is_none());
    }
}
