//! Silo tests: one per rule sentence of `docs/rules/silo.md` on positions
//! built for it, invariants over seeded random playouts against a slow
//! generator written separately here, notation round trips and rejections,
//! hand-counted perft, the colour-swap mirror symmetry, and the solver
//! against a plain minimax.

use std::collections::HashMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::solve::{self, best_move, FullSpace, Method, SolveLimits, Value};
use super::{Move, Silo, SiloVariant};
use crate::{find_legal, perft, Game, GameResult, MoveError, Outcome, Side};

fn pos(fen: &str) -> Silo {
    Silo::from_fen(&SiloVariant::STANDARD, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn moves_text(p: &Silo) -> Vec<String> {
    let mut moves = Vec::new();
    p.generate_moves(&mut moves);
    moves.iter().map(|m| m.to_string()).collect()
}

fn after(fen: &str, mv: &str) -> String {
    let mut p = pos(fen);
    let m = find_legal(&p, mv).unwrap_or_else(|e| panic!("{fen} {mv}: {e}"));
    p.play(m);
    p.fen()
}

fn winner(fen: &str) -> Option<Side> {
    pos(fen).outcome().result().and_then(GameResult::winner)
}

// ---------------------------------------------------------------------------
// The slow, obviously correct rules: stacks as vectors, bottom to top.

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Slow {
    stacks: Vec<Vec<Side>>,
    side: Side,
}

impl Slow {
    fn of(p: &Silo) -> Slow {
        Slow {
            stacks: (0..p.squares()).map(|sq| p.stack(sq)).collect(),
            side: p.side_to_move(),
        }
    }

    fn won(&self, side: Side) -> bool {
        let holding: Vec<&Vec<Side>> = self.stacks.iter().filter(|s| s.contains(&side)).collect();
        if holding.len() != 1 {
            return false;
        }
        // One run: the side's checkers are the levels first..=last, with
        // nothing of the other colour between.
        let s = holding[0];
        let first = s.iter().position(|&c| c == side).unwrap();
        let last = s.iter().rposition(|&c| c == side).unwrap();
        s[first..=last].iter().all(|&c| c == side)
    }

    /// (source square or None for pass, position after).
    fn children(&self) -> Vec<(Option<usize>, Slow)> {
        let n = self.stacks.len();
        let mut out = Vec::new();
        for sq in 0..n {
            let to = match self.side {
                Side::P1 if sq + 1 < n => sq + 1,
                Side::P2 if sq > 0 => sq - 1,
                _ => continue,
            };
            let Some(highest) = self.stacks[sq].iter().rposition(|&c| c == self.side) else {
                continue;
            };
            let mut next = self.clone();
            let segment = next.stacks[sq].split_off(highest);
            next.stacks[to].extend(segment);
            next.side = self.side.opponent();
            out.push((Some(sq), next));
        }
        if out.is_empty() {
            let mut next = self.clone();
            next.side = self.side.opponent();
            out.push((None, next));
        }
        out
    }

    fn over(&self) -> bool {
        self.won(Side::P1) || self.won(Side::P2)
    }
}

fn slow_perft(s: &Slow, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if s.over() {
        return 0;
    }
    s.children()
        .iter()
        .map(|(_, c)| slow_perft(c, depth - 1))
        .sum()
}

/// A random position on `squares` squares with the given checkers.
fn random_position(rng: &mut StdRng, squares: usize, red: usize, blue: usize) -> Silo {
    let mut stacks = vec![Vec::new(); squares];
    let mut checkers: Vec<Side> = [vec![Side::P1; red], vec![Side::P2; blue]].concat();
    // Fisher-Yates, then deal onto random squares.
    for i in (1..checkers.len()).rev() {
        let j = rng.gen_range(0..=i);
        checkers.swap(i, j);
    }
    for c in checkers {
        stacks[rng.gen_range(0..squares)].push(c);
    }
    let side = if rng.gen_bool(0.5) {
        Side::P1
    } else {
        Side::P2
    };
    Silo::from_stacks(&stacks, side)
}

/// The mirror image: row reversed, colours and side to move swapped.
fn mirror(p: &Silo) -> Silo {
    let stacks: Vec<Vec<Side>> = (0..p.squares())
        .rev()
        .map(|sq| p.stack(sq).iter().map(|c| c.opponent()).collect())
        .collect();
    Silo::from_stacks(&stacks, p.side_to_move().opponent())
}

// ---------------------------------------------------------------------------
// Material and start.

#[test]
fn rows_are_even_and_at_least_two() {
    // "A 1 x N row of squares, N even and at least 2"
    assert_eq!(pos("1/2 1").squares(), 2);
    assert_eq!(pos("12/21/x/x 1").squares(), 4);
    for odd in ["1 1", "1/2/x 1", "1/2/1/2/x 1"] {
        let e = Silo::from_fen(&SiloVariant::STANDARD, odd).unwrap_err();
        assert_eq!(e.field, "stacks", "{odd}");
    }
    assert!(SiloVariant::new(2).is_some());
    assert!(SiloVariant::new(0).is_none());
    assert!(SiloVariant::new(7).is_none());
}

#[test]
fn larger_rows_are_allowed() {
    // "Larger rows are allowed, e.g. N = 8 (a..h)."
    let p = pos("1/2/x/x/x/x/x/12 1");
    assert_eq!(p.squares(), 8);
    assert_eq!(p.parse_move("h").map(|m| m.to_string()), Ok("h".into()));
    let p = pos("1/2/x/x/x/x/x/x/x/x/x/x/x/x/x/12 2");
    assert_eq!(p.squares(), 16);
    assert!(Silo::from_fen(
        &SiloVariant::STANDARD,
        "1/2/x/x/x/x/x/x/x/x/x/x/x/x/x/x/x/x 1"
    )
    .is_err());
}

#[test]
fn start_has_n_over_2_squared_checkers_each() {
    // "Red and Blue checkers, (N/2)^2 each: 9 + 9 on the standard row."
    let s = Silo::start(&SiloVariant::STANDARD);
    assert_eq!((s.checkers(Side::P1), s.checkers(Side::P2)), (9, 9));
    let e = Silo::start(&SiloVariant::EIGHT);
    assert_eq!((e.checkers(Side::P1), e.checkers(Side::P2)), (16, 16));
    let four = Silo::start(&SiloVariant::new(4).unwrap());
    assert_eq!((four.checkers(Side::P1), four.checkers(Side::P2)), (4, 4));
}

#[test]
fn start_alternates_single_coloured_stacks_from_red() {
    // "every square holds one single-coloured stack of N/2 checkers,
    // alternating Red, Blue, Red, ... from square a"
    assert_eq!(
        Silo::start(&SiloVariant::STANDARD).fen(),
        "111/222/111/222/111/222 1"
    );
    assert_eq!(
        Silo::start(&SiloVariant::EIGHT).fen(),
        "1111/2222/1111/2222/1111/2222/1111/2222 1"
    );
    assert_eq!(Silo::start(&SiloVariant::new(2).unwrap()).fen(), "1/2 1");
}

#[test]
fn red_moves_first_then_alternately() {
    // "Red moves first; then alternately."
    let mut p = Silo::start(&SiloVariant::STANDARD);
    assert_eq!(p.side_to_move(), Side::P1);
    for expected in [Side::P2, Side::P1, Side::P2] {
        let mut moves = Vec::new();
        p.generate_moves(&mut moves);
        p.play(moves[0]);
        assert_eq!(p.side_to_move(), expected);
    }
}

#[test]
fn red_moves_up_the_files_blue_down() {
    // "Red moves towards higher files (a -> f), Blue towards lower files"
    assert_eq!(after("1/1/x/x/2/2 1", "b"), "1/x/1/x/2/2 2");
    assert_eq!(after("1/1/x/x/2/2 2", "f"), "1/1/x/x/22/x 1");
}

// ---------------------------------------------------------------------------
// A turn.

#[test]
fn a_move_needs_an_own_checker_on_the_source() {
    // "Choose a square whose stack holds at least one of your checkers"
    let p = pos("1/2/21/x/x/2 1");
    assert_eq!(moves_text(&p), ["a", "c"]);
    let e = find_legal(&p, "b").unwrap_err();
    assert!(matches!(e, MoveError::Illegal { ref token, .. } if token == "b"));
    assert!(find_legal(&p, "d").is_err(), "an empty square is no source");
}

#[test]
fn the_highest_own_checker_moves_with_everything_above() {
    // "Take your HIGHEST checker in that stack together with every checker
    // above it (all of them enemy checkers), and put that segment, order
    // kept, on top of the stack on the neighbouring square"
    // Red in a = 1 2 1 2 2 (bottom to top): its highest is level 2; it moves
    // with the 2 2 above it onto b = 2 1.
    assert_eq!(after("12122/21/x/x 1", "a"), "12/21122/x/x 2");
    // Blue in d = 2 1 2 1 1: highest Blue at level 2, takes 2 1 1 onto c.
    assert_eq!(after("x/x/1/21211 2", "d"), "x/x/1211/21 1");
    // A lone top checker moves alone.
    assert_eq!(after("21/x/2/1 1", "a"), "2/1/2/1 2");
}

#[test]
fn a_move_may_go_onto_an_empty_square() {
    // "(or on the empty square)"
    assert_eq!(after("121/x/2/x 1", "a"), "12/1/2/x 2");
}

#[test]
fn the_last_square_cannot_be_moved() {
    // "A stack on your last square (f for Red, a for Blue) cannot be moved
    // by you; nothing falls off the row."
    let p = pos("2/1/x/x/x/12 1");
    assert_eq!(moves_text(&p), ["b"]);
    assert!(find_legal(&p, "f").is_err());
    let p = pos("21/x/x/x/2/1 2");
    assert_eq!(moves_text(&p), ["e"]);
    assert!(find_legal(&p, "a").is_err());
}

#[test]
fn a_move_is_given_by_its_source_square() {
    // "So a move is fully given by its source square."
    let p = pos("12/21/12/21 1");
    for (text, square) in [("a", 0), ("b", 1), ("c", 2)] {
        let m = p.parse_move(text).unwrap();
        assert_eq!(m.square(), Some(square));
        assert_eq!(m.to_string(), text);
    }
    assert_eq!(p.parse_move("pass"), Ok(Move::PASS));
}

#[test]
fn the_pass_is_forced_and_only_then_legal() {
    // "No voluntary pass. A player with no legal move (all their checkers
    // are on their last square) must pass; the opponent moves again."
    let stuck = pos("2/x/x/121 1"); // Red all on d, not one run
    assert_eq!(stuck.outcome(), Outcome::Ongoing);
    assert_eq!(moves_text(&stuck), ["pass"]);
    let mut p = stuck;
    p.play(find_legal(&p, "pass").unwrap());
    assert_eq!(p.fen(), "2/x/x/121 2");
    assert_eq!(moves_text(&p), ["d"]);
    let free = pos("1/2/x/121 1");
    assert!(find_legal(&free, "pass").is_err());
    let stuck_blue = pos("212/x/x/1 2");
    assert_eq!(moves_text(&stuck_blue), ["pass"]);
}

// ---------------------------------------------------------------------------
// The end.

#[test]
fn all_checkers_in_one_unbroken_run_win() {
    // "You win when all your checkers are in one stack and form one
    // unbroken run; enemy checkers may lie below and/or above that run,
    // never inside it."
    assert_eq!(
        winner("x/2112/x/2 2"),
        Some(Side::P1),
        "enemy below and above"
    );
    assert_eq!(winner("x/11/2/2 2"), Some(Side::P1), "pure run");
    assert_eq!(winner("x/211/x/2 2"), Some(Side::P1), "enemy below");
    assert_eq!(winner("x/121/x/2 2"), None, "enemy inside the run");
    assert_eq!(
        winner("1/1/2/2 1"),
        None,
        "one run in reading order, two stacks"
    );
    assert_eq!(winner("12/x/1/2 1"), None, "two stacks");
    assert_eq!(winner("1/2212/x/x 1"), None);
}

#[test]
fn the_win_is_checked_after_every_move() {
    // "Check after every move."
    let mut p = pos("1/21/2/x 1");
    assert_eq!(p.outcome(), Outcome::Ongoing);
    p.play(find_legal(&p, "a").unwrap());
    assert_eq!(p.fen(), "x/211/2/x 2");
    assert_eq!(p.outcome().result(), Some(GameResult::P1Win));
    // No move is legal in a finished game.
    assert!(find_legal(&p, "c").is_err());
}

#[test]
fn only_the_mover_can_newly_win() {
    // "Only the mover can newly satisfy the condition (a move never
    // completes the opponent's run)": checked on random play, by the slow rules.
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..2000 {
        let mut p = {
            let (r, b) = (rng.gen_range(1..4), rng.gen_range(1..4));
            random_position(&mut rng, 4, r, b)
        };
        for _ in 0..30 {
            if p.outcome().is_over() {
                break;
            }
            let mover = p.side_to_move();
            let mut moves = Vec::new();
            p.generate_moves(&mut moves);
            p.play(moves[rng.gen_range(0..moves.len())]);
            assert!(!Slow::of(&p).won(mover.opponent()), "{p:?}");
        }
    }
}

#[test]
fn a_given_position_with_both_runs_goes_to_the_last_mover() {
    // "if a position given to the engine already satisfies one player's
    // condition the game is over and that player has won (if both: the
    // player who moved last)"
    assert_eq!(winner("11/22/x/x 1"), Some(Side::P2));
    assert_eq!(winner("11/22/x/x 2"), Some(Side::P1));
    assert_eq!(
        winner("11/2/2/x 1"),
        Some(Side::P1),
        "only Red's run: Red, even to move"
    );
    assert_eq!(winner("1/2/1/2 1"), None);
}

#[test]
fn a_third_repetition_would_be_a_draw() {
    // "Silo has no draw. Repetition is not known to occur; engines and the
    // arena still treat a third repetition as a draw (house rule)".
    let p = pos("12/21/12/21 1");
    assert_eq!(p.repetition_outcome().result(), Some(GameResult::Draw));
}

#[test]
fn no_position_repeats_on_small_rows() {
    // Why repetition is "not known to occur": in every arrangement of a few
    // checkers on 4 and 6 squares, the game graph has no cycle (Kahn's
    // algorithm removes every position), so no game can repeat a position
    // and the house rule never applies there.
    for (squares, n) in [(2, 3), (4, 1), (4, 2), (4, 3), (4, 4), (6, 2), (6, 3)] {
        let mut ids: HashMap<Slow, usize> = HashMap::new();
        let mut nodes: Vec<Slow> = Vec::new();
        // Every arrangement with either side to move, by exploring from
        // every arrangement (children stay in the same set).
        let mut rng = StdRng::seed_from_u64(squares as u64 * 10 + n as u64);
        for _ in 0..2000 {
            let s = Slow::of(&random_position(&mut rng, squares, n, n));
            if !ids.contains_key(&s) {
                ids.insert(s.clone(), nodes.len());
                nodes.push(s);
            }
        }
        let mut edges: Vec<Vec<usize>> = Vec::new();
        let mut i = 0;
        while i < nodes.len() {
            let mut out = Vec::new();
            if !nodes[i].over() {
                for (_, c) in nodes[i].children() {
                    let next = nodes.len();
                    let j = *ids.entry(c.clone()).or_insert(next);
                    if j == next {
                        nodes.push(c);
                    }
                    out.push(j);
                }
            }
            edges.push(out);
            i += 1;
        }
        let mut indegree = vec![0; nodes.len()];
        for out in &edges {
            for &j in out {
                indegree[j] += 1;
            }
        }
        let mut queue: Vec<usize> = (0..nodes.len()).filter(|&i| indegree[i] == 0).collect();
        let mut removed = 0;
        while let Some(i) = queue.pop() {
            removed += 1;
            for &j in &edges[i] {
                indegree[j] -= 1;
                if indegree[j] == 0 {
                    queue.push(j);
                }
            }
        }
        assert_eq!(removed, nodes.len(), "{squares} squares, {n}+{n}: a cycle");
    }
}

// ---------------------------------------------------------------------------
// Notation.

#[test]
fn squares_are_letters_from_a() {
    // "Squares: letters a.. from Red's left (a) to Red's right."
    let p = pos("1/2/1/2/1/2/1/2 1");
    assert_eq!(p.parse_move("a").unwrap().square(), Some(0));
    assert_eq!(p.parse_move("h").unwrap().square(), Some(7));
    for bad in ["i", "A", "", "aa", "1", "pas", "PASS", " a", "é"] {
        let e = p.parse_move(bad).unwrap_err();
        assert!(
            matches!(e, MoveError::Syntax { ref token, .. } if token == bad),
            "{bad}"
        );
    }
}

#[test]
fn position_strings_round_trip() {
    // "Position string: <stacks> <side> ... Start of the standard game:
    // 111/222/111/222/111/222 1."
    for fen in [
        "111/222/111/222/111/222 1",
        "x/2112/x/2 2",
        "12122/21/x/x 1",
        "1/2 2",
        "1111/2222/1111/2222/1111/2222/1111/2222 1",
    ] {
        assert_eq!(pos(fen).fen(), fen);
    }
    let mut rng = StdRng::seed_from_u64(11);
    for _ in 0..2000 {
        let squares = 2 * rng.gen_range(1..=8);
        let p = {
            let (r, b) = (rng.gen_range(1..10), rng.gen_range(1..10));
            random_position(&mut rng, squares, r, b)
        };
        let q = pos(&p.fen());
        assert_eq!(q, p);
        assert_eq!(q.hash(), p.hash());
    }
}

#[test]
fn malformed_position_strings_name_the_field() {
    let long_stack = format!("{}/2 1", "1".repeat(128));
    let no_side = vec!["1"; 18].join("/");
    let long_row = format!("{} 1", vec!["12"; 18].join("/"));
    for (fen, field) in [
        ("", "stacks"),
        ("111/222", "side"),
        ("111/222 3", "side"),
        ("111/222 1 x", "end"),
        ("111/222/111 1", "stacks"),  // odd row
        ("111//111/222 1", "stacks"), // empty cell
        ("113/222 1", "stacks"),      // not a colour
        ("xx/222 1", "stacks"),
        ("111/111 1", "stacks"),         // Blue has no checker
        ("x/x 1", "stacks"),             // nobody has one
        (long_stack.as_str(), "stacks"), // too many checkers
        (no_side.as_str(), "side"),
        (long_row.as_str(), "stacks"), // 18 squares
    ] {
        let e = Silo::from_fen(&SiloVariant::STANDARD, fen).unwrap_err();
        assert_eq!(e.field, field, "{fen}: {e}");
    }
}

#[test]
fn random_and_mutated_strings_never_panic() {
    let mut rng = StdRng::seed_from_u64(5);
    let alphabet = b"12x/ 0-\t3a";
    let p = pos("111/222/111/222/111/222 1");
    for _ in 0..20_000 {
        let len = rng.gen_range(0..40);
        let text: String = (0..len)
            .map(|_| alphabet[rng.gen_range(0..alphabet.len())] as char)
            .collect();
        let _ = Silo::from_fen(&SiloVariant::STANDARD, &text);
        let _ = p.parse_move(&text);
        // Mutations of a good string: one byte changed, dropped or doubled.
        let mut bytes = b"121/2x/1122/21 2".to_vec();
        let i = rng.gen_range(0..bytes.len());
        match rng.gen_range(0..3) {
            0 => bytes[i] = alphabet[rng.gen_range(0..alphabet.len())],
            1 => {
                bytes.remove(i);
            }
            _ => {
                let b = bytes[i];
                bytes.insert(i, b);
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(q) = Silo::from_fen(&SiloVariant::STANDARD, &text) {
            assert_eq!(pos(&q.fen()), q);
        }
    }
    // Arbitrary bytes and the other checks a parser must survive.
    for _ in 0..5000 {
        let bytes: Vec<u8> = (0..rng.gen_range(0..20)).map(|_| rng.gen()).collect();
        let text = String::from_utf8_lossy(&bytes);
        let _ = Silo::from_fen(&SiloVariant::STANDARD, &text);
        let _ = p.parse_move(&text);
    }
}

#[test]
fn a_forced_pass_counts_as_a_ply() {
    // "A forced pass counts as a ply." Red is stuck; Blue's only move is d,
    // after which Red may move c or d... d is Red's last square: only c.
    let p = pos("2/x/x/121 1");
    assert_eq!(perft(&p, 1), 1);
    assert_eq!(perft(&p, 2), 1);
    assert_eq!(after("2/x/x/121 2", "d"), "2/x/21/1 1");
    assert_eq!(perft(&p, 3), 1);
}

// ---------------------------------------------------------------------------
// Invariants over random playouts.

#[test]
fn random_playouts_keep_the_invariants() {
    let mut rng = StdRng::seed_from_u64(2026);
    let mut checked = 0;
    for game in 0..3000 {
        let squares = 2 * rng.gen_range(1..=5);
        let mut p = if game % 3 == 0 {
            Silo::start(&SiloVariant::new(squares.max(4)).unwrap())
        } else {
            {
                let (r, b) = (rng.gen_range(1..8), rng.gen_range(1..8));
                random_position(&mut rng, squares, r, b)
            }
        };
        let (red, blue) = (p.checkers(Side::P1), p.checkers(Side::P2));
        for _ in 0..60 {
            assert_eq!(p.hash(), p.compute_hash());
            let slow = Slow::of(&p);
            let count = |s: Side| slow.stacks.iter().flatten().filter(|&&c| c == s).count();
            assert_eq!(
                (count(Side::P1), count(Side::P2)),
                (red as usize, blue as usize)
            );
            assert_eq!(p.outcome().is_over(), slow.over(), "{p:?}");
            if p.outcome().is_over() {
                break;
            }
            // Every generated move is legal, and every legal move generated,
            // with the same result as the slow rules.
            let mut moves = Vec::new();
            p.generate_moves(&mut moves);
            let fast: Vec<(Option<usize>, Slow)> = moves
                .iter()
                .map(|&m| {
                    let mut c = p;
                    c.play(m);
                    (m.square().map(|s| s as usize), Slow::of(&c))
                })
                .collect();
            assert_eq!(fast, slow.children(), "{p:?}");
            assert_eq!(p.count_moves(), moves.len() as u64);
            p.play(moves[rng.gen_range(0..moves.len())]);
            checked += 1;
        }
    }
    assert!(checked > 20_000, "{checked}");
}

#[test]
fn the_mirror_swaps_the_winner() {
    let mut rng = StdRng::seed_from_u64(99);
    for _ in 0..500 {
        let p = random_position(&mut rng, 6, 4, 4);
        let q = mirror(&p);
        assert_eq!(mirror(&q), p);
        let winner = |x: &Silo| x.outcome().result().and_then(GameResult::winner);
        assert_eq!(winner(&q), winner(&p).map(Side::opponent), "{p:?}");
    }
}

// ---------------------------------------------------------------------------
// Perft.

#[test]
fn perft_of_the_standard_start_by_hand() {
    // Depth 1: Red moves a, c, e (f is Blue's and Red's last square).
    // Depth 2: each leaves Blue b, d, f: 9.
    // Depth 3 (counted by hand): after a, Blue b/d/f leave Red 3/4/4; after
    // c, 4/3/4; after e, 3/3/3: 31.
    let s = Silo::start(&SiloVariant::STANDARD);
    for (depth, n) in [(0, 1), (1, 3), (2, 9), (3, 31)] {
        assert_eq!(perft(&s, depth), n, "depth {depth}");
    }
}

#[test]
fn perft_of_the_four_square_start_by_hand() {
    // 11/22/11/22: Red a or c; then Blue b or d; then Red has 2, 3, 2, 2.
    let s = pos("11/22/11/22 1");
    for (depth, n) in [(1, 2), (2, 4), (3, 9)] {
        assert_eq!(perft(&s, depth), n, "depth {depth}");
    }
}

#[test]
fn perft_matches_the_slow_rules_deeper() {
    for (fen, depth) in [
        ("111/222/111/222/111/222 1", 8),
        ("1111/2222/1111/2222/1111/2222/1111/2222 1", 6),
        ("11/22/11/22 1", 12),
        ("2/x/x/121 1", 9),
        ("12122/21/x/x 1", 10),
    ] {
        let p = pos(fen);
        assert_eq!(perft(&p, depth), slow_perft(&Slow::of(&p), depth), "{fen}");
        assert_eq!(
            crate::perft_with(&p, depth, false),
            perft(&p, depth),
            "{fen}"
        );
    }
}

#[test]
fn perft_is_symmetric_under_mirror_and_colour_swap() {
    let mut rng = StdRng::seed_from_u64(42);
    let mut fens = vec![
        "111/222/111/222/111/222 1".to_string(),
        "1111/2222/1111/2222/1111/2222/1111/2222 1".to_string(),
    ];
    for _ in 0..50 {
        fens.push(random_position(&mut rng, 6, 5, 4).fen());
    }
    for fen in fens {
        let p = pos(&fen);
        let q = mirror(&p);
        for depth in 1..=6 {
            assert_eq!(perft(&p, depth), perft(&q, depth), "{fen} depth {depth}");
        }
    }
}

#[test]
fn registry_and_perft_command_know_silo() {
    use crate::perft::perft_command;
    assert!(crate::variant_names().contains(&"silo"));
    assert!(crate::variant_names().contains(&"silo-8"));
    let out = perft_command("silo", None, &[], 3, false).unwrap();
    assert!(out.ends_with("Nodes searched: 31\n"), "{out}");
    let out = perft_command("silo-8", Some("11/22/11/22 1"), &["a"], 2, false).unwrap();
    assert!(out.ends_with("Nodes searched: 5\n"), "{out}");
    assert!(perft_command("silo", Some("11/22/11 1"), &[], 1, false).is_err());
    assert!(perft_command("silo", None, &["f"], 1, false).is_err());
}

// ---------------------------------------------------------------------------
// The solver.

/// A plain depth-bounded minimax, memoised by (position, depth): whether the
/// side to move forces a win, or the opponent does, within `d` plies.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bounded {
    Win,
    Loss,
    Open,
}

fn bounded(s: &Slow, d: u32, memo: &mut HashMap<(Slow, u32), Bounded>) -> Bounded {
    let me = s.side;
    // The player who moved last wins first (the rules' tie break).
    if s.won(me.opponent()) {
        return Bounded::Loss;
    }
    if s.won(me) {
        return Bounded::Win;
    }
    if d == 0 {
        return Bounded::Open;
    }
    if let Some(&b) = memo.get(&(s.clone(), d)) {
        return b;
    }
    let results: Vec<Bounded> = s
        .children()
        .iter()
        .map(|(_, c)| bounded(c, d - 1, memo))
        .collect();
    let b = if results.contains(&Bounded::Loss) {
        Bounded::Win
    } else if results.iter().all(|&r| r == Bounded::Win) {
        Bounded::Loss
    } else {
        Bounded::Open
    };
    memo.insert((s.clone(), d), b);
    b
}

/// The exact value by the smallest bound that decides it; a draw if none
/// up to `max` plies does.
fn minimax_value(p: &Silo, max: u32) -> Value {
    let s = Slow::of(p);
    let mut memo = HashMap::new();
    for d in 0..=max {
        match bounded(&s, d, &mut memo) {
            Bounded::Win => return Value::Win(d as u16),
            Bounded::Loss => return Value::Loss(d as u16),
            Bounded::Open => {}
        }
    }
    Value::Draw
}

const REACHABLE: SolveLimits = SolveLimits {
    method: Method::Reachable,
    max_positions: 1_000_000,
};
const FULL: SolveLimits = SolveLimits {
    method: Method::FullSpace,
    max_positions: 1_000_000,
};

#[test]
fn four_square_start_is_a_first_player_win() {
    let p = pos("11/22/11/22 1");
    let expected = minimax_value(&p, 80);
    assert!(matches!(expected, Value::Win(_)), "{expected:?}");
    for limits in [REACHABLE, FULL] {
        let s = solve::solve(&p, &limits).unwrap();
        assert_eq!(s.value, expected);
        assert_eq!(s.result(&p), Some(GameResult::P1Win));
        assert_eq!(s.pv.len() as u16, expected.plies().unwrap());
    }
}

#[test]
fn four_square_swapped_start_is_a_second_player_win() {
    let p = pos("22/11/22/11 1");
    let expected = minimax_value(&p, 80);
    assert!(matches!(expected, Value::Loss(_)), "{expected:?}");
    for limits in [REACHABLE, FULL] {
        let s = solve::solve(&p, &limits).unwrap();
        assert_eq!(s.value, expected);
        assert_eq!(s.result(&p), Some(GameResult::P2Win));
    }
}

#[test]
fn solver_agrees_with_minimax_on_small_rows() {
    let mut rng = StdRng::seed_from_u64(1234);
    let mut full = HashMap::new();
    for i in 0..200 {
        let (r, b) = if i % 2 == 0 {
            let n = rng.gen_range(1..=3);
            (n, n)
        } else {
            (rng.gen_range(1..=3), rng.gen_range(1..=3))
        };
        let squares = if i % 5 == 0 { 2 } else { 4 };
        let p = random_position(&mut rng, squares, r, b);
        let expected = minimax_value(&p, 80);
        let reach = solve::solve(&p, &REACHABLE).unwrap();
        assert_eq!(reach.value, expected, "{p:?}");
        if r == b {
            // One full-space table per (row, checkers) serves every position.
            let table = full
                .entry((squares, r))
                .or_insert_with(|| solve::solve(&p, &FULL).unwrap().table);
            assert_eq!(table.value(&p), Some(expected), "{p:?}");
        }
    }
}

#[test]
fn a_method_the_position_does_not_fit_is_refused() {
    let p = pos("111/22/x/x 1");
    assert!(matches!(
        solve::solve(&p, &FULL),
        Err(solve::SolveError::NotFullSpace { .. })
    ));
    let too_many = SolveLimits {
        method: Method::Reachable,
        max_positions: 10,
    };
    assert_eq!(
        solve::solve(&pos("11/22/11/22 1"), &too_many).unwrap_err(),
        solve::SolveError::TooManyPositions { limit: 10 }
    );
    let wide = Silo::start(&SiloVariant::EIGHT);
    assert!(matches!(
        solve::solve(&wide, &SolveLimits::default()),
        Err(solve::SolveError::TooWide { bits: 73 })
    ));
}

#[test]
fn full_space_parents_are_the_inverse_of_children() {
    let p = pos("111/222/x/x 1");
    let space = FullSpace::new(&p).unwrap();
    let (mut children, mut parents) = (Vec::new(), Vec::new());
    let mut edges = HashMap::new();
    for i in 0..space.size() {
        let row = space.row(i);
        assert_eq!(space.index(&row), i);
        assert_eq!(space.mirror(space.mirror(row)), row);
        let stacks: Vec<Vec<Side>> = (0..4)
            .map(|sq| {
                let start: u32 = row.heights[..sq].iter().map(|&h| h as u32).sum();
                (start..start + row.heights[sq] as u32)
                    .map(|b| {
                        if (row.colours >> b) & 1 == 1 {
                            Side::P2
                        } else {
                            Side::P1
                        }
                    })
                    .collect()
            })
            .collect();
        if (Slow {
            stacks,
            side: Side::P1,
        })
        .over()
        {
            continue;
        }
        space.children(&row, &mut children);
        for &c in &children {
            *edges.entry((i, c)).or_insert(0) += 1;
        }
    }
    let mut back = 0;
    for c in 0..space.size() {
        space.parents(&space.row(c), &mut parents);
        for &p in &parents {
            assert_eq!(edges.get(&(p, c)), Some(&1), "{p} -> {c}");
            back += 1;
        }
    }
    assert_eq!(back, edges.len());
}

#[test]
fn best_move_wins_fastest_and_loses_slowest() {
    let root = pos("11/22/11/22 1");
    let solution = solve::solve(&root, &FULL).unwrap();
    let table = &solution.table;
    // Perfect play against every reply: the winner never takes longer than
    // the table says, and optimal replies make it take exactly that long.
    let mut rng = StdRng::seed_from_u64(8);
    for _ in 0..200 {
        let mut p = root;
        let Value::Win(n) = solution.value else {
            panic!()
        };
        let mut plies = 0;
        while !p.outcome().is_over() {
            let mv = if p.side_to_move() == Side::P1 {
                best_move(&p, table).unwrap().0
            } else {
                let mut moves = Vec::new();
                p.generate_moves(&mut moves);
                moves[rng.gen_range(0..moves.len())]
            };
            p.play(mv);
            plies += 1;
        }
        assert_eq!(p.outcome().result(), Some(GameResult::P1Win));
        assert!(plies <= n);
    }
    let mut p = root;
    for &mv in &solution.pv {
        let (best, v) = best_move(&p, table).unwrap();
        assert_eq!(best, mv);
        assert_eq!(Some(v), table.value(&p));
        p.play(mv);
    }
    assert_eq!(p.outcome().result(), Some(GameResult::P1Win));
    // Exact small cases: a win in 1, a loss in 2.
    let win1 = pos("1/21/2/x 1");
    let s = solve::solve(&win1, &REACHABLE).unwrap();
    assert_eq!(s.value, Value::Win(1));
    assert_eq!(
        best_move(&win1, &s.table).map(|(m, _)| m.to_string()),
        Some("a".into())
    );
    assert_eq!(s.table.value(&pos("x/211/2/x 2")), Some(Value::Loss(0)));
    // Another game's position is not in the table, whatever its key.
    assert_eq!(s.table.value(&pos("x/211/2/x/x/x 2")), None);
    assert_eq!(s.table.value(&pos("x/2111/2/x 2")), None);
}

#[test]
fn solve_command_reports_through_the_registry() {
    let (root, solution) = solve::solve_command("silo", Some("11/22/11/22 1"), "auto").unwrap();
    let text = solve::solve_report(&root, &solution, 0.5);
    assert!(text.contains("Result: 1-0"), "{text}");
    assert!(solve::solve_command("mixtour", None, "auto").is_err());
    assert!(solve::solve_command("silo", Some("1/2/3 1"), "auto").is_err());
    assert!(solve::solve_command("nope", None, "auto").is_err());
    assert!(solve::solve_command("silo", Some("11/22/11/22 1"), "magic").is_err());
}

#[test]
fn proof_search_agrees_with_the_tables() {
    let mut rng = StdRng::seed_from_u64(77);
    for _ in 0..60 {
        let (r, b) = (rng.gen_range(1..=3), rng.gen_range(1..=3));
        let p = random_position(&mut rng, 4, r, b);
        let table = solve::solve(&p, &REACHABLE).unwrap();
        let proof = solve::prove_by_search(&p, 100, 1_000_000).unwrap();
        assert_eq!(proof.value, table.value, "{p:?}");
    }
    let p = pos("11/22/11/22 1");
    assert_eq!(
        solve::prove_by_search(&p, 100, 1_000_000).unwrap().value,
        minimax_value(&p, 80)
    );
    assert_eq!(
        solve::prove_by_search(&p, 100, 10),
        Err(solve::SolveError::TooManyPositions { limit: 10 })
    );
}

/// Timing of the methods side by side (wall clock, so not an assertion):
/// `cargo test --release --lib measure_solvers -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement printed for people (wall clock), not an assertion"]
fn measure_solvers() {
    for fen in [
        "11/22/11/22 1",
        "111/222/111/222 1",
        "11/22/11/22/11/22 1",
        "1/2/1/2/1/2 1",
        "111/222/1/2/1/2 1",
    ] {
        let p = pos(fen);
        let clock = std::time::Instant::now();
        let full = solve::solve(&p, &FULL).unwrap();
        let t_full = clock.elapsed().as_secs_f64();
        let clock = std::time::Instant::now();
        let limits = SolveLimits {
            method: Method::Reachable,
            max_positions: 50_000_000,
        };
        let reach = solve::solve(&p, &limits).unwrap();
        let t_reach = clock.elapsed().as_secs_f64();
        let clock = std::time::Instant::now();
        let proof = solve::prove_by_search(&p, 400, 50_000_000).unwrap();
        let t_proof = clock.elapsed().as_secs_f64();
        assert_eq!(full.value, reach.value);
        assert_eq!(full.value, proof.value);
        println!(
            "{fen}: {} | full space {} positions {t_full:.3} s | reachable {} positions {t_reach:.3} s | proof search {} nodes {} positions {t_proof:.3} s",
            full.value, full.positions, reach.positions, proof.nodes, proof.positions
        );
    }
}

#[test]
fn evaluation_counts_runs_and_stacks() {
    use super::eval::{fragments, EXTRA_RUN, EXTRA_STACK, TEMPO};
    let p = pos("121/2/x/1 1");
    // Red: runs a0, a2, d0 in stacks a, d; Blue: runs a1, b0 in stacks a, b.
    assert_eq!(fragments(&p, Side::P1), (3, 2));
    assert_eq!(fragments(&p, Side::P2), (2, 2));
    assert_eq!(p.evaluate(), TEMPO - EXTRA_RUN);
    assert_eq!(pos("121/2/x/1 2").evaluate(), TEMPO + EXTRA_RUN);
    assert_eq!(pos("1/2/1/2 1").evaluate(), TEMPO);
    // Red's two checkers in one run; Blue's in two stacks.
    assert_eq!(
        pos("2/11/x/2 2").evaluate(),
        TEMPO - EXTRA_RUN - EXTRA_STACK
    );
}

/// How far a forward proof gets on the 1 x 8 start in about two minutes:
/// `cargo test --release --lib measure_silo8 -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement of about two minutes, printed for people"]
fn measure_silo8() {
    let p = Silo::start(&SiloVariant::EIGHT);
    let clock = std::time::Instant::now();
    for d in 1..200 {
        match solve::prove_by_search(&p, d, 40_000_000) {
            Ok(proof) => {
                println!(
                    "bound {d}: {} | {} nodes, {} positions, {:.1} s",
                    proof.value,
                    proof.nodes,
                    proof.positions,
                    clock.elapsed().as_secs_f64()
                );
                if proof.value != Value::Draw {
                    break;
                }
            }
            Err(e) => {
                println!(
                    "bound {d}: {e} after {:.1} s",
                    clock.elapsed().as_secs_f64()
                );
                break;
            }
        }
        if clock.elapsed().as_secs() > 120 {
            break;
        }
    }
}

#[test]
fn pretty_draws_the_stacks_upwards() {
    let text = pos("121/x/2/x 2").pretty();
    let lines: Vec<&str> = text.lines().collect();
    // Top level first: Red on a; then Blue on a; then Red on a, Blue on c.
    assert_eq!(lines[0].trim_end(), "    R");
    assert_eq!(lines[1].trim_end(), "    B");
    assert_eq!(lines[2].trim_end(), "    R     B");
    assert_eq!(lines[4].trim_end(), "    a  b  c  d");
    assert!(text.contains("Fen: 121/x/2/x 2"), "{text}");
}
