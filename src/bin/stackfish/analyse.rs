//! `stackfish analyse`: games reviewed by the engine in this process,
//! stopped cleanly by Ctrl-C or SIGTERM.

use stackfish::cli::Failure;

use crate::lab::progress_bar;

/// What `analyse` reviews: games of a file, or one game given by its start
/// and moves.
pub(crate) enum AnalyseInput {
    File(std::path::PathBuf, stackfish::analyse::file::GameRange),
    Moves(Option<String>, String),
}

/// `analyse`'s settings besides its input and output.
pub(crate) struct AnalyseSettings {
    pub limits: stackfish::analyse::Limits,
    pub threads: usize,
    pub hash: usize,
    pub silo_tables: Option<std::path::PathBuf>,
    pub json: bool,
    /// The networks the searches play (`STACKFISH_NET`).
    pub networks: stackfish::game::Networks,
}

/// Exit status of a run stopped by Ctrl-C or SIGTERM (128 + SIGINT).
const EXIT_INTERRUPTED: u8 = 130;

/// Set by Ctrl-C or SIGTERM during `analyse`.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Ctrl-C and SIGTERM stop `analyse` (the search running at once, nothing
/// written); a second signal exits at once with 130, as the arena's.
fn install_interrupt() -> Result<(), Failure> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    use signal_hook::flag;
    for signal in [SIGINT, SIGTERM] {
        flag::register_conditional_shutdown(signal, EXIT_INTERRUPTED.into(), &INTERRUPTED)
            .and_then(|_| flag::register(signal, &INTERRUPTED))
            .map_err(|e| Failure::bad_input(format!("cannot catch Ctrl-C: {e}")))?;
    }
    Ok(())
}

/// Where `analyse` writes: a file that appears whole at the end, or
/// standard output as each game is done.
enum AnalyseSink {
    File(stackfish::analyse::atomic::AtomicFile),
    Stdout(std::io::Stdout),
}

impl AnalyseSink {
    fn write(&mut self, text: &str) -> std::io::Result<()> {
        use std::io::Write;
        match self {
            AnalyseSink::File(f) => f.write_all(text.as_bytes()),
            AnalyseSink::Stdout(o) => {
                let mut o = o.lock();
                o.write_all(text.as_bytes()).and_then(|_| o.flush())
            }
        }
    }

    fn commit(self) -> std::io::Result<()> {
        match self {
            AnalyseSink::File(f) => f.commit(),
            AnalyseSink::Stdout(_) => Ok(()),
        }
    }
}

/// The engine `analyse` searches with: its table, threads and tables.
fn analyse_engine(settings: &AnalyseSettings) -> Result<stackfish::engine::Engine, Failure> {
    let host = stackfish::engine::Host {
        table_loader: Some(stackfish_engine_tables::load),
        networks: settings.networks.clone(),
    };
    let mut engine = stackfish::engine::Engine::with_hash_mb(host, settings.hash)
        .map_err(|e| Failure::bad_input(format!("--hash {}: {e}", settings.hash)))?;
    engine
        .set_option("Threads", Some(&settings.threads.to_string()))
        .map_err(|e| Failure::bad_input(format!("--threads {}: {e}", settings.threads)))?;
    if let Some(folder) = &settings.silo_tables {
        let notes = engine
            .set_option("SiloTablePath", Some(&folder.to_string_lossy()))
            .map_err(|e| Failure::bad_input(format!("--silo-tables {}: {e}", folder.display())))?;
        for note in notes {
            eprintln!("note: {note}");
        }
    }
    Ok(engine)
}

/// One line on standard error per reviewed game: accuracy and marks per
/// side, the decisive mistake with the position to reproduce it.
fn review_summary(number: usize, review: &stackfish::review::Review) -> String {
    let counts = review.counts();
    let side = |i: usize, acc: Option<f64>| {
        let acc = acc.map_or("?".to_string(), |a| format!("{a:.1}"));
        let [i1, m, b] = counts[i];
        format!("player {} accuracy {acc} ({i1} ?!, {m} ?, {b} ??)", i + 1)
    };
    let mut line = format!(
        "game {number}: {} plies; {}; {}",
        review.moves.len(),
        side(0, review.accuracy.p1),
        side(1, review.accuracy.p2)
    );
    if let Some(d) = &review.decisive {
        line.push_str(&format!(
            "; decisive mistake: ply {} {} by player {} (position {})",
            d.ply,
            d.mv,
            d.side.index() + 1,
            d.fen
        ));
    }
    line
}

/// `stackfish analyse`: reviews the games of `input`, writes each as it is
/// done to `out` (whole, or not at all) or standard output.
pub(crate) fn analyse(
    input: AnalyseInput,
    game: Option<String>,
    settings: &AnalyseSettings,
    out: Option<&std::path::Path>,
) -> Result<(), Failure> {
    use stackfish::analyse::file::{analyse_game, analyse_records, Event};
    use stackfish::analyse::AnalyseError;
    install_interrupt()?;
    let mut engine = analyse_engine(settings)?;
    let by = format!(
        "stackfish analyse, {} a position",
        settings.limits.describe()
    );
    let mut sink = match out {
        Some(path) => AnalyseSink::File(
            stackfish::analyse::atomic::AtomicFile::create(path)
                .map_err(|e| Failure::bad_input(format!("cannot write {}: {e}", path.display())))?,
        ),
        None => AnalyseSink::Stdout(std::io::stdout()),
    };
    let out_name = out.map_or("standard output".to_string(), |p| p.display().to_string());
    let bar = progress_bar("positions");
    let json = settings.json;
    let mut on_event = |event: Event| -> Result<(), AnalyseError> {
        match event {
            Event::Start { number, searches } => {
                bar.set_message(format!("game {number}"));
                bar.set_length(searches as u64);
                bar.set_position(0);
            }
            Event::Progress { done, .. } => bar.set_position(done as u64),
            Event::Note(note) => bar.suspend(|| eprintln!("note: {note}")),
            Event::Reviewed { number, review } => {
                let text = if json {
                    format!("{}\n", review.json())
                } else {
                    review.pgn(&by)
                };
                sink.write(&text)
                    .map_err(|e| AnalyseError::Io(format!("cannot write {out_name}: {e}")))?;
                bar.suspend(|| eprintln!("{}", review_summary(number, &review)));
            }
        }
        Ok(())
    };
    let interrupt = Some(&INTERRUPTED);
    let result = match input {
        AnalyseInput::File(path, range) => {
            let (reader, name): (Box<dyn std::io::BufRead>, String) = if path.as_os_str() == "-" {
                (Box::new(std::io::stdin().lock()), "standard input".into())
            } else {
                let file = std::fs::File::open(&path).map_err(|e| {
                    Failure::bad_input(format!("cannot read {}: {e}", path.display()))
                })?;
                (
                    Box::new(std::io::BufReader::new(file)),
                    path.display().to_string(),
                )
            };
            let limits = &settings.limits;
            let variant = game.as_deref();
            analyse_records(
                reader,
                &name,
                &range,
                variant,
                &mut engine,
                limits,
                interrupt,
                &mut on_event,
            )
            .and_then(|summary| summary.outcome(&name, &range))
            .map(|note| {
                if let Some(note) = note {
                    bar.suspend(|| eprintln!("note: {note}"));
                }
            })
        }
        AnalyseInput::Moves(fen, moves) => {
            let variant = game.as_deref().unwrap_or("mixtour");
            let moves: Vec<&str> = moves.split_whitespace().collect();
            let game = stackfish::review::ReviewGame::from_moves(variant, fen.as_deref(), &moves)
                .map_err(Failure::bad_input)?;
            analyse_game(
                game,
                &mut engine,
                &settings.limits,
                interrupt,
                &mut on_event,
            )
        }
    };
    bar.finish_and_clear();
    match result {
        // Dropping the output removes its unfinished file.
        Err(AnalyseError::Interrupted) => Err(Failure::new(
            EXIT_INTERRUPTED,
            "interrupted: nothing written",
        )),
        Err(e) => Err(Failure::bad_input(e)),
        Ok(()) => sink
            .commit()
            .map_err(|e| Failure::bad_input(format!("cannot write {out_name}: {e}"))),
    }
}
