use super::*;

fn pv(moves: &[&str]) -> Vec<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

#[test]
fn a_formatted_line_reads_back_with_every_field() {
    for score in [
        Score::Cp(-35),
        Score::Cp(0),
        Score::Mate(3),
        Score::Mate(-2),
    ] {
        let moves = pv(&["c3", "e3b3", "4b3a2"]);
        let line = SearchLine {
            multipv: 2,
            depth: 9,
            seldepth: 12,
            score,
            nodes: 12_345,
            time_ms: 67,
            hashfull: 3,
            pv: &moves,
        };
        let text = info_line(&line);
        assert_eq!(
            InfoLine::parse(&text),
            InfoLine {
                multipv: Some(2),
                depth: Some(9),
                seldepth: Some(12),
                score: Some(score),
                nodes: Some(12_345),
                // 12345 nodes in 67 ms.
                nps: Some(184_253),
                time_ms: Some(67),
                hashfull: Some(3),
                pv: moves.clone(),
                string: false,
            },
            "{text}"
        );
    }
}

#[test]
fn the_line_has_the_order_and_spelling_gui_authors_rely_on() {
    let moves = pv(&["e3", "e3b3"]);
    let line = SearchLine {
        multipv: 1,
        depth: 5,
        seldepth: 4,
        score: Score::Mate(-3),
        nodes: 3069,
        time_ms: 0,
        hashfull: 7,
        pv: &moves,
    };
    // A time of 0 ms counts as 1 ms for nps, never a division by zero.
    assert_eq!(
        info_line(&line),
        "info depth 5 seldepth 4 multipv 1 score mate -3 nodes 3069 nps 3069000 time 0 hashfull 7 pv e3 e3b3"
    );
}

#[test]
fn real_engine_lines_give_every_field_a_gui_shows() {
    // stackfish, MultiPV 2, on a Mixtour position with a forced win.
    let l = InfoLine::parse(
        "info depth 4 seldepth 5 multipv 2 score mate 3 nodes 2638 nps 2638000 time 1 hashfull 0 pv a2 b2 e3 d3 4e2d3",
    );
    assert_eq!(
        (l.multipv, l.depth, l.seldepth, l.score, l.nodes, l.nps, l.time_ms, l.hashfull),
        (
            Some(2),
            Some(4),
            Some(5),
            Some(Score::Mate(3)),
            Some(2638),
            Some(2_638_000),
            Some(1),
            Some(0)
        )
    );
    assert_eq!(l.pv, pv(&["a2", "b2", "e3", "d3", "4e2d3"]));
    assert!(!l.string);

    // Stockfish during an aspiration window: the bound is read as its
    // score, and the fields after it are still read.
    let l = InfoLine::parse(
        "info depth 21 seldepth 30 multipv 1 score cp 38 lowerbound nodes 1903274 nps 1254000 hashfull 611 tbhits 0 time 1517 pv e2e4 e7e5",
    );
    assert_eq!(
        (l.depth, l.score, l.nodes, l.hashfull, l.time_ms),
        (
            Some(21),
            Some(Score::Cp(38)),
            Some(1_903_274),
            Some(611),
            Some(1517)
        )
    );
    assert_eq!(l.pv, pv(&["e2e4", "e7e5"]));
    let l = InfoLine::parse("info depth 30 score mate -7 upperbound time 9 pv g1f3");
    assert_eq!((l.score, l.time_ms), (Some(Score::Mate(-7)), Some(9)));
    assert_eq!(l.pv, pv(&["g1f3"]));

    // Without multipv (one-line engines) and without pv (progress lines).
    let l = InfoLine::parse("info depth 3 score cp -12 nodes 99");
    assert_eq!((l.multipv, l.score), (None, Some(Score::Cp(-12))));
    assert!(l.pv.is_empty());
}

#[test]
fn string_lines_have_no_fields_even_if_their_text_looks_like_some() {
    // stackfish's answer to `frobnicate depth 3`.
    let l = InfoLine::parse("info string unknown command: frobnicate depth 3");
    assert_eq!(
        l,
        InfoLine {
            string: true,
            ..InfoLine::default()
        }
    );
    let l = InfoLine::parse("info depth 2 string score cp 5 pv c3");
    assert!(l.string);
    assert_eq!((l.depth, l.score), (Some(2), None));
    assert!(l.pv.is_empty());
}

#[test]
fn bad_numbers_are_skipped_not_fatal() {
    let l = InfoLine::parse("info depth x score cp lowerbound nodes 9");
    assert_eq!((l.depth, l.score, l.nodes), (None, None, Some(9)));
    // Too large for the field's type: left out rather than wrapped.
    let l = InfoLine::parse("info multipv 4294967296 depth 4294967295 nodes -1 score mate");
    assert_eq!(
        (l.multipv, l.depth, l.nodes, l.score),
        (None, Some(u32::MAX), None, None)
    );
    assert_eq!(InfoLine::parse(""), InfoLine::default());
    assert_eq!(InfoLine::parse("info"), InfoLine::default());
}
