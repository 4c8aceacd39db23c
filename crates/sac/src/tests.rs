//! The three files against their description: expected position strings
//! written from the format description by hand, and one test per way a file
//! can be wrong.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::*;

const SQUARE_5X5: &str =
    "20,15\n0, 0, 0, 0, 0,\n0, 0, 0, 0, 0,\n0, 0, 0, 0, 0,\n0, 0, 0, 0, 0,\n0, 0, 0, 0, 0\n";

fn fen_of_in(text: &str, goal: u32) -> String {
    read_in(text, goal).unwrap().to_fen()
}

/// The padded board of a save, built from the rows of the inner grid as the
/// format description says: 5 rows of `-`, each row between 5 `-` a side,
/// 5 rows of `-`.
fn padded(rows: &[&[&str]]) -> String {
    json_list(&padded_cells(rows))
}

fn json_list(cells: &[String]) -> String {
    format!("[{}]", cells.join(", "))
}

fn padded_cells(rows: &[&[&str]]) -> Vec<String> {
    let width = rows[0].len() + 10;
    let mut cells: Vec<String> = Vec::new();
    let pad_row = vec!["\"-\"".to_string(); width];
    for _ in 0..5 {
        cells.extend(pad_row.clone());
    }
    for row in rows {
        cells.extend(vec!["\"-\"".to_string(); 5]);
        cells.extend(row.iter().map(|c| format!("\"{c}\"")));
        cells.extend(vec!["\"-\"".to_string(); 5]);
    }
    for _ in 0..5 {
        cells.extend(pad_row.clone());
    }
    cells
}

/// A saved game's JSON with `board` and the other keys as given.
fn save_json(board: &str, rest: &str) -> String {
    format!("{{\"Board\": {board}, {rest}}}")
}

/// The keys of a two-player save besides `Board`, as (key, JSON value).
const KEYS: [(&str, &str); 8] = [
    ("BoardFile", "\"boards/x.stackboard\""),
    ("BoardFileRelative", "\"\""),
    ("CpuScript", "[\"\", \"MinimaxCPU.js\"]"),
    ("Current", "2"),
    ("NumOfPlayers", "2"),
    ("StonesLeft", "[16, 15]"),
    ("WinTowers", "2"),
    ("Won", "[0, 1]"),
];

/// `KEYS` as JSON members, with `key`'s value replaced by `value` (or the
/// key left out when `value` is empty).
fn keys_with(key: &str, value: &str) -> String {
    KEYS.iter()
        .filter_map(|&(k, v)| match (k == key, value.is_empty()) {
            (false, _) => Some(format!("\"{k}\": {v}")),
            (true, false) => Some(format!("\"{k}\": {value}")),
            (true, true) => None,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn two_players() -> String {
    keys_with("", "")
}

fn read_save_json(json: &str) -> Result<Description, SacError> {
    read_stacksav(STANDARD.encode(json).as_bytes())
}

#[test]
fn the_standard_board_file_is_the_standard_start() {
    assert_eq!(fen_of_in(SQUARE_5X5, 1), "x5/x5/x5/x5/x5 1 20,20 0,0 1 -");
    assert_eq!(fen_of_in(SQUARE_5X5, 3), "x5/x5/x5/x5/x5 1 20,20 0,0 3 -");
    let d = read_in(SQUARE_5X5, 1).unwrap();
    assert_eq!(d.players_stones, vec![20, 15]);
    assert_eq!((d.rows, d.columns), (5, 5));
}

#[test]
fn rows_are_listed_from_the_top_as_the_ranks() {
    // The hole of the top row's first cell is a8's... here a2's: rank 2 is
    // the top of a two-row board, and the first rank written.
    assert_eq!(fen_of_in("7\n#,0,0\n0,0,0", 1), "#,x2/x3 1 7,7 0,0 1 -");
    assert_eq!(fen_of_in("7\n0,0,0\n0,0,#\n", 2), "x3/x2,# 1 7,7 0,0 2 -");
}

#[test]
fn the_board_without_corners_is_the_rules_example() {
    let text =
        "20,15\n#, 0, 0, 0, #,\n0, 0, 0, 0, 0,\n0, 0, 0, 0, 0,\n0, 0, 0, 0, 0,\n#, 0, 0, 0, #\n";
    assert_eq!(fen_of_in(text, 1), "#,x3,#/x5/x5/x5/#,x3,# 1 20,20 0,0 1 -");
}

#[test]
fn the_in_file_allows_blanks_crlf_a_bom_and_stops_at_an_empty_line() {
    let text = "\u{feff} 12 , 9 ,\r\n0 ,#, - \r\n0,0,0\r\n\r\nthis is not read\n";
    let d = read_in(text, 1).unwrap();
    assert_eq!(d.players_stones, vec![12, 9]);
    assert_eq!(d.to_fen(), "x,#2/x3 1 12,12 0,0 1 -");
    // One count, or more than two: the first is the two-player count.
    assert_eq!(fen_of_in("9\n0,0", 1), "x2 1 9,9 0,0 1 -");
    assert_eq!(
        read_in("9,8,7,6\n0,0", 1).unwrap().players_stones,
        vec![9, 8, 7, 6]
    );
}

#[test]
fn shipped_boards_read_to_their_start_positions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../boards");
    for (file, fen) in [
        ("square_5x5.in", "x5/x5/x5/x5/x5 1 20,20 0,0 1 -"),
        (
            "square_5x5_no_corners.in",
            "#,x3,#/x5/x5/x5/#,x3,# 1 20,20 0,0 1 -",
        ),
        (
            "ring_7x7.in",
            "x7/x7/x2,#3,x2/x2,#3,x2/x2,#3,x2/x7/x7 1 20,20 0,0 1 -",
        ),
        ("square_6x6.in", "x6/x6/x6/x6/x6/x6 1 20,20 0,0 1 -"),
        (
            "square_10x10.in",
            "x10/x10/x10/x10/x10/x10/x10/x10/x10/x10 1 20,20 0,0 1 -",
        ),
    ] {
        let d = read_path(&dir.join(file), None).unwrap();
        assert_eq!(d.to_fen(), fen, "{file}");
        assert_eq!(d.players_stones, vec![20, 15], "{file}");
    }
}

#[test]
fn a_stackboard_reads_like_its_in_file() {
    let json = r##"{"Board": ["#", "0", "0", "0", "-", "0"], "Columns": 3, "PlayersStones": [11, 8], "Rows": 2}"##;
    let d = read_stackboard(json, 4).unwrap();
    assert_eq!(d.to_fen(), "#,x2/x,#,x 1 11,11 0,0 4 -");
    assert_eq!(d, read_in("11,8\n#,0,0\n0,-,0", 4).unwrap());
}

#[test]
fn a_save_written_by_hand_imports_to_its_position() {
    let board = padded(&[
        &["", "12", "#", ""],
        &["2", "", "", "1122"],
        &["#", "-", "", ""],
    ]);
    let d = read_save_json(&save_json(&board, &two_players())).unwrap();
    assert_eq!(d.to_fen(), "x,12,#,x/2,x2,1122/#2,x2 2 16,15 0,1 2 -");
    assert_eq!(d.board_file, "boards/x.stackboard");
    assert_eq!(d.cpu_script, [String::new(), "MinimaxCPU.js".to_string()]);
    // Line breaks (a wrapped encoding), a final newline and missing `=`
    // padding are all accepted.
    let encoded = STANDARD.encode(save_json(&board, &two_players()));
    let wrapped: Vec<String> = encoded
        .as_bytes()
        .chunks(76)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect();
    let wrapped = wrapped.join("\n") + "\n";
    assert_eq!(read_stacksav(wrapped.as_bytes()).unwrap(), d);
    let unpadded = encoded.trim_end_matches('=');
    assert_eq!(read_stacksav(unpadded.as_bytes()).unwrap(), d);
}

#[test]
fn a_save_without_the_optional_keys_reads() {
    let board = padded(&[&["1", ""]]);
    let rest = "\"Current\": 1, \"NumOfPlayers\": 2, \"StonesLeft\": [19, 20], \"WinTowers\": 1, \"Won\": [0, 0], \"Extra\": true";
    let d = read_save_json(&save_json(&board, rest)).unwrap();
    assert_eq!(d.to_fen(), "1,x 1 19,20 0,0 1 -");
    assert_eq!(d.board_file, "");
}

#[test]
fn written_files_read_back_to_the_same_description() {
    let board = padded(&[
        &["", "12", "#", ""],
        &["2", "", "", "1122"],
        &["#", "-", "", ""],
    ]);
    let saved = read_save_json(&save_json(&board, &two_players())).unwrap();
    let text = write_stacksav(&saved);
    assert!(!text.contains('\n') && !text.contains(' '));
    let again = read_stacksav(text.as_bytes()).unwrap();
    assert_eq!(again, saved);

    // The JSON inside is Qt's indented style, the Board padded by 5.
    let json = String::from_utf8(STANDARD.decode(&text).unwrap()).unwrap();
    assert!(
        json.starts_with("{\n    \"Board\": [\n        \"-\","),
        "{json}"
    );
    assert!(json.ends_with("}\n"));
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value["Board"].as_array().unwrap().len(),
        (3 + 10) * (4 + 10)
    );
    assert_eq!(value["NumOfPlayers"], 2);
    assert_eq!(value["Current"], 2);
    assert_eq!(value["Won"], serde_json::json!([0, 1]));
    assert_eq!(value["StonesLeft"], serde_json::json!([16, 15]));
    // Row 6, column 7 of the padded board is the inner grid's first "12".
    assert_eq!(value["Board"][5 * 14 + 6], "12");
    assert_eq!(value["Board"][6 * 14 + 8], "1122");
    assert_eq!(value["Board"][7 * 14 + 6], "#");

    let board_text = write_stackboard(&saved);
    let board_file = read_stackboard(&board_text, saved.goal).unwrap();
    assert_eq!(
        board_file.to_fen(),
        "x2,#,x/x4/#2,x2 1 19,19 0,0 2 -",
        "a board file holds the shape, empty, and a player's pieces: 16 + 3 on the board"
    );
    assert_eq!(board_file.players_stones, vec![19, 14]);
    let in_board = read_in(SQUARE_5X5, 1).unwrap();
    let again = read_stackboard(&write_stackboard(&in_board), 1).unwrap();
    assert_eq!(again, in_board);
}

/// What a test expects of an error.
type Expect = fn(&SacError) -> bool;

/// The error of a file, checked to be of the expected kind and to read as
/// one line.
fn assert_one_line(e: &SacError) {
    let text = e.to_string();
    assert!(!text.is_empty() && !text.contains('\n'), "{text:?}");
}

#[test]
fn bad_in_files_are_named() {
    let cases: &[(&str, Expect)] = &[
        ("", |e| matches!(e, SacError::Count { .. })),
        (
            "20,x\n0,0",
            |e| matches!(e, SacError::Count { what, found } if what.contains("entry 2") && found == "x"),
        ),
        (
            "0,15\n0,0",
            |e| matches!(e, SacError::Count { found, .. } if found == "0"),
        ),
        ("+20\n0,0", |e| matches!(e, SacError::Count { .. })),
        ("-3\n0,0", |e| matches!(e, SacError::Count { .. })),
        (
            "20,,15\n0,0",
            |e| matches!(e, SacError::Count { found, .. } if found.is_empty()),
        ),
        ("20,15\n", |e| *e == SacError::NoRows),
        ("20,15\n\n0,0", |e| *e == SacError::NoRows),
        ("20\n0,0,0\n0,0,0\n0,0,0,0\n0,0,0", |e| {
            *e == SacError::RowWidth {
                line: 4,
                found: 4,
                expected: 3,
            }
        }),
        ("20\n0,0,0\n0,0", |e| {
            *e == SacError::RowWidth {
                line: 3,
                found: 2,
                expected: 3,
            }
        }),
        ("20\n0,0\n0,1", |e| {
            *e == SacError::BadBoardCell {
                at: "line 3 (row 2), cell 2".into(),
                text: "1".into(),
            }
        }),
        (
            "20\n0,,0",
            |e| matches!(e, SacError::BadBoardCell { at, .. } if at.ends_with("cell 2")),
        ),
    ];
    for (text, expected) in cases {
        let e = read_in(text, 1).unwrap_err();
        assert!(expected(&e), "{text:?}: {e:?}");
        assert_one_line(&e);
    }
    let e = read_bytes(FileKind::In, b"20\n0,\xff", None).unwrap_err();
    assert_eq!(e, SacError::NotText);
}

#[test]
fn bad_stackboards_are_named() {
    let cases: &[(&str, Expect)] = &[
        ("{\"Board\": [", |e| matches!(e, SacError::NotJson(_))),
        ("[1, 2]", |e| *e == SacError::NotAnObject),
        (r#"{"Columns": 1, "Rows": 1, "PlayersStones": [3]}"#, |e| {
            *e == SacError::MissingKey("Board")
        }),
        (
            r#"{"Board": ["0"], "Columns": 1, "PlayersStones": [3]}"#,
            |e| *e == SacError::MissingKey("Rows"),
        ),
        (
            r#"{"Board": "0", "Columns": 1, "Rows": 1, "PlayersStones": [3]}"#,
            |e| matches!(e, SacError::WrongType { key: "Board", .. }),
        ),
        (
            r#"{"Board": [0], "Columns": 1, "Rows": 1, "PlayersStones": [3]}"#,
            |e| matches!(e, SacError::WrongType { key: "Board", .. }),
        ),
        (
            r#"{"Board": ["0"], "Columns": 0, "Rows": 1, "PlayersStones": [3]}"#,
            |e| matches!(e, SacError::Count { what, .. } if what == "Columns"),
        ),
        (
            r#"{"Board": ["0"], "Columns": 1.5, "Rows": 1, "PlayersStones": [3]}"#,
            |e| matches!(e, SacError::Count { found, .. } if found == "1.5"),
        ),
        (
            r#"{"Board": ["0"], "Columns": "1", "Rows": 1, "PlayersStones": [3]}"#,
            |e| matches!(e, SacError::Count { .. }),
        ),
        (
            r#"{"Board": ["0", "0", "0"], "Columns": 2, "Rows": 2, "PlayersStones": [3]}"#,
            |e| {
                matches!(
                    e,
                    SacError::Length {
                        found: 3,
                        expected: 4,
                        ..
                    }
                )
            },
        ),
        (
            r#"{"Board": ["0", "0"], "Columns": 2, "Rows": 1, "PlayersStones": []}"#,
            |e| matches!(e, SacError::Length { found: 0, .. }),
        ),
        (
            r#"{"Board": ["0", "0"], "Columns": 2, "Rows": 1, "PlayersStones": [20, -1]}"#,
            |e| matches!(e, SacError::Count { what, .. } if what.contains("entry 2")),
        ),
        (
            r#"{"Board": ["0", "0", "0", "x"], "Columns": 2, "Rows": 2, "PlayersStones": [3]}"#,
            |e| {
                *e == SacError::BadBoardCell {
                    at: "row 2, column 2".into(),
                    text: "x".into(),
                }
            },
        ),
    ];
    for (text, expected) in cases {
        let e = read_stackboard(text, 1).unwrap_err();
        assert!(expected(&e), "{text}: {e:?}");
        assert_one_line(&e);
    }
}

#[test]
fn bad_saves_are_named() {
    let good_board = padded(&[&["", "12"], &["2", "#"]]);
    let save = |board: &str, rest: &str| save_json(board, rest);
    let with = |key: &str, value: &str| save(&good_board, &keys_with(key, value));
    assert!(read_save_json(&save(&good_board, &two_players())).is_ok());
    // Row 2, column 3 of the padded board of a 2 x 2 grid (12 wide).
    let mut cells = padded_cells(&[&["", "12"], &["2", "#"]]);
    cells[12 + 2] = "\"12\"".into();
    let stack_in_padding = json_list(&cells);
    let cases: Vec<(String, Expect)> = vec![
        ("[1, 2]".into(), |e| *e == SacError::NotAnObject),
        ("{\"Board\": [".into(), |e| matches!(e, SacError::NotJson(_))),
        (with("WinTowers", ""), |e| *e == SacError::MissingKey("WinTowers")),
        (with("Current", ""), |e| *e == SacError::MissingKey("Current")),
        (with("StonesLeft", ""), |e| *e == SacError::MissingKey("StonesLeft")),
        (with("NumOfPlayers", ""), |e| *e == SacError::MissingKey("NumOfPlayers")),
        (save("[]", "\"Current\": 1, \"NumOfPlayers\": 2, \"StonesLeft\": [1, 1], \"WinTowers\": 1, \"Won\": [0, 0]").replace("\"Board\": [], ", ""), |e| {
            *e == SacError::MissingKey("Board")
        }),
        (with("NumOfPlayers", "3"), |e| *e == SacError::Players(3)),
        (with("NumOfPlayers", "1"), |e| *e == SacError::Players(1)),
        (with("NumOfPlayers", "0"), |e| matches!(e, SacError::Count { .. })),
        (with("Current", "3"), |e| *e == SacError::Current(3)),
        (with("Current", "0"), |e| *e == SacError::Current(0)),
        (with("WinTowers", "0"), |e| {
            matches!(e, SacError::Count { what, .. } if what == "WinTowers")
        }),
        (with("WinTowers", "\"2\""), |e| matches!(e, SacError::Count { .. })),
        (with("Won", "[0]"), |e| {
            matches!(e, SacError::Length { what, found: 1, expected: 2 } if what == "Won")
        }),
        (with("StonesLeft", "[3, -1]"), |e| {
            matches!(e, SacError::Count { what, .. } if what == "StonesLeft, player 2")
        }),
        (with("StonesLeft", "3"), |e| {
            matches!(e, SacError::WrongType { key: "StonesLeft", .. })
        }),
        (with("CpuScript", "[\"\"]"), |e| {
            matches!(e, SacError::Length { what, .. } if what == "CpuScript")
        }),
        (with("BoardFile", "7"), |e| {
            matches!(e, SacError::WrongType { key: "BoardFile", .. })
        }),
        (save(&padded(&[&["", "13"]]), &two_players()), |e| {
            *e == SacError::BadStack {
                row: 1,
                column: 2,
                text: "13".into(),
            }
        }),
        (save(&padded(&[&["", "0"]]), &two_players()), |e| {
            matches!(e, SacError::BadStack { text, .. } if text == "0")
        }),
        (save(&padded(&[&["x", ""]]), &two_players()), |e| {
            matches!(e, SacError::BadStack { column: 1, .. })
        }),
        (save(&stack_in_padding, &two_players()), |e| {
            *e == SacError::InPadding {
                row: 2,
                column: 3,
                text: "12".into(),
            }
        }),
        (save(&padded(&[&["", ""]]).replacen("\"-\"", "\"\"", 1), &two_players()), |e| {
            matches!(e, SacError::InPadding { row: 1, column: 1, .. })
        }),
        (save("[\"\", \"1\", \"\", \"\"]", &two_players()), |e| matches!(e, SacError::Shape(_))),
        (save(&format!("[{}]", vec!["\"-\""; 242].join(",")), &two_players()), |e| {
            matches!(e, SacError::Shape(text) if text.contains("12 x 1, 1 x 12"))
        }),
    ];
    for (json, expected) in &cases {
        let e = read_save_json(json).unwrap_err();
        assert!(expected(&e), "{json}: {e:?}");
        assert_one_line(&e);
    }
    // Not base64 at all, and plain JSON saved without its encoding.
    for text in ["ab$c", "{\"Board\": []}"] {
        let e = read_stacksav(text.as_bytes()).unwrap_err();
        assert!(matches!(e, SacError::NotBase64(_)), "{e:?}");
        assert_one_line(&e);
    }
    assert!(read_stacksav(b"{}")
        .unwrap_err()
        .to_string()
        .contains("plain JSON"));
    // `--goal` belongs to board files.
    let text = STANDARD.encode(save(&good_board, &two_players()));
    assert_eq!(
        read_bytes(FileKind::StackSav, text.as_bytes(), Some(2)),
        Err(SacError::GoalOfSave)
    );
    assert!(read_bytes(FileKind::StackSav, text.as_bytes(), None).is_ok());
}

#[test]
fn files_are_told_apart_by_extension() {
    use std::path::Path;
    assert_eq!(FileKind::of(Path::new("a/b.IN")), Some(FileKind::In));
    assert_eq!(
        FileKind::of(Path::new("x.StackBoard")),
        Some(FileKind::StackBoard)
    );
    assert_eq!(
        FileKind::of(Path::new("x.stacksav")),
        Some(FileKind::StackSav)
    );
    assert_eq!(FileKind::of(Path::new("x.json")), None);
    let e = read_path(Path::new("board.txt"), None).unwrap_err();
    assert!(matches!(e, SacError::UnknownKind(_)));
    let e = read_path(Path::new("/nonexistent/board.in"), None).unwrap_err();
    assert!(matches!(e, SacError::Io(_)));
    assert_one_line(&e);
}

/// Position strings on several boards: stacks of both colours and heights,
/// either side to move, reserves, scores, goals.
const POSITIONS: &[&str] = &[
    "x5/x5/x5/x5/x5 1 20,20 0,0 1 -",
    "x5/x2,12,x2/x5/2,x4/x3,1122,x 2 15,16 0,1 2 -",
    "1,2,12,21,112/x5/2221,x4/x5/x4,1 1 9,11 4,3 5 -",
];

/// Export then import: the same position string; and the board file
/// written beside it holds the same shape, empty, with the pieces a player
/// has in all.
fn assert_round_trip(fen: &str) {
    let desc = Description::from_fen(fen).unwrap();
    assert_eq!(desc.to_fen(), fen);
    let saved = read_stacksav(write_stacksav(&desc).as_bytes()).unwrap();
    assert_eq!(checked_fen(&saved).unwrap(), fen);
    let board = read_stackboard(&write_stackboard(&desc), 1).unwrap();
    let holes = |d: &Description| d.cells.iter().map(|c| *c == Cell::Hole).collect::<Vec<_>>();
    assert_eq!(holes(&board), holes(&desc), "{fen}");
    assert!(board
        .cells
        .iter()
        .all(|c| *c == Cell::Hole || *c == Cell::EMPTY));
    let start = checked_fen(&board).unwrap();
    let n = desc.pieces_per_player();
    assert_eq!(
        start.split(' ').nth(2),
        Some(format!("{n},{n}").as_str()),
        "{fen}"
    );
}

#[test]
fn a_position_exported_imports_unchanged() {
    for &fen in POSITIONS {
        assert_round_trip(fen);
    }
    // What the last-move field said is not kept.
    let d = Description::from_fen("x5/x5/x5/x5/1,1,x3 1 19,19 0,0 1 a1b1").unwrap();
    assert_eq!(d.to_fen(), "x5/x5/x5/x5/1,1,x3 1 19,19 0,0 1 -");
}

/// Positions on other shapes: holes in corners, a ring, a rectangle, the
/// largest grid, a grid with a rank of holes only.
const SHAPED_POSITIONS: &[&str] = &[
    "#,x3,#/x,12,x3/x5/x2,2,x2/#,1,x2,# 2 18,19 0,0 1 -",
    "x7/x2,211,x4/x2,#3,x2/1,x,#3,x2/x2,#3,x,2/x7/x6,1122 1 14,15 1,0 3 -",
    "x8/x3,12,x4/2,x7 2 17,18 0,0 1 -",
    "x10/x10/x10/x4,1,x5/x10/x10/x10/x10/x9,2/2121,x9 1 17,17 0,2 4 -",
    "#3/x,1,x/2,x,# 2 19,19 0,0 1 -",
];

#[test]
fn positions_on_other_boards_export_and_import_unchanged() {
    for &fen in SHAPED_POSITIONS {
        assert_round_trip(fen);
    }
}

#[test]
fn shipped_boards_are_positions_the_rules_play() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../boards");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let d = read_path(&path, None).unwrap();
        assert_eq!(checked_fen(&d).unwrap(), d.to_fen(), "{}", path.display());
    }
}

#[test]
fn rows_after_a_blank_line_are_named_in_a_note() {
    // The board is what StackAndConquer reads: up to the blank line 4.
    let d = read_in("20\n0,0\n0,0\n\n0,0\n\n0,0\n", 1).unwrap();
    assert_eq!(d.rows, 2);
    assert_eq!(d.notes.len(), 1, "{:?}", d.notes);
    assert!(
        d.notes[0].starts_with("lines 5 to 7 are not read: the board ends at the blank line 4"),
        "{:?}",
        d.notes
    );
    let one = read_in("20\n0,0\n\n0,0", 1).unwrap();
    assert!(
        one.notes[0].starts_with("line 4 is not read"),
        "{:?}",
        one.notes
    );
    // Blank lines at the end drop nothing: no note.
    assert!(read_in("20\n0,0\n\n\n", 1).unwrap().notes.is_empty());
    // `import` leads each note with the file's name.
    let imported = import_bytes_noted("gap.in", FileKind::In, b"20\n0,0\n\n0,0\n", None).unwrap();
    assert_eq!(imported.fen, "x2 1 20,20 0,0 1 -");
    assert_eq!(imported.notes.len(), 1);
    assert!(imported.notes[0].starts_with("gap.in: line 4 is not read"));
}

#[test]
fn a_broken_save_is_named_by_its_byte_not_the_decoder() {
    // '!' is the 16th byte of the file; the decoder, which never sees the
    // line break, calls it offset 14.
    let e = read_stacksav(b"eyJCb2FyZCI6\nIF!dfQ==").unwrap_err();
    let text = e.to_string();
    assert_eq!(
        text,
        "the saved game is not valid base64 ('!' at byte 16); a .stacksav is base64 of a JSON text"
    );
    assert!(
        !text.contains("Invalid symbol") && !text.contains("offset"),
        "{text}"
    );
    let cut = read_stacksav(b"eyJCb2FyZCI6I").unwrap_err().to_string();
    assert!(cut.contains("is the file cut short?"), "{cut}");
    assert!(!cut.contains("Invalid"), "{cut}");
}

#[test]
fn file_content_in_errors_is_escaped_and_cut() {
    let e = read_in("20\n0,\u{1b}[2J\n", 1).unwrap_err().to_string();
    assert!(e.contains("'\\u{1b}[2J'") && !e.contains('\u{1b}'), "{e}");
    let long = format!("20\n0,{}\n", "y".repeat(10_000));
    let e = read_in(&long, 1).unwrap_err().to_string();
    assert!(e.len() < 300 && e.contains("(10000 characters)"), "{e}");
    let board = padded(&[&["\\u00071", "", ""], &["", "", ""]]);
    let e = read_save_json(&save_json(&board, &two_players()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("\\u{7}1") && !e.contains('\u{7}'), "{e}");
}

#[test]
fn unplayable_descriptions_are_named_in_rows_not_ranks() {
    // A stack of five in the second row from the top, third column.
    let board = padded(&[&["", "", "", ""], &["", "", "12121", ""], &["", "", "", ""]]);
    let desc = read_save_json(&save_json(&board, &two_players())).unwrap();
    let e = checked_fen(&desc).unwrap_err();
    assert_eq!(
        e,
        SacError::StackHeight {
            row: 2,
            column: 3,
            height: 5,
            max: 4
        }
    );
    assert!(!e.to_string().contains("rank"), "{e}");
    let wide = format!("20\n{}\n", ["0"; 11].join(","));
    let e = import_bytes("wide.in", FileKind::In, wide.as_bytes(), None).unwrap_err();
    assert!(e.to_string().contains("wide.in: 1 row x 11 columns"), "{e}");
    assert!(!e.to_string().contains("rank"), "{e}");
}
