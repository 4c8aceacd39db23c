//! The search against the plain-minimax oracle, exact scores of forced
//! results, and determinism.

use super::*;
use crate::node::{first_max, from_tt, ln, to_tt, LN_TABLE};
use minimax::{minimax, root_values};
use rand::{Rng, SeedableRng};
use stackfish_games::mixtour::{Mixtour, MixtourVariant};
use stackfish_games::{find_legal, Game, Line};

fn pos(fen: &str) -> Mixtour {
    Mixtour::from_fen(&MixtourVariant::STANDARD, fen).unwrap()
}

type Mv = <Mixtour as Game>::Move;

/// A position of Mixtour with `reserve` pieces a side and one tower to
/// win, after a random number of random moves in `plies`; `None` when the
/// game ended on the way. Small enough for the plain-minimax oracle.
pub(crate) fn random_small_mixtour(
    rng: &mut rand::rngs::StdRng,
    reserve: u8,
    plies: std::ops::Range<usize>,
) -> Option<Mixtour> {
    let mut p = Mixtour::start(&MixtourVariant { reserve, goal: 1 });
    for _ in 0..rng.gen_range(plies) {
        if p.outcome().is_over() {
            return None;
        }
        let mut m = Vec::new();
        p.generate_moves(&mut m);
        p.play(m[rng.gen_range(0..m.len())]);
    }
    (!p.outcome().is_over()).then_some(p)
}

fn run(p: &Mixtour, limits: Limits, strict: bool) -> SearchResult<Mv> {
    run_lines(p, limits, strict, 1, &[]).0
}

/// A one-thread search with `multipv` lines over `root_moves` (empty: all),
/// and every info it reported.
fn run_lines(
    p: &Mixtour,
    limits: Limits,
    strict: bool,
    multipv: usize,
    root_moves: &[Mv],
) -> (SearchResult<Mv>, Vec<Info>) {
    let shared = Arc::new(Shared::new(4));
    let mut heur = vec![Heuristics::default()];
    let params = SearchParams {
        limits: &limits,
        move_overhead_ms: 0,
        threads: 1,
        exact: strict,
        multipv,
        root_moves,
        nets: &Default::default(),
    };
    let mut infos = Vec::new();
    let r = search(
        p,
        &[p.repetition_key()],
        &shared,
        &mut heur,
        &params,
        &mut |i| infos.push(i.clone()),
    )
    .expect("a legal move");
    (r, infos)
}

/// Positions 4 to 24 random plies into a game with small reserves, not over.
fn random_positions(seed: u64, count: usize) -> Vec<Mixtour> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        out.extend(random_small_mixtour(&mut rng, 6, 4..24));
    }
    out
}

fn depth(d: i32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

#[test]
fn alpha_beta_with_tt_equals_plain_minimax() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    let mut checked = 0;
    while checked < 60 {
        let Some(p) = random_small_mixtour(&mut rng, 6, 4..24) else {
            continue;
        };
        for d in 1..=3 {
            let expected = minimax(&p, d, &mut vec![p.repetition_key()]);
            let got = run(&p, depth(d), true);
            assert_eq!(got.score, expected, "depth {d} in {}", p.fen());
        }
        checked += 1;
    }
}

#[test]
fn win_in_one_scores_mate_1() {
    // a1 holds four of player 1's pieces next to a single piece: 4a1b1 is a tower of 5.
    let p = pos("x5/x5/x5/x5/1111,1,x3 1 10,10 0,0 1 -");
    let r = run(&p, depth(4), false);
    assert_eq!(r.best.to_string(), "4a1b1");
    assert_eq!(r.score, WIN - 1);
    assert_eq!(mate_in(r.score), Some(1));
}

#[test]
fn loss_in_one_scores_mate_minus_1() {
    // Player 2 threatens 4a1b1 and 4e5d5; player 1 has no reserve and no
    // pieces of its own on top: every move either completes a tower for
    // player 2 or leaves one of the two threats.
    let p = pos("x3,2,2222/x5/x5/x5/2222,2,x3 1 0,0 0,0 1 -");
    let r = run(&p, depth(4), false);
    assert_eq!(r.score, -(WIN - 2));
    assert_eq!(mate_in(r.score), Some(-1));
}

#[test]
fn win_in_two_scores_mate_2() {
    // Found by the plain-minimax oracle (a separate implementation): the side
    // to move cannot score at once but forces a tower on its second move.
    for fen in [
        "x,2,2,x,1221/x5/221,x2,1,2/11,x4/2,x3,11 1 0,0 0,0 1 2c5e5",
        "1,12,1,x,2/x5/12,x3,22/21,x4/x2,1,x2 2 2,2 0,0 1 b4a3",
    ] {
        let p = pos(fen);
        assert_eq!(
            minimax(&p, 3, &mut vec![p.repetition_key()]),
            WIN - 3,
            "oracle: {fen}"
        );
        let r = run(&p, depth(6), false);
        assert_eq!(r.score, WIN - 3, "{fen}");
        assert_eq!(mate_in(r.score), Some(2));
        // The move it found really wins in two: after it, every reply allows a win in one.
        let mut child = p;
        child.play(r.best);
        assert_eq!(
            minimax(&child, 2, &mut vec![child.repetition_key()]),
            -(WIN - 2),
            "{fen}"
        );
    }
}

#[test]
fn a_threat_no_move_parries_is_seen_at_the_horizon() {
    // From the tactics suite (win 3): after a2 player 2 faces a tower in
    // one (4b3a2) that none of its moves stops. A one-ply search sees it:
    // the horizon after a2 finds no parry for player 2.
    let p = pos("x,222,x2,2/221,x,2111,x2/x,1211,x3/x4,2121/2,x,2,x2 1 11,8 0,0 1 e3b3");
    let r = run(&p, depth(1), false);
    assert_eq!(r.best.to_string(), "a2");
    assert_eq!(r.score, WIN - 3);
    // And the oracle, which tries every move, agrees that it is lost.
    let mut child = p;
    child.play(r.best);
    assert!(child.threatened());
    assert_eq!(
        minimax(&child, 2, &mut vec![child.repetition_key()]),
        -(WIN - 2)
    );
}

#[test]
fn a_threatened_tower_is_prevented() {
    // Player 2 threatens 4a1b1 (a tower topped by 2). Player 1 to move must
    // deal with it; any move that leaves it loses at once.
    let p = pos("x5/x5/x5/x3,1,x/2222,2,x3 1 5,5 0,0 1 -");
    let r = run(&p, depth(5), false);
    assert!(
        r.score > -WIN_BOUND,
        "a defence exists, yet the search thinks it loses: {}",
        r.score
    );
    let mut child = p;
    child.play(r.best);
    let mut replies = Vec::new();
    child.generate_moves(&mut replies);
    for reply in replies {
        let mut after = child;
        after.play(reply);
        assert!(
            after
                .outcome()
                .result()
                .is_none_or(|res| res.winner() != Some(stackfish_games::Side::P2)),
            "after {} player 2 wins with {reply}",
            r.best
        );
    }
}

#[test]
fn the_same_search_twice_gives_the_same_result() {
    let p = pos("x,2,2,x2/x5/x2,1121,2221,x/2122,212,x,11,x/x2,11,x2 1 10,9 0,0 1 c2d2");
    let a = run(
        &p,
        Limits {
            nodes: Some(20_000),
            ..Limits::default()
        },
        false,
    );
    let b = run(
        &p,
        Limits {
            nodes: Some(20_000),
            ..Limits::default()
        },
        false,
    );
    assert_eq!(
        (a.best, a.score, a.depth, a.nodes),
        (b.best, b.score, b.depth, b.nodes)
    );
    assert!(a.nodes <= 20_000 + 1, "node limit overshot: {}", a.nodes);
}

#[test]
fn repetition_with_the_game_history_is_a_draw() {
    // The position after the cycle has occurred before: a move that repeats
    // it again scores as a draw even though the evaluation differs.
    let mut line = Line::<Mixtour>::from_fen(
        MixtourVariant::STANDARD,
        "x5/x5/x5/x5/11,2,x,1,22 1 0,0 0,0 1 -",
    )
    .unwrap();
    for m in ["a1b1", "e1d1", "b1a1", "d1e1", "a1b1", "e1d1", "b1a1"] {
        line.play_text(m).unwrap();
    }
    // Player 2 to move; d1e1 would make the third occurrence: scored 0 at
    // any depth, whatever the evaluation says.
    let p = *line.position();
    let shared = Arc::new(Shared::new(1));
    for d in [1, 3] {
        let (scores, nodes) = root_scores(
            &p,
            line.keys(),
            &shared,
            &mut Heuristics::default(),
            &depth(d),
            10, // the engine's default MoveOverhead; the limit is a depth
            &[],
            &Default::default(),
        );
        let d1e1 = find_legal(&p, "d1e1").unwrap();
        let (_, score) = scores.iter().find(|(m, _)| *m == d1e1).expect("scored");
        assert_eq!(*score, 0, "depth {d}");
        assert!(
            scores.iter().any(|(_, s)| *s != 0),
            "the test needs other moves with non-draw scores"
        );
        assert!(nodes > 0, "the nodes searched are counted");
    }
}

#[test]
fn a_search_on_two_threads_returns_a_legal_move() {
    let p = pos("x,1,x3/x4,22/x2,221,x2/2,2,x2,2211/11,x4 1 14,12 0,0 1 c1c3");
    let shared = Arc::new(Shared::new(4));
    let mut heur = vec![Heuristics::default(), Heuristics::default()];
    let limits = depth(6);
    let params = SearchParams {
        limits: &limits,
        move_overhead_ms: 0,
        threads: 2,
        exact: false,
        multipv: 1,
        root_moves: &[],
        nets: &Default::default(),
    };
    let r = search(
        &p,
        &[p.repetition_key()],
        &shared,
        &mut heur,
        &params,
        &mut |_| {},
    )
    .unwrap();
    assert!(find_legal(&p, &r.best.to_string()).is_ok());
    assert!(
        r.depth == 6 || r.score.abs() > WIN_BOUND,
        "depth {} score {}",
        r.depth,
        r.score
    );
}

#[test]
fn mate_scores_round_trip_through_the_table_relative_to_the_node() {
    for ply in [0usize, 3, 17] {
        for s in [WIN - 5, -(WIN - 8), 123, -40] {
            assert_eq!(from_tt(to_tt(s, ply), ply), s);
        }
    }
    // A win 5 plies below a node at ply 3 is stored as 5 from that node.
    assert_eq!(to_tt(WIN - 8, 3), WIN - 5);
}

#[test]
fn multipv_lines_are_the_k_best_moves_by_plain_minimax() {
    for (n, p) in random_positions(17, 30).iter().enumerate() {
        for d in 1..=3 {
            let mut values = root_values(p, d, &mut vec![p.repetition_key()]);
            values.sort_by_key(|&(_, v)| std::cmp::Reverse(v));
            let k = 4;
            let (r, infos) = run_lines(p, depth(d), true, k, &[]);
            // The last iteration: depth d, or a shallower one that proved
            // every line's result, which deeper searches only confirm.
            let reached = infos.last().unwrap().depth;
            let last: Vec<&Info> = infos.iter().filter(|i| i.depth == reached).collect();
            assert_eq!(last.len(), k.min(values.len()), "depth {d} {}", p.fen());
            assert!(
                reached == d || last.iter().all(|i| i.score.abs() > WIN_BOUND),
                "stopped at depth {reached} of {d}"
            );
            let mut seen = Vec::new();
            for (i, info) in last.iter().enumerate() {
                assert_eq!(info.multipv, i + 1);
                assert_eq!(
                    info.score,
                    values[i].1,
                    "line {} depth {d} in {}",
                    i + 1,
                    p.fen()
                );
                // The line's move really has that value, and no move gets two lines.
                let mv = find_legal(p, &info.pv[0]).unwrap();
                let own = values.iter().find(|(m, _)| *m == mv).unwrap().1;
                assert_eq!(own, info.score, "{} in {}", info.pv[0], p.fen());
                assert!(!seen.contains(&mv), "{} twice (position {n})", info.pv[0]);
                seen.push(mv);
            }
            assert_eq!((r.best, r.score), (seen[0], values[0].1));
        }
    }
}

#[test]
fn searchmoves_restrict_the_root_to_the_legal_moves_named() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for p in random_positions(23, 30) {
        let values = root_values(&p, 2, &mut vec![p.repetition_key()]);
        let mut subset: Vec<Mv> = values
            .iter()
            .map(|&(m, _)| m)
            .filter(|_| rng.gen_bool(0.3))
            .collect();
        subset.truncate(3);
        if subset.is_empty() {
            continue;
        }
        let best_of_subset = values
            .iter()
            .filter(|(m, _)| subset.contains(m))
            .map(|&(_, v)| v)
            .max()
            .unwrap();
        // Asking for more lines than there are allowed moves gives one per move.
        let (r, infos) = run_lines(&p, depth(2), true, 5, &subset);
        assert!(subset.contains(&r.best), "{} not in {subset:?}", r.best);
        assert_eq!(r.score, best_of_subset, "{}", p.fen());
        let reached = infos.last().unwrap().depth;
        let last = infos.iter().filter(|i| i.depth == reached).count();
        assert_eq!(last, subset.len());
        // A move that is not legal here is ignored; a list without any legal
        // move means every move.
        let foreign = (0..25)
            .map(Mv::place)
            .find(|m| values.iter().all(|(v, _)| v != m))
            .expect("an occupied square");
        let (r, _) = run_lines(&p, depth(2), true, 1, &[foreign]);
        assert_eq!(r.score, values.iter().map(|&(_, v)| v).max().unwrap());
    }
}

#[test]
fn the_logarithm_table_gives_the_computed_logarithms() {
    for n in 0..LN_TABLE + 10 {
        assert_eq!(ln(n).to_bits(), (n as f64).ln().to_bits(), "ln({n})");
    }
}

/// The selection sort's pick is the first of the largest keys, as the
/// tuple maximum it replaced (`max_by_key` of `(key, Reverse(index))`)
/// chose: ties go to the move generated first.
#[test]
fn first_max_picks_the_earliest_of_the_largest_keys() {
    assert_eq!(first_max(&[]), 0);
    assert_eq!(first_max(&[7]), 0);
    assert_eq!(first_max(&[3, 5, 5, 1]), 1);
    assert_eq!(first_max(&[-4, -4, -9]), 0);
    let mut rng = rand::rngs::StdRng::seed_from_u64(40);
    for _ in 0..2000 {
        let n = rng.gen_range(1..40);
        let keys: Vec<i32> = (0..n).map(|_| rng.gen_range(-3..4) << 28).collect();
        let tuple = (0..n)
            .max_by_key(|&j| (keys[j], std::cmp::Reverse(j)))
            .unwrap_or(0);
        assert_eq!(first_max(&keys), tuple, "{keys:?}");
    }
}
