//! Mixtour on boards of any shape: the rules of "Boards of any shape"
//! sentence by sentence, position strings of every shape, and the fast
//! generator against the slow one (`slow.rs`) on random grids.

use super::slow::{self, fast_texts, Slow};
use crate::mixtour::{Mixtour, MixtourGrid, MixtourVariant};
use crate::{find_legal, perft, perft::perft_with, Game, GameResult};
use rand::{Rng, SeedableRng};

const V: MixtourVariant = MixtourVariant::STANDARD;

fn grid(fen: &str) -> MixtourGrid {
    MixtourGrid::from_fen(&V, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn is_legal(p: &MixtourGrid, text: &str) -> bool {
    find_legal(p, text).is_ok()
}

fn after(p: &MixtourGrid, moves: &[&str]) -> MixtourGrid {
    let mut p = *p;
    for m in moves {
        let mv = find_legal(&p, m).unwrap_or_else(|e| panic!("{e} in {}", p.fen()));
        p.play(mv);
    }
    p
}

/// The boards shipped in `boards/`, as start position strings.
pub const SHIPPED: [(&str, &str); 5] = [
    ("plain 5 x 5", "x5/x5/x5/x5/x5 1 20,20 0,0 1 -"),
    (
        "5 x 5 without corners",
        "#,x3,#/x5/x5/x5/#,x3,# 1 20,20 0,0 1 -",
    ),
    (
        "7 x 7 ring",
        "x7/x7/x2,#3,x2/x2,#3,x2/x2,#3,x2/x7/x7 1 20,20 0,0 1 -",
    ),
    ("6 x 6", "x6/x6/x6/x6/x6/x6 1 20,20 0,0 1 -"),
    (
        "10 x 10",
        "x10/x10/x10/x10/x10/x10/x10/x10/x10/x10 1 20,20 0,0 1 -",
    ),
];

/// Perft of each shipped board's start, depths 1 to 5, as counted by the
/// slow generator (`slow_counts_of_the_shipped_boards` recounts them).
const SHIPPED_PERFT: [[u64; 5]; 5] = [
    [25, 600, 14_088, 330_384, 7_883_472],
    [21, 420, 8_220, 162_120, 3_299_400],
    [40, 1_560, 59_696, 2_257_008, 84_908_736],
    [36, 1_260, 43_280, 1_474_000, 50_279_584],
    [100, 9_900, 971_568, 94_647_024, 9_165_318_432],
];

// --- The board ------------------------------------------------------------

#[test]
fn a_grid_is_up_to_10_by_10_with_at_least_two_playable_cells() {
    // 1 x 2 and 10 x 10 are boards; so is 10 x 1.
    for fen in [
        "x2 1 1,1 0,0 1 -",
        "x/x 1 1,1 0,0 1 -",
        "x10 1 3,3 0,0 1 -",
        "x10/x10/x10/x10/x10/x10/x10/x10/x10/x10 1 20,20 0,0 1 -",
    ] {
        grid(fen);
    }
    // Rule: at least two cells are playable.
    for fen in [
        "x 1 1,1 0,0 1 -",
        "#,x 1 1,1 0,0 1 -",
        "#3/#3 1 1,1 0,0 1 -",
    ] {
        let e = MixtourGrid::from_fen(&V, fen).unwrap_err();
        assert_eq!(e.field, "board", "{fen}: {e}");
        assert!(e.message.contains("at least two"), "{fen}: {e}");
    }
}

#[test]
fn bad_shapes_are_refused_naming_the_rank() {
    let cases = [
        // A rank of the wrong width: named, with the width it should have.
        ("x5/x5/x4/x5/x5 1 20,20 0,0 1 -", "rank 3"),
        ("x5/x5/x5/x5/#,x3,#,x 1 20,20 0,0 1 -", "rank 1"),
        // More than ten files or ranks.
        ("x11 1 20,20 0,0 1 -", "rank 1"),
        ("x5,#6/x11 1 20,20 0,0 1 -", "rank 2"),
        ("x/x/x/x/x/x/x/x/x/x/x 1 20,20 0,0 1 -", "11 ranks"),
        // A stack on a hole cannot be written; anything like it is not a cell.
        ("x2/1#,x 1 20,20 0,0 1 -", "rank 1"),
        ("x2/2#,x 1 20,20 0,0 1 -", "rank 1"),
        ("x2/#0,x 1 20,20 0,0 1 -", "rank 1"),
        ("x2/,x 1 20,20 0,0 1 -", "rank 1"),
    ];
    for (fen, needle) in cases {
        match MixtourGrid::from_fen(&V, fen) {
            Ok(p) => panic!("{fen:?} was accepted as {}", p.fen()),
            Err(e) => {
                assert_eq!(e.field, "board", "{fen:?}: {e}");
                assert!(e.to_string().contains(needle), "{fen:?}: {e}");
            }
        }
    }
}

#[test]
fn the_standard_type_takes_only_the_standard_board() {
    assert!(Mixtour::from_fen(&V, "x5/x5/x5/x5/x5 1 20,20 0,0 1 -").is_ok());
    for fen in [
        "#,x3,#/x5/x5/x5/#,x3,# 1 20,20 0,0 1 -",
        "x6/x6/x6/x6/x6/x6 1 20,20 0,0 1 -",
        "x4/x4/x4/x4/x4 1 20,20 0,0 1 -",
    ] {
        assert!(Mixtour::from_fen(&V, fen).is_err(), "{fen}");
        grid(fen);
    }
}

#[test]
fn position_strings_of_any_shape_round_trip() {
    for fen in [
        "#,x3,#/x5/x5/x5/#,x3,# 1 20,20 0,0 1 -",
        "x10/x4,#2,x4/x10/1,x8,2/x10/x10/x10/x10/x10/12,x8,2221 2 17,16 0,0 2 2j1j4",
        "#2,x/x,#,x 1 0,2 0,0 1 pass",
        "x,1,#,2,x,#2,x2,112 1 5,5 0,0 1 -",
    ] {
        let p = grid(fen);
        assert_eq!(p.fen(), fen);
        assert_eq!(grid(&p.fen()).hash(), p.hash());
    }
    // Runs are merged when printed, holes and empty cells alike.
    let p = grid("#,#,x,x,#/x,x,x,x,x 1 20,20 0,0 1 -");
    assert_eq!(p.fen(), "#2,x2,#/x5 1 20,20 0,0 1 -");
}

#[test]
fn the_shape_is_part_of_the_hash() {
    // The same stacks on boards that differ by a hole, and by size.
    let a = grid("x3/x,1,x/x3 1 5,5 0,0 1 -");
    let b = grid("x3/x,1,x/x2,# 1 5,5 0,0 1 -");
    let c = grid("x3,#/x,1,x,#/x3,# 1 5,5 0,0 1 -");
    assert_ne!(a.hash(), b.hash());
    assert_ne!(a.hash(), c.hash());
    assert_ne!(b.hash(), c.hash());
}

// --- Holes ----------------------------------------------------------------

#[test]
fn nothing_is_entered_on_a_hole() {
    let p = grid("#,x3,#/x5/x5/x5/#,x3,# 1 20,20 0,0 1 -");
    for corner in ["a1", "e1", "a5", "e5"] {
        assert!(!is_legal(&p, corner), "{corner}");
    }
    assert_eq!(fast_texts(&p).len(), 21);
}

#[test]
fn no_stack_starts_or_ends_on_a_hole_and_squares_beyond_the_grid_do_not_exist() {
    let p = grid("x,#,x/2,x,1/x3 1 5,5 0,0 1 -");
    // b3 is a hole: no move onto it, nor from it.
    assert!(!is_legal(&p, "b3"));
    assert!(!is_legal(&p, "a2b3"));
    assert!(!is_legal(&p, "b3a2"));
    // d1 is off this 3 x 3 grid: a legal square name, but not on the board.
    assert!(p.parse_move("d1").is_ok());
    assert!(!is_legal(&p, "d1"));
    // k1 and a11 are beyond every grid.
    assert!(p.parse_move("k1").is_err());
    assert!(p.parse_move("a11").is_err());
}

#[test]
fn a_hole_between_blocks_a_line_like_a_stack() {
    // a3 (height 2) is two cells from c3 and from a1; the line to c3 runs
    // over b3, a hole; the line to a1 over a2, an empty cell.
    let p = grid("22,#,1/x3/1,x2 1 5,5 0,0 1 -");
    assert!(!is_legal(&p, "c3a3"), "over a hole");
    assert!(is_legal(&p, "a1a3"), "over an empty cell");
    // The same on a diagonal: c1 to a3 over the hole b2.
    let q = grid("22,x2/x,#,x/x2,1 1 5,5 0,0 1 -");
    assert!(!is_legal(&q, "c1a3"));
    let open = grid("22,x2/x3/x2,1 1 5,5 0,0 1 -");
    assert!(is_legal(&open, "c1a3"));
}

#[test]
fn a_line_starting_next_to_a_hole_works_as_on_the_edge() {
    // b2 is a hole: a stack at c2 looking west meets the hole at once and
    // reaches nothing beyond it, as a stack at the west edge would; a2 is
    // two high and two away, so without the hole c2a2 would be legal.
    let p = grid("x4/11,#,2,1/x4 1 5,5 0,0 1 -");
    assert!(!is_legal(&p, "c2a2"));
    assert!(is_legal(&grid("x4/11,x,2,1/x4 1 5,5 0,0 1 -"), "c2a2"));
    // East of c2 the stack d2 (height 1) is one cell away: reachable.
    assert!(is_legal(&p, "c2d2"));
    // A target next to a hole is still reached from the other side.
    assert!(is_legal(&p, "d2c2"));
}

#[test]
fn rules_of_the_standard_board_hold_on_any_board() {
    // A tower of five on a 7 x 3 board, at the far corner g3: removed,
    // pieces back, a point for the top's owner, and the game is won.
    let p = grid("x5,1,2222/x7/x7 2 10,9 0,0 1 -");
    let q = after(&p, &["4g3f3"]);
    assert_eq!(q.fen(), "x7/x7/x7 1 11,13 0,1 1 4g3f3");
    assert_eq!(q.outcome().result(), Some(GameResult::P2Win));
    // The take-back rule on a grid with a10: the move just made may not be
    // reversed at once.
    let r = grid("x10/x10/x10/x10/x10/x10/x10/x10/x10/111,1,x8 2 5,5 0,0 2 -");
    let r = after(&r, &["2a1b1"]);
    assert!(!is_legal(&r, "2b1a1"));
    assert!(is_legal(&r, "b1a1"));
    // Passes on a two-cell board: both full, no reserve, no line.
    let s = grid("1,2 1 0,0 0,0 1 -");
    assert_eq!(fast_texts(&s), vec!["a1b1", "b1a1"]);
    let t = grid("x,#,x/x3/1,#,2 1 0,0 0,0 1 -");
    assert_eq!(fast_texts(&t), vec!["pass"]);
    let t = after(&t, &["pass", "pass"]);
    assert_eq!(t.outcome().result(), Some(GameResult::Draw));
}

#[test]
fn squares_run_to_j10_and_ranks_take_two_digits() {
    // a10 (one high) and a7 (one high) are three cells apart: no move.
    let tall = "2,x9/x10/x10/1,x9/x10/x10/x10/x10/x10/x10 1 5,5 0,0 1 -";
    assert!(!is_legal(&grid(tall), "a10a7"));
    // With a7 three high, a10 reaches it.
    let q = grid("2,x9/x10/x10/111,x9/x10/x10/x10/x10/x10/x10 1 5,5 0,0 1 -");
    assert!(is_legal(&q, "a10a7"));
    let r = after(&q, &["a10a7"]);
    assert_eq!(r.last_move().unwrap().to_string(), "a10a7");
    assert!(r.fen().starts_with("x10/x10/x10/1112,x9/"), "{}", r.fen());
    assert!(fast_texts(&r).contains(&"j10".to_string()));
    for text in ["a10", "j1", "2a10a7", "b9c10", "4j10j6", "pass"] {
        assert_eq!(q.parse_move(text).unwrap().to_string(), text);
    }
    for bad in [
        "a0", "a01", "a1a1", "5a1b1", "k1", "a11", "1a10", "a10b", "#3", "a1b2c3",
    ] {
        assert!(q.parse_move(bad).is_err(), "{bad}");
    }
}

// --- Against the slow generator -------------------------------------------

/// A random board: 1..=10 files and ranks, some holes, at least two cells.
fn random_shape(rng: &mut impl Rng) -> (usize, usize, Vec<bool>) {
    loop {
        let (files, ranks) = (rng.gen_range(1..=10), rng.gen_range(1..=10));
        let density = [0.0, 0.1, 0.3][rng.gen_range(0..3)];
        let holes: Vec<bool> = (0..files * ranks).map(|_| rng.gen_bool(density)).collect();
        if holes.iter().filter(|&&h| !h).count() >= 2 {
            return (files, ranks, holes);
        }
    }
}

/// The start position string of a shape (cells listed one by one; the
/// reader merges nothing and needs nothing merged).
fn shape_fen(files: usize, ranks: usize, holes: &[bool], reserve: u8, goal: u8) -> String {
    let rows: Vec<String> = (0..ranks)
        .rev()
        .map(|r| {
            (0..files)
                .map(|f| if holes[r * files + f] { "#" } else { "x" })
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    format!("{} 1 {reserve},{reserve} 0,0 {goal} -", rows.join("/"))
}

/// A random board with `reserve` pieces each and `goal`, after up to
/// `max_plies` random moves.
fn random_midgame(rng: &mut impl Rng, reserve: u8, goal: u8, max_plies: usize) -> MixtourGrid {
    let (files, ranks, holes) = random_shape(rng);
    let mut p = grid(&shape_fen(files, ranks, &holes, reserve, goal));
    super::play_randomly(&mut p, rng, max_plies);
    p
}

/// Plays a random game on `p`, checking every position on the way against
/// the slow generator: the moves, the count, the position after each move,
/// the hash and the position string.
fn check_playout(mut p: MixtourGrid, rng: &mut impl Rng, max_plies: usize) -> usize {
    let mut slow = Slow::of(&p);
    let mut moves = Vec::new();
    let mut plies = 0;
    while !p.outcome().is_over() && plies < max_plies {
        assert!(!slow.over(), "{}", p.fen());
        moves.clear();
        p.generate_moves(&mut moves);
        assert_eq!(fast_texts(&p), slow.move_texts(), "moves in {}", p.fen());
        assert_eq!(p.count_moves(), moves.len() as u64, "count in {}", p.fen());
        if plies % 4 == 0 {
            slow::check_threats(&p);
        }
        let mv = moves[rng.gen_range(0..moves.len())];
        let text = mv.to_string();
        let slow_mv = slow
            .moves()
            .into_iter()
            .find(|m| m.text() == text)
            .expect("the same move");
        let before = p;
        p.play(mv);
        slow.play(&slow_mv);
        let seen = Slow::of(&p);
        assert_eq!(
            (seen.cells.clone(), seen.reserves, seen.scores, seen.side),
            (slow.cells.clone(), slow.reserves, slow.scores, slow.side),
            "{text} in {}",
            before.fen()
        );
        assert_eq!(p.hash(), p.compute_hash(), "{text} in {}", before.fen());
        // (A position string cannot say that two passes were just played.)
        if p.passes < 2 {
            assert_eq!(grid(&p.fen()).hash(), p.hash(), "{}", p.fen());
        }
        plies += 1;
    }
    assert_eq!(p.outcome().is_over(), slow.over() || plies == max_plies);
    plies
}

#[test]
fn random_games_on_random_boards_agree_with_the_slow_generator() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(14);
    let mut plies = 0;
    for _ in 0..1000 {
        let (files, ranks, holes) = random_shape(&mut rng);
        let reserve = [2, 6, 20][rng.gen_range(0..3)];
        let goal = rng.gen_range(1..=3);
        let p = grid(&shape_fen(files, ranks, &holes, reserve, goal));
        plies += check_playout(p, &mut rng, 300);
    }
    assert!(
        plies > 30_000,
        "playouts too short to mean anything: {plies}"
    );
}

#[test]
fn perft_agrees_with_the_slow_generator_on_random_midgames() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(140);
    for _ in 0..40 {
        let p = random_midgame(&mut rng, 8, 2, 30);
        let slow = Slow::of(&p);
        assert_eq!(perft(&p, 3), slow.perft(3), "{}", p.fen());
        assert_eq!(perft_with(&p, 3, false), perft(&p, 3), "bulk: {}", p.fen());
    }
}

#[test]
fn the_grid_plays_the_standard_board_exactly_as_the_fast_type() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let mut fast = Vec::new();
    let mut general = Vec::new();
    for _ in 0..200 {
        let mut p = Mixtour::start(&V);
        let mut g = MixtourGrid::start(&V);
        while !p.outcome().is_over() {
            assert_eq!(p.fen(), g.fen());
            assert_eq!(p.outcome(), g.outcome());
            assert_eq!(fast_texts(&p), fast_texts(&g), "{}", p.fen());
            assert_eq!(p.count_moves(), g.count_moves());
            assert_eq!(p.evaluate(), g.evaluate(), "{}", p.fen());
            fast.clear();
            p.generate_moves(&mut fast);
            general.clear();
            g.generate_moves(&mut general);
            let i = rng.gen_range(0..fast.len());
            assert_eq!(fast[i].to_string(), general[i].to_string());
            p.play(fast[i]);
            g.play(general[i]);
        }
        assert_eq!(p.outcome(), g.outcome());
    }
    for fen in super::MIDGAMES {
        let p = Mixtour::from_fen(&V, fen).unwrap();
        assert_eq!(perft(&p, 4), perft(&grid(fen), 4), "{fen}");
    }
}

/// Mirrors a board string left to right, rank by rank (cells one by one).
fn mirror_board(fen: &str) -> String {
    let (_, rest) = fen.split_once(' ').unwrap();
    let p = grid(fen);
    let slow = Slow::of(&p);
    let rows: Vec<String> = (0..slow.ranks)
        .rev()
        .map(|r| {
            (0..slow.files)
                .rev()
                .map(|f| match &slow.cells[(r * slow.files + f) as usize] {
                    None => "#".to_string(),
                    Some(s) if s.is_empty() => "x".to_string(),
                    Some(s) => s.iter().map(|&x| if x == 0 { '1' } else { '2' }).collect(),
                })
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    let fields: Vec<&str> = rest.split(' ').collect();
    assert_eq!(fields[4], "-", "mirror only positions without a last move");
    format!("{} {rest}", rows.join("/"))
}

#[test]
fn perft_is_the_same_on_a_mirrored_board() {
    // Asymmetric shapes with holes: mirroring the board and its stacks
    // keeps every count.
    let mut rng = rand::rngs::StdRng::seed_from_u64(41);
    for _ in 0..30 {
        let p = random_midgame(&mut rng, 6, 1, 12);
        // Forget the last move so that the mirror needs no move mapping.
        let fen = p.fen();
        let (head, _) = fen.rsplit_once(' ').unwrap();
        let without_last = format!("{head} -");
        let q = grid(&without_last);
        let m = grid(&mirror_board(&without_last));
        assert_eq!(perft(&q, 3), perft(&m, 3), "{without_last}");
    }
}

// --- The shipped boards ---------------------------------------------------

#[test]
fn perft_of_the_shipped_boards() {
    for ((name, fen), counts) in SHIPPED.iter().zip(SHIPPED_PERFT) {
        let p = grid(fen);
        for (depth, &count) in counts.iter().enumerate() {
            let depth = depth as u32 + 1;
            assert_eq!(perft(&p, depth), count, "{name}, depth {depth}");
        }
        // The slow generator itself, as far as it is quick.
        assert_eq!(Slow::of(&p).perft(2), counts[1], "{name}");
    }
}

/// Recounts `SHIPPED_PERFT` with the slow generator (the 10 x 10 board
/// takes half an hour on two cores):
/// `SLOW_BOARD=<part of a name> cargo test --release -- --ignored slow_counts --nocapture`.
#[test]
#[ignore = "the slow generator over every shipped board takes half an hour on two cores"]
fn slow_counts_of_the_shipped_boards() {
    let only = std::env::var("SLOW_BOARD").unwrap_or_default();
    for (name, fen) in SHIPPED.iter().filter(|(name, _)| name.contains(&only)) {
        let slow = Slow::of(&grid(fen));
        for depth in 1..=5 {
            println!("{name}: depth {depth}: {}", parallel_perft(&slow, depth));
        }
    }
}

/// The slow perft with the root moves shared out to every core.
fn parallel_perft(slow: &Slow, depth: u32) -> u64 {
    if depth <= 2 {
        return slow.perft(depth);
    }
    let moves = slow.moves();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut total = 0;
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(mv) = moves.get(i) else { break };
                        let mut child = slow.clone();
                        child.play(mv);
                        total += child.perft(depth - 1);
                    }
                    total
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    })
}

#[test]
fn perft_chooses_the_board_from_the_position_string() {
    let text =
        crate::perft::perft_command("mixtour", Some(SHIPPED[1].1), &["c3"], 2, false).unwrap();
    let p = after(&grid(SHIPPED[1].1), &["c3"]);
    assert!(text.ends_with(&format!("Nodes searched: {}\n", Slow::of(&p).perft(2))));
}
