//! The command line of `stackfish`: its commands and options as clap
//! reads them, and the man page's extra sections.

use clap::{Parser, Subcommand};
use stackfish::manual::{self, Shell};

#[derive(Parser)]
#[command(
    name = "stackfish",
    version,
    about = "Engine for Mixtour and other stacking games",
    after_help = MORE_HELP
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

const MORE_HELP: &str = "Without a command: the UGI/UCI engine on stdin/stdout. Every command, \
option and output line: protocol.md (in a Debian install: /usr/share/doc/stackfish/).";

/// The tactics suite `stackfish tactics` runs without `--suite`.
pub(crate) const TACTICS_SUITE: &str = "tournaments/tactics-mixtour.txt";

/// The EXIT STATUS section of the man page.
pub(crate) const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Done (the engine: after quit or the end of its input)."),
    ("1", "solve --write or --verify: the table could not be made, or is bad."),
    ("2", "A bad command line, file, position string or game, or a file that cannot be read or written; or, at start, a build made for a newer CPU (one line names what this one lacks)."),
];

/// The EXAMPLES section of the man page.
pub(crate) const EXAMPLES: &[(&str, &str)] = &[
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
pub(crate) enum Command {
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
