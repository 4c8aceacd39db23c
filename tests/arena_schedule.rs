//! The schedule with no engines at all: a pure function of the config and
//! the seed, over the shipped opening suite.

use stackfish::arena::openings;
use stackfish::arena::schedule::{schedule, total_games};
use std::collections::{HashMap, HashSet};
use std::path::Path;

fn suite() -> Vec<openings::Opening> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tournaments/openings-mixtour.txt");
    openings::load("mixtour", &path).expect("shipped openings load and are legal")
}

#[test]
fn shipped_suite_is_distinct_and_legal() {
    let s = suite();
    assert!(s.len() >= 100, "{}", s.len());
    let lines: HashSet<String> = s.iter().map(|o| o.to_line()).collect();
    assert_eq!(lines.len(), s.len(), "openings are distinct");
    let finals: HashSet<String> = s
        .iter()
        .map(|o| o.board("mixtour").unwrap().fen())
        .collect();
    assert_eq!(finals.len(), s.len(), "final positions are distinct");
}

#[test]
fn every_opening_twice_with_colours_swapped_and_reproducible() {
    let n = suite().len();
    let plan = schedule(2, 2 * n as u32, n, Some(42));
    assert_eq!(
        plan,
        schedule(2, 2 * n as u32, n, Some(42)),
        "same seed, same games"
    );
    assert_eq!(plan.len(), 2 * n);
    let mut by_opening: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    for g in &plan {
        by_opening.entry(g.opening).or_default().push((g.p1, g.p2));
    }
    assert_eq!(by_opening.len(), n, "every opening used");
    for colours in by_opening.values() {
        assert_eq!(colours, &vec![(0, 1), (1, 0)]);
    }
    let other = schedule(2, 2 * n as u32, n, Some(43));
    assert_ne!(plan, other, "another seed, another order");
    assert_eq!(total_games(2, 7), 8);
}
