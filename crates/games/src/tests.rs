//! The position-string helpers every game's reader shares.

use super::*;

#[test]
fn fields_are_split_and_counted_with_the_missing_one_named() {
    const NAMES: [&str; 3] = ["board", "side", "goal"];
    assert_eq!(fen_fields("a  1\t5", &NAMES).unwrap(), ["a", "1", "5"]);
    assert_eq!(fen_fields("a 1", &NAMES).unwrap_err().field, "goal");
    assert_eq!(fen_fields("", &NAMES).unwrap_err().field, "board");
    let extra = fen_fields("a 1 5 x y", &NAMES).unwrap_err();
    assert_eq!(extra.field, "end");
    assert!(extra.message.contains("'x y'"), "{extra}");
}

#[test]
fn side_is_1_or_2() {
    assert_eq!(fen_side("1").unwrap(), Side::P1);
    assert_eq!(fen_side("2").unwrap(), Side::P2);
    for bad in ["0", "3", "", "12", "+1"] {
        assert_eq!(fen_side(bad).unwrap_err().field, "side", "{bad:?}");
    }
}

#[test]
fn pairs_are_two_bounded_digit_counts() {
    assert_eq!(fen_pair("reserves", "20,3", 255).unwrap(), [20, 3]);
    assert_eq!(fen_pair("captured", "18,0", 18).unwrap(), [18, 0]);
    for bad in ["19,0", "1", "1,2,3", "+1,2", "1,-2", "a,b", "", "256,0"] {
        let max = if bad == "256,0" { 255 } else { 18 };
        assert_eq!(
            fen_pair("captured", bad, max).unwrap_err().field,
            "captured",
            "{bad:?}"
        );
    }
}

/// The check a game's own `noisy_moves` passes: it appends to what the
/// list held (here the first legal move, if any) exactly the noisy moves
/// of `moves` (the position's legal moves), in generation order.
pub(crate) fn check_noisy_list<G: Game + fmt::Debug>(pos: &G, moves: &[G::Move]) {
    let held = &moves[..moves.len().min(1)];
    let mut noisy = held.to_vec();
    pos.noisy_moves(&mut noisy);
    let expected: Vec<G::Move> = held
        .iter()
        .chain(moves.iter().filter(|&&m| pos.is_noisy(m)))
        .copied()
        .collect();
    assert_eq!(noisy, expected, "{pos:?}");
}
