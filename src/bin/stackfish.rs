//! The stackfish engine: with no arguments it speaks UGI/UCI on stdin/stdout.

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use stackfish::cli::{Failure, EXIT_TABLE_FAILED, STACKFISH};
use stackfish::manual::{self, Shell};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "stackfish",
    version,
    about = "Engine for Mixtour and other stacking games",
    after_help = MORE_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

const MORE_HELP: &str = "Without a command: the UGI/UCI engine on stdin/stdout. Every command, \
option and output line: protocol.md (in a Debian install: /usr/share/doc/stackfish/).";

/// The tactics suite `stackfish tactics` runs without `--suite`.
const TACTICS_SUITE: &str = "tournaments/tactics-mixtour.txt";

/// The networks a build compiles in, by game: where `stackfish train`
/// writes without `--out`.
const NETWORK_FILES: [(&str, &str); 2] = [
    ("crates/games/src/mixtour", "net.bin"),
    ("crates/games/src/coinstack", "net-focus.bin"),
];

/// The EXIT STATUS section of the man page.
const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Done (the engine: after quit or the end of its input)."),
    ("1", "solve --write or --verify: the table could not be made, or is bad."),
    ("2", "A bad command line, file, position string or game, or a file that cannot be read or written; or, at start, a build made for a newer CPU (one line names what this one lacks)."),
];

/// The EXAMPLES section of the man page.
const EXAMPLES: &[(&str, &str)] = &[
    (
        "stackfish",
        "The UGI/UCI engine on standard input and output, for a GUI or the arena.",
    ),
    (
        "stackfish perft 4 --divide",
        "Count the Mixtour move tree to 4 plies, below each root move.",
    ),
    (
        "stackfish bench",
        "Search the bench positions; the last line is the node count.",
    ),
    (
        "stackfish serve --open",
        "Play in the browser against the engine.",
    ),
    (
        "stackfish completions bash > ~/.local/share/bash-completion/completions/stackfish",
        "Install bash completion.",
    ),
];

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal-move tree (Stockfish's output format).
    Perft {
        /// Plies to look ahead.
        depth: u32,
        /// Position string; the variant's start position if omitted.
        #[arg(long)]
        fen: Option<String>,
        /// Moves to play first, space separated, each checked for legality.
        #[arg(long)]
        moves: Option<String>,
        /// Print the count below each root move.
        #[arg(long)]
        divide: bool,
        /// The game: a value of the engine option Game (mixtour, coinstack, ...).
        #[arg(long, default_value = "mixtour", value_parser = manual::choices(stackfish::game::variant_names()))]
        game: String,
    },
    /// Fit evaluation weights to recorded games (Texel's method): Mixtour,
    /// Coin Stack, Focus or Castle, one weight array per game.
    Tune {
        /// Arena JSON-lines records (`arena --jsonl`), one or more files.
        #[arg(required = true)]
        records: Vec<std::path::PathBuf>,
        /// Passes of gradient descent.
        #[arg(long, default_value_t = 2000)]
        epochs: usize,
        /// Fit only this game's weights (mixtour, coinstack, focus or
        /// castle) and skip other records; by default each record's
        /// variant decides.
        #[arg(long, value_parser = manual::choices(&["mixtour", "coinstack", "focus", "castle"]))]
        game: Option<String>,
    },
    /// Play on Abstract Play: a bot service answering AP's signed webhooks
    /// (Mixtour and Focus). Credentials come from AP_CLIENT_ID and
    /// AP_CLIENT_SECRET (or AP_CLIENT_SECRET_FILE). See docs/abstractplay.md.
    Apbot(stackfish::apbot::Args),
    /// Search the fixed bench positions; the node count is the search's signature.
    Bench {
        /// Search depth (default: the standard bench depth).
        depth: Option<i32>,
    },
    /// Play in a browser: serve the board page and its JSON API locally.
    Serve {
        /// Port to listen on; 0 picks a free one (the printed address has it).
        #[arg(long, default_value_t = stackfish::web::DEFAULT_PORT)]
        port: u16,
        /// Address to listen on; the default is reachable from this machine
        /// only. 0.0.0.0 opens the game and its engines to the whole network,
        /// without a login: only on a network you trust.
        #[arg(long, default_value = stackfish::web::DEFAULT_HOST)]
        host: String,
        /// Open the page in the desktop's browser.
        #[arg(long)]
        open: bool,
        /// Another engine the page offers as an opponent or analyser, in the
        /// arena's syntax: name=NAME cmd=PATH [args="..."] [proto=ugi|uci]
        /// [dir=PATH] [option.X=v]. Repeat for each engine.
        #[arg(long, num_args = 1.., action = clap::ArgAction::Append, value_name = "KEY=VALUE")]
        engine: Vec<String>,
        /// Milliseconds an engine has to start (and to answer isready).
        #[arg(long, default_value_t = stackfish::web::engines::DEFAULT_STARTUP_MS)]
        startup_timeout: u64,
        /// A folder of Silo table files (as the engine option SiloTablePath):
        /// a Silo position a table covers shows its exact value and each
        /// move's.
        #[arg(long, value_name = "FOLDER")]
        silo_tables: Option<std::path::PathBuf>,
    },
    /// Print the Mixtour position string of a StackAndConquer file: a board
    /// (.in, .stackboard) gives its start position, a saved game
    /// (.stacksav) its position.
    Import {
        /// The StackAndConquer file (.in, .stackboard or .stacksav).
        file: std::path::PathBuf,
        /// Towers needed to win a game started on a board file (default 1).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        goal: Option<u32>,
    },
    /// Write a Mixtour position as StackAndConquer files: a saved game
    /// and/or the board file of its shape.
    Export {
        /// The position string.
        #[arg(long)]
        fen: String,
        /// The saved game to write (.stacksav).
        #[arg(long)]
        stacksav: Option<std::path::PathBuf>,
        /// The board file to write (.stackboard); the save names it.
        #[arg(long)]
        stackboard: Option<std::path::PathBuf>,
    },
    /// The Mixtour tactics suite: how many positions the engine solves in
    /// the given time (or nodes) each; or, with --generate, find the
    /// suite's positions in game records.
    Tactics {
        /// The suite file [default: tournaments/tactics-mixtour.txt of the
        /// checkout, else of the installed data (/usr/share/stackfish)].
        #[arg(long)]
        suite: Option<std::path::PathBuf>,
        /// Milliseconds per position.
        #[arg(long, default_value_t = 100)]
        movetime: u64,
        /// Nodes per position instead of a time.
        #[arg(long)]
        nodes: Option<u64>,
        /// Arena JSON-lines records to search for positions; prints suite lines.
        #[arg(long, num_args = 1..)]
        generate: Vec<std::path::PathBuf>,
        /// With --generate: the longest forced win proven, in plies.
        #[arg(long, default_value_t = 5)]
        max_win: u32,
        /// With --generate: the longest horizon of a single saving move, in plies.
        #[arg(long, default_value_t = 4)]
        max_save: u32,
    },
    /// Play self-play games for training the evaluations; writes arena
    /// JSON-lines records, one line per finished game.
    Datagen {
        /// Where the records go; appended to, so a stopped run can go on
        /// with another --seed.
        #[arg(long)]
        out: std::path::PathBuf,
        /// The game played.
        #[arg(long, default_value = "mixtour", value_parser = manual::choices(stackfish::game::variant_names()))]
        game: String,
        /// The position every game starts from (a position string of the
        /// game, e.g. Mixtour to 2 points: "x5/x5/x5/x5/x5 1 20,20 0,0 2 -");
        /// the game's start if omitted.
        #[arg(long)]
        fen: Option<String>,
        /// Games to play (of the whole run: a --shard plays its part).
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// Nodes per move.
        #[arg(long, default_value_t = 5000)]
        nodes: u64,
        /// Games played at once.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Random plies at the start of each game, at least.
        #[arg(long, default_value_t = 6)]
        min_random: usize,
        /// Random plies at the start of each game, at most.
        #[arg(long, default_value_t = 12)]
        max_random: usize,
        /// Game k is fixed by the seed and k.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Play only part K of N of the --games (a contiguous range of game
        /// numbers); `auto` or `auto/N`: the part from the scheduler (a Slurm
        /// array, a Kubernetes Indexed Job, GNU parallel's PARALLEL_SEQ).
        #[arg(long, value_name = "K/N|auto[/N]")]
        shard: Option<String>,
        /// Play only the games of the range not in --out yet (same seed and
        /// nodes): a killed or requeued task goes on without duplicates.
        #[arg(long)]
        resume: bool,
    },
    /// Train the Mixtour or the Focus network on recorded games and write
    /// its weights.
    Train {
        /// JSON-lines game records (`arena --jsonl`, `stackfish datagen`),
        /// or folders: every *.jsonl in them (the shards of a datagen array).
        #[arg(required = true)]
        records: Vec<std::path::PathBuf>,
        /// Where to write the network [default: the one a build compiles in,
        /// in the checkout: crates/games/src/mixtour/net.bin for Mixtour
        /// records, crates/games/src/coinstack/net-focus.bin for Focus
        /// records; else that file name in the current folder].
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Passes over the training positions.
        #[arg(long, default_value_t = 30)]
        epochs: usize,
        /// Weight of the game result against the search score (0 to 1).
        #[arg(long, default_value_t = 0.5)]
        lambda: f32,
        /// Step size of the optimiser (Adam).
        #[arg(long, default_value_t = 1e-3)]
        learning_rate: f32,
        /// Seed of the training's random generator: the same seed and
        /// records train the same network.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Hidden units of the network: a multiple of 16 from 16 to 512
        /// [default: 64].
        #[arg(long)]
        hidden: Option<usize>,
        /// Give the linear features (the game's hand-made evaluation
        /// terms) no weights: the network alone evaluates, and the engine
        /// skips computing them.
        #[arg(long)]
        no_linear: bool,
        /// Learn each Mixtour position as it is, not through one of the
        /// board's eight symmetries picked at random (how the networks
        /// before 2026-12-06 were trained; Focus always uses them).
        #[arg(long)]
        no_symmetries: bool,
    },
    /// Review whole games: every position searched, from the last back to
    /// the first with one transposition table; each move classed by the
    /// expected score it cost (?! inaccuracy, ? mistake, ?? blunder) with
    /// the engine's better move, each side's accuracy, the decisive mistake.
    /// Writes annotated PGN (or JSON lines with --json).
    Analyse {
        /// A record file: the arena's JSON lines or PGN, the board's
        /// download, annotated games; `-` reads standard input.
        #[arg(conflicts_with_all = ["fen", "moves"], required_unless_present_any = ["fen", "moves"])]
        file: Option<std::path::PathBuf>,
        /// The position the game starts from, instead of a file (with --moves);
        /// the variant's start if omitted.
        #[arg(long)]
        fen: Option<String>,
        /// The moves of the game, one argument, space separated: "c3 d4 c3d4".
        #[arg(long)]
        moves: Option<String>,
        /// The variant of --fen/--moves [default: mixtour]; with a file, a
        /// game of another variant is not reviewed.
        #[arg(long, value_parser = manual::choices(stackfish::game::variant_names()))]
        game: Option<String>,
        /// Which games of the file, by their place in it: N, N..M, N.. or ..M
        /// [default: all].
        #[arg(long, value_name = "N..M")]
        games: Option<stackfish::analyse::file::GameRange>,
        /// Nodes searched per position [default: 100000 when no limit is given].
        #[arg(long)]
        nodes: Option<u64>,
        /// Depth searched per position.
        #[arg(long)]
        depth: Option<u32>,
        /// Milliseconds searched per position.
        #[arg(long)]
        movetime: Option<u64>,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Transposition table size (MB), shared by all positions of a game.
        #[arg(long, default_value_t = 64)]
        hash: usize,
        /// A folder of Silo table files: positions they cover get their exact value.
        #[arg(long)]
        silo_tables: Option<std::path::PathBuf>,
        /// Write one JSON review per game and line instead of PGN.
        #[arg(long)]
        json: bool,
        /// Write to this file (whole, or not at all) instead of standard output.
        #[arg(short = 'o', long)]
        out: Option<std::path::PathBuf>,
    },
    /// Fit the review's expected-score model to self-play records: k per
    /// game, with its log-loss and calibration (data/selfplay/README.md).
    FitModel {
        /// Record files (JSON lines or PGN; `.zst` read compressed).
        #[arg(required = true)]
        records: Vec<std::path::PathBuf>,
    },
    /// Solve a position by retrograde analysis (Silo only).
    Solve {
        /// Position string; the variant's start position if omitted.
        #[arg(long)]
        fen: Option<String>,
        /// The game (only Silo can be solved).
        #[arg(long, default_value = "silo", value_parser = manual::choices(&["silo", "silo-8"]))]
        game: String,
        /// auto, reachable or full.
        #[arg(long, default_value = "auto", value_parser = manual::choices(&["auto", "reachable", "full"]))]
        method: String,
        /// Build the table of the position's configuration (row length,
        /// checkers per player) and write it to this file.
        #[arg(long, conflicts_with = "verify")]
        write: Option<std::path::PathBuf>,
        /// Check every entry of a table file against its successors.
        #[arg(long)]
        verify: Option<std::path::PathBuf>,
    },
    /// Print a shell completion script, e.g. `stackfish completions bash`.
    Completions {
        /// The shell the script is for.
        shell: Shell,
    },
    /// Write the man pages of stackfish and its subcommands into a folder (for packagers).
    Man {
        /// Folder to write the pages into (created if missing).
        #[arg(long)]
        dir: std::path::PathBuf,
    },
}

/// The `--engine` occurrences of `serve`, each a group of tokens (clap's
/// derive flattens them).
fn engine_groups(matches: &clap::ArgMatches) -> Vec<Vec<String>> {
    matches
        .subcommand_matches("serve")
        .and_then(|m| m.try_get_occurrences::<String>("engine").ok().flatten())
        .map(|groups| groups.map(|g| g.cloned().collect()).collect())
        .unwrap_or_default()
}

/// `serve --silo-tables`: the tables of a folder, each file it skips named
/// on standard error, and the tables found.
fn open_silo_tables(folder: &std::path::Path) -> Result<stackfish::tablebase::TableSet, Failure> {
    let (set, notes) =
        stackfish::tablebase::TableSet::open_folder(folder).map_err(Failure::bad_input)?;
    for note in notes {
        eprintln!("note: {note}");
    }
    let found = stackfish::web::explorer::configs(&set);
    if found.is_empty() {
        eprintln!(
            "note: no Silo table in {}: the explorer has nothing to show",
            folder.display()
        );
    } else {
        eprintln!("stackfish: Silo tables: {}", found.join("; "));
    }
    Ok(set)
}

fn main() -> ExitCode {
    if let Some(refused) = stackfish::cli::unsupported_cpu("stackfish") {
        return refused;
    }
    start()
}

/// Everything after the CPU check, out of line so that none of it is
/// scheduled before the check.
#[inline(never)]
fn start() -> ExitCode {
    use_network_of_environment();
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|m| Ok((Cli::from_arg_matches(&m)?, m)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => return STACKFISH.usage(e),
    };
    STACKFISH.exit(run(cli, &matches).map(|()| 0))
}

fn run(cli: Cli, matches: &clap::ArgMatches) -> Result<(), Failure> {
    match cli.command {
        Some(Command::Perft {
            depth,
            fen,
            moves,
            divide,
            game,
        }) => {
            let moves: Vec<&str> = moves.as_deref().unwrap_or("").split_whitespace().collect();
            let report =
                stackfish::game::perft::perft_command(&game, fen.as_deref(), &moves, depth, divide)
                    .map_err(Failure::bad_input)?;
            print!("{report}");
        }
        Some(Command::Apbot(args)) => {
            stackfish::apbot::main(&args).map_err(|e| Failure::new(e.exit_code(), e))?
        }
        Some(Command::Bench { depth }) => {
            let result = stackfish::engine::bench(depth, &mut |line| println!("{line}"));
            println!("{}", result.summary());
        }
        Some(Command::Tune {
            records,
            epochs,
            game,
        }) => tune(&records, epochs, game.as_deref())?,
        Some(Command::Serve {
            port,
            host,
            open,
            engine: _,
            startup_timeout,
            silo_tables,
        }) => {
            let roster =
                stackfish::web::Roster::from_groups(&engine_groups(matches), startup_timeout)
                    .map_err(Failure::bad_input)?;
            roster.check().map_err(Failure::bad_input)?;
            let silo_tables = silo_tables.as_deref().map(open_silo_tables).transpose()?;
            let options = stackfish::web::ServeOptions {
                roster,
                silo_tables,
            };
            let server = stackfish::web::WebServer::start_with(&host, port, options)
                .map_err(Failure::bad_input)?;
            let url = server.url();
            println!("stackfish: play at {url} (Ctrl-C to quit)");
            if open {
                if let Err(e) = stackfish::web::open_browser(&url) {
                    eprintln!("note: {e}; open {url} yourself");
                }
            }
            // A stop signal closes the pages' streams and ends the engines
            // (their processes too), then exits 0.
            let signal = server.serve_until_stopped().map_err(Failure::bad_input)?;
            eprintln!("stackfish: {signal}: stopped");
        }
        Some(Command::Tactics {
            suite,
            movetime,
            nodes,
            generate,
            max_win,
            max_save,
        }) => {
            let suite = suite.unwrap_or_else(|| stackfish::data::file(TACTICS_SUITE));
            tactics(&suite, movetime, nodes, &generate, max_win, max_save)?
        }
        Some(Command::Datagen {
            out,
            game,
            fen,
            games,
            nodes,
            threads,
            min_random,
            max_random,
            seed,
            shard,
            resume,
        }) => {
            let mut settings = stackfish::train::datagen::Settings {
                game,
                fen,
                games,
                nodes,
                threads,
                random_plies: (min_random, max_random),
                seed,
                ..Default::default()
            };
            if let Some(spec) = &shard {
                let part = stackfish::arena::shard::resolve_env(spec)
                    .map_err(|e| Failure::bad_input(e.to_string()))?;
                let range = stackfish::arena::shard::range_of(part, games);
                println!(
                    "shard {part}: games {}..={} of {games}",
                    range.start + 1,
                    range.end
                );
                settings.first = range.start;
                settings.games = range.len();
            }
            datagen(&out, &mut settings, resume)?
        }
        Some(Command::Analyse {
            file,
            fen,
            moves,
            game,
            games,
            nodes,
            depth,
            movetime,
            threads,
            hash,
            silo_tables,
            json,
            out,
        }) => {
            let limits = stackfish::analyse::Limits::new(nodes, depth, movetime)
                .map_err(Failure::bad_input)?;
            let input = match (file, fen, moves) {
                (Some(path), _, _) => AnalyseInput::File(path, games.unwrap_or_default()),
                (None, fen, moves) => {
                    if games.is_some() {
                        return Err(Failure::bad_input("--games is for a file of games"));
                    }
                    AnalyseInput::Moves(fen, moves.unwrap_or_default())
                }
            };
            let settings = AnalyseSettings {
                limits,
                threads,
                hash,
                silo_tables,
                json,
            };
            return analyse(input, game, &settings, out.as_deref());
        }
        Some(Command::FitModel { records }) => fit_model(&records)?,
        Some(Command::Train {
            records,
            out,
            epochs,
            lambda,
            learning_rate,
            seed,
            hidden,
            no_linear,
            no_symmetries,
        }) => {
            if !(0.0..=1.0).contains(&lambda) {
                return Err(Failure::bad_input(format!(
                    "--lambda {lambda}: must be between 0 and 1"
                )));
            }
            if !(learning_rate > 0.0 && learning_rate.is_finite()) || epochs == 0 {
                return Err(Failure::bad_input(
                    "--learning-rate must be above 0 and --epochs at least 1",
                ));
            }
            if hidden.is_some_and(|h| h == 0 || h % 16 != 0 || h > 512) {
                return Err(Failure::bad_input(format!(
                    "--hidden {}: must be a multiple of 16 from 16 to 512",
                    hidden.unwrap_or(0)
                )));
            }
            let settings = stackfish::train::Settings {
                epochs,
                lambda,
                learning_rate,
                seed,
                linear: !no_linear,
                symmetries: !no_symmetries,
                ..Default::default()
            };
            train(&records, out, hidden, settings)?;
        }
        Some(Command::Import { file, goal }) => {
            let imported = stackfish::stackandconquer::import_noted(&file, goal)
                .map_err(Failure::bad_input)?;
            for note in &imported.notes {
                eprintln!("note: {note}");
            }
            println!("{}", imported.fen);
        }
        Some(Command::Export {
            fen,
            stacksav,
            stackboard,
        }) => {
            let notes = stackfish::stackandconquer::export(
                &fen,
                stacksav.as_deref(),
                stackboard.as_deref(),
            )
            .map_err(Failure::bad_input)?;
            for note in notes {
                eprintln!("note: {note}");
            }
        }
        Some(Command::Solve {
            verify: Some(path), ..
        }) => {
            let clock = std::time::Instant::now();
            let bar = progress_bar("positions verified");
            let result = stackfish::tablebase::verify_command(&path, &|n, all| {
                bar.set_length(all);
                bar.set_position(n);
            });
            bar.finish_and_clear();
            finish_table_command(result, clock)?;
        }
        Some(Command::Solve {
            fen,
            game,
            write: Some(path),
            ..
        }) => {
            let clock = std::time::Instant::now();
            let root = stackfish::game::silo::solve::root(&game, fen.as_deref())
                .map_err(Failure::bad_input)?;
            let bar = progress_bar("positions resolved");
            if let Ok(config) = stackfish::tablebase::Config::of(&root) {
                bar.set_length(config.entries());
            }
            let result = stackfish::tablebase::build_command(&root, &path, &|n, d| {
                bar.set_position(n);
                bar.set_message(format!("distance {d}"));
            });
            bar.finish_and_clear();
            finish_table_command(result, clock)?;
        }
        Some(Command::Solve {
            fen, game, method, ..
        }) => {
            use stackfish::game::silo::solve;
            let clock = std::time::Instant::now();
            let (root, solution) =
                solve::solve_command(&game, fen.as_deref(), &method).map_err(Failure::bad_input)?;
            let seconds = clock.elapsed().as_secs_f64();
            print!("{}", solve::solve_report(&root, &solution, seconds));
        }
        Some(Command::Completions { shell }) => {
            manual::write_completions(Cli::command(), shell, &mut std::io::stdout());
        }
        Some(Command::Man { dir }) => {
            manual::write_man_pages_with(Cli::command(), &dir, EXIT_STATUS, EXAMPLES).map_err(
                |e| Failure::bad_input(format!("cannot write man pages to {}: {e}", dir.display())),
            )?;
        }
        None => {
            let stdin = std::io::stdin();
            stackfish::protocol::run(std::io::BufReader::new(stdin), std::io::stdout());
        }
    }
    Ok(())
}

/// What `analyse` reviews: games of a file, or one game given by its start
/// and moves.
enum AnalyseInput {
    File(std::path::PathBuf, stackfish::analyse::file::GameRange),
    Moves(Option<String>, String),
}

/// `analyse`'s settings besides its input and output.
struct AnalyseSettings {
    limits: stackfish::analyse::Limits,
    threads: usize,
    hash: usize,
    silo_tables: Option<std::path::PathBuf>,
    json: bool,
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
fn analyse(
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
fn fit_model(records: &[std::path::PathBuf]) -> Result<(), Failure> {
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

fn tune(records: &[std::path::PathBuf], epochs: usize, game: Option<&str>) -> Result<(), Failure> {
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

fn tactics(
    suite: &std::path::Path,
    movetime: u64,
    nodes: Option<u64>,
    generate: &[std::path::PathBuf],
    max_win: u32,
    max_save: u32,
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
    let score = tactics::run(&positions, &params);
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
fn progress_bar(what: &str) -> indicatif::ProgressBar {
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
fn finish_table_command<E: std::fmt::Display>(
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

fn datagen(
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

fn train(
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

/// The largest network file read (today's is well under 1 MB).
const MAX_NETWORK_BYTES: u64 = 64 << 20;

/// `STACKFISH_NET=<file>` plays the network in that file instead of the
/// built-in one of its game (the file's header names it: Mixtour or
/// Focus), `STACKFISH_NET=none` the linear evaluations of every game (for
/// measuring networks without a rebuild; docs/development.md). A file that
/// does not read is reported and the built-in network kept.
fn use_network_of_environment() {
    use stackfish::game::{coinstack, mixtour};
    let Some(value) = std::env::var_os("STACKFISH_NET") else {
        return;
    };
    if value == "none" {
        mixtour::nnue::install(None);
        coinstack::nnue::install(None);
        return;
    }
    let read = stackfish::stackandconquer::fs::read_regular(value.as_ref(), MAX_NETWORK_BYTES)
        .map_err(|e| e.to_string())
        .and_then(|bytes| {
            // A Focus file is Focus's; any other is read (and refused, with
            // the reason) as Mixtour's.
            if stackfish::nnue::game_of(&bytes).as_deref() == Some("focus") {
                coinstack::nnue::Network::from_bytes(&bytes)
                    .map(|net| coinstack::nnue::install(Some(net)))
            } else {
                mixtour::nnue::Network::from_bytes(&bytes)
                    .map(|net| mixtour::nnue::install(Some(net)))
            }
            .map_err(|e| e.to_string())
        });
    match read {
        Ok(_) => {}
        Err(e) => eprintln!(
            "stackfish: STACKFISH_NET={}: {e}; playing the built-in network",
            value.to_string_lossy()
        ),
    }
}

/// The text of a file named on the command line, or the failure
/// `cannot read <file>: <why>` (exit status 2).
fn read_input(path: &std::path::Path) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map_err(|e| Failure::bad_input(format!("cannot read {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_argument_has_help() {
        use clap::CommandFactory;
        let missing = stackfish::manual::args_without_help(&super::Cli::command());
        assert!(missing.is_empty(), "no help text: {missing:?}");
    }
}
