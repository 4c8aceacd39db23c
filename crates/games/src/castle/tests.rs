//! Castle conquest tests: one test per rule sentence on positions built for
//! it, a slow generator written straight from the rules text (terrain read
//! from the diagram of docs/rules/castle.md, not from `tables`), seeded random playouts,
//! perft, symmetry and notation.

use std::collections::BTreeSet;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::tables::{square, SIZE, SQUARES};
use super::{parse_square, square_name, Castle, CastleVariant, Move};
use crate::line::Line;
use crate::perft::{perft, perft_command, perft_with};
use crate::variants::new_game;
use crate::{Game, GameResult, MoveError, Outcome, Side};

/// The board of `docs/rules/castle.md`, copied verbatim.
const DIAGRAM: &str = "\
19 . . . . . . . . . . . . . . . . . . .
18 . . . . . . # # # B # # # . . . . . .
17 . . . . . . # : : : : : # . . . . . .
16 . . . . . . C : : : : : C . . . . . .
15 . . . . . . # : : K : : # . . . . . .
14 . . . . . . # : : : : : # . . . . . .
13 . . . . . . B : : : : : B . . . . . .
12 . . . . . . B C B B B C B . . . . . .
11 , , , , , , , , , , , , , , , , , , ,
10 , , , , , , , , , , , , , , , , , , ,
 9 , , , , , , , , , , , , , , , , , , ,
 8 . . . . . . Y C Y Y Y C Y . . . . . .
 7 . . . . . . Y : : : : : Y . . . . . .
 6 . . . . . . # : : : : : # . . . . . .
 5 . . . . . . # : : K : : # . . . . . .
 4 . . . . . . C : : : : : C . . . . . .
 3 . . . . . . # : : : : : # . . . . . .
 2 . . . . . . # # # Y # # # . . . . . .
 1 . . . . . . . . . . . . . . . . . . .";

const START_FEN: &str = "x19/x9,2,x9/x19/x19/x19/x19/x6,2,x5,2,x6/x6,2,x,2,2,2,x,2,x6/x19/x19/x19/x6,1,x,1,1,1,x,1,x6/x6,1,x5,1,x6/x19/x19/x19/x19/x9,1,x9/x19 1 8,8 d9,p11,h10,l10 0";

/// The diagram's symbol per square index.
fn diagram() -> Vec<char> {
    let mut cells = vec!['?'; SQUARES];
    for line in DIAGRAM.lines() {
        let mut tokens = line.split_whitespace();
        let rank: usize = tokens.next().unwrap().parse().unwrap();
        let symbols: Vec<char> = tokens.map(|t| t.chars().next().unwrap()).collect();
        assert_eq!(symbols.len(), SIZE);
        for (file, &c) in symbols.iter().enumerate() {
            cells[(rank - 1) * SIZE + file] = c;
        }
    }
    assert!(!cells.contains(&'?'));
    cells
}

fn sq(name: &str) -> usize {
    parse_square(name).unwrap_or_else(|| panic!("bad square {name}"))
}

/// Knights on the named squares, skulls as listed, passes, side to move.
fn build(yellow: &[&str], blue: &[&str], skulls: &[&str], passes: [u8; 2], side: Side) -> Castle {
    let y: Vec<usize> = yellow.iter().map(|s| sq(s)).collect();
    let b: Vec<usize> = blue.iter().map(|s| sq(s)).collect();
    let k: Vec<usize> = skulls.iter().map(|s| sq(s)).collect();
    let mut pos = Castle::with_layout(&y, &b, &k, passes);
    if side == Side::P2 {
        pos.side = Side::P2;
        pos.hash = pos.compute_hash();
    }
    pos
}

fn with_ply(mut pos: Castle, ply: u16) -> Castle {
    pos.ply = ply;
    pos.hash = pos.compute_hash();
    pos
}

fn move_texts(pos: &Castle) -> BTreeSet<String> {
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    moves.iter().map(|m| m.to_string()).collect()
}

fn legal(pos: &Castle, text: &str) -> bool {
    move_texts(pos).contains(text)
}

fn play(pos: &Castle, text: &str) -> Castle {
    let mv = crate::find_legal(pos, text).unwrap_or_else(|e| panic!("{e} in {pos:?}"));
    let mut next = *pos;
    next.play(mv);
    next
}

/// Moves of the knight on `from` only.
fn moves_of(pos: &Castle, from: &str) -> BTreeSet<String> {
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    moves
        .iter()
        .filter(|m| m.from() == sq(from))
        .map(|m| m.to_string())
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

// ---------------------------------------------------------------------------
// The slow generator: every (from, to) pair on one line, judged by the rules
// text sentence by sentence, terrain from the diagram.

/// Legal moves as (from, to) pairs.
fn slow_moves(pos: &Castle, cells: &[char]) -> BTreeSet<(usize, usize)> {
    let us = pos.side_to_move();
    let is_wall = |s: usize| matches!(cells[s], '#' | 'Y' | 'B');
    let own_key = (0..SQUARES)
        .find(|&s| cells[s] == 'K' && (s < SQUARES / 2) == (us == Side::P1))
        .unwrap();
    let skulls: Vec<usize> = pos.skull_squares().collect();
    let costs = |s: usize| (cells[s] == 'C') as u32 + skulls.contains(&s) as u32;
    let mine = pos.knights(us);
    let theirs = pos.knights(us.opponent());
    let mut out = BTreeSet::new();
    for from in mine.squares() {
        let (ff, fr) = ((from % SIZE) as i32, (from / SIZE) as i32);
        let line = (0..SIZE).flat_map(|k| [square(k, fr as usize), square(ff as usize, k)]);
        for to in line {
            let (tf, tr) = ((to % SIZE) as i32, (to / SIZE) as i32);
            if to == from || (ff != tf && fr != tr) {
                continue;
            }
            let dist = (tf - ff).abs() + (tr - fr).abs();
            let (df, dr) = ((tf - ff).signum(), (tr - fr).signum());
            let path: Vec<usize> = (1..dist)
                .map(|k| ((fr + dr * k) * SIZE as i32 + ff + df * k) as usize)
                .collect();
            // The destination is empty or an enemy knight.
            if mine.has(to) {
                continue;
            }
            // No jumping.
            if path.iter().any(|&s| mine.has(s) || theirs.has(s)) {
                continue;
            }
            // Never enter or cross the own key.
            if to == own_key || path.contains(&own_key) {
                continue;
            }
            let climb_or_descend = dist == 1 && is_wall(from) != is_wall(to);
            let slide = path
                .iter()
                .chain(std::iter::once(&to))
                .all(|&s| is_wall(s) == is_wall(from));
            if !(climb_or_descend || slide) {
                continue;
            }
            let cost: u32 = path
                .iter()
                .chain(std::iter::once(&to))
                .map(|&s| costs(s))
                .sum();
            if cost > pos.passes(us) as u32 {
                continue;
            }
            out.insert((from, to));
        }
    }
    out
}

fn slow_perft(pos: &Castle, depth: u32, cells: &[char]) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.outcome().is_over() {
        return 0;
    }
    slow_moves(pos, cells)
        .iter()
        .map(|&(from, to)| {
            let text = format!("{}{}", square_name(from), square_name(to));
            slow_perft(&play(pos, &text), depth - 1, cells)
        })
        .sum()
}

/// The mirror through j10 with colours and side swapped, built square by
/// square from names (independent of `Castle::mirrored`).
fn mirror_by_names(pos: &Castle) -> Castle {
    let m = |s: usize| {
        let (f, r) = (s % SIZE, s / SIZE);
        square(SIZE - 1 - f, SIZE - 1 - r)
    };
    let yellow: Vec<usize> = pos.knights(Side::P2).squares().map(m).collect();
    let blue: Vec<usize> = pos.knights(Side::P1).squares().map(m).collect();
    let skulls: Vec<usize> = pos.skull_squares().map(m).collect();
    let mut out = Castle::with_layout(
        &yellow,
        &blue,
        &skulls,
        [pos.passes(Side::P2), pos.passes(Side::P1)],
    );
    out.side = pos.side_to_move().opponent();
    out.ply = pos.ply();
    out.hash = out.compute_hash();
    out
}

// ---------------------------------------------------------------------------
// Board and start.

#[test]
fn terrain_matches_the_rules_diagram() {
    use super::tables::{CHANNEL, COURTYARD, KEY, MIDDLE, TERRAIN, WALL};
    let cells = diagram();
    for s in 0..SQUARES {
        let t = TERRAIN[s];
        let c = cells[s];
        let name = square_name(s);
        assert_eq!(
            t & WALL != 0,
            matches!(c, '#' | 'Y' | 'B'),
            "wall at {name}"
        );
        assert_eq!(t & CHANNEL != 0, c == 'C', "channel at {name}");
        assert_eq!(t & KEY != 0, c == 'K', "key at {name}");
        assert_eq!(
            t & COURTYARD != 0,
            matches!(c, ':' | 'K'),
            "courtyard at {name}"
        );
        assert_eq!(t & MIDDLE != 0, c == ',', "middle zone at {name}");
    }
    // Point symmetry of the terrain itself.
    for s in 0..SQUARES {
        let mirrored = cells[SQUARES - 1 - s];
        let expected = match cells[s] {
            'Y' => 'B',
            'B' => 'Y',
            c => c,
        };
        assert_eq!(mirrored, expected, "mirror of {}", square_name(s));
    }
}

#[test]
fn start_position_matches_the_rules() {
    let start = Castle::start(&CastleVariant::LEVEL_1);
    assert_eq!(start.fen(), START_FEN);
    let cells = diagram();
    for (s, &cell) in cells.iter().enumerate() {
        assert_eq!(
            start.knights(Side::P1).has(s),
            cell == 'Y',
            "{}",
            square_name(s)
        );
        assert_eq!(
            start.knights(Side::P2).has(s),
            cell == 'B',
            "{}",
            square_name(s)
        );
    }
    assert_eq!(start.side_to_move(), Side::P1, "Yellow moves first");
    assert_eq!(start.outcome(), Outcome::Ongoing);
}

#[test]
fn levels_are_registry_names_with_8_7_6_passes() {
    for (name, passes) in [("castle", 8), ("castle-2", 7), ("castle-3", 6)] {
        let game = new_game(name).unwrap();
        assert_eq!(game.variant_name(), name);
        assert!(
            game.fen()
                .ends_with(&format!(" 1 {passes},{passes} d9,p11,h10,l10 0")),
            "{name}: {}",
            game.fen()
        );
    }
    let report = perft_command("castle", Some(START_FEN), &["j2j1"], 1, false).unwrap();
    assert_eq!(
        report, "Nodes searched: 30\n",
        "Blue's 30 replies are untouched by j2j1"
    );
}

// ---------------------------------------------------------------------------
// Perft.

/// Depth 1 by hand from the rules: g8: g9, f8, h8 (channel, 1 pass) = 3;
/// i8: i9, i7, h8 = 3; j8: j9, j7 = 2; k8: k9, k7, l8 = 3; m8: m9, n8, l8 = 3;
/// g7: f7, h7 and the wall slide g6, g5 (g4 is a channel) = 4; m7 likewise 4;
/// j2: j1, j3 and wall slides h2..g2 and k2..m2 = 8. Total 30.
/// Depth 2: no Yellow move reaches rank 10 or changes Blue's passes, so
/// Blue's mirror-image 30 replies stay: 900.
#[test]
fn perft_from_the_start() {
    let start = Castle::start(&CastleVariant::LEVEL_1);
    assert_eq!(
        move_texts(&start),
        set(&[
            "g8g9", "g8f8", "g8h8", "i8i9", "i8i7", "i8h8", "j8j9", "j8j7", "k8k9", "k8k7", "k8l8",
            "m8m9", "m8n8", "m8l8", "g7f7", "g7h7", "g7g6", "g7g5", "m7n7", "m7l7", "m7m6", "m7m5",
            "j2j1", "j2j3", "j2h2", "j2i2", "j2g2", "j2k2", "j2l2", "j2m2",
        ])
    );
    assert_eq!(perft(&start, 1), 30);
    assert_eq!(perft(&start, 2), 900);
    // Depth 3 against the slow generator.
    let cells = diagram();
    let slow = slow_perft(&start, 3, &cells);
    assert_eq!(perft(&start, 3), slow);
    assert_eq!(perft_with(&start, 3, false), slow);
    assert_eq!(slow, 36164);
}

#[test]
fn perft_is_point_symmetric() {
    let start = Castle::start(&CastleVariant::LEVEL_1);
    let mut rng = StdRng::seed_from_u64(7);
    let mut positions = vec![start];
    for _ in 0..20 {
        let mut p = start;
        for _ in 0..rng.gen_range(0..60) {
            if p.outcome().is_over() {
                break;
            }
            let mut moves = Vec::new();
            p.generate_moves(&mut moves);
            p.play(moves[rng.gen_range(0..moves.len())]);
        }
        positions.push(p);
    }
    for p in positions {
        let m = mirror_by_names(&p);
        assert_eq!(m, p.mirrored());
        assert_eq!(m.mirrored(), p);
        assert_eq!(perft(&p, 3), perft(&m, 3), "{p:?}");
    }
}

// ---------------------------------------------------------------------------
// Moves, one rule sentence each.

#[test]
fn ground_slide_stops_before_a_wall_and_a_climb_is_one_square() {
    // e8 east: f8 ground, then g8 wall: e8f8 is a slide, e8g8 would be a
    // two-square climb.
    let p = build(&["e8"], &["a19"], &[], [8, 8], Side::P1);
    let m = moves_of(&p, "e8");
    assert!(m.contains("e8f8"));
    assert!(!m.contains("e8g8"));
    // f8 east is a climb onto g8.
    let p = build(&["f8"], &["a19"], &[], [8, 8], Side::P1);
    assert!(moves_of(&p, "f8").contains("f8g8"));
    // j9 south: j8 is wall, so only the climb, nothing beyond.
    let p = build(&["j9"], &["a19"], &[], [8, 8], Side::P1);
    let south: Vec<String> = moves_of(&p, "j9")
        .into_iter()
        .filter(|m| sq(&m[2..]) < sq("j9") && sq(&m[2..]) % SIZE == 9)
        .collect();
    assert_eq!(south, vec!["j9j8".to_string()]);
}

#[test]
fn climb_onto_own_knight_is_illegal_and_onto_an_enemy_captures() {
    let p = build(&["f8", "g8"], &["a19"], &[], [8, 8], Side::P1);
    assert!(!legal(&p, "f8g8"));
    let p = build(&["f8"], &["g8", "a19"], &[], [8, 8], Side::P1);
    let after = play(&p, "f8g8");
    assert!(after.knights(Side::P1).has(sq("g8")));
    assert!(!after.knights(Side::P2).has(sq("g8")));
    assert_eq!(after.knight_count(Side::P2), 1);
}

#[test]
fn wall_slide_stays_on_wall_and_a_channel_ends_it() {
    // g7 south: g6, g5 are wall, g4 is a channel: the wall line ends there.
    let p = build(&["g7"], &["a19"], &[], [8, 8], Side::P1);
    assert_eq!(
        moves_of(&p, "g7"),
        set(&["g7g6", "g7g5", "g7g8", "g7f7", "g7h7"])
    );
    // From g5 the channel is a descent of one square (costing a pass), and
    // the wall beyond it (g3) is out of reach.
    let p = build(&["g5"], &["a19"], &[], [8, 8], Side::P1);
    let m = moves_of(&p, "g5");
    assert!(m.contains("g5g4"));
    assert!(!m.contains("g5g3"));
    assert_eq!(play(&p, "g5g4").passes(Side::P1), 7);
    // A wall slide does not turn the corner: j2 east ends at m2.
    let p = build(&["j2"], &["a19"], &[], [8, 8], Side::P1);
    assert_eq!(
        moves_of(&p, "j2"),
        set(&["j2g2", "j2h2", "j2i2", "j2k2", "j2l2", "j2m2", "j2j1", "j2j3"])
    );
}

#[test]
fn descend_is_one_square_onto_ground() {
    // i8: i9 (ground), i7 (courtyard), h8 (channel), j8..k8 along the wall.
    let p = build(&["i8"], &["a19"], &[], [8, 8], Side::P1);
    assert_eq!(
        moves_of(&p, "i8"),
        set(&["i8i9", "i8i7", "i8h8", "i8j8", "i8k8"])
    );
}

#[test]
fn no_jumping_and_capture_by_landing() {
    // a1 north: a2, a3 empty, a4 an enemy (captured), a6 beyond it unreachable.
    let p = build(&["a1", "c1"], &["a4", "s19"], &[], [8, 8], Side::P1);
    let m = moves_of(&p, "a1");
    assert_eq!(m, set(&["a1a2", "a1a3", "a1a4", "a1b1"]));
    let after = play(&p, "a1a4");
    assert_eq!(after.knight_count(Side::P2), 1);
    assert!(after.knights(Side::P1).has(sq("a4")));
    assert_eq!(after.outcome(), Outcome::Ongoing);
    assert!(p.is_noisy(p.parse_move("a1a4").unwrap()));
    assert!(!p.is_noisy(p.parse_move("a1a3").unwrap()));
}

#[test]
fn own_key_is_never_entered_nor_crossed() {
    // Yellow on j3: north stops at j4 (j5 is Yellow's key).
    let p = build(&["j3"], &["a19"], &[], [8, 8], Side::P1);
    let m = moves_of(&p, "j3");
    assert!(m.contains("j3j4"));
    assert!(!m.contains("j3j5"));
    assert!(!m.contains("j3j6"));
    // Yellow on h5 east: i5, then j5 blocks everything beyond.
    let p = build(&["h5"], &["a19"], &[], [8, 8], Side::P1);
    let m = moves_of(&p, "h5");
    assert!(m.contains("h5i5"));
    assert!(!m.contains("h5j5") && !m.contains("h5k5"));
    // Blue may cross Yellow's key: j3 north to j7 (j8 is wall).
    let p = build(&["a1"], &["j3"], &[], [8, 8], Side::P2);
    let m = moves_of(&p, "j3");
    assert!(m.contains("j3j5") && m.contains("j3j6") && m.contains("j3j7"));
    assert!(!m.contains("j3j8"));
}

#[test]
fn enemy_key_may_be_crossed_and_ending_on_it_wins() {
    let p = build(&["j13", "a1"], &["a19", "b19"], &[], [8, 8], Side::P1);
    let m = moves_of(&p, "j13");
    assert!(m.contains("j13j15") && m.contains("j13j16") && m.contains("j13j17"));
    let crossed = play(&p, "j13j16");
    assert_eq!(crossed.outcome(), Outcome::Ongoing);
    let won = play(&p, "j13j15");
    assert_eq!(won.outcome().result(), Some(GameResult::P1Win));
    assert!(p.is_noisy(p.parse_move("j13j15").unwrap()));
}

#[test]
fn channel_with_no_pass_is_closed_and_with_one_costs_one() {
    // h9 south: h8 is Yellow's channel, then the courtyard h7..h3.
    let closed = build(&["h9"], &["a19"], &[], [0, 8], Side::P1);
    let m = moves_of(&closed, "h9");
    assert!(!m.contains("h9h8") && !m.contains("h9h7"));
    let open = build(&["h9"], &["a19"], &[], [1, 8], Side::P1);
    let m = moves_of(&open, "h9");
    assert!(m.contains("h9h8") && m.contains("h9h7") && m.contains("h9h3"));
    assert!(!m.contains("h9h2"), "h2 is wall");
    let after = play(&open, "h9h7");
    assert_eq!(after.passes(Side::P1), 0);
    assert_eq!(after.passes(Side::P2), 8);
    // Leaving a channel costs nothing.
    let on = build(&["h8"], &["a19"], &[], [0, 8], Side::P1);
    assert!(legal(&on, "h8h9") && legal(&on, "h8h7"));
    // The enemy's channels cost too: Yellow entering l12 from l11.
    let p = build(&["l11"], &["a19"], &[], [0, 8], Side::P1);
    assert!(!legal(&p, "l11l12"));
}

#[test]
fn skull_crossed_in_the_middle_of_a_slide_costs() {
    // a10 east over h10 and l10, both skulls.
    let skulls = ["h10", "l10"];
    let p = build(&["a10"], &["a19"], &skulls, [1, 8], Side::P1);
    let m = moves_of(&p, "a10");
    assert!(m.contains("a10g10") && m.contains("a10h10") && m.contains("a10k10"));
    assert!(!m.contains("a10l10") && !m.contains("a10s10"));
    assert_eq!(play(&p, "a10k10").passes(Side::P1), 0);
    assert_eq!(play(&p, "a10g10").passes(Side::P1), 1);
    let p = build(&["a10"], &["a19"], &skulls, [2, 8], Side::P1);
    assert_eq!(play(&p, "a10s10").passes(Side::P1), 0);
    let zero = build(&["a10"], &["a19"], &skulls, [0, 8], Side::P1);
    assert!(legal(&zero, "a10g10") && !legal(&zero, "a10h10"));
}

#[test]
fn h7_to_h12_in_the_standard_layout_costs_three() {
    let start = Castle::start(&CastleVariant::LEVEL_1);
    let p = play(&play(&start, "g7h7"), "m13n13");
    let mv = p.parse_move("h7h12").unwrap();
    assert_eq!(p.move_cost(mv), 3);
    assert!(legal(&p, "h7h12"));
    assert_eq!(play(&p, "h7h12").passes(Side::P1), 5);
    // With two passes left it stops at h11 (h8 and h10 paid).
    let mut short = p;
    short.passes = [2, 8];
    short.hash = short.compute_hash();
    assert!(legal(&short, "h7h11") && !legal(&short, "h7h12"));
    assert_eq!(play(&short, "h7h11").passes(Side::P1), 0);
}

// ---------------------------------------------------------------------------
// The end.

#[test]
fn last_capture_wins() {
    let p = build(&["a1"], &["a5"], &[], [8, 8], Side::P1);
    let after = play(&p, "a1a5");
    assert_eq!(
        after.outcome(),
        Outcome::Over {
            result: GameResult::P1Win,
            reason: "last knight captured"
        }
    );
}

#[test]
fn no_legal_move_loses() {
    // a10 boxed in by skulls a9, a11, b10 with no pass left.
    let p = build(&["a10"], &["s19"], &["a9", "a11", "b10"], [0, 8], Side::P1);
    assert!(move_texts(&p).is_empty());
    assert_eq!(p.count_moves(), 0);
    assert_eq!(
        p.outcome(),
        Outcome::Over {
            result: GameResult::P2Win,
            reason: "no legal move"
        }
    );
    // One pass opens it.
    let p = build(&["a10"], &["s19"], &["a9", "a11", "b10"], [1, 8], Side::P1);
    assert_eq!(p.outcome(), Outcome::Ongoing);
}

#[test]
fn ply_400_decides_by_knights_then_passes_then_blue() {
    let decided = |p: Castle| p.outcome().result();
    // More knights wins, even with fewer passes.
    let p = with_ply(build(&["a1", "b1"], &["s19"], &[], [0, 8], Side::P1), 400);
    assert_eq!(decided(p), Some(GameResult::P1Win));
    let p = with_ply(build(&["a1"], &["s19", "r19"], &[], [8, 0], Side::P1), 400);
    assert_eq!(decided(p), Some(GameResult::P2Win));
    // Equal knights: more passes wins.
    let p = with_ply(build(&["a1"], &["s19"], &[], [5, 3], Side::P2), 400);
    assert_eq!(decided(p), Some(GameResult::P1Win));
    let p = with_ply(build(&["a1"], &["s19"], &[], [3, 5], Side::P1), 400);
    assert_eq!(decided(p), Some(GameResult::P2Win));
    // All equal: Blue.
    let p = with_ply(build(&["a1"], &["s19"], &[], [4, 4], Side::P1), 400);
    assert_eq!(decided(p), Some(GameResult::P2Win));
    // Not before 400.
    let p = with_ply(build(&["a1", "b1"], &["s19"], &[], [4, 4], Side::P1), 399);
    assert_eq!(p.outcome(), Outcome::Ongoing);
    // The 400th ply is played, then decided.
    let after = play(&p, "a1a2");
    assert_eq!(after.ply(), 400);
    assert_eq!(
        after.outcome(),
        Outcome::Over {
            result: GameResult::P1Win,
            reason: "ply 400 reached"
        }
    );
    // Interpretation: at ply 400 no turn is due, so a boxed-in side to move
    // with more knights wins the decision rather than losing by no move.
    let skulls = ["a9", "a11", "b10", "s9", "s11", "r10"];
    let boxed = build(&["a10", "s10"], &["s19"], &skulls, [0, 8], Side::P1);
    assert_eq!(
        with_ply(boxed, 399).outcome().result(),
        Some(GameResult::P2Win)
    );
    assert_eq!(decided(with_ply(boxed, 400)), Some(GameResult::P1Win));
}

#[test]
fn key_and_last_capture_win_whatever_the_ply() {
    // Yellow has fewer knights, so the decision would go to Blue.
    let p = with_ply(
        build(&["j13"], &["a19", "b19", "c19"], &[], [0, 8], Side::P1),
        399,
    );
    let won = play(&p, "j13j15");
    assert_eq!(won.ply(), 400);
    assert_eq!(
        won.outcome(),
        Outcome::Over {
            result: GameResult::P1Win,
            reason: "enemy key taken"
        }
    );
    let p = with_ply(build(&["a1"], &["a5"], &[], [0, 8], Side::P1), 399);
    assert_eq!(play(&p, "a1a5").outcome().result(), Some(GameResult::P1Win));
}

#[test]
fn third_repetition_decides_like_ply_400() {
    let shuffle = ["j2j1", "j18j19", "j1j2", "j19j18"];
    let mut line = Line::<Castle>::new(CastleVariant::LEVEL_1);
    for mv in shuffle {
        line.play_text(mv).unwrap();
    }
    assert_eq!(
        line.occurrences(),
        2,
        "the ply counter is not part of repetition"
    );
    assert_eq!(line.outcome(), Outcome::Ongoing);
    for mv in shuffle {
        line.play_text(mv).unwrap();
    }
    assert_eq!(line.occurrences(), 3);
    // Equal knights and passes: Blue.
    assert_eq!(
        line.outcome(),
        Outcome::Over {
            result: GameResult::P2Win,
            reason: "third repetition"
        }
    );
    assert!(line.play_text("j2j1").is_err());
    // Blue one pass down: Yellow wins the repetition.
    let start = Castle::start(&CastleVariant::LEVEL_1)
        .fen()
        .replace(" 8,8 ", " 8,7 ");
    let mut line = Line::<Castle>::from_fen(CastleVariant::LEVEL_1, &start).unwrap();
    for _ in 0..2 {
        for mv in shuffle {
            line.play_text(mv).unwrap();
        }
    }
    assert_eq!(line.outcome().result(), Some(GameResult::P1Win));
}

// ---------------------------------------------------------------------------
// Random playouts against the slow generator.

fn random_position(rng: &mut StdRng) -> Castle {
    // One position in four is cramped: few passes and a middle zone full of
    // skulls, so knights get boxed in and "no legal move" happens.
    let cramped = rng.gen_bool(0.25);
    let (most_passes, skull_draws) = if cramped { (0, 60..=90) } else { (8, 0..=8) };
    let passes = [rng.gen_range(0..=most_passes), rng.gen_range(0..=8)];
    let mut skulls = Vec::new();
    for _ in 0..rng.gen_range(skull_draws) {
        let s = 8 * SIZE + rng.gen_range(0..3 * SIZE);
        if !skulls.contains(&s) {
            skulls.push(s);
        }
    }
    if !cramped && rng.gen_bool(0.5) {
        let start = Castle::start(&CastleVariant::LEVEL_1);
        let y: Vec<usize> = start.knights(Side::P1).squares().collect();
        let b: Vec<usize> = start.knights(Side::P2).squares().collect();
        return Castle::with_layout(&y, &b, &skulls, passes);
    }
    // Distinct squares, never a key, from `first..first + span`.
    let keys = [sq("j5"), sq("j15")];
    let mut taken = Vec::new();
    let mut pick = |rng: &mut StdRng, count: usize, first: usize, span: usize| {
        let mut out = Vec::new();
        while out.len() < count {
            let s = first + rng.gen_range(0..span);
            if !keys.contains(&s) && !taken.contains(&s) {
                taken.push(s);
                out.push(s);
            }
        }
        out
    };
    let y = if cramped {
        pick(rng, 2, 9 * SIZE, SIZE)
    } else {
        let n = rng.gen_range(1..=8);
        pick(rng, n, 0, SQUARES)
    };
    let n = rng.gen_range(1..=8);
    let b = pick(rng, n, 0, SQUARES);
    let mut pos = Castle::with_layout(&y, &b, &skulls, passes);
    if !cramped && rng.gen_bool(0.5) {
        pos.side = Side::P2;
    }
    pos.ply = rng.gen_range(0..=300);
    pos.hash = pos.compute_hash();
    pos
}

/// The cheap checks every ply; with `text` also the notation round trips.
fn check_invariants(pos: &Castle, cells: &[char], text: bool) {
    assert_eq!(pos.hash(), pos.compute_hash());
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    let pairs: BTreeSet<(usize, usize)> = moves.iter().map(|m| (m.from(), m.to())).collect();
    assert_eq!(pairs.len(), moves.len(), "duplicate moves in {pos:?}");
    assert_eq!(
        pairs,
        slow_moves(pos, cells),
        "generator vs rules in {pos:?}"
    );
    assert_eq!(pos.count_moves(), moves.len() as u64);
    assert_eq!(pos.has_legal_move(), !moves.is_empty());
    crate::tests::check_noisy_list(pos, &moves);
    let bits: BTreeSet<u16> = moves.iter().map(|&m| Castle::move_bits(m)).collect();
    assert_eq!(bits.len(), moves.len());
    if text {
        for &mv in &moves {
            assert_eq!(pos.parse_move(&mv.to_string()), Ok(mv));
        }
        let back = Castle::from_fen(&CastleVariant::LEVEL_1, &pos.fen()).unwrap();
        assert_eq!(back, *pos);
        assert_eq!(back.hash(), pos.hash());
        assert_eq!(back.fen(), pos.fen());
    }
    let mirror = pos.mirrored();
    assert_eq!(mirror.count_moves(), moves.len() as u64);
    // Every ending is colour-blind except the last tiebreak ("still equal,
    // Blue wins"), which the mirror hands to the other player.
    let all_equal = pos.knight_count(Side::P1) == pos.knight_count(Side::P2)
        && pos.passes(Side::P1) == pos.passes(Side::P2);
    let expected = match pos.outcome() {
        Outcome::Over {
            reason: "ply 400 reached",
            ..
        } if all_equal => Some(Some(Side::P2)),
        outcome => outcome.result().map(|r| r.winner().map(Side::opponent)),
    };
    assert_eq!(mirror.outcome().result().map(GameResult::winner), expected);
}

#[test]
fn random_playouts_keep_every_invariant() {
    let cells = diagram();
    let mut rng = StdRng::seed_from_u64(0xCA57);
    let (mut plies, mut ends) = (0, std::collections::BTreeMap::new());
    for game in 0..2000 {
        let mut pos = if game % 3 == 0 {
            Castle::start(&CastleVariant::LEVEL_1)
        } else {
            random_position(&mut rng)
        };
        loop {
            check_invariants(&pos, &cells, plies % 8 == 0);
            if let Outcome::Over { reason, .. } = pos.outcome() {
                *ends.entry(reason).or_insert(0) += 1;
                break;
            }
            let mut moves = Vec::new();
            pos.generate_moves(&mut moves);
            // Prefer captures and key moves a little so games end in every way.
            let noisy: Vec<Move> = moves.iter().copied().filter(|&m| pos.is_noisy(m)).collect();
            let mv = if !noisy.is_empty() && rng.gen_bool(0.3) {
                noisy[rng.gen_range(0..noisy.len())]
            } else {
                moves[rng.gen_range(0..moves.len())]
            };
            let before = pos;
            pos.play(mv);
            plies += 1;
            assert_eq!(pos.ply(), before.ply() + 1);
            assert_eq!(
                pos.passes(before.side_to_move()) as u32,
                before.passes(before.side_to_move()) as u32 - before.move_cost(mv)
            );
        }
    }
    assert!(plies > 100_000, "{plies} plies");
    for reason in [
        "enemy key taken",
        "last knight captured",
        "ply 400 reached",
        "no legal move",
    ] {
        assert!(
            ends.contains_key(reason),
            "no game ended by {reason}: {ends:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// Notation.

#[test]
fn fen_round_trips_and_accepts_other_spellings() {
    let start = Castle::start(&CastleVariant::LEVEL_1);
    let parsed = Castle::from_fen(&CastleVariant::LEVEL_1, START_FEN).unwrap();
    assert_eq!(parsed, start);
    assert_eq!(parsed.hash(), start.hash());
    // Empty runs split any way, and extra whitespace.
    let split = START_FEN
        .replacen("x19", "x,x18", 1)
        .replacen("x9,2,x9", "x4,x5,2,x1,x8", 1);
    let p = Castle::from_fen(&CastleVariant::LEVEL_1, &format!("  {split}  ")).unwrap();
    assert_eq!(p, start);
    assert_eq!(p.fen(), START_FEN);
    // Skull order is kept for printing and does not change the position.
    let reordered = START_FEN.replace("d9,p11,h10,l10", "l10,d9,h10,p11");
    let p = Castle::from_fen(&CastleVariant::LEVEL_1, &reordered).unwrap();
    assert_eq!(p, start);
    assert_eq!(p.hash(), start.hash());
    assert_eq!(p.fen(), reordered);
    // No skulls; unpaired skulls are accepted.
    let none = START_FEN.replace("d9,p11,h10,l10", "-");
    assert_eq!(
        Castle::from_fen(&CastleVariant::LEVEL_1, &none)
            .unwrap()
            .fen(),
        none
    );
    let single = START_FEN.replace("d9,p11,h10,l10", "a11");
    assert!(Castle::from_fen(&CastleVariant::LEVEL_1, &single).is_ok());
    // Other fields.
    let board = START_FEN.split(' ').next().unwrap();
    let fen = format!("{board} 2 0,255 d9,p11,h10,l10 400");
    let p = Castle::from_fen(&CastleVariant::LEVEL_3, &fen).unwrap();
    assert_eq!(p.side_to_move(), Side::P2);
    assert_eq!(
        (p.passes(Side::P1), p.passes(Side::P2), p.ply()),
        (0, 255, 400)
    );
}

#[test]
fn malformed_strings_are_rejected_naming_the_field() {
    let field = |fen: &str| {
        Castle::from_fen(&CastleVariant::LEVEL_1, fen)
            .map(|_| ())
            .unwrap_err()
            .field
    };
    let board = START_FEN.split(' ').next().unwrap();
    let with_board = |b: &str| START_FEN.replacen(board, b, 1);
    assert_eq!(field(""), "board");
    assert_eq!(field(board), "side");
    assert_eq!(field(&format!("{board} 1")), "passes");
    assert_eq!(field(&format!("{board} 1 8,8")), "skulls");
    assert_eq!(field(&format!("{board} 1 8,8 -")), "ply");
    assert_eq!(field(&format!("{START_FEN} extra")), "end");
    // Board: rank and cell counts, cell spelling, knight counts, keys.
    assert_eq!(field(&with_board(&board.replacen("x19/", "", 1))), "board");
    assert_eq!(
        field(&with_board(&board.replacen("x19", "x20", 1))),
        "board"
    );
    assert_eq!(
        field(&with_board(&board.replacen("x19", "x18", 1))),
        "board"
    );
    assert_eq!(
        field(&with_board(&board.replacen("x19", "x18,1,1", 1))),
        "board"
    );
    assert_eq!(
        field(&with_board(&board.replacen("x19", "x0,x19", 1))),
        "board"
    );
    assert_eq!(
        field(&with_board(&board.replacen("x19", "y19", 1))),
        "board"
    );
    assert_eq!(
        field(&with_board(&board.replacen("x19", "x18,3", 1))),
        "board"
    );
    assert_eq!(
        field(&with_board(&board.replacen("x19", "1,x18", 1))),
        "board",
        "9 Yellow knights"
    );
    let key_rank = |cells: &str, rank: usize| {
        let mut ranks: Vec<String> = board.split('/').map(String::from).collect();
        ranks[19 - rank] = cells.to_string();
        ranks.join("/")
    };
    assert_eq!(
        field(&with_board(&key_rank("x9,1,x9", 5))),
        "board",
        "Yellow on its own key"
    );
    assert_eq!(
        field(&with_board(&key_rank("x9,2,x9", 15))),
        "board",
        "Blue on its own key"
    );
    let both = key_rank("x9,2,x9", 5);
    let both: Vec<String> = both.split('/').map(String::from).collect();
    let mut both = both;
    both[19 - 15] = "x9,1,x9".to_string();
    assert_eq!(
        field(&with_board(&both.join("/"))),
        "board",
        "both keys taken"
    );
    let empty = vec!["x19"; 19].join("/");
    assert_eq!(field(&with_board(&empty)), "board");
    // Side, passes, skulls, ply.
    assert_eq!(field(&START_FEN.replace(" 1 8,8 ", " 3 8,8 ")), "side");
    for passes in ["8", "8,", "8,x", "256,1", "-1,8", "+1,8", "8,8,8"] {
        assert_eq!(
            field(&START_FEN.replace(" 8,8 ", &format!(" {passes} "))),
            "passes",
            "{passes}"
        );
    }
    for skulls in ["a1", "d9,d9", "zz", "d9,", "j8", "j12", "t10", "d09", ""] {
        let fen = START_FEN.replace("d9,p11,h10,l10", skulls);
        if skulls.is_empty() {
            assert_eq!(field(&fen), "ply", "an empty skull field shifts the rest");
        } else {
            assert_eq!(field(&fen), "skulls", "{skulls}");
        }
    }
    for ply in ["401", "-1", "abc", "+3", "65536"] {
        let fen = format!("{}{ply}", START_FEN.strip_suffix('0').unwrap());
        assert_eq!(field(&fen), "ply", "{ply}");
    }
}

#[test]
fn random_and_mutated_strings_never_panic() {
    let mut rng = StdRng::seed_from_u64(99);
    let alphabet = b"x12/, 0123456789-abcdjps\t+";
    for _ in 0..20_000 {
        let mut bytes = START_FEN.as_bytes().to_vec();
        for _ in 0..rng.gen_range(1..6) {
            let at = rng.gen_range(0..bytes.len());
            match rng.gen_range(0..3) {
                0 => bytes[at] = alphabet[rng.gen_range(0..alphabet.len())],
                1 => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, alphabet[rng.gen_range(0..alphabet.len())]),
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(p) = Castle::from_fen(&CastleVariant::LEVEL_1, &text) {
            assert_eq!(Castle::from_fen(&CastleVariant::LEVEL_1, &p.fen()), Ok(p));
            let mut moves = Vec::new();
            p.generate_moves(&mut moves);
            let _ = (p.outcome(), p.pretty());
        }
    }
    for _ in 0..5_000 {
        let len = rng.gen_range(0..12);
        let text: String = (0..len).map(|_| rng.gen_range(0u8..128) as char).collect();
        let _ = Castle::from_fen(&CastleVariant::LEVEL_1, &text);
        let _ = Castle::start(&CastleVariant::LEVEL_1).parse_move(&text);
    }
    for text in ["é", "j8é9", "j8j९", "ĳ8j9", "\u{0}", "a1a1a1"] {
        let _ = Castle::from_fen(&CastleVariant::LEVEL_1, text);
        let _ = Castle::start(&CastleVariant::LEVEL_1).parse_move(text);
    }
}

#[test]
fn move_text_round_trips_and_bad_moves_are_named() {
    let p = Castle::start(&CastleVariant::LEVEL_1);
    for text in ["j9j11", "a1s1", "s19s1", "j10j9"] {
        assert_eq!(p.parse_move(text).unwrap().to_string(), text);
    }
    for text in [
        "", "j8", "j8j8", "j8k9", "t1t2", "j08j9", "j0j9", "j20j1", "J8J9", "j8 j9", "j8-j9",
        "pass",
    ] {
        assert!(
            matches!(p.parse_move(text), Err(MoveError::Syntax { .. })),
            "{text}"
        );
    }
    assert!(matches!(
        crate::find_legal(&p, "j8j10"),
        Err(MoveError::Illegal { .. })
    ));
}

// ---------------------------------------------------------------------------
// Hash and evaluation.

#[test]
fn hash_covers_what_decides_the_game() {
    let start = Castle::start(&CastleVariant::LEVEL_1);
    let variants = [
        START_FEN.replace(" 8,8 ", " 8,7 "),
        START_FEN.replace(" 1 8,8", " 2 8,8"),
        START_FEN.replace("d9,p11,h10,l10", "d9,p11"),
        format!("{}1", START_FEN.strip_suffix('0').unwrap()),
    ];
    for fen in &variants {
        let p = Castle::from_fen(&CastleVariant::LEVEL_1, fen).unwrap();
        assert_ne!(p.hash(), start.hash(), "{fen}");
    }
    // The ply is hashed but not part of the repetition key.
    let later = Castle::from_fen(&CastleVariant::LEVEL_1, &variants[3]).unwrap();
    assert_eq!(later.repetition_key(), start.repetition_key());
}

#[test]
fn evaluation_is_symmetric_and_sees_the_terms() {
    let start = Castle::start(&CastleVariant::LEVEL_1);
    assert_eq!(
        start.evaluate(),
        super::eval::TEMPO,
        "the start is balanced"
    );
    let p = build(&["j13", "a1"], &["s19"], &[], [3, 3], Side::P1);
    // Yellow is a knight up and one move from the key.
    assert!(p.evaluate() > 150, "{}", p.evaluate());
    assert_eq!(p.evaluate(), p.mirrored().evaluate());
    let distance = super::eval::with_distances(&p, |d| {
        (
            d.moves(Side::P1, 3, sq("j13")),
            d.moves(Side::P1, 0, sq("h9")),
            d.moves(Side::P1, 1, sq("h9")),
        )
    });
    // j13 slides straight to j15. From h9 with a pass, h9h15 through the
    // channel h12 and h15j15: 2. Without one, over the wall: h9j9, j9j11,
    // climb j12, descend j13, j13j15: 5 (no square one move from h9 is next
    // to a wall whose descent lands on the key's rank or file).
    assert_eq!(distance, (1, 5, 2));
}

// ---- Dealt skull layouts (rules, "Board": mirrored pairs in ranks 9..11) ----

#[test]
fn pair_squares_are_the_28_middle_squares_before_their_mirror() {
    use super::layout::pair_squares;
    use super::tables::mirror;
    let squares = pair_squares();
    assert_eq!(squares.len(), 28);
    let names: Vec<String> = squares.iter().map(|&sq| square_name(sq)).collect();
    assert_eq!(names.first().map(String::as_str), Some("a9"));
    assert_eq!(names.last().map(String::as_str), Some("i10"));
    assert!(!names.contains(&"j10".to_string()));
    assert!(squares.iter().all(|&sq| !squares.contains(&mirror(sq))));
}

#[test]
fn mirrored_layouts_are_checked() {
    use super::layout::{is_mirrored_layout, start_with_skulls};
    let sq =
        |names: &[&str]| -> Vec<usize> { names.iter().map(|n| parse_square(n).unwrap()).collect() };
    let v = CastleVariant::LEVEL_1;
    assert!(is_mirrored_layout(&sq(&["d9", "p11", "h10", "l10"])));
    assert_eq!(
        start_with_skulls(&v, &sq(&["d9", "p11", "h10", "l10"])),
        Some(Castle::start(&v))
    );
    assert!(is_mirrored_layout(&[]));
    for bad in [
        &["d9"][..],                     // unpaired
        &["d9", "p11", "d9", "p11"][..], // a pair twice
        &["j10"][..],                    // its own mirror
        &["d8", "p12"][..],              // outside the middle zone
        &["d9", "p10"][..],              // not each other's mirror
    ] {
        assert!(!is_mirrored_layout(&sq(bad)), "{bad:?}");
        assert_eq!(start_with_skulls(&v, &sq(bad)), None, "{bad:?}");
    }
    assert!(!is_mirrored_layout(&[super::tables::OFF, 0, usize::MAX]));
}

#[test]
fn dealt_starts_are_mirrored_reproducible_and_varied() {
    use super::layout::{deal_skulls, is_mirrored_layout};
    let mut layouts = BTreeSet::new();
    for seed in 0..6000u64 {
        let skulls = deal_skulls(seed);
        layouts.insert(skulls.clone());
        if seed >= 300 {
            continue;
        }
        assert_eq!(skulls.len(), 4);
        assert!(is_mirrored_layout(&skulls), "{skulls:?}");
        assert_eq!(deal_skulls(seed), skulls);
        for v in [
            CastleVariant::LEVEL_1,
            CastleVariant::LEVEL_2,
            CastleVariant::LEVEL_3,
        ] {
            let pos = Castle::dealt_start(&v, seed).unwrap();
            // Through the position string and the rules: only the skulls differ.
            let back = Castle::from_fen(&v, &pos.fen()).unwrap();
            assert_eq!(back, pos);
            assert_eq!(back.skull_squares().collect::<Vec<_>>(), skulls);
            let start = Castle::start(&v);
            assert_eq!(back.knights(Side::P1), start.knights(Side::P1));
            assert_eq!(back.knights(Side::P2), start.knights(Side::P2));
            assert_eq!(back.passes(Side::P1), v.passes);
            assert_eq!(back.mirrored().skull_bits(), back.skull_bits());
            assert!(back.outcome() == Outcome::Ongoing);
        }
    }
    // C(28, 2) = 378 layouts; 6000 draws reach all of them.
    assert_eq!(layouts.len(), 378);
}
