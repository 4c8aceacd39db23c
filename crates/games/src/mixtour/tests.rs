//! Mixtour rules on the standard board, one test per rule sentence, plus
//! invariants checked against a slow generator written from the rules text
//! (`slow.rs`), and perft under symmetry. Boards of other shapes: `boards.rs`.

use super::*;
use crate::{find_legal, perft, perft::perft_with, Line};
use rand::{Rng, SeedableRng};

const STANDARD: MixtourVariant = MixtourVariant::STANDARD;

fn pos(fen: &str) -> Mixtour {
    Mixtour::from_fen(&STANDARD, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn legal(p: &Mixtour) -> Vec<String> {
    let mut moves = Vec::new();
    p.generate_moves(&mut moves);
    let mut texts: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    texts.sort();
    texts
}

fn is_legal(p: &Mixtour, text: &str) -> bool {
    find_legal(p, text).is_ok()
}

fn after(p: &Mixtour, moves: &[&str]) -> Mixtour {
    let mut p = *p;
    for m in moves {
        let mv = find_legal(&p, m).unwrap_or_else(|e| panic!("{e} in {}", p.fen()));
        p.play(mv);
    }
    p
}

mod boards;
mod slow;

use slow::Slow;

fn slow_moves(p: &Mixtour) -> Vec<String> {
    Slow::of(p).move_texts()
}

fn slow_perft(p: &Mixtour, depth: u32) -> u64 {
    Slow::of(p).perft(depth)
}

/// Midgame positions from seeded random playouts (also the benchmark's).
pub const MIDGAMES: [&str; 3] = [
    "x,1,x3/x4,22/x2,221,x2/2,2,x2,2211/11,x4 1 14,12 0,0 1 c1c3",
    "x2,22,x2/1,x2,21,x/x,2,x,2,21/1212,x4/x3,1,x 1 14,12 0,0 1 b3",
    "x,2,2,x2/x5/x2,1121,2221,x/2122,212,x,11,x/x2,11,x2 1 10,9 0,0 1 c2d2",
];

/// Built so that towers complete, reserves run dry and passes happen within
/// a few plies.
const TACTICAL: [&str; 4] = [
    "1122,x3,2211/x5/x2,12,x2/x5/2121,x3,1212 1 2,1 0,0 1 -",
    "1122,x3,2211/x5/x2,12,x2/x5/2121,x3,1212 2 0,1 0,0 1 -",
    "2222,x,1,x,1111/x5/x5/x5/x4,2 1 0,0 0,0 1 -",
    "12,x3,21/x5/x2,1,x2/x5/21,x3,12 1 1,0 0,2 3 -",
];

#[test]
fn start_position_and_reference_perft() {
    let start = Mixtour::start(&STANDARD);
    assert_eq!(start.fen(), "x5/x5/x5/x5/x5 1 20,20 0,0 1 -");
    // Reference counts of docs/rules/mixtour.md (depth 3 derived by hand there).
    for (depth, count) in [(1, 25), (2, 600), (3, 14_088), (4, 330_384), (5, 7_883_472)] {
        assert_eq!(perft(&start, depth), count, "depth {depth}");
    }
}

#[test]
fn mixtour_5_starts_with_25_pieces_and_goal_5() {
    let p = Mixtour::start(&MixtourVariant::FIVE_POINTS);
    assert_eq!(p.fen(), "x5/x5/x5/x5/x5 1 25,25 0,0 5 -");
}

// --- Entering -------------------------------------------------------------

#[test]
fn entering_needs_a_non_empty_reserve() {
    let p = pos("1,x4/x5/x5/x5/x5 2 20,0 0,0 1 -");
    assert!(!is_legal(&p, "c3"));
    assert!(
        legal(&p).iter().all(|m| m.len() != 2),
        "no placement for an empty reserve"
    );
    let p = pos("1,x4/x5/x5/x5/x5 2 0,1 0,0 1 -");
    assert!(is_legal(&p, "c3"));
}

#[test]
fn entering_only_onto_an_empty_square() {
    let p = pos("x5/x5/x2,2,x2/x5/x5 1 20,19 0,0 1 c3");
    assert!(!is_legal(&p, "c3"));
    assert!(is_legal(&p, "c4"));
    let q = after(&p, &["c4"]);
    assert_eq!(q.reserve(Side::P1), 19);
    assert_eq!(
        format!("{:?}", q.stack(parse_square::<Standard>("c4").unwrap())),
        "1"
    );
}

// --- Moving ---------------------------------------------------------------

#[test]
fn any_stack_may_move_whoever_owns_its_top() {
    // Player 1 to move; the stack a1 is topped by player 2.
    let p = pos("x5/x5/x5/x5/12,2,x3 1 18,18 0,0 1 -");
    assert!(is_legal(&p, "a1b1"));
    assert!(is_legal(&p, "2a1b1"));
    // b1 cannot move onto a1: a1 is 2 high but only 1 away.
    assert!(!is_legal(&p, "b1a1"));
}

#[test]
fn distance_must_equal_the_target_height() {
    // Target a1 has height 2: reached from 2 squares away, not from 1 or 3.
    assert!(is_legal(
        &pos("x5/x5/1,x4/x5/22,x4 1 15,15 0,0 1 -"),
        "a3a1"
    ));
    assert!(!is_legal(
        &pos("x5/x5/x5/1,x4/22,x4 1 15,15 0,0 1 -"),
        "a2a1"
    ));
    assert!(!is_legal(
        &pos("x5/1,x4/x5/x5/22,x4 1 15,15 0,0 1 -"),
        "a4a1"
    ));
    // The same on a file through the middle.
    let p = pos("x5/x2,1,x2/x2,22,x2/x5/x2,1,x2 1 15,15 0,0 1 -");
    assert!(is_legal(&p, "c1c3"));
    assert!(!is_legal(&p, "c4c3"));
}

#[test]
fn exact_distance_on_all_lines() {
    // A stack of height 3 on c3 is reached from 3 squares away only, which on
    // a 5x5 board never fits from the centre; from a corner it does.
    let p = pos("x5/1,x4/x5/x5/222,x4 1 15,15 0,0 1 -");
    // a4 is 3 above a1 (height 3): legal. Distance 1..2 would not be.
    assert!(is_legal(&p, "a4a1"));
    let q = pos("x5/x5/1,x4/x5/222,x4 1 15,15 0,0 1 -");
    assert!(!is_legal(&q, "a3a1"));
    let diag = pos("x5/x3,1,x/x5/x5/222,x4 1 15,15 0,0 1 -");
    assert!(is_legal(&diag, "d4a1"), "diagonal, 3 away");
}

#[test]
fn squares_between_must_be_empty() {
    // a1 (height 2) would be reached from a3, but a2 blocks.
    let p = pos("x5/x5/1,x4/2,x4/11,x4 1 16,19 0,0 1 -");
    assert!(!is_legal(&p, "a3a1"));
    let clear = pos("x5/x5/1,x4/x5/11,x4 1 17,20 0,0 1 -");
    assert!(is_legal(&clear, "a3a1"));
}

#[test]
fn the_target_must_be_a_stack() {
    let p = pos("x5/x5/x2,1,x2/x5/x5 2 19,20 0,0 1 c3");
    assert!(!is_legal(&p, "c3c4"), "onto an empty square");
    assert!(
        legal(&p).iter().all(|m| m.len() == 2),
        "only placements: {:?}",
        legal(&p)
    );
}

#[test]
fn top_pieces_move_in_order_and_the_rest_stays() {
    // a1 holds 1,2,1 (bottom to top); move the top 2 onto b1 (height 1).
    let p = pos("x5/x5/x5/x5/121,2,x3 2 16,18 0,0 1 -");
    let q = after(&p, &["2a1b1"]);
    assert_eq!(format!("{:?}", q.stack(0)), "1", "the bottom piece stays");
    assert_eq!(
        format!("{:?}", q.stack(1)),
        "221",
        "target 2, then the moved 2,1 in order"
    );
    assert_eq!(
        q.forbidden().map(|m| m.to_string()).as_deref(),
        Some("2b1a1")
    );
}

#[test]
fn count_must_be_between_one_and_the_source_height() {
    let p = pos("x5/x5/x5/x5/12,2,x3 1 18,18 0,0 1 -");
    assert!(is_legal(&p, "2a1b1"));
    assert!(!is_legal(&p, "3a1b1"));
    assert!(Mixtour::parse_move(&p, "0a1b1").is_err());
    assert!(Mixtour::parse_move(&p, "5a1b1").is_err());
}

// --- Forbidden take-back --------------------------------------------------

#[test]
fn the_opponents_last_stack_move_may_not_be_undone() {
    let p = pos("x5/x5/x5/x5/11,2,x3 1 18,19 0,0 1 -");
    let q = after(&p, &["a1b1"]); // a1 now 1, b1 now 21 (height 2)... b1 height 2
                                  // b1 -> a1 with one piece is the exact undo: forbidden for player 2.
    assert!(!is_legal(&q, "b1a1"));
    // Moving two pieces back is a different move and allowed.
    assert!(is_legal(&q, "2b1a1"));
}

#[test]
fn the_take_back_is_allowed_again_once_another_move_came_between() {
    let p = pos("x5/x5/x5/x5/11,2,x3 1 18,19 0,0 1 -");
    let q = after(&p, &["a1b1", "e5", "e4"]);
    assert!(
        is_legal(&q, "b1a1"),
        "two placements came between: player 2 may move it back"
    );
    assert!(q.forbidden().is_none());
}

#[test]
fn a_placement_or_a_pass_forbids_nothing() {
    let p = pos("x5/x5/x5/x5/x5 1 20,20 0,0 1 -");
    assert!(after(&p, &["c3"]).forbidden().is_none());
    let q = pos("x5/x5/x5/x5/1,x4 2 0,0 0,0 1 -");
    let q = after(&q, &["pass"]);
    assert!(q.forbidden().is_none());
}

// --- Passing --------------------------------------------------------------

#[test]
fn pass_only_when_nothing_else_is_legal() {
    // Player 2 has no reserve and no stack can move (a single stack).
    let p = pos("x5/x5/x2,1,x2/x5/x5 2 19,0 0,0 1 c3");
    assert_eq!(legal(&p), vec!["pass"]);
    // With a reserve, pass is not allowed.
    let q = pos("x5/x5/x2,1,x2/x5/x5 2 19,1 0,0 1 c3");
    assert!(!is_legal(&q, "pass"));
    assert!(!legal(&q).contains(&"pass".to_string()));
}

#[test]
fn two_passes_in_a_row_draw() {
    let p = pos("x5/x5/x2,1,x2/x5/x5 2 0,0 0,0 1 c3");
    let q = after(&p, &["pass"]);
    assert_eq!(
        q.outcome(),
        Outcome::Ongoing,
        "one pass does not end the game"
    );
    let r = after(&q, &["pass"]);
    assert_eq!(
        r.outcome(),
        Outcome::Over {
            result: GameResult::Draw,
            reason: "double pass"
        }
    );
}

#[test]
fn a_pass_then_a_move_resets_the_pass_count() {
    // Player 1 can only pass; player 2 places; player 1 passes again.
    let p = pos("x5/x5/x5/x5/1,x4 1 0,2 0,0 1 -");
    let q = after(&p, &["pass", "e5", "pass"]);
    assert_eq!(
        q.outcome(),
        Outcome::Ongoing,
        "the passes were not in a row"
    );
    assert_eq!(after(&q, &["c3"]).outcome(), Outcome::Ongoing);
}

// --- Scoring --------------------------------------------------------------

#[test]
fn five_high_is_removed_pieces_return_and_the_top_owner_scores() {
    // a1 = 1,1,2,2 (height 4) and a2? Build: target b1 height 1 (a 2), source
    // a1 with 4 pieces 1,2,1,2: moving all 4 onto b1 makes 5, top = 2.
    let p = pos("x5/x5/x5/x5/1212,1,x3 1 10,12 0,0 3 -");
    let q = after(&p, &["4a1b1"]);
    assert!(
        q.stack(0).is_empty() && q.stack(1).is_empty(),
        "whole tower removed"
    );
    // Pieces: target 1 (player 1) + moved 1,2,1,2 => three of player 1, two of player 2.
    assert_eq!(q.reserve(Side::P1), 13);
    assert_eq!(q.reserve(Side::P2), 14);
    assert_eq!(q.score(Side::P2), 1, "the top piece was player 2's");
    assert_eq!(
        q.score(Side::P1),
        0,
        "the mover does not score for a tower topped by the opponent"
    );
    assert_eq!(q.outcome(), Outcome::Ongoing, "goal 3 not reached");
}

#[test]
fn more_than_five_is_removed_too() {
    // Height 4 target reached from 4 away with a 4-stack: height 8.
    let p = pos("1111,x3,2222/x5/x5/x5/x5 2 12,12 0,0 1 -");
    let q = after(&p, &["4e5a5"]);
    assert!(q.stack(20).is_empty() && q.stack(24).is_empty());
    assert_eq!((q.reserve(Side::P1), q.reserve(Side::P2)), (16, 16));
    assert_eq!(
        q.outcome(),
        Outcome::Over {
            result: GameResult::P2Win,
            reason: "goal reached"
        }
    );
}

#[test]
fn reaching_the_goal_wins_at_once() {
    let p = pos("x5/x5/x5/x5/1212,1,x3 2 10,12 0,0 1 -");
    let q = after(&p, &["4a1b1"]);
    assert_eq!(q.outcome().result(), Some(GameResult::P2Win));
    assert!(find_legal(&q, "c3").is_err(), "no move after the end");
    // In mixtour-5 one point does not end the game.
    let five = Mixtour::from_fen(&STANDARD, "x5/x5/x5/x5/1212,1,x3 2 10,12 0,0 5 -").unwrap();
    assert_eq!(after(&five, &["4a1b1"]).outcome(), Outcome::Ongoing);
}

#[test]
fn a_stack_below_five_stays() {
    let p = pos("x5/x5/x5/x5/121,1,x3 1 16,19 0,0 1 -");
    let q = after(&p, &["3a1b1"]);
    assert_eq!(q.height(1), 4);
    assert_eq!(q.score(Side::P1) + q.score(Side::P2), 0);
}

// --- Repetition -----------------------------------------------------------

#[test]
fn third_occurrence_of_a_position_draws() {
    // Two pairs of stacks; each player moves a piece over and back, so every
    // four plies the same position (with the same forbidden take-back) recurs.
    let mut line =
        Line::<Mixtour>::from_fen(STANDARD, "x5/x5/x5/x5/11,2,x,1,22 1 0,0 0,0 1 -").unwrap();
    let cycle = ["a1b1", "e1d1", "b1a1", "d1e1"];
    // The position after a1b1 occurs at plies 1, 5 and 9: the third time draws.
    for ply in 1..=9 {
        assert_eq!(line.outcome(), Outcome::Ongoing, "over before ply {ply}");
        line.play_text(cycle[(ply - 1) % 4]).unwrap();
    }
    assert_eq!(
        line.outcome(),
        Outcome::Over {
            result: GameResult::Draw,
            reason: "threefold repetition"
        }
    );
    assert_eq!(line.occurrences(), 3);
}

#[test]
fn same_position_includes_the_forbidden_take_back() {
    // The same stacks reached by a stack move and by another stack move differ
    // in the forbidden take-back, so they are different positions.
    let a = pos("x5/x5/x5/x5/1,21,x3 2 5,5 0,0 1 a1b1");
    let b = pos("x5/x5/x5/x5/1,21,x3 2 5,5 0,0 1 c3");
    assert_ne!(a.repetition_key(), b.repetition_key());
    // A placement and a pass as last move forbid nothing: same position.
    let c = pos("x5/x5/x5/x5/1,21,x3 2 5,5 0,0 1 pass");
    assert_eq!(b.repetition_key(), c.repetition_key());
    // But the hash tells them apart: after a pass, another pass ends the game.
    assert_ne!(b.hash(), c.hash());
}

// --- Notation -------------------------------------------------------------

#[test]
fn move_text_round_trips_and_prints_the_short_form() {
    let p = Mixtour::start(&STANDARD);
    for text in ["c3", "a1b2", "3a1c3", "pass", "4e5a1"] {
        assert_eq!(p.parse_move(text).unwrap().to_string(), text);
    }
    assert_eq!(p.parse_move("1a1b2").unwrap().to_string(), "a1b2");
    for bad in [
        "", "f1", "a6", "a1a1", "11a1b2", "a1b", "pass ", "A1", "c3c", "é1", "9a1b2",
    ] {
        assert!(p.parse_move(bad).is_err(), "{bad:?} should be rejected");
    }
}

#[test]
fn fen_round_trips() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    for _ in 0..200 {
        let p = random_position(&mut rng, 60);
        let q = Mixtour::from_fen(&STANDARD, &p.fen()).unwrap();
        assert_eq!(p.fen(), q.fen());
        assert_eq!(p.hash(), q.hash());
        assert_eq!(legal(&p), legal(&q));
    }
    // Other spellings of empty runs are accepted and printed merged.
    let p = pos("x,x,x,x,x/x2,x3/x5/x5/x,x4 1 20,20 0,0 1 -");
    assert_eq!(p.fen(), "x5/x5/x5/x5/x5 1 20,20 0,0 1 -");
}

#[test]
fn malformed_fens_name_the_bad_field() {
    let cases = [
        ("x5/x5/x5/x5 1 20,20 0,0 1 -", "board"),
        ("x5/x5/x5/x5/x6 1 20,20 0,0 1 -", "board"),
        ("x5/x5/x5/x5/x4 1 20,20 0,0 1 -", "board"),
        ("x5/x5/x5/x5/11111,x4 1 20,20 0,0 1 -", "board"),
        ("x5/x5/x5/x5/13,x4 1 20,20 0,0 1 -", "board"),
        ("x5/x5/x5/x5/x0,x5 1 20,20 0,0 1 -", "board"),
        ("x5/x5/x5/x5/x5 3 20,20 0,0 1 -", "side"),
        ("x5/x5/x5/x5/x5 1 20 0,0 1 -", "reserves"),
        ("x5/x5/x5/x5/x5 1 -1,20 0,0 1 -", "reserves"),
        ("x5/x5/x5/x5/x5 1 20,20 2,0 1 -", "scores"),
        ("x5/x5/x5/x5/x5 1 20,20 1,1 1 -", "scores"),
        ("x5/x5/x5/x5/x5 1 20,20 0,0 0 -", "goal"),
        ("x5/x5/x5/x5/x5 1 20,20 0,0 1 z9", "last"),
        ("x5/x5/x5/x5/x5 1 20,20 0,0 1", "last"),
        ("x5/x5/x5/x5/x5 1 20,20 0,0 1 - extra", "end"),
        ("", "board"),
    ];
    for (fen, field) in cases {
        match Mixtour::from_fen(&STANDARD, fen) {
            Ok(_) => panic!("{fen:?} was accepted"),
            Err(e) => assert_eq!(e.field, field, "{fen:?}: {e}"),
        }
    }
}

#[test]
fn random_and_mutated_strings_never_panic() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let alphabet: Vec<char> = "x12345/, -abcdepas0\u{e9}9".chars().collect();
    let seeds = MIDGAMES
        .iter()
        .chain(TACTICAL.iter())
        .copied()
        .collect::<Vec<_>>();
    for i in 0..20_000 {
        let text: String = if i % 2 == 0 {
            (0..rng.gen_range(0..40))
                .map(|_| alphabet[rng.gen_range(0..alphabet.len())])
                .collect()
        } else {
            let mut chars: Vec<char> = seeds[i % seeds.len()].chars().collect();
            for _ in 0..rng.gen_range(1..4) {
                let at = rng.gen_range(0..chars.len());
                match rng.gen_range(0..3) {
                    0 => chars[at] = alphabet[rng.gen_range(0..alphabet.len())],
                    1 => {
                        chars.remove(at);
                    }
                    _ => chars.insert(at, alphabet[rng.gen_range(0..alphabet.len())]),
                }
            }
            chars.into_iter().collect()
        };
        if let Ok(p) = Mixtour::from_fen(&STANDARD, &text) {
            // Whatever is accepted is a consistent position.
            assert_eq!(
                Mixtour::from_fen(&STANDARD, &p.fen()).unwrap().fen(),
                p.fen()
            );
            let _ = perft(&p, 2);
        }
        let p = Mixtour::start(&STANDARD);
        let _ = find_legal(&p, &text);
    }
}

// --- Invariants -----------------------------------------------------------

fn random_position(rng: &mut impl Rng, max_plies: usize) -> Mixtour {
    let mut p = Mixtour::start(&STANDARD);
    play_randomly(&mut p, rng, max_plies);
    p
}

/// Plays up to `max_plies` (a random number below it) random legal moves
/// on `p`, stopping early if the game ends; any board.
fn play_randomly<G: Game>(p: &mut G, rng: &mut impl Rng, max_plies: usize) {
    let mut moves = Vec::new();
    for _ in 0..rng.gen_range(0..max_plies) {
        if p.outcome().is_over() {
            break;
        }
        moves.clear();
        p.generate_moves(&mut moves);
        p.play(moves[rng.gen_range(0..moves.len())]);
    }
}

#[test]
fn random_playouts_keep_every_invariant() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2024);
    let variants = [
        STANDARD,
        MixtourVariant::FIVE_POINTS,
        MixtourVariant {
            reserve: 6,
            goal: 2,
        },
    ];
    let mut moves = Vec::new();
    let mut plies = 0;
    for game in 0..1500 {
        let variant = variants[game % variants.len()];
        let total = variant.reserve as u32;
        let mut p = Mixtour::start(&variant);
        while !p.outcome().is_over() && plies < 400_000 {
            moves.clear();
            p.generate_moves(&mut moves);
            let fast: Vec<String> = {
                let mut t: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
                t.sort();
                t
            };
            assert_eq!(
                fast,
                slow_moves(&p),
                "generated moves differ in {}",
                p.fen()
            );
            assert_eq!(
                p.count_moves(),
                moves.len() as u64,
                "count differs in {}",
                p.fen()
            );
            if game < 300 {
                slow::check_threats(&p);
            }
            let before = p;
            let mv = moves[rng.gen_range(0..moves.len())];
            p.play(mv);
            plies += 1;
            assert_eq!(
                p.hash(),
                p.compute_hash(),
                "hash drifted after {mv} in {}",
                before.fen()
            );
            for side in Side::BOTH {
                assert_eq!(
                    p.pieces_on_board(side) + p.reserve(side) as u32,
                    total,
                    "pieces of {side:?} not conserved after {mv} in {}",
                    before.fen()
                );
            }
            assert!(
                (0..25).all(|sq| p.height(sq) <= 4),
                "a stack above 4 after {mv}"
            );
            // Copy-make: the position before the move is untouched and its
            // hash still matches.
            assert_eq!(before.hash(), before.compute_hash());
        }
    }
    assert!(
        plies > 50_000,
        "playouts too short to mean anything: {plies}"
    );
}

#[test]
fn perft_agrees_with_the_slow_generator() {
    for fen in MIDGAMES.iter().chain(TACTICAL.iter()) {
        let p = pos(fen);
        assert_eq!(perft(&p, 3), slow_perft(&p, 3), "{fen}");
        assert_eq!(
            perft_with(&p, 3, false),
            perft(&p, 3),
            "bulk and full counting differ: {fen}"
        );
    }
}

// --- Symmetry -------------------------------------------------------------

/// Applies one of the 8 symmetries of the square to a square index.
fn map_square(sq: u8, sym: u8) -> u8 {
    let (mut f, mut r) = ((sq % 5) as i32, (sq / 5) as i32);
    if sym & 1 != 0 {
        f = 4 - f;
    }
    if sym & 2 != 0 {
        r = 4 - r;
    }
    if sym & 4 != 0 {
        std::mem::swap(&mut f, &mut r);
    }
    (r * 5 + f) as u8
}

fn transform(p: &Mixtour, sym: u8, swap_colours: bool) -> Mixtour {
    let mut q = Mixtour::empty(MixtourVariant {
        reserve: 0,
        goal: p.goal(),
    });
    let flip = |s: Side| if swap_colours { s.opponent() } else { s };
    for sq in 0..25u8 {
        let stack =
            Stack::from_pieces(p.stack(sq).pieces().map(flip)).expect("a stack of the board");
        q.set(map_square(sq, sym), stack);
    }
    for side in Side::BOTH {
        q.set_reserve(flip(side), p.reserve(side));
        q.set_score(flip(side), p.score(side));
    }
    if flip(p.side_to_move()) != q.side {
        q.side = q.side.opponent();
        q.hash ^= KEYS.side;
    }
    let last = p.last_move().map(|m| match m.kind() {
        MoveKind::Place(s) => Move::place(map_square(s, sym)),
        MoveKind::Stack { count, from, to } => {
            Move::stack(count, map_square(from, sym), map_square(to, sym))
        }
        MoveKind::Pass => Move::PASS,
    });
    q.set_last(last, p.passes);
    assert_eq!(q.hash, q.compute_hash());
    q
}

#[test]
fn perft_is_invariant_under_symmetry_and_colour_swap() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(99);
    let mut positions: Vec<Mixtour> = MIDGAMES
        .iter()
        .chain(TACTICAL.iter())
        .map(|f| pos(f))
        .collect();
    positions.extend((0..6).map(|_| random_position(&mut rng, 40)));
    for p in positions {
        let expected = perft(&p, 3);
        for sym in 0..8 {
            for swap in [false, true] {
                let q = transform(&p, sym, swap);
                assert_eq!(
                    perft(&q, 3),
                    expected,
                    "sym {sym} swap {swap}: {} -> {}",
                    p.fen(),
                    q.fen()
                );
            }
        }
    }
}

#[test]
fn tactical_positions_reach_scoring_and_passes_within_perft() {
    // The tactical set must actually exercise removals and passes, or the
    // perft cross-checks above would not cover those rules.
    let (mut removals, mut passes) = (0, 0);
    for fen in TACTICAL {
        let p = pos(fen);
        let mut moves = Vec::new();
        p.generate_moves(&mut moves);
        for &m in &moves {
            removals += p.is_noisy(m) as u32;
            let mut q = p;
            q.play(m);
            let mut replies = Vec::new();
            q.generate_moves(&mut replies);
            passes += replies.contains(&Move::PASS) as u32;
        }
    }
    assert!(
        removals > 0 && passes > 0,
        "removals {removals}, passes {passes}"
    );
}

#[test]
fn a_position_under_symmetry_has_the_networks_inputs_moved_by_the_same_symmetry() {
    use super::nnue::{active, symmetric_input, MAX_ACTIVE};
    let inputs = |p: &Mixtour| {
        let mut out = [0u16; MAX_ACTIVE];
        let n = active(p, &mut out);
        let mut v: Vec<usize> = out[..n].iter().map(|&i| i as usize).collect();
        v.sort_unstable();
        v
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(31);
    let mut positions: Vec<Mixtour> = MIDGAMES.iter().map(|f| pos(f)).collect();
    positions.extend((0..20).map(|_| random_position(&mut rng, 40)));
    for p in positions {
        let before = inputs(&p);
        for sym in 0..8 {
            let mut moved: Vec<usize> = before.iter().map(|&i| symmetric_input(i, sym)).collect();
            moved.sort_unstable();
            assert_eq!(
                moved,
                inputs(&transform(&p, sym as u8, false)),
                "{sym} {}",
                p.fen()
            );
        }
        // Symmetry 0 is the identity.
        assert!(before.iter().all(|&i| symmetric_input(i, 0) == i));
    }
}
