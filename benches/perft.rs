//! Perft speed on one core: leaves per second with the last ply counted in
//! bulk from the bitboards and with every leaf generated and played; the
//! standard board on its fast type, then boards of other shapes (and the
//! standard board once more) on the general grid type.
//! `cargo bench --bench perft` (add `-- quick` for shallower depths).

use std::time::Instant;

use stackfish::game::mixtour::{Mixtour, MixtourGrid, MixtourVariant};
use stackfish::game::{perft::perft_with, Game};

const POSITIONS: [(&str, &str, u32); 4] = [
    ("start", "x5/x5/x5/x5/x5 1 20,20 0,0 1 -", 6),
    (
        "midgame 1",
        "x,1,x3/x4,22/x2,221,x2/2,2,x2,2211/11,x4 1 14,12 0,0 1 c1c3",
        5,
    ),
    (
        "midgame 2",
        "x2,22,x2/1,x2,21,x/x,2,x,2,21/1212,x4/x3,1,x 1 14,12 0,0 1 b3",
        5,
    ),
    (
        "midgame 3",
        "x,2,2,x2/x5/x2,1121,2221,x/2122,212,x,11,x/x2,11,x2 1 10,9 0,0 1 c2d2",
        5,
    ),
];

const GRID_POSITIONS: [(&str, &str, u32); 5] = [
    ("5x5 grid", "x5/x5/x5/x5/x5 1 20,20 0,0 1 -", 6),
    ("7x7", "x7/x7/x7/x7/x7/x7/x7 1 20,20 0,0 1 -", 5),
    (
        "7x7 ring",
        "x7/x7/x2,#3,x2/x2,#3,x2/x2,#3,x2/x7/x7 1 20,20 0,0 1 -",
        5,
    ),
    (
        "10x10",
        "x10/x10/x10/x10/x10/x10/x10/x10/x10/x10 1 20,20 0,0 1 -",
        5,
    ),
    (
        "10x10 mid",
        "x10/x4,#2,x4/x2,12,x7/1,x8,2/x3,2,x6/x5,22,x4/x10/x2,211,x7/x10/12,x8,2221 2 14,13 0,0 1 -",
        4,
    ),
];

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    println!(
        "{:<10} {:>5} {:>14} {:>9} {:>16} {:>9} {:>16}",
        "position", "depth", "leaves", "bulk s", "bulk leaves/s", "full s", "full leaves/s"
    );
    for (name, fen, depth) in POSITIONS {
        row::<Mixtour>(name, fen, if quick { depth - 1 } else { depth });
    }
    for (name, fen, depth) in GRID_POSITIONS {
        row::<MixtourGrid>(name, fen, if quick { depth - 1 } else { depth });
    }
}

fn row<G: Game<Variant = MixtourVariant>>(name: &str, fen: &str, depth: u32) {
    let pos = G::from_fen(&MixtourVariant::STANDARD, fen).expect("bench FEN");
    let t = Instant::now();
    let bulk = perft_with(&pos, depth, true);
    let bulk_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let full = perft_with(&pos, depth, false);
    let full_s = t.elapsed().as_secs_f64();
    assert_eq!(bulk, full, "bulk and full counts differ for {name}");
    println!(
        "{name:<10} {depth:>5} {bulk:>14} {bulk_s:>9.3} {:>16.0} {full_s:>9.3} {:>16.0}",
        bulk as f64 / bulk_s,
        full as f64 / full_s
    );
}
