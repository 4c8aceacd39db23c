//! The review driven by the engine in this process.

use super::*;
use stackfish_engine::Host;

#[test]
fn limits_are_bounded_and_never_zero() {
    assert_eq!(Limits::new(None, None, None).unwrap(), Limits::default());
    assert_eq!(
        Limits::default().describe(),
        format!("{DEFAULT_NODES} nodes")
    );
    let l = Limits::new(None, Some(8), Some(250)).unwrap();
    assert_eq!(l.describe(), "depth 8, 250 ms");
    let go = l.go_params().unwrap();
    assert_eq!(
        (go.nodes, go.depth, go.move_time, go.infinite),
        (None, Some(8), Some(250), false)
    );
    for (n, d, t, what) in [
        (Some(0), None, None, "nodes"),
        (None, Some(0), None, "depth"),
        (None, None, Some(0), "movetime"),
    ] {
        let e = Limits::new(n, d, t).unwrap_err().to_string();
        assert_eq!(e, format!("{what} must be at least 1"));
    }
    let unbounded = Limits {
        nodes: None,
        depth: None,
        movetime_ms: None,
    };
    assert!(matches!(
        unbounded.go_params(),
        Err(AnalyseError::Unbounded)
    ));
}

fn engine() -> Engine {
    Engine::with_hash_mb(Host::default(), 16).unwrap()
}

#[test]
fn an_interrupt_ends_the_review_before_its_next_search() {
    let game = ReviewGame::from_moves("mixtour", None, &["c3", "d4"]).unwrap();
    let stop = AtomicBool::new(true);
    let e = review_game(
        &mut engine(),
        game,
        &Limits::default(),
        Some(&stop),
        &mut |_, _| {},
    );
    assert!(matches!(e, Err(AnalyseError::Interrupted)), "{e:?}");
}

/// A "save 2" position of the tactics suite (proven by exact search): the
/// side to move must play c2e2; 2c2e2 lets player 1 win at once with 4e2e1.
const SAVE: &str = "x,2212,x,1,x/x,21,x3/x5/x2,2121,x,22/x,12,x2,1 2 13,11 0,0 1 e1e2";

#[test]
fn allowing_a_win_in_one_is_a_blunder_and_the_defence_the_better_move() {
    let game = ReviewGame::from_moves("mixtour", Some(SAVE), &["2c2e2", "4e2e1"]).unwrap();
    let limits = Limits::new(Some(20_000), None, None).unwrap();
    let mut seen = Vec::new();
    let review = review_game(&mut engine(), game, &limits, None, &mut |d, t| {
        seen.push((d, t))
    })
    .unwrap();
    // Two searches (the finished last position is not searched).
    assert_eq!(seen.last(), Some(&(2, 2)));
    assert_eq!(
        review.moves[0].class,
        Some(stackfish_review::Class::Blunder)
    );
    assert_eq!(review.moves[0].best.as_deref(), Some("c2e2"));
    // Player 1 then wins in one: found, and no loss for them.
    assert_eq!(review.positions[1].mate, Some(1));
    assert_eq!(review.moves[1].class, None);
    assert_eq!(review.decisive.map(|d| d.ply), Some(1));
}
