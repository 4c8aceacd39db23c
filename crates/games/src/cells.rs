//! The rank notation that the position strings of Mixtour, Coin Stack/Focus
//! and Castle share: cells separated by `,`, empty cells written `x` or `xN`
//! (N empty cells in a row, N >= 1), merged when printed; Mixtour's boards
//! of any shape write holes the same way, `#` or `#N`.

use crate::echo::quote;

/// One cell of a rank as written: an empty cell (`x`), a hole that is not
/// part of the board (`#`, Mixtour's boards of any shape), or the text of
/// whatever stands there, for the game to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RankCell<T> {
    Empty,
    Hole,
    Text(T),
}

impl<T> RankCell<T> {
    /// The marker of a run: `x` for empty cells, `#` for holes.
    fn run_marker(&self) -> Option<char> {
        match self {
            RankCell::Empty => Some('x'),
            RankCell::Hole => Some('#'),
            RankCell::Text(_) => None,
        }
    }
}

/// Joins one rank's cells with runs of empty cells merged into `x` (one)
/// or `xN`, and runs of holes into `#` or `#N`.
pub fn write_cells<I: IntoIterator<Item = RankCell<String>>>(cells: I) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut run: Option<(char, usize)> = None;
    let flush = |out: &mut Vec<String>, run: &mut Option<(char, usize)>| match run.take() {
        None => {}
        Some((marker, 1)) => out.push(marker.to_string()),
        Some((marker, n)) => out.push(format!("{marker}{n}")),
    };
    for cell in cells {
        match (cell.run_marker(), run) {
            (Some(m), Some((r, n))) if m == r => run = Some((r, n + 1)),
            (Some(m), _) => {
                flush(&mut out, &mut run);
                run = Some((m, 1));
            }
            (None, _) => {
                flush(&mut out, &mut run);
                if let RankCell::Text(text) = cell {
                    out.push(text);
                }
            }
        }
    }
    flush(&mut out, &mut run);
    out.join(",")
}

/// Joins one rank's cells (`None` = empty), as `write_cells` for games
/// without holes.
pub fn write_rank<I: IntoIterator<Item = Option<String>>>(cells: I) -> String {
    write_cells(cells.into_iter().map(|c| match c {
        None => RankCell::Empty,
        Some(text) => RankCell::Text(text),
    }))
}

/// What is wrong with one rank of a position string; the position
/// readers put it after the rank's number.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CellError {
    /// A run written with something other than digits after its marker, or
    /// of length 0.
    #[error("{} is not {marker} or {marker}N with N >= 1", quote(cell))]
    BadRun { cell: String, marker: char },
    /// A run or cell past the longest rank there can be.
    #[error("{} makes the rank longer than {max} cells", quote(cell))]
    TooLong { cell: String, max: usize },
    /// A run past the end of a rank of fixed width.
    #[error("{} runs past the {width} cells of the rank", quote(cell))]
    RunsPast { cell: String, width: usize },
    /// A cell past the end of a rank of fixed width.
    #[error("more than {width} cells")]
    TooMany { width: usize },
    /// A rank of fixed width with fewer cells.
    #[error("{found} cells, expected {width}")]
    TooFew { found: usize, width: usize },
}

/// The number of cells of a run written `<marker>` or `<marker>N` (N >= 1),
/// or `None` when `cell` is not a run of `marker` at all.
fn run_length(cell: &str, marker: char) -> Result<Option<usize>, CellError> {
    let Some(run) = cell.strip_prefix(marker) else {
        return Ok(None);
    };
    if run.is_empty() {
        return Ok(Some(1));
    }
    // Digits only: `str::parse` would also take "+4".
    match run.parse::<usize>() {
        Ok(n) if n >= 1 && run.bytes().all(|b| b.is_ascii_digit()) => Ok(Some(n)),
        _ => Err(CellError::BadRun {
            cell: cell.to_string(),
            marker,
        }),
    }
}

/// Splits one rank of at most `max` cells: `x`/`xN` become that many empty
/// cells, `#`/`#N` that many holes, any other cell is returned as text for
/// the game to read. The error says which cell is wrong and how.
pub fn read_cells(text: &str, max: usize) -> Result<Vec<RankCell<&str>>, CellError> {
    let mut cells = Vec::new();
    for cell in text.split(',') {
        let (marker, n) = if let Some(n) = run_length(cell, 'x')? {
            (RankCell::Empty, n)
        } else if let Some(n) = run_length(cell, '#')? {
            (RankCell::Hole, n)
        } else {
            (RankCell::Text(cell), 1)
        };
        if n > max - cells.len().min(max) {
            return Err(CellError::TooLong {
                cell: cell.to_string(),
                max,
            });
        }
        cells.extend(std::iter::repeat_n(marker, n));
    }
    Ok(cells)
}

/// Splits one rank that must hold exactly `width` cells: `x` and `xN` become
/// that many `None`, any other cell is returned as text for the game to
/// read. The error says which cell is wrong and how.
pub fn read_rank(text: &str, width: usize) -> Result<Vec<Option<&str>>, CellError> {
    let mut cells = Vec::with_capacity(width);
    for cell in text.split(',') {
        let left = width - cells.len();
        if let Some(n) = run_length(cell, 'x')? {
            if n > left {
                return Err(CellError::RunsPast {
                    cell: cell.to_string(),
                    width,
                });
            }
            cells.extend(std::iter::repeat_n(None, n));
        } else {
            if left == 0 {
                return Err(CellError::TooMany { width });
            }
            cells.push(Some(cell));
        }
    }
    if cells.len() != width {
        return Err(CellError::TooFew {
            found: cells.len(),
            width,
        });
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_merged_when_written() {
        let cells = [
            None,
            None,
            Some("12".to_string()),
            None,
            Some("2".to_string()),
        ];
        assert_eq!(write_rank(cells), "x2,12,x,2");
        assert_eq!(write_rank([None, None, None]), "x3");
        assert_eq!(write_rank([Some("1".to_string())]), "1");
    }

    #[test]
    fn runs_are_expanded_when_read() {
        assert_eq!(
            read_rank("x2,12,x,2", 5).unwrap(),
            vec![None, None, Some("12"), None, Some("2")]
        );
        assert_eq!(read_rank("x,x,x", 3).unwrap(), vec![None; 3]);
    }

    #[test]
    fn malformed_ranks_are_refused_with_the_cell_named() {
        for (text, width, needle) in [
            ("x0,x5", 5, "'x0'"),
            ("x+4,1", 5, "'x+4'"),
            ("x-1", 1, "'x-1'"),
            ("x6", 5, "runs past"),
            ("x5,1", 5, "more than 5"),
            ("x4", 5, "4 cells, expected 5"),
            ("1,1,1,1,1,1", 5, "more than 5"),
        ] {
            let err = read_rank(text, width).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }
}
