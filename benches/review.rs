//! The whole-game review's time per position: the engine in this process
//! (one thread, a 64 MB table shared by a game's searches, as `stackfish
//! analyse` runs) reviews the self-play games of tests/records/best-moves.jsonl,
//! one per game, at 100000 nodes a position (`-- quick`: 20000).
//! `cargo bench --bench review`; prints per game and in all the positions
//! searched, the milliseconds and the nodes a position.

use std::time::Instant;

use stackfish::analyse::{review_game, Limits};
use stackfish::engine::{Engine, Host};
use stackfish::record::RecordReader;
use stackfish::review::ReviewGame;

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let nodes = if quick { 20_000 } else { 100_000 };
    let limits = Limits::new(Some(nodes), None, None).expect("a limit");
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/records/best-moves.jsonl"
    );
    let file = std::fs::File::open(path).expect("the shipped records");
    let mut engine = Engine::with_hash_mb(Host::default(), 64).expect("64 MB");
    let (mut positions, mut searched_nodes, mut seconds) = (0usize, 0u64, 0.0f64);
    println!("review at {nodes} nodes a position, 1 thread, 64 MB");
    for item in RecordReader::new(std::io::BufReader::new(file)) {
        let record = item.parse().expect("a record").record;
        let game = ReviewGame::from_record(&record, None).expect("a game");
        let variant = game.variant;
        let clock = Instant::now();
        let review =
            review_game(&mut engine, game, &limits, None, &mut |_, _| {}).expect("reviewed");
        let took = clock.elapsed().as_secs_f64();
        let searched: Vec<_> = review
            .positions
            .iter()
            .filter(|p| p.depth.is_some())
            .collect();
        let nodes: u64 = searched.iter().filter_map(|p| p.nodes).sum();
        println!(
            "{variant:<10} {:>4} positions {:>8.1} ms a position {:>8} nodes a position",
            searched.len(),
            1000.0 * took / searched.len().max(1) as f64,
            nodes / searched.len().max(1) as u64
        );
        positions += searched.len();
        searched_nodes += nodes;
        seconds += took;
    }
    println!(
        "review: {positions} positions, {:.1} ms a position, {} nodes a position",
        1000.0 * seconds / positions.max(1) as f64,
        searched_nodes / positions.max(1) as u64
    );
}
