//! The commands that make and measure data: `fit-model`, `tune`,
//! `tactics`, `datagen` and `train`.

use stackfish::cli::{Failure, EXIT_TABLE_FAILED};

use crate::read_input;

/// The networks a build compiles in, by game: where `stackfish train`
/// writes without `--out`.
const NETWORK_FILES: [(&str, &str); 2] = [
    ("crates/games/src/mixtour", "net.bin"),
    ("crates/games/src/coinstack", "net-focus.bin"),
];

/// A record file to read through: `.zst` decompressed as it is read.
fn open_records(path: &std::path::Path) -> Result<Box<dyn std::io::BufRead>, Failure> {
    let cannot =
        |e: std::io::Error| Failure::bad_input(format!("cannot read {}: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(cannot)?;
    if path.extension().is_some_and(|x| x == "zst") {
        let decoder = zstd::stream::read::Decoder::new(file).map_err(cannot)?;
        Ok(Box::new(std::io::BufReader::new(decoder)))
    } else {
        Ok(Box::new(std::io::BufReader::new(file)))
    }
}

/// `stackfish fit-model`: k per game of the records, with its figures.
pub(crate) fn fit_model(records: &[std::path::PathBuf]) -> Result<(), Failure> {
    use stackfish::fit_model::{fit, format_fit, samples_from_records, Found};
    let mut all = Found::default();
    for path in records {
        let found = samples_from_records(open_records(path)?);
        all.unusable += found.unusable;
        for (game, samples) in found.by_game {
            let entry = all.by_game.entry(game).or_default();
            entry.games.extend(samples.games);
            entry.mates += samples.mates;
        }
    }
    eprintln!("records skipped: {} unusable", all.unusable);
    if all.by_game.values().all(|g| g.positions() == 0) {
        return Err(Failure::bad_input("no searched positions in the records"));
    }
    for (game, samples) in all.by_game.iter().filter(|(_, s)| s.positions() > 0) {
        print!("{}", format_fit(game, &fit(samples)));
    }
    Ok(())
}

pub(crate) fn tune(
    records: &[std::path::PathBuf],
    epochs: usize,
    game: Option<&str>,
) -> Result<(), Failure> {
    use stackfish::tune::{self, Target};
    let game = match game.map(|g| (g, Target::parse(g))) {
        None => None,
        Some((_, Some(target))) => Some(target),
        Some((name, None)) => {
            return Err(Failure::bad_input(format!(
                "cannot tune {name:?}: the games are mixtour, coinstack and focus"
            )))
        }
    };
    let mut text = String::new();
    for path in records {
        text.push_str(&read_input(path)?);
    }
    let found = tune::samples_from_records(&text, game);
    eprintln!(
        "records skipped: {} of another game, {} unusable",
        found.other_game, found.unusable
    );
    if !found.samples.iter().any(|(_, s)| !s.is_empty()) {
        return Err(Failure::bad_input("no usable positions in the records"));
    }
    for (target, samples) in found.samples.iter().filter(|(_, s)| !s.is_empty()) {
        eprintln!("{}: {} positions", target.name(), samples.len());
        let fit = tune::fit(samples, target.weights(), epochs);
        print!("{}", tune::format_fit(*target, &fit, samples.len()));
    }
    Ok(())
}

pub(crate) fn tactics(
    suite: &std::path::Path,
    movetime: u64,
    nodes: Option<u64>,
    generate: &[std::path::PathBuf],
    max_win: u32,
    max_save: u32,
    networks: &stackfish::game::Networks,
) -> Result<(), Failure> {
    use stackfish::tactics;
    if !generate.is_empty() {
        for path in generate {
            let text = read_input(path)?;
            let name = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            for t in tactics::find_in_records(&text, &name, max_win, max_save) {
                println!("{t}");
            }
        }
        return Ok(());
    }
    let text = std::fs::read_to_string(suite)
        .map_err(|e| Failure::bad_input(format!("cannot read {}: {e}", suite.display())))?;
    let positions = tactics::parse_suite(&text)
        .map_err(|e| Failure::bad_input(format!("{}: {e}", suite.display())))?;
    let params = match nodes {
        Some(n) => stackfish::engine::GoParams {
            nodes: Some(n),
            ..Default::default()
        },
        None => stackfish::engine::GoParams {
            move_time: Some(movetime),
            ..Default::default()
        },
    };
    let score = tactics::run(&positions, &params, networks);
    for (t, played) in &score.missed {
        println!("missed: {t} ; played {played}");
    }
    let limit = nodes.map_or(format!("{movetime} ms"), |n| format!("{n} nodes"));
    println!(
        "tactics: {} of {} solved ({:.1}%) at {limit} a position",
        score.solved,
        score.total,
        100.0 * score.solved as f64 / score.total.max(1) as f64
    );
    Ok(())
}

/// A progress bar on stderr, drawn only on a terminal: how many of `what`
/// (`positions verified`, `games`), a message and the time left.
pub(crate) fn progress_bar(what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(0);
    let template =
        format!("{{bar:40}} {{human_pos}}/{{human_len}} {what} {{msg}} [{{elapsed}}, ETA {{eta}}]");
    if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

/// Prints a table command's report with its time, or fails with
/// [`EXIT_TABLE_FAILED`]: the table is bad or could not be made.
pub(crate) fn finish_table_command<E: std::fmt::Display>(
    result: Result<String, E>,
    clock: std::time::Instant,
) -> Result<(), Failure> {
    let report = result.map_err(|e| Failure::new(EXIT_TABLE_FAILED, e))?;
    print!("{report}");
    println!("Time: {:.1} s", clock.elapsed().as_secs_f64());
    Ok(())
}

/// The games of `settings` already in the records at `out`: same seed and
/// nodes, a game number in the range.
fn datagen_done(
    out: &std::path::Path,
    settings: &stackfish::train::datagen::Settings,
) -> Result<std::collections::BTreeSet<usize>, Failure> {
    let text = match std::fs::read_to_string(out) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Default::default()),
        Err(e) => {
            return Err(Failure::bad_input(format!(
                "cannot read {}: {e}",
                out.display()
            )))
        }
    };
    let range = settings.first..settings.first + settings.games;
    Ok(stackfish::record::records(&text)
        .filter_map(|(_, r)| r.ok())
        .filter(|r| r.seed == Some(settings.seed) && r.nodes == Some(settings.nodes))
        .filter(|r| r.variant == settings.game && r.fen == settings.fen)
        .filter_map(|r| (r.game as usize).checked_sub(1))
        .filter(|i| range.contains(i))
        .collect())
}

pub(crate) fn datagen(
    out: &std::path::Path,
    settings: &mut stackfish::train::datagen::Settings,
    resume: bool,
) -> Result<(), Failure> {
    // Appending after a torn last line (a killed run) would glue the next
    // record onto it.
    let cut =
        stackfish::record::cut_torn_tail(out).map_err(|e| Failure::bad_input(e.to_string()))?;
    if cut > 0 {
        println!(
            "{}: cut a torn last line ({cut} bytes, a game that never finished)",
            out.display()
        );
    }
    if resume {
        settings.skip = datagen_done(out, settings)?;
        if !settings.skip.is_empty() {
            println!(
                "resuming: {} of {} games already in {}",
                settings.skip.len(),
                settings.games,
                out.display()
            );
        }
    }
    let settings = &*settings;
    stackfish::train::datagen::check(settings).map_err(|e| Failure::bad_input(e.to_string()))?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .map_err(|e| Failure::bad_input(format!("cannot open {}: {e}", out.display())))?;
    let mut file = std::io::BufWriter::new(file);
    let bar = progress_bar("games");
    bar.set_length((settings.games - settings.skip.len()) as u64);
    let clock = std::time::Instant::now();
    let result =
        stackfish::train::datagen::run(settings, &mut file, &|n| bar.set_position(n as u64));
    bar.finish_and_clear();
    let n = result.map_err(|e| match e {
        stackfish::train::datagen::DatagenError::Io(e) => {
            Failure::bad_input(format!("cannot write {}: {e}", out.display()))
        }
        e => Failure::bad_input(e.to_string()),
    })?;
    println!(
        "wrote {n} games to {} in {:.1} s",
        out.display(),
        clock.elapsed().as_secs_f64()
    );
    Ok(())
}

pub(crate) fn train(
    records: &[std::path::PathBuf],
    out: Option<std::path::PathBuf>,
    hidden: Option<usize>,
    mut settings: stackfish::train::Settings,
) -> Result<(), Failure> {
    use stackfish::train::Trained;
    let mut data = Vec::new();
    let mut files = Vec::new();
    for path in records {
        if path.is_dir() {
            let mut inside: Vec<std::path::PathBuf> = std::fs::read_dir(path)
                .map_err(|e| Failure::bad_input(format!("cannot read {}: {e}", path.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "jsonl"))
                .collect();
            if inside.is_empty() {
                return Err(Failure::bad_input(format!(
                    "{}: no *.jsonl record files in the folder",
                    path.display()
                )));
            }
            inside.sort();
            files.extend(inside);
        } else {
            files.push(path.clone());
        }
    }
    let mut texts = Vec::new();
    for path in &files {
        let mut text = read_input(path)?;
        // A shard still writing (or killed) mid-line: only complete lines count.
        let complete = stackfish::record::complete_len(text.as_bytes());
        let torn = stackfish::record::GameRecord::from_json(&text[complete..]).is_err();
        if complete < text.len() && torn {
            eprintln!(
                "{}: the last line is cut off ({} bytes): not read",
                path.display(),
                text.len() - complete
            );
            text.truncate(complete);
        }
        texts.push(text);
    }
    // The game trained: the one the records are of, one game at a time.
    let mut games: Vec<Trained> = texts
        .iter()
        .filter_map(|t| Trained::of_records(t))
        .collect();
    games.dedup();
    let game = match games[..] {
        [] => {
            if let Some(game) = texts.iter().find_map(|t| stackfish::train::other_game(t)) {
                return Err(Failure::bad_input(format!(
                    "the records are of {game}, not mixtour or focus: no usable positions, nothing written"
                )));
            }
            return Err(Failure::bad_input("no usable positions in the records"));
        }
        [game] => game,
        [a, b, ..] => {
            return Err(Failure::bad_input(format!(
                "records of {} and of {}: train one game at a time; nothing written",
                a.name(),
                b.name()
            )));
        }
    };
    settings.hidden = hidden.unwrap_or(game.hidden());
    for (path, text) in files.iter().zip(&texts) {
        let (mut positions, skipped) = stackfish::train::positions_from_records(text, game);
        // Game numbers stay distinct across files for the holdout.
        let offset = data
            .last()
            .map_or(0, |p: &stackfish::train::Position| p.game + 1);
        for p in &mut positions {
            p.game += offset;
        }
        eprintln!(
            "{}: {} {} positions, {skipped} records skipped",
            path.display(),
            positions.len(),
            game.name()
        );
        data.extend(positions);
    }
    if data.len() < stackfish::train::MIN_POSITIONS {
        return Err(Failure::bad_input(format!(
            "only {} positions in the records; training needs at least {}: nothing written",
            data.len(),
            stackfish::train::MIN_POSITIONS
        )));
    }
    let (folder, file) = match game {
        Trained::Mixtour => NETWORK_FILES[0],
        Trained::Focus => NETWORK_FILES[1],
    };
    let out = out.unwrap_or_else(|| {
        stackfish::data::find(folder).map_or_else(|| file.into(), |folder| folder.join(file))
    });
    let (net, errors) =
        stackfish::train::train_game(game, &data, &settings, &mut |l| eprintln!("{l}"));
    std::fs::write(&out, net)
        .map_err(|e| Failure::bad_input(format!("cannot write {}: {e}", out.display())))?;
    println!(
        "wrote {}: holdout error {:.5} (linear evaluation {:.5})",
        out.display(),
        errors.quantized,
        errors.linear
    );
    Ok(())
}
