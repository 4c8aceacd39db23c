//! Proofs of short forced wins by exact full-width search: every move of
//! both sides, no evaluation, no pruning beyond the and/or logic itself, no
//! table. What it answers is the game tree's own answer, which is what the
//! tactics suite (`stackfish_lab::tactics`) is checked against.
//!
//! Plies count both sides' moves: a win within 1 ply is a winning move now,
//! within 3 plies a win on our second move whatever the opponent does.
//! Repetitions play no part: from a position without history no position
//! can occur a third time within 7 plies.

use stackfish_games::{Game, Outcome, Side};

/// What a move did to the game, seen from the side that played it.
enum After {
    Won,
    Lost,
    Drawn,
    Ongoing,
}

fn after<G: Game>(child: &G, mover: Side) -> After {
    match child.outcome() {
        Outcome::Ongoing => After::Ongoing,
        Outcome::Over { result, .. } => match result.winner() {
            Some(w) if w == mover => After::Won,
            Some(_) => After::Lost,
            None => After::Drawn,
        },
    }
}

/// Noisy moves first: in our games they are the ones that end a game, so
/// the and/or search settles sooner. The order changes no answer.
fn ordered_moves<G: Game>(pos: &G) -> Vec<G::Move> {
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    moves.sort_by_key(|&m| !pos.is_noisy(m));
    moves
}

/// Whether the side to move can force a win within `plies` plies (its own
/// moves and the opponent's replies counted). `pos` must not be finished.
pub fn wins_within<G: Game>(pos: &G, plies: u32) -> bool {
    if plies == 0 {
        return false;
    }
    let me = pos.side_to_move();
    let moves = ordered_moves(pos);
    let children: Vec<G> = moves
        .iter()
        .map(|&m| {
            let mut c = pos.clone();
            c.play(m);
            c
        })
        .collect();
    if children.iter().any(|c| matches!(after(c, me), After::Won)) {
        return true;
    }
    plies >= 3
        && children
            .iter()
            .any(|c| matches!(after(c, me), After::Ongoing) && loses_within(c, plies - 1))
}

/// Whether every move of the side to move loses within `plies` plies (its
/// own move counted): it ends the game for the opponent at once, or leaves a
/// position the opponent wins within `plies - 1`. `pos` must not be finished.
pub fn loses_within<G: Game>(pos: &G, plies: u32) -> bool {
    if plies == 0 {
        return false;
    }
    let me = pos.side_to_move();
    let moves = ordered_moves(pos);
    let mut pending = Vec::new();
    for &m in &moves {
        let mut c = pos.clone();
        c.play(m);
        match after(&c, me) {
            After::Lost => {}
            After::Won | After::Drawn => return false,
            After::Ongoing => pending.push(c),
        }
    }
    if plies < 2 {
        return pending.is_empty();
    }
    // Cheapest first: a reply after which the opponent has no win in one
    // refutes a horizon of 2 at once, and only such replies need the
    // deeper search.
    let mut rest = Vec::new();
    for c in pending {
        if !wins_within(&c, 1) {
            if plies < 4 {
                return false;
            }
            rest.push(c);
        }
    }
    rest.iter().all(|c| wins_within(c, plies - 1))
}

/// The moves of the side to move that win within `plies` plies.
pub fn winning_moves<G: Game>(pos: &G, plies: u32) -> Vec<G::Move> {
    moves_where(pos, |c, what| match what {
        After::Won => true,
        After::Ongoing => plies >= 3 && loses_within(c, plies - 1),
        _ => false,
    })
}

/// The moves of the side to move for which `keep` holds of the position
/// they lead to and what they did to the game.
fn moves_where<G: Game>(pos: &G, keep: impl Fn(&G, After) -> bool) -> Vec<G::Move> {
    let me = pos.side_to_move();
    ordered_moves(pos)
        .into_iter()
        .filter(|&m| {
            let mut c = pos.clone();
            c.play(m);
            let what = after(&c, me);
            keep(&c, what)
        })
        .collect()
}

/// The moves of the side to move after which the opponent cannot force a
/// win within `plies - 1` plies (and that do not lose at once): the moves
/// that survive a horizon of `plies`.
pub fn surviving_moves<G: Game>(pos: &G, plies: u32) -> Vec<G::Move> {
    moves_where(pos, |c, what| match what {
        After::Lost => false,
        After::Won | After::Drawn => true,
        After::Ongoing => !wins_within(c, plies.saturating_sub(1)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::minimax::root_values;
    use crate::tests::random_small_mixtour;
    use crate::{WIN, WIN_BOUND};
    use rand::SeedableRng;
    use stackfish_games::mixtour::{Mixtour, MixtourVariant};

    fn pos(fen: &str) -> Mixtour {
        Mixtour::from_fen(&MixtourVariant::STANDARD, fen).unwrap()
    }

    #[test]
    fn short_wins_and_losses_of_known_positions() {
        // 4a1b1 completes a tower topped by player 1.
        let p = pos("x5/x5/x5/x5/1111,1,x3 1 10,10 0,0 1 -");
        assert!(wins_within(&p, 1));
        assert_eq!(winning_moves(&p, 1).len(), 1);
        // Player 2 threatens two towers and player 1 cannot stop both.
        let p = pos("x3,2,2222/x5/x5/x5/2222,2,x3 1 0,0 0,0 1 -");
        assert!(!wins_within(&p, 5));
        assert!(loses_within(&p, 2));
        assert!(surviving_moves(&p, 2).is_empty());
        // Mates in two found by the minimax oracle.
        let p = pos("x,2,2,x,1221/x5/221,x2,1,2/11,x4/2,x3,11 1 0,0 0,0 1 2c5e5");
        assert!(!wins_within(&p, 1) && wins_within(&p, 3));
    }

    /// The proofs agree with the plain minimax oracle, whose win scores
    /// count the plies: a root value of WIN - k is a win within k plies.
    #[test]
    fn proofs_agree_with_plain_minimax_on_random_positions() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let mut wins = 0;
        let mut checked = 0;
        while checked < 150 {
            let Some(p) = random_small_mixtour(&mut rng, 4, 8..30) else {
                continue;
            };
            checked += 1;
            let values = root_values(&p, 3, &mut vec![p.repetition_key()]);
            for plies in [1, 3] {
                let expected: Vec<_> = values
                    .iter()
                    .filter(|&&(_, v)| v > WIN_BOUND && WIN - v <= plies as i32)
                    .map(|&(m, _)| m)
                    .collect();
                let mut got = winning_moves(&p, plies);
                got.sort_by_key(|m| m.bits());
                let mut expected = expected;
                expected.sort_by_key(|m| m.bits());
                assert_eq!(got, expected, "within {plies} in {}", p.fen());
                assert_eq!(wins_within(&p, plies), !expected.is_empty());
            }
            let lost_in_two = values.iter().all(|&(_, v)| v < -WIN_BOUND && WIN + v <= 2);
            assert_eq!(loses_within(&p, 2), lost_in_two, "{}", p.fen());
            wins += wins_within(&p, 3) as usize;
        }
        assert!(wins > 5, "too few wins among the samples: {wins}");
    }
}
