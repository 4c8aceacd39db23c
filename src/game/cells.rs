//! The rank notation that the position strings of Mixtour, Coin Stack/Focus
//! and Castle share: cells separated by `,`, empty cells written `x` or `xN`
//! (N empty cells in a row, N >= 1), merged when printed.

/// Joins one rank's cells (`None` = empty) with runs of empty cells merged
/// into `x` (one) or `xN`.
pub fn write_rank<I: IntoIterator<Item = Option<String>>>(cells: I) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut empties = 0;
    let flush = |out: &mut Vec<String>, empties: &mut usize| {
        match *empties {
            0 => {}
            1 => out.push("x".to_string()),
            n => out.push(format!("x{n}")),
        }
        *empties = 0;
    };
    for cell in cells {
        match cell {
            None => empties += 1,
            Some(text) => {
                flush(&mut out, &mut empties);
                out.push(text);
            }
        }
    }
    flush(&mut out, &mut empties);
    out.join(",")
}

/// Splits one rank that must hold exactly `width` cells: `x` and `xN` become
/// that many `None`, any other cell is returned as text for the game to
/// read. The error says which cell is wrong and how.
pub fn read_rank(text: &str, width: usize) -> Result<Vec<Option<&str>>, String> {
    let mut cells = Vec::with_capacity(width);
    for cell in text.split(',') {
        let left = width - cells.len();
        if let Some(run) = cell.strip_prefix('x') {
            let n = if run.is_empty() {
                1
            } else {
                // Digits only: `str::parse` would also take "+4".
                match run.parse::<usize>() {
                    Ok(n) if n >= 1 && run.bytes().all(|b| b.is_ascii_digit()) => n,
                    _ => return Err(format!("'{cell}' is not x or xN with N >= 1")),
                }
            };
            if n > left {
                return Err(format!("'{cell}' runs past the {width} cells of the rank"));
            }
            cells.extend(std::iter::repeat_n(None, n));
        } else {
            if left == 0 {
                return Err(format!("more than {width} cells"));
            }
            cells.push(Some(cell));
        }
    }
    if cells.len() != width {
        return Err(format!("{} cells, expected {width}", cells.len()));
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
            let err = read_rank(text, width).unwrap_err();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }
}
