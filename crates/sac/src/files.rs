//! Reading and writing the three files. Where a file could mean two things,
//! the choice is written at the line that makes it.

use base64::engine::general_purpose::{STANDARD, STANDARD_PAD_INDIFFERENT};
use base64::Engine;
use serde_json::{Map, Value};
use stackfish_games::echo::{echo, quote};

use super::{Cell, Description, SacError, PADDING};
use stackfish_games::Side;

/// What a board file's cell says: playable or not. `at` names the cell in
/// the file's terms, for the error.
fn board_cell(text: &str, at: impl Fn() -> String) -> Result<bool, SacError> {
    match text {
        "0" => Ok(true),
        // `-` is StackAndConquer's padding; the program accepts it in a board
        // file as "not part of the board", and so do we, in all three files.
        "#" | "-" => Ok(false),
        _ => Err(SacError::BadBoardCell {
            at: at(),
            text: text.to_string(),
        }),
    }
}

/// Splits a comma-separated line. One trailing comma ends the line without
/// adding an entry (StackAndConquer's own boards end rows that way); any
/// other empty entry is kept, for the caller to refuse.
fn split_entries(line: &str) -> Vec<&str> {
    let mut entries: Vec<&str> = line.split(',').map(str::trim).collect();
    if entries.len() > 1 && entries.last() == Some(&"") {
        entries.pop();
    }
    entries
}

/// A positive whole number written in digits only (`str::parse` would also
/// take `+5`).
fn positive_text(what: impl Fn() -> String, text: &str) -> Result<u32, SacError> {
    text.parse::<u32>()
        .ok()
        .filter(|&n| n > 0 && text.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| SacError::Count {
            what: what(),
            found: echo(text),
        })
}

/// A `.in` board source. Line 1 holds the pieces per player for 2, 3, ...
/// players; every entry must be a positive whole number. Any number of
/// entries is accepted: stackfish plays two players and takes the first,
/// the others are kept for a `.stackboard` written from it. A byte-order
/// mark, `\r\n` line ends and blanks around cells are allowed; reading stops
/// at the first empty (or blank) line, as StackAndConquer's does, and
/// lines of cells after it are named in a note (the board is read, but
/// the user may have meant them). Errors name the file's lines, counted
/// from 1 (the first row of cells is line 2).
pub fn read_in(text: &str, goal: u32) -> Result<Description, SacError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().map(str::trim).zip(1..);
    let first = lines.next().map_or("", |(line, _)| line);
    let players_stones = split_entries(first)
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            positive_text(
                || format!("line 1, pieces per player, entry {}", i + 1),
                entry,
            )
        })
        .collect::<Result<Vec<u32>, _>>()?;
    let mut playable = Vec::new();
    let mut columns = 0;
    let mut rows = 0;
    let mut blank = None;
    for (line, number) in lines.by_ref() {
        if line.is_empty() {
            blank = Some(number);
            break;
        }
        let cells = split_entries(line);
        rows += 1;
        if rows == 1 {
            columns = cells.len();
        } else if cells.len() != columns {
            return Err(SacError::RowWidth {
                line: number,
                found: cells.len(),
                expected: columns,
            });
        }
        for (column, cell) in cells.iter().enumerate() {
            playable.push(board_cell(cell, || {
                format!("line {number} (row {rows}), cell {}", column + 1)
            })?);
        }
    }
    if rows == 0 {
        return Err(SacError::NoRows);
    }
    let mut desc = Description::start(rows, columns, &playable, players_stones, goal);
    let dropped: Vec<usize> = lines
        .filter(|(line, _)| !line.is_empty())
        .map(|(_, number)| number)
        .collect();
    if let (Some(blank), Some(first), Some(last)) = (blank, dropped.first(), dropped.last()) {
        let which = if first == last {
            format!("line {first} is")
        } else {
            format!("lines {first} to {last} are")
        };
        desc.notes.push(format!(
            "{which} not read: the board ends at the blank line {blank}, as StackAndConquer reads \
             it ({rows} rows kept; remove the blank line to keep them all)"
        ));
    }
    Ok(desc)
}

fn parse_json(bytes: &[u8]) -> Result<Map<String, Value>, SacError> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(SacError::NotAnObject),
        Err(e) => Err(SacError::NotJson(e.to_string())),
    }
}

fn get<'a>(obj: &'a Map<String, Value>, key: &'static str) -> Result<&'a Value, SacError> {
    obj.get(key).ok_or(SacError::MissingKey(key))
}

/// A whole number >= `min` (0 or 1), as JSON writes it: `3`, not `"3"` nor
/// `3.5`.
fn whole(value: &Value, what: impl Fn() -> String, min: u64) -> Result<u32, SacError> {
    let bad = || SacError::Count {
        what: what(),
        found: echo(&value.to_string()),
    };
    match value {
        Value::Number(n) => n
            .as_u64()
            .filter(|&n| n >= min)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(bad),
        _ => Err(bad()),
    }
}

fn whole_key(obj: &Map<String, Value>, key: &'static str, min: u64) -> Result<u32, SacError> {
    whole(get(obj, key)?, || key.to_string(), min)
}

fn list<'a>(obj: &'a Map<String, Value>, key: &'static str) -> Result<&'a Vec<Value>, SacError> {
    get(obj, key)?.as_array().ok_or(SacError::WrongType {
        key,
        expected: "a list",
    })
}

fn strings(obj: &Map<String, Value>, key: &'static str) -> Result<Vec<String>, SacError> {
    list(obj, key)?
        .iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect::<Option<Vec<_>>>()
        .ok_or(SacError::WrongType {
            key,
            expected: "a list of strings",
        })
}

/// A list of one whole number per player.
fn per_player(
    obj: &Map<String, Value>,
    key: &'static str,
    players: usize,
    min: u64,
) -> Result<Vec<u32>, SacError> {
    let values = list(obj, key)?;
    if values.len() != players {
        return Err(SacError::Length {
            what: key.to_string(),
            found: values.len(),
            expected: players,
        });
    }
    values
        .iter()
        .enumerate()
        .map(|(i, v)| whole(v, || format!("{key}, player {}", i + 1), min))
        .collect()
}

/// A `.stackboard`: `Board`, `Columns`, `Rows`, `PlayersStones`. Other keys
/// are ignored (the program writes none, later versions may).
pub fn read_stackboard(text: &str, goal: u32) -> Result<Description, SacError> {
    let obj = parse_json(text.as_bytes())?;
    let board = strings(&obj, "Board")?;
    let columns = whole_key(&obj, "Columns", 1)? as usize;
    let rows = whole_key(&obj, "Rows", 1)? as usize;
    if board.len() != rows * columns {
        return Err(SacError::Length {
            what: format!("Board ({rows} Rows x {columns} Columns)"),
            found: board.len(),
            expected: rows * columns,
        });
    }
    let stones = list(&obj, "PlayersStones")?;
    if stones.is_empty() {
        return Err(SacError::Length {
            what: "PlayersStones".into(),
            found: 0,
            expected: 1,
        });
    }
    let players_stones = stones
        .iter()
        .enumerate()
        .map(|(i, v)| whole(v, || format!("PlayersStones, entry {}", i + 1), 1))
        .collect::<Result<Vec<u32>, _>>()?;
    let playable = board
        .iter()
        .enumerate()
        .map(|(i, cell)| {
            board_cell(cell, || {
                format!("row {}, column {}", i / columns + 1, i % columns + 1)
            })
        })
        .collect::<Result<Vec<bool>, _>>()?;
    Ok(Description::start(
        rows,
        columns,
        &playable,
        players_stones,
        goal,
    ))
}

/// A `.stacksav`: base64 of a JSON object. White space (line breaks of a
/// wrapped encoding, a final newline) is skipped and the `=` padding may be
/// left out. `NumOfPlayers` must be 2 (Mixtour as we play it): a save of
/// three players is refused, not cut down to two. `BoardFile`,
/// `BoardFileRelative` and `CpuScript` are kept when present but not
/// required; the board file is not opened: the padded `Board` alone gives
/// the shape.
pub fn read_stacksav(bytes: &[u8]) -> Result<Description, SacError> {
    // Each kept byte with its place in the file, for the errors.
    let (places, compact): (Vec<usize>, Vec<u8>) = bytes
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, b)| !b.is_ascii_whitespace())
        .unzip();
    let json = STANDARD_PAD_INDIFFERENT
        .decode(&compact)
        .map_err(|e| SacError::NotBase64(base64_fault(&e, bytes, &places)))?;
    let obj = parse_json(&json)?;
    let players = whole_key(&obj, "NumOfPlayers", 1)?;
    if players != 2 {
        return Err(SacError::Players(players.into()));
    }
    let current = whole_key(&obj, "Current", 0)?;
    let side = match current {
        1 => Side::P1,
        2 => Side::P2,
        n => return Err(SacError::Current(n.into())),
    };
    let goal = whole_key(&obj, "WinTowers", 1)?;
    let scores = per_player(&obj, "Won", 2, 0)?;
    let reserves = per_player(&obj, "StonesLeft", 2, 0)?;
    let mut cpu_script: [String; 2] = Default::default();
    if obj.contains_key("CpuScript") {
        let scripts = strings(&obj, "CpuScript")?;
        if scripts.len() != 2 {
            return Err(SacError::Length {
                what: "CpuScript".into(),
                found: scripts.len(),
                expected: 2,
            });
        }
        cpu_script = [scripts[0].clone(), scripts[1].clone()];
    }
    let text_key = |key: &'static str| -> Result<String, SacError> {
        match obj.get(key) {
            None => Ok(String::new()),
            Some(v) => v.as_str().map(str::to_string).ok_or(SacError::WrongType {
                key,
                expected: "a string",
            }),
        }
    };
    let board_file = text_key("BoardFile")?;
    let board_file_relative = text_key("BoardFileRelative")?;
    let (rows, columns, cells) = unpad(&strings(&obj, "Board")?)?;
    Ok(Description {
        rows,
        columns,
        cells,
        notes: Vec::new(),
        players_stones: Vec::new(),
        side,
        reserves: [reserves[0], reserves[1]],
        scores: [scores[0], scores[1]],
        goal,
        board_file,
        board_file_relative,
        cpu_script,
    })
}

/// Why base64 refused a saved game, in the file's bytes (counted from 1)
/// rather than the decoder's offsets into the text without its blanks.
fn base64_fault(e: &base64::DecodeError, bytes: &[u8], places: &[usize]) -> String {
    use base64::DecodeError;
    let at = |offset: usize| {
        let place = places.get(offset).copied().unwrap_or(bytes.len());
        let shown = bytes.get(place).map_or_else(String::new, |&b| {
            format!("{} ", quote(&char::from(b).to_string()))
        });
        format!("{shown}at byte {}", place + 1)
    };
    let json = if places.first().and_then(|&p| bytes.get(p)) == Some(&b'{') {
        ": this looks like plain JSON"
    } else {
        ""
    };
    match e {
        DecodeError::InvalidByte(offset, _) => format!("{}{json}", at(*offset)),
        DecodeError::InvalidLastSymbol { offset, .. } => {
            format!(
                "{}, which cannot end base64: is the file cut short?",
                at(*offset)
            )
        }
        DecodeError::InvalidLength(n) => {
            format!("{n} characters, a length base64 cannot have: is the file cut short?")
        }
        DecodeError::InvalidPadding => "the '=' padding at its end is wrong".to_string(),
    }
}

fn not_on_board(cell: &str) -> bool {
    cell == "-" || cell == "#"
}

/// The cell of a padded board at `index` of a grid `width` wide: in the
/// frame or not.
fn in_frame(index: usize, width: usize, height: usize) -> bool {
    let (row, column) = (index / width, index % width);
    row < PADDING || row >= height - PADDING || column < PADDING || column >= width - PADDING
}

/// The grid inside a saved game's padded `Board`. The save does not say its
/// width, so every width whose 5-cell frame holds only `-` or `#` is a
/// candidate: exactly one must fit. (Only a board whose outer rows and
/// columns are all holes written `-` could fit two; that is refused rather
/// than guessed.) A stack or empty cell in the frame is the error "stacks
/// on cells not part of the board"; it is named for the width that fits
/// best.
fn unpad(board: &[String]) -> Result<(usize, usize, Vec<Cell>), SacError> {
    let n = board.len();
    let min_side = 2 * PADDING + 1;
    let mut fits = Vec::new();
    // The width with the fewest frame violations, and its first one.
    let mut closest: Option<(usize, usize, usize)> = None;
    for width in (min_side..=n / min_side).filter(|&w| n.is_multiple_of(w)) {
        let height = n / width;
        let mut violations = (0..n)
            .filter(|&i| in_frame(i, width, height) && !not_on_board(&board[i]))
            .peekable();
        let Some(&first) = violations.peek() else {
            fits.push((height, width));
            continue;
        };
        let count = violations.count();
        if closest.is_none_or(|(c, _, _)| count < c) {
            closest = Some((count, width, first));
        }
    }
    let (height, width) = match (fits.as_slice(), closest) {
        ([fit], _) => *fit,
        ([], Some((_, width, i))) => {
            return Err(SacError::InPadding {
                row: i / width + 1,
                column: i % width + 1,
                text: board[i].clone(),
            })
        }
        ([], None) => {
            return Err(SacError::Shape(format!(
                "Board has {n} cells: not a grid with a padding of {PADDING} cells on every side \
                 (at least {min_side} x {min_side})"
            )))
        }
        (several, _) => {
            let shapes: Vec<String> = several
                .iter()
                .map(|(h, w)| format!("{} x {}", h - 2 * PADDING, w - 2 * PADDING))
                .collect();
            return Err(SacError::Shape(format!(
                "the padded Board of {n} cells fits several grids ({}): cannot tell its shape",
                shapes.join(", ")
            )));
        }
    };
    let (rows, columns) = (height - 2 * PADDING, width - 2 * PADDING);
    let mut cells = Vec::with_capacity(rows * columns);
    for row in 0..rows {
        for column in 0..columns {
            let text = &board[(row + PADDING) * width + column + PADDING];
            cells.push(saved_cell(text, row + 1, column + 1)?);
        }
    }
    Ok((rows, columns, cells))
}

/// A cell of a saved board: `""` empty, `#`/`-` not part of the board, or
/// the players' digits bottom to top. Only 1 and 2 are players here.
fn saved_cell(text: &str, row: usize, column: usize) -> Result<Cell, SacError> {
    if not_on_board(text) {
        return Ok(Cell::Hole);
    }
    text.chars()
        .map(|c| match c {
            '1' => Some(Side::P1),
            '2' => Some(Side::P2),
            _ => None,
        })
        .collect::<Option<Vec<Side>>>()
        .map(Cell::Stack)
        .ok_or_else(|| SacError::BadStack {
            row,
            column,
            text: text.to_string(),
        })
}

/// JSON as Qt's `QJsonDocument::toJson` writes it: keys sorted, four-space
/// indent, a final newline.
fn qt_json(obj: Map<String, Value>) -> String {
    use serde::Serialize;
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    Value::Object(obj)
        .serialize(&mut ser)
        .expect("a JSON value of strings and numbers always serializes into memory");
    let mut text = String::from_utf8_lossy(&out).into_owned();
    text.push('\n');
    text
}

fn object(entries: Vec<(&str, Value)>) -> Map<String, Value> {
    entries
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

/// A `.stackboard` of the description's grid (stacks are not part of a
/// board file: only which cells are playable). `PlayersStones` is the
/// description's when it has one; else, for a board taken from a position,
/// the pieces per player of that position for two players, and for three
/// the same share StackAndConquer's own boards give (20 -> 15).
pub fn write_stackboard(desc: &Description) -> String {
    let board: Vec<Value> = desc
        .cells
        .iter()
        .map(|c| Value::from(if *c == Cell::Hole { "#" } else { "0" }))
        .collect();
    let stones = if desc.players_stones.is_empty() {
        let n = desc.pieces_per_player();
        vec![n, (n * 3 / 4).max(1)]
    } else {
        desc.players_stones.clone()
    };
    qt_json(object(vec![
        ("Board", Value::from(board)),
        ("Columns", Value::from(desc.columns)),
        ("PlayersStones", Value::from(stones)),
        ("Rows", Value::from(desc.rows)),
    ]))
}

/// A `.stacksav`: the JSON of the saved game, base64 without line breaks.
/// Two players, both human (`CpuScript` empty) unless the description
/// names scripts.
pub fn write_stacksav(desc: &Description) -> String {
    let width = desc.columns + 2 * PADDING;
    let height = desc.rows + 2 * PADDING;
    let board: Vec<Value> = (0..width * height)
        .map(|i| {
            let text = if in_frame(i, width, height) {
                "-".to_string()
            } else {
                match desc.cell(i / width - PADDING, i % width - PADDING) {
                    Cell::Hole => "#".to_string(),
                    Cell::Stack(s) => s.iter().map(|p| p.digit()).collect(),
                }
            };
            Value::from(text)
        })
        .collect();
    let json = qt_json(object(vec![
        ("Board", Value::from(board)),
        ("BoardFile", Value::from(desc.board_file.as_str())),
        (
            "BoardFileRelative",
            Value::from(desc.board_file_relative.as_str()),
        ),
        ("CpuScript", Value::from(desc.cpu_script.to_vec())),
        (
            "Current",
            Value::from(match desc.side {
                Side::P1 => 1,
                Side::P2 => 2,
            }),
        ),
        ("NumOfPlayers", Value::from(2)),
        ("StonesLeft", Value::from(desc.reserves.to_vec())),
        ("WinTowers", Value::from(desc.goal)),
        ("Won", Value::from(desc.scores.to_vec())),
    ]));
    STANDARD.encode(json)
}
