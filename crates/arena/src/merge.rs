//! `arena merge`: every statistic, the SPRT included, recomputed from any set
//! of JSONL record files (the shards of one match run on many machines, or
//! the same file twice), counting each game once.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use super::report::pair_sentences;
use super::results::{
    counts_for, final_verdict, pair_reports, pair_stats, print_tables, sprt_line, summarize_games,
    tournament_tables, write_json, write_report, SprtSummary, Summary,
};
use super::stats::SprtConfig;
use super::ArenaError;
use stackfish_record::{read_jsonl_file, GameRecord};

#[derive(Clone, Debug, Default)]
pub struct MergeOptions {
    pub sprt: Option<SprtConfig>,
    /// Summary file, the same schema as a match's `--json`.
    pub json: Option<PathBuf>,
    pub report: Option<PathBuf>,
    /// Engine order (the first two are candidate and base); from the records
    /// when empty.
    pub engines: Vec<String>,
    /// Two records that share a game's key but not its moves are both kept
    /// as games (instead of an error).
    pub keep_collisions: bool,
}

/// What identifies a game across files: the schedule's game number, the
/// opening and the players. Two shards of one match never share it; a file
/// given twice, or a shard replayed after a crash, does.
type GameKey = (u32, Option<usize>, String, String);

fn key(r: &GameRecord) -> GameKey {
    (r.game, r.opening, r.player1.clone(), r.player2.clone())
}

/// What makes two records with one key the same game: the position it
/// started from and the moves (their text; the engines' scores and times may
/// differ between a run and its replay).
fn same_game(a: &GameRecord, b: &GameRecord) -> bool {
    a.fen == b.fen
        && a.moves.len() == b.moves.len()
        && a.moves.iter().zip(&b.moves).all(|(x, y)| x.mv == y.mv)
}

/// The records of all files, each game once (the first copy wins), sorted
/// by game number; and the number of copies left out. A record whose key is
/// taken by a different game (other moves or start position: two matches,
/// not two copies of one) is an error naming both, or with
/// `keep_collisions` a game of its own.
pub fn collect(
    files: &[PathBuf],
    keep_collisions: bool,
) -> Result<(Vec<GameRecord>, u32), ArenaError> {
    collect_noting(files, keep_collisions, &mut Vec::new())
}

/// [`collect`], adding to `notes` a line for each file whose last line is
/// cut off (a shard killed mid-write, or one writing right now).
pub fn collect_noting(
    files: &[PathBuf],
    keep_collisions: bool,
    notes: &mut Vec<String>,
) -> Result<(Vec<GameRecord>, u32), ArenaError> {
    if files.is_empty() {
        return Err(ArenaError::Config(
            "arena merge needs at least one JSONL record file".into(),
        ));
    }
    // Each key's records so far, with the file they came from.
    let mut seen: HashMap<GameKey, Vec<(usize, usize)>> = HashMap::new();
    let mut records: Vec<GameRecord> = Vec::new();
    let mut duplicates = 0;
    for (file, path) in files.iter().enumerate() {
        // read_jsonl treats a missing file as an empty match (for --resume);
        // a merge naming a file that is not there is a typo.
        if !path.is_file() {
            return Err(ArenaError::Io(format!("{}: no such file", path.display())));
        }
        let read = read_jsonl_file(path)?;
        notes.extend(read.torn_note(path));
        for r in read.records {
            let earlier = seen.entry(key(&r)).or_default();
            if earlier.iter().any(|&(_, i)| same_game(&records[i], &r)) {
                duplicates += 1;
                continue;
            }
            if let (Some(&(f, i)), false) = (earlier.first(), keep_collisions) {
                return Err(ArenaError::Config(format!(
                    "{} game {} and {} game {}: same game number, opening and players \
                     ({} vs {}) but {}; not one game twice but two games \
                     (merge records of one match, or pass --keep-collisions to count both)",
                    files[f].display(),
                    records[i].game,
                    path.display(),
                    r.game,
                    r.player1,
                    r.player2,
                    if records[i].fen == r.fen {
                        "different moves"
                    } else {
                        "a different start position"
                    }
                )));
            }
            earlier.push((file, records.len()));
            records.push(r);
        }
    }
    records.sort_by_key(|r| r.game);
    Ok((records, duplicates))
}

/// Engines in schedule order: the schedule's first game is the candidate
/// (player 1) against the base (player 2), and later games bring in the
/// others in their order, so sorting by game number recovers it.
pub fn engines_of(records: &[GameRecord]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in records {
        for n in [&r.player1, &r.player2] {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    names
}

/// Merges, prints the tables (and the SPRT line) to `out`, writes the
/// summary and report files. `summary.verdict` is set with an SPRT: the
/// records are all there is, so no crossing means inconclusive.
pub fn merge(
    files: &[PathBuf],
    opts: &MergeOptions,
    out: &mut dyn Write,
) -> Result<Summary, ArenaError> {
    let mut notes = Vec::new();
    let (records, duplicates) = collect_noting(files, opts.keep_collisions, &mut notes)?;
    for note in notes {
        let _ = writeln!(out, "{note}");
    }
    let mut names = opts.engines.clone();
    for n in engines_of(&records) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    if names.len() < 2 {
        return Err(ArenaError::Config(
            "the records name fewer than two engines: nothing to compare".into(),
        ));
    }
    let variant = records
        .first()
        .map(|r| r.variant.clone())
        .unwrap_or_default();
    if let Some(r) = records.iter().find(|r| r.variant != variant) {
        return Err(ArenaError::Config(format!(
            "records of different games: {} and {} (game {})",
            variant, r.variant, r.game
        )));
    }
    let event = records.first().map(|r| r.event.clone()).unwrap_or_default();
    let _ = writeln!(
        out,
        "Merged {} games from {} files ({} duplicates counted once)",
        records.len(),
        files.len(),
        duplicates
    );
    let sprt = opts.sprt.as_ref();
    let counts = counts_for(&names[0], &names[1], &records);
    let verdict = sprt.and_then(|s| final_verdict(None, counts.sprt_status(s).verdict, true));
    let mut reports = pair_reports(&names, &records, sprt);
    // The records are all there is: the table says the verdict the line below it says.
    if let Some(first) = reports.first_mut().filter(|r| r.sprt.is_some()) {
        *first = first.clone().with_verdict(verdict);
    }
    let tables = tournament_tables(&names, &records)?;
    print_tables(out, &reports, tables.as_ref());
    let sprt_summary =
        sprt.map(|s| SprtSummary::new(&names[0], &names[1], s, &counts, verdict, None));
    if let Some(s) = &sprt_summary {
        let _ = writeln!(out, "{}", sprt_line(s));
    }
    for line in pair_sentences(&reports) {
        let _ = writeln!(out, "{line}");
    }
    let summary = Summary {
        event: event.clone(),
        variant,
        engines: names.clone(),
        scheduled: records.len() as u32,
        finished: records.len() as u32,
        interrupted: false,
        games: summarize_games(&records),
        pairs: pair_stats(&names, &records),
        sprt: sprt_summary,
        ratings: tables.as_ref().map(|t| t.0.clone()),
        shard: None,
        duplicates: Some(duplicates),
        verdict,
    };
    if let Some(path) = &opts.json {
        write_json(path, &summary)?;
    }
    if let Some(path) = &opts.report {
        write_report(
            path,
            &event,
            &records,
            None,
            opts.sprt,
            &reports,
            tables.as_ref(),
        )?;
    }
    Ok(summary)
}
