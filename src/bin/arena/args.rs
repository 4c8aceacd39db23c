//! The arena's command line: the match's flags and each subcommand's, as
//! clap reads them, with the man page's extra sections.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

use stackfish::arena::config::MAX_GAMES;
use stackfish::manual::{self, Shell};

#[derive(Parser)]
#[command(
    name = "arena",
    version,
    about = "Engine-vs-engine matches for stacking games; never trusts an engine, never hangs, never loses a record",
    after_help = "Without a command: a match (with no flags at all: tournaments/default.json). Every flag, \
config field, record format and exit code: protocol.md (in a Debian install: /usr/share/doc/stackfish/).",
    args_conflicts_with_subcommands = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// The EXIT STATUS section of the man page.
pub(crate) const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Without --sprt: the match (or compliance check, or `arena tune`) is done. With --sprt (a match, merge or watch): H1 accepted."),
    ("1", "Without --sprt: the compliance check failed. With --sprt: H0 accepted."),
    ("2", "With --sprt: inconclusive (the games ran out before a bound). At start, before anything runs: this build was made for a newer CPU (one line names what this one lacks)."),
    ("3", "The run failed: bad flags or config, an engine that cannot be started, i/o."),
    ("101", "A panic (a bug of the arena): its message, then every engine killed and the arena gone at once; finished games are recorded."),
    ("130", "Stopped by Ctrl-C or SIGTERM; every finished game is recorded (`arena tune`: every finished iteration is in the trace, --resume goes on). A second one kills every engine and exits at once."),
];

/// The EXAMPLES section of the man page.
pub(crate) const EXAMPLES: &[(&str, &str)] = &[
    ("arena", "The demo match of tournaments/default.json."),
    ("arena --engine name=new cmd=./stackfish --engine name=old cmd=./stackfish-old --each tc=10+0.1 --games 200 --sprt elo0=0 elo1=5 --jsonl new.jsonl", "An SPRT of a new build against an old one, its games recorded."),
    ("arena --engine name=new cmd=./stackfish --engine name=old cmd=./stackfish-old --each tc=10+0.1 --games 200 --jsonl new.jsonl --resume", "Go on with a stopped match."),
    ("arena merge shard-*.jsonl --sprt elo0=0 elo1=5", "The statistics of the shards of a match, together."),
    ("arena compliance ./my-engine", "Check that an engine follows the protocol."),
    ("arena tune --engine cmd=./stackfish-tune nodes=1000 --params-prefix Search --iterations 20000 --concurrency 2 --openings tournaments/openings-mixtour.txt --trace spsa.jsonl", "SPSA of the search parameters of a tuning build at 1,000 nodes a move."),
];

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Write a suite of distinct random openings (one per line).
    Openings(OpeningsArgs),
    /// Check that an engine follows the protocol; prints what it said when a step fails.
    Compliance(ComplianceArgs),
    /// Recompute every statistic (SPRT included) from JSONL record files,
    /// counting a game found in several files once.
    Merge(MergeArgs),
    /// Decide the SPRT of a match split into shards from the records they
    /// write into one folder, and stop the shards when it is decided.
    Watch(WatchArgs),
    /// Which move lost each game: review every game of match records with an
    /// analysing engine (our own stackfish by default) and list each game's
    /// decisive mistake per engine, with the position to reproduce it.
    Analyse(AnalyseArgs),
    /// Tune an engine's spin options by SPSA through game pairs of
    /// theta+ against theta- (a tuning build of stackfish: `cargo build
    /// --release --features tune`).
    #[command(
        after_help = "Each iteration k: every parameter moves by +-c_k (c_k = c/k^0.101) at random for theta+ and the other way for theta-; \
the game pairs' result (theta+'s wins minus losses) moves theta by a_k/c_k * result * sign (a_k = a/(A+k)^0.602), with c_N = c_end and \
a_N = r_end * c_end^2 at the last iteration N. The trace (--trace, JSONL: a header, then one line per iteration) is written as the run goes; \
--resume continues it. Exit codes: 0 done; 3 the run failed (bad flags or parameter file, an engine that cannot be started or refuses a \
parameter, a trace that does not fit --resume, i/o); 130 stopped by Ctrl-C or SIGTERM (finished iterations are in the trace). Details: protocol.md, \"arena tune\"."
    )]
    Tune(TuneArgs),
    /// Print a shell completion script, e.g. `arena completions bash`.
    Completions {
        /// The shell the script is for.
        shell: Shell,
    },
    /// Write the man pages of the arena and its subcommands into a folder (for packagers).
    Man {
        /// Folder to write the pages into (created if missing).
        #[arg(long)]
        dir: PathBuf,
    },
}

#[derive(Args)]
pub(crate) struct MergeArgs {
    /// JSONL record files (`--jsonl` of one or more runs or shards).
    #[arg(required = true)]
    pub(crate) records: Vec<PathBuf>,
    /// SPRT of the first engine against the second: elo0=E0 elo1=E1 [alpha=A] [beta=B].
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub(crate) sprt: Option<Vec<String>>,
    /// Engine order, comma-separated (candidate first); default: order of the schedule.
    #[arg(long, value_delimiter = ',')]
    pub(crate) engines: Vec<String>,
    /// Summary file (same schema as a match's --json).
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
    /// HTML/SVG report.
    #[arg(long)]
    pub(crate) report: Option<PathBuf>,
    /// Keep two records with the same game number, opening and players but
    /// different moves as two games (default: an error, exit 3).
    #[arg(long)]
    pub(crate) keep_collisions: bool,
}

#[derive(Args)]
pub(crate) struct TuneArgs {
    /// The engine, as a match's --engine: cmd=path [args="..."] [option.X=v]
    /// and one limit (nodes=N, depth=N, st=S or tc=B+I); name= is optional.
    #[arg(long, num_args = 1.., required = true, value_name = "KEY=VALUE")]
    pub(crate) engine: Vec<String>,
    /// Tune the engine's spin options whose names start with this (e.g.
    /// `Search`), from their defaults; c_end and r_end from stackfish's own
    /// parameter table, or 5% of the range and 0.002 for other names.
    #[arg(
        long,
        value_name = "PREFIX",
        conflicts_with = "params",
        required_unless_present = "params"
    )]
    pub(crate) params_prefix: Option<String>,
    /// Tune the parameters of this file instead: one `name,value,min,max,c_end,r_end`
    /// line each (Fishtest's format), `#` comments.
    #[arg(long, value_name = "FILE")]
    pub(crate) params: Option<PathBuf>,
    /// Iterations N (one perturbation each); c_end and r_end hold at the last.
    #[arg(long, default_value_t = 1000)]
    pub(crate) iterations: u64,
    /// Game pairs per iteration (one opening each, colours swapped).
    #[arg(long, default_value_t = 1)]
    pub(crate) pairs: u32,
    /// Iterations played at once (each worker runs two engine processes).
    #[arg(long, default_value_t = 1)]
    pub(crate) concurrency: u32,
    /// Seed of the perturbations and of the opening order.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// The game: mixtour, mixtour-5, ...
    #[arg(long, default_value = "mixtour", value_parser = manual::choices(stackfish::game::variant_names()))]
    pub(crate) game: String,
    /// Opening suite (one FEN or `startpos moves ...` per line); the start position without it.
    #[arg(long)]
    pub(crate) openings: Option<PathBuf>,
    /// Plies (engine moves) after which a game is a draw.
    #[arg(long, default_value_t = stackfish::arena::config::DEFAULT_MAX_PLIES)]
    pub(crate) maxplies: u32,
    /// The JSONL trace: a header line, then one line per iteration with theta.
    #[arg(long, default_value = "spsa.jsonl")]
    pub(crate) trace: PathBuf,
    /// Go on from the last iteration of --trace (same parameters, iterations, pairs and seed).
    #[arg(long)]
    pub(crate) resume: bool,
    /// Spall's stability constant A as a share of --iterations.
    #[arg(long, default_value_t = stackfish::arena::tune::DEFAULT_A_SHARE)]
    pub(crate) a_share: f64,
    /// Decay exponent of the learning rate a_k.
    #[arg(long, default_value_t = stackfish::arena::tune::DEFAULT_ALPHA)]
    pub(crate) alpha: f64,
    /// Decay exponent of the perturbation c_k.
    #[arg(long, default_value_t = stackfish::arena::tune::DEFAULT_GAMMA)]
    pub(crate) gamma: f64,
    /// How the perturbed values become integers: random (unbiased) or nearest.
    #[arg(long, value_enum, default_value = "random")]
    pub(crate) rounding: RoundingArg,
    /// Print theta every this many iterations (0: only at the end).
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub(crate) report_every: u64,
    /// Wait for ugiok/uciok, in ms.
    #[arg(long, value_name = "MS")]
    pub(crate) startup_timeout: Option<u64>,
    /// Cap on one depth- or node-limited search, in ms.
    #[arg(long, value_name = "MS")]
    pub(crate) max_move_time: Option<u64>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum RoundingArg {
    Random,
    Nearest,
}

#[derive(Args)]
pub(crate) struct WatchArgs {
    /// The folder the shards write their --jsonl records into (every *.jsonl in it).
    pub(crate) folder: PathBuf,
    /// SPRT of the first engine against the second: elo0=E0 elo1=E1 [alpha=A] [beta=B].
    #[arg(long, num_args = 1.., required = true, value_name = "KEY=VALUE")]
    pub(crate) sprt: Vec<String>,
    /// Candidate and base, comma-separated; default: the players of the schedule's first game.
    #[arg(long, value_delimiter = ',')]
    pub(crate) engines: Vec<String>,
    /// Games of the whole schedule: with all of them recorded the watch ends.
    #[arg(long)]
    pub(crate) games: Option<u32>,
    /// Slurm job id of the shards' array: --stop defaults to `scancel ID`,
    /// --running to `squeue --noheader --jobs ID`.
    #[arg(long, value_name = "ID")]
    pub(crate) job: Option<String>,
    /// Shell command run once the test is decided, to stop the shards.
    #[arg(long, value_name = "CMD")]
    pub(crate) stop: Option<String>,
    /// Shell command that exits 0 and prints something while shards still run.
    #[arg(long, value_name = "CMD")]
    pub(crate) running: Option<String>,
    /// Seconds between two looks at the folder.
    #[arg(long, default_value_t = 1.0, value_name = "SECS")]
    pub(crate) interval: f64,
    /// Seconds the folder must stay unchanged after the stop before the final figures.
    #[arg(long, default_value_t = 3.0, value_name = "SECS")]
    pub(crate) settle: f64,
    /// Give up after this many seconds (inconclusive unless decided).
    #[arg(long, value_name = "SECS")]
    pub(crate) timeout: Option<f64>,
    /// Summary file (same schema as a match's --json).
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
    /// HTML/SVG report.
    #[arg(long)]
    pub(crate) report: Option<PathBuf>,
}

#[derive(Args, Default)]
pub(crate) struct RunArgs {
    /// A JSON match config (fields as in protocol.md); flags override it.
    /// Without engines and without --config: tournaments/default.json.
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// An engine: name=A cmd=path [args="..."] [proto=ugi|uci] [option.X=v]
    /// [tc=10+0.1 | st=0.1] [depth=N] [nodes=N] [timemargin=MS] [dir=path].
    /// Repeat for each engine; the first is the candidate.
    #[arg(long, num_args = 1.., action = clap::ArgAction::Append, value_name = "KEY=VALUE")]
    pub(crate) engine: Vec<String>,
    /// The `--engine` occurrences, split (clap's derive cannot group them).
    #[arg(skip)]
    pub(crate) engine_groups: Vec<Vec<String>>,
    /// Settings applied to every engine before its own (e.g. tc=1+0.01).
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub(crate) each: Vec<String>,
    /// Number of games, rounded up to whole pairs (each opening with both colours).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_GAMES)))]
    pub(crate) games: Option<u32>,
    /// The game: mixtour, mixtour-5, ...
    #[arg(long, value_parser = manual::choices(stackfish::game::variant_names()))]
    pub(crate) game: Option<String>,
    /// Games played at once.
    #[arg(long)]
    pub(crate) concurrency: Option<u32>,
    /// Opening suite: one FEN or `startpos moves ...` per line, `#` comments.
    #[arg(long)]
    pub(crate) openings: Option<PathBuf>,
    /// Shuffle the openings with this seed (file order without it).
    #[arg(long)]
    pub(crate) seed: Option<u64>,
    /// Protocol log: every line with time, game, engine and direction.
    #[arg(long)]
    pub(crate) log: Option<PathBuf>,
    /// PGN-style record file (appended).
    #[arg(long)]
    pub(crate) pgn: Option<PathBuf>,
    /// JSON-lines record file, one game per line; needed by --resume.
    #[arg(long)]
    pub(crate) jsonl: Option<PathBuf>,
    /// Summary file written at the end.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
    /// Continue the match from the games in the --jsonl file.
    #[arg(long)]
    pub(crate) resume: bool,
    /// Warn and play on when an engine refuses an option or never
    /// advertised it (without it, the match stops before the first game).
    #[arg(long)]
    pub(crate) allow_bad_options: bool,
    /// Plies (engine moves) after which a game is a draw.
    #[arg(long)]
    pub(crate) maxplies: Option<u32>,
    /// Resign adjudication: moves=K score=CP [twosided=true|false]: both
    /// engines agree for K moves each (twosided=false: the loser's own K
    /// scores alone, as fastchess's default).
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub(crate) resign: Option<Vec<String>>,
    /// Draw adjudication: movenumber=M moves=K score=CP.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub(crate) draw: Option<Vec<String>>,
    /// Folder of Silo table files: a game ends as soon as its position is
    /// in a table, with the table's result.
    #[arg(long, value_name = "FOLDER")]
    pub(crate) tb: Option<PathBuf>,
    /// Who judges the games: `rules` (our rules library, every move checked)
    /// or `engines` (for games the library does not know: `query gameover/result`).
    #[arg(long, value_enum)]
    pub(crate) referee: Option<RefereeArg>,
    /// Event tag of the records.
    #[arg(long)]
    pub(crate) event: Option<String>,
    /// Wait for ugiok/uciok, in ms.
    #[arg(long, value_name = "MS")]
    pub(crate) startup_timeout: Option<u64>,
    /// Wait for readyok, in ms.
    #[arg(long, value_name = "MS")]
    pub(crate) ping_timeout: Option<u64>,
    /// Cap on one depth- or node-limited search, in ms.
    #[arg(long, value_name = "MS")]
    pub(crate) max_move_time: Option<u64>,
    /// Print the results block every N games (non-terminal output; 0 = only at the end).
    #[arg(long, value_name = "N")]
    pub(crate) ratinginterval: Option<u32>,
    /// SPRT of the first engine (candidate) against the second (base), in
    /// normalized Elo: elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05]. Stops at a bound.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub(crate) sprt: Option<Vec<String>>,
    /// roundrobin (every pair) or gauntlet (the first engine against each other).
    #[arg(long, value_name = "KIND", value_parser = manual::choices(&["roundrobin", "gauntlet"]))]
    pub(crate) tournament: Option<String>,
    /// Play only part K of N of the schedule (whole game pairs), e.g. 2/4;
    /// `auto` or `auto/N`: the part from the scheduler's environment (a Slurm
    /// array, a Kubernetes Indexed Job, GNU parallel's PARALLEL_SEQ).
    #[arg(long, value_name = "K/N|auto[/N]")]
    pub(crate) shard: Option<String>,
    /// Self-contained HTML/SVG report written at the end.
    #[arg(long)]
    pub(crate) report: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct OpeningsArgs {
    /// The game: mixtour, mixtour-5, coinstack, ...
    #[arg(long, default_value = "mixtour", value_parser = manual::choices(stackfish::game::variant_names()))]
    pub(crate) game: String,
    /// Plies of random moves from the start.
    #[arg(long, default_value_t = 4)]
    pub(crate) plies: u32,
    /// Start from another board: a StackAndConquer board file (.in,
    /// .stackboard), a saved game (.stacksav) or a position string.
    #[arg(long, value_name = "FILE|FEN")]
    pub(crate) board: Option<String>,
    /// Towers needed to win on a --board file (default 1).
    #[arg(long, requires = "board")]
    pub(crate) goal: Option<u32>,
    /// Openings to write (fewer if not enough distinct ones turn up).
    #[arg(long, default_value_t = 200)]
    pub(crate) count: usize,
    /// Seed of the random moves: the same seed writes the same suite.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Keep only openings that --engine scores within --maxcp of even.
    #[arg(long, requires = "engine")]
    pub(crate) balanced: bool,
    /// The engine for --balanced (same keys as the match's --engine; depth=, nodes= or st= limit the search).
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub(crate) engine: Option<Vec<String>>,
    /// Largest |score| in centi-units that counts as balanced.
    #[arg(long, default_value_t = 100)]
    pub(crate) maxcp: i32,
    /// Output file (stdout without it).
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct AnalyseArgs {
    /// Record files of matches (`--jsonl` or `--pgn`).
    #[arg(required = true)]
    pub(crate) records: Vec<PathBuf>,
    /// The analysing engine, as a match's --engine, with one limit per
    /// position (nodes=N, depth=N or st=S) [default: name=stackfish
    /// cmd=stackfish nodes=100000].
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub(crate) engine: Option<Vec<String>>,
    /// Cap on one search in milliseconds, after which the engine is given up on.
    #[arg(long)]
    pub(crate) max_move_time: Option<u64>,
}

#[derive(Args)]
pub(crate) struct ComplianceArgs {
    /// The dialect to speak.
    #[arg(long, value_enum, default_value = "ugi")]
    pub(crate) proto: ProtoArg,
    /// The game to check with.
    #[arg(long, default_value = "mixtour", value_parser = manual::choices(stackfish::game::variant_names()))]
    pub(crate) game: String,
    /// The engine command and its arguments.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub(crate) cmd: Vec<String>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum RefereeArg {
    Rules,
    Engines,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum ProtoArg {
    Ugi,
    Uci,
}
