//! The engine facade on boards of every shape: the session picks the board
//! from the position string (the perft counts are those of the rules page).

/// The shipped boards with their perft at depth 2 (docs/rules/mixtour.md).
const SHIPPED: [(&str, &str, u64); 5] = [
    ("plain 5 x 5", "x5/x5/x5/x5/x5 1 20,20 0,0 1 -", 600),
    (
        "5 x 5 without corners",
        "#,x3,#/x5/x5/x5/#,x3,# 1 20,20 0,0 1 -",
        420,
    ),
    (
        "7 x 7 ring",
        "x7/x7/x2,#3,x2/x2,#3,x2/x2,#3,x2/x7/x7 1 20,20 0,0 1 -",
        1_560,
    ),
    ("6 x 6", "x6/x6/x6/x6/x6/x6 1 20,20 0,0 1 -", 1_260),
    (
        "10 x 10",
        "x10/x10/x10/x10/x10/x10/x10/x10/x10/x10 1 20,20 0,0 1 -",
        9_900,
    ),
];

#[test]
fn the_engine_and_perft_choose_the_board_from_the_position_string() {
    use crate::new_session;
    let mut session = new_session("mixtour").unwrap();
    for (name, fen, slow) in SHIPPED {
        session.set_position(Some(fen), &[]).unwrap();
        assert_eq!(session.game().fen(), fen, "{name}");
        let report = session.game().perft(2, false);
        assert!(
            report.ends_with(&format!("Nodes searched: {slow}\n")),
            "{name}: {report}"
        );
    }
    // A bad shape leaves the position as it was.
    assert!(session
        .set_position(Some("x5/x4 1 20,20 0,0 1 -"), &[])
        .unwrap_err()
        .to_string()
        .contains("rank 1"));
    assert_eq!(session.game().fen(), SHIPPED[4].1);
    // A new game is the standard board again.
    session.new_game();
    assert_eq!(session.game().fen(), SHIPPED[0].1);
}

#[test]
fn the_engine_finds_a_tower_on_a_board_it_has_never_seen() {
    use crate::{allocate_shared, new_session, BestMove, GoParams, Options};
    // 9 x 4 with holes; player 1 completes a tower at i1 with 4h1i1... h1
    // holds 1111 and i1 a single 2: the only winning move.
    let fen = "x9/x3,#3,x3/x2,2,x6/x7,1111,2 1 5,5 0,0 1 -";
    let mut session = new_session("mixtour").unwrap();
    session.set_position(Some(fen), &[]).unwrap();
    let shared = allocate_shared(1).unwrap();
    let params = GoParams {
        depth: Some(4),
        ..GoParams::default()
    };
    match session.go(&shared, &params, &Options::default(), &mut |_| {}) {
        BestMove::Move { best, score, .. } => {
            assert_eq!(best, "4h1i1");
            assert!(score > stackfish_search::WIN_BOUND, "{score}");
        }
        BestMove::GameOver(r) => panic!("{r}"),
    }
}
