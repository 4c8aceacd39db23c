//! The stackfish engine: with no arguments it speaks UGI/UCI on stdin/stdout.

use clap::{CommandFactory, FromArgMatches};
use stackfish::cli::{Failure, STACKFISH};
use stackfish::manual;
use std::process::ExitCode;

mod analyse;
mod cli;
mod lab;

use analyse::{analyse, AnalyseInput, AnalyseSettings};
use cli::{Cli, Command, EXAMPLES, EXIT_STATUS, TACTICS_SUITE};
use lab::{datagen, finish_table_command, fit_model, progress_bar, tactics, train, tune};

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
    let networks = networks_of_environment();
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|m| Ok((Cli::from_arg_matches(&m)?, m)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => return STACKFISH.usage(e),
    };
    STACKFISH.exit(run(cli, &matches, &networks).map(|()| 0))
}

/// Runs the command; every search of it plays `networks`.
fn run(
    cli: Cli,
    matches: &clap::ArgMatches,
    networks: &stackfish::game::Networks,
) -> Result<(), Failure> {
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
            stackfish::apbot::main(&args, networks).map_err(|e| Failure::new(e.exit_code(), e))?
        }
        Some(Command::Bench { depth }) => {
            let result = stackfish::engine::bench(depth, networks, &mut |line| println!("{line}"));
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
                networks: networks.clone(),
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
            tactics(
                &suite, movetime, nodes, &generate, max_win, max_save, networks,
            )?
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
                networks: networks.clone(),
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
                networks: networks.clone(),
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
            let input = std::io::BufReader::new(stdin);
            stackfish::protocol::run(networks.clone(), input, std::io::stdout());
        }
    }
    Ok(())
}

/// The largest network file read (today's is well under 1 MB).
const MAX_NETWORK_BYTES: u64 = 64 << 20;

/// The networks every command plays: the built-in ones, or as
/// `STACKFISH_NET` says. `STACKFISH_NET=<file>` plays the network in that
/// file instead of the built-in one of its game (the file's header names
/// it: Mixtour or Focus), `STACKFISH_NET=none` the linear evaluations of
/// every game (for measuring networks without a rebuild;
/// docs/development.md). A file that does not read is reported and the
/// built-in networks kept.
fn networks_of_environment() -> stackfish::game::Networks {
    use stackfish::game::Networks;
    let Some(value) = std::env::var_os("STACKFISH_NET") else {
        return Networks::default();
    };
    if value == "none" {
        return Networks::none();
    }
    let read = stackfish::stackandconquer::fs::read_regular(value.as_ref(), MAX_NETWORK_BYTES)
        .map_err(|e| e.to_string())
        .and_then(|bytes| Networks::read(&bytes).map_err(|e| e.to_string()));
    read.unwrap_or_else(|e| {
        eprintln!(
            "stackfish: STACKFISH_NET={}: {e}; playing the built-in network",
            value.to_string_lossy()
        );
        Networks::default()
    })
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
