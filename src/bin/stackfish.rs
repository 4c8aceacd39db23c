//! The stackfish engine: with no arguments it speaks UGI/UCI on stdin/stdout.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "stackfish",
    version,
    about = "Engine for Mixtour and other stacking games"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal-move tree (Stockfish's output format).
    Perft {
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
        #[arg(long, default_value = "mixtour")]
        game: String,
    },
    /// Solve a position by retrograde analysis (Silo only).
    Solve {
        /// Position string; the variant's start position if omitted.
        #[arg(long)]
        fen: Option<String>,
        #[arg(long, default_value = "silo")]
        game: String,
        /// auto, reachable or full.
        #[arg(long, default_value = "auto")]
        method: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Perft {
            depth,
            fen,
            moves,
            divide,
            game,
        }) => {
            let moves: Vec<&str> = moves.as_deref().unwrap_or("").split_whitespace().collect();
            match stackfish::game::perft::perft_command(
                &game,
                fen.as_deref(),
                &moves,
                depth,
                divide,
            ) {
                Ok(report) => {
                    print!("{report}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Some(Command::Solve { fen, game, method }) => {
            use stackfish::game::silo::solve;
            let clock = std::time::Instant::now();
            match solve::solve_command(&game, fen.as_deref(), &method) {
                Ok((root, solution)) => {
                    let seconds = clock.elapsed().as_secs_f64();
                    print!("{}", solve::solve_report(&root, &solution, seconds));
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        None => ExitCode::SUCCESS,
    }
}
