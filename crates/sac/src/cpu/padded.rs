//! The board as StackAndConquer hands it to a CPU script, read without our
//! rules (any size, any number of players), and the simple rule the script
//! plays by where the engine cannot: a win at once, else a move that gives
//! the next player no tower, else the first legal move.

use serde_json::Value;

use super::AppMove;

/// Most cells (padding included) a padded board may have: a 300 x 300
/// grid, far past any board file the app plays, small enough to read at
/// once in the app's JS engine.
pub const MAX_PADDED_CELLS: usize = 100_000;

/// Cells the simple rule may visit looking for a safe move (each of the
/// next player's stacks, 8 directions, up to 4 cells out, for each legal
/// move): a bound, so that no board, however large, keeps the app frozen
/// for long. A board that needs more takes the first legal move not yet
/// shown unsafe.
pub const SIMPLE_RULE_VISITS: u64 = 20_000_000;

/// One cell of the padded board: off the board (`-` padding or `#` hole),
/// or a stack of players (1-based) from bottom to top, empty when empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AppCell {
    Off,
    Stack(Vec<u8>),
}

/// The padded board: `columns x rows` cells inside a frame of `padding`
/// cells on every side, row by row from the top, as the app indexes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaddedBoard {
    pub columns: usize,
    pub rows: usize,
    pub padding: usize,
    pub cells: Vec<AppCell>,
}

/// The eight directions on the padded board, as (column, row) steps.
const DIRECTIONS: [(isize, isize); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

impl PaddedBoard {
    /// Reads the app's board: a JSON list of strings (or a string holding
    /// one, as `callCPU` gets it), `(columns + 2 padding) x (rows + 2
    /// padding)` entries; `-` and `#` are off the board, `""` empty, a stack
    /// the digits of its players (1 to `players`) from bottom to top. A
    /// frame cell must be off the board. The error says what is wrong.
    pub fn read(
        board: &Value,
        columns: usize,
        rows: usize,
        padding: usize,
        players: usize,
    ) -> Result<PaddedBoard, String> {
        let parsed;
        let board = match board {
            Value::String(text) => {
                parsed = serde_json::from_str::<Value>(text)
                    .map_err(|e| format!("the board is not JSON ({e})"))?;
                &parsed
            }
            other => other,
        };
        let Value::Array(entries) = board else {
            return Err("the board is not a list".into());
        };
        let width = columns.saturating_add(padding.saturating_mul(2));
        let height = rows.saturating_add(padding.saturating_mul(2));
        let expected = width.saturating_mul(height);
        if columns == 0 || rows == 0 || expected > MAX_PADDED_CELLS {
            return Err(format!(
                "a board of {columns} x {rows} cells with a padding of {padding} cannot be read \
                 (at most {MAX_PADDED_CELLS} cells)"
            ));
        }
        if entries.len() != expected {
            return Err(format!(
                "the board has {} entries, but {columns} x {rows} cells with a padding of \
                 {padding} make {expected}",
                entries.len()
            ));
        }
        let mut cells = Vec::with_capacity(expected);
        for (i, entry) in entries.iter().enumerate() {
            let (row, column) = (i / width, i % width);
            let at = || format!("entry {i} (row {}, column {})", row + 1, column + 1);
            let Value::String(text) = entry else {
                return Err(format!("{} is not a string", at()));
            };
            let cell = match text.as_str() {
                "-" | "#" => AppCell::Off,
                text => {
                    let stack = text
                        .bytes()
                        .map(|b| match b {
                            b'1'..=b'9' if usize::from(b - b'0') <= players => Some(b - b'0'),
                            _ => None,
                        })
                        .collect::<Option<Vec<u8>>>()
                        .ok_or_else(|| {
                            format!(
                                "{} is {:?}: not -, #, empty nor a stack of players 1 to {players}",
                                at(),
                                stackfish_games::echo::echo(text)
                            )
                        })?;
                    AppCell::Stack(stack)
                }
            };
            let in_frame = row < padding
                || row >= height - padding
                || column < padding
                || column >= width - padding;
            if in_frame && cell != AppCell::Off {
                return Err(format!("{} is in the padding but holds {:?}", at(), text));
            }
            cells.push(cell);
        }
        Ok(PaddedBoard {
            columns,
            rows,
            padding,
            cells,
        })
    }

    fn width(&self) -> usize {
        self.columns + 2 * self.padding
    }

    /// The grid's row (from the top) and column of padded index `i`, when
    /// it is inside the frame.
    pub fn grid_place(&self, i: i64) -> Option<(usize, usize)> {
        let i = usize::try_from(i).ok().filter(|&i| i < self.cells.len())?;
        let (row, column) = (i / self.width(), i % self.width());
        let inside = |v: usize, n: usize| v >= self.padding && v < self.padding + n;
        (inside(row, self.rows) && inside(column, self.columns))
            .then(|| (row - self.padding, column - self.padding))
    }

    fn stack(&self, i: usize) -> Option<&Vec<u8>> {
        match self.cells.get(i) {
            Some(AppCell::Stack(s)) => Some(s),
            _ => None,
        }
    }

    /// The cell `d` steps from `i` in direction `dir`, if on the padded board.
    fn step(&self, i: usize, dir: (isize, isize), d: usize) -> Option<usize> {
        let w = self.width() as isize;
        let (row, column) = ((i as isize) / w, (i as isize) % w);
        let (r, c) = (row + dir.1 * d as isize, column + dir.0 * d as isize);
        let h = (self.cells.len() as isize) / w;
        (r >= 0 && r < h && c >= 0 && c < w).then_some((r * w + c) as usize)
    }
}

/// What a move does to the board, for the simple rule: who scores a tower
/// by it, if anyone. `None` when the move does not fit the board (a source
/// without the pieces, a target off the board): the rule then leaves it be.
fn tower_of(board: &PaddedBoard, mv: &AppMove, height: usize) -> Option<Option<u8>> {
    let [from, count, to] = *mv;
    let target = usize::try_from(to).ok().and_then(|t| board.stack(t))?;
    if from < 0 {
        return Some(None);
    }
    let source = usize::try_from(from).ok().and_then(|f| board.stack(f))?;
    let count = usize::try_from(count)
        .ok()
        .filter(|&c| c >= 1 && c <= source.len())?;
    let top = *source.last()?;
    Some((target.len() + count >= height).then_some(top))
}

/// Plays `mv` (which fits: `tower_of` said so) on `board` as the app does:
/// a placement puts `player`'s piece; a tower move carries the top `count`
/// pieces; a stack of `height` or more leaves the board.
fn play(board: &mut PaddedBoard, mv: &AppMove, player: u8, height: usize) {
    let [from, count, to] = *mv;
    let (to, count) = (to as usize, count as usize);
    let moved: Vec<u8> = if from < 0 {
        vec![player]
    } else {
        match &mut board.cells[from as usize] {
            AppCell::Stack(s) => s.split_off(s.len() - count),
            AppCell::Off => Vec::new(),
        }
    };
    if let AppCell::Stack(s) = &mut board.cells[to] {
        s.extend(moved);
        if s.len() >= height {
            s.clear();
        }
    }
}

/// Whether `player` can score a tower of their own with one tower move on
/// `board` (the take-back `forbidden` of the move just played excepted).
/// Counts the cells it looks at into `visits`; `None` once past `budget`.
fn can_score(
    board: &PaddedBoard,
    player: u8,
    height: usize,
    forbidden: Option<AppMove>,
    visits: &mut u64,
    budget: u64,
) -> Option<bool> {
    for (from, cell) in board.cells.iter().enumerate() {
        let AppCell::Stack(source) = cell else {
            continue;
        };
        if source.last() != Some(&player) {
            continue;
        }
        for dir in DIRECTIONS {
            for d in 1..height {
                *visits += 1;
                if *visits > budget {
                    return None;
                }
                let Some(to) = board.step(from, dir, d) else {
                    break;
                };
                let Some(target) = board.stack(to) else {
                    break;
                };
                if target.is_empty() {
                    continue;
                }
                if target.len() == d {
                    // Every count from `height - d` up scores; the take-back
                    // forbids one count only.
                    let scores = (height.saturating_sub(d).max(1)..=source.len())
                        .any(|count| forbidden != Some([from as i64, count as i64, to as i64]));
                    if scores {
                        return Some(true);
                    }
                }
                break;
            }
        }
    }
    Some(false)
}

/// The simple rule, over the app's legal moves in its order: a move that
/// wins at once (scores `player`'s last needed tower); else the first that
/// scores no tower for another player and after which the next player
/// cannot score one; else the first. Without a board, the first. `None`
/// only for an empty list.
pub fn simple_move(
    board: Option<&PaddedBoard>,
    legal: &[AppMove],
    player: u8,
    players: u8,
    height: usize,
    needed: Option<i64>,
) -> Option<AppMove> {
    let first = *legal.first()?;
    let Some(board) = board else {
        return Some(first);
    };
    let wins = |mv: &&AppMove| {
        needed.is_some_and(|n| n <= 1) && tower_of(board, mv, height) == Some(Some(player))
    };
    if let Some(mv) = legal.iter().find(wins) {
        return Some(*mv);
    }
    let next = player % players.max(1) + 1;
    let mut visits = 0;
    let mut scratch = board.clone();
    for mv in legal {
        let Some(tower) = tower_of(board, mv, height) else {
            continue;
        };
        if tower.is_some_and(|owner| owner != player) {
            continue;
        }
        // Only the two cells of the move change: kept to be put back.
        let touched: Vec<(usize, AppCell)> = [mv[0], mv[2]]
            .into_iter()
            .filter_map(|i| usize::try_from(i).ok())
            .map(|i| (i, scratch.cells[i].clone()))
            .collect();
        play(&mut scratch, mv, player, height);
        let forbidden = (mv[0] >= 0).then_some([mv[2], mv[1], mv[0]]);
        let safe = can_score(
            &scratch,
            next,
            height,
            forbidden,
            &mut visits,
            SIMPLE_RULE_VISITS,
        );
        for (i, cell) in touched {
            scratch.cells[i] = cell;
        }
        match safe {
            Some(false) => return Some(*mv),
            Some(true) => {}
            None => return Some(*mv),
        }
    }
    Some(first)
}
