//! How the two binaries end: a failure becomes one line on standard error
//! and an exit status, the same way for `stackfish` and `arena`.
//!
//! The library returns typed errors; a binary turns each into a [`Failure`]
//! (its status and its text) where it knows what the status means, and
//! [`Program::exit`] prints the line in that program's format (protocol.md):
//! `error: <what>` for `stackfish`, `arena: <kind> error: <what>` for the
//! arena, whose errors name their kind themselves.

use std::fmt::Display;
use std::process::ExitCode;

use stackfish_arena::ArenaError;

/// `stackfish`: a bad file, position string, flag or game, or a file that
/// cannot be read or written.
pub const EXIT_BAD_INPUT: u8 = 2;
/// `stackfish solve --write` / `--verify`: the table could not be made or
/// is bad.
pub const EXIT_TABLE_FAILED: u8 = 1;
/// `arena`: the run failed (bad flags or config, an engine that cannot be
/// started, i/o); also its usage errors.
pub const EXIT_RUN_FAILED: u8 = 3;

/// Both programs: this build was compiled for instructions the CPU lacks
/// (see [`unsupported_cpu`]).
pub const EXIT_CPU_UNSUPPORTED: u8 = 2;

/// `main`'s first call, before anything that could use instructions a
/// CPU-specific build (`-C target-cpu=...`) was compiled with: on a CPU that
/// lacks some, the one line of `stackfish_games::cpu::refuse_unsupported_build`
/// (what the build needs, what the CPU lacks, the build to use) on standard
/// error and `Some` exit status [`EXIT_CPU_UNSUPPORTED`]; `None` otherwise,
/// always in a default (baseline) build. Kept out of line and free of
/// formatting: in such a build any code may use the instructions, this too.
#[inline(never)]
pub fn unsupported_cpu(program: &str) -> Option<ExitCode> {
    let refused =
        stackfish_games::cpu::refuse_unsupported_build(program, &mut std::io::stderr().lock());
    refused.then(|| ExitCode::from(EXIT_CPU_UNSUPPORTED))
}

/// A command that failed: its exit status and what to say about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub fn new(code: u8, message: impl Display) -> Failure {
        Failure {
            code,
            message: message.to_string(),
        }
    }

    /// `stackfish`'s failure for bad input ([`EXIT_BAD_INPUT`]).
    pub fn bad_input(message: impl Display) -> Failure {
        Failure::new(EXIT_BAD_INPUT, message)
    }
}

/// Every failure of an arena run has the same status.
impl From<ArenaError> for Failure {
    fn from(e: ArenaError) -> Failure {
        Failure::new(EXIT_RUN_FAILED, e)
    }
}

/// One binary's way of saying it failed.
#[derive(Clone, Copy, Debug)]
pub struct Program {
    /// The program's name, for the hint to its `--help`.
    name: &'static str,
    /// What the error line starts with.
    prefix: &'static str,
    /// What a usage error's line says after the prefix.
    usage_kind: &'static str,
    /// The status of a command line clap refuses.
    usage_code: u8,
}

/// `error: <what>`; usage errors exit 2 (clap's own status).
pub const STACKFISH: Program = Program {
    name: "stackfish",
    prefix: "error: ",
    usage_kind: "",
    usage_code: EXIT_BAD_INPUT,
};

/// `arena: <ArenaError>` (`arena: config error: ...`); usage errors exit 3
/// like every failed run.
pub const ARENA: Program = Program {
    name: "arena",
    prefix: "arena: ",
    usage_kind: "usage error: ",
    usage_code: EXIT_RUN_FAILED,
};

impl Program {
    /// The exit status of `result`: a success's own status, or the
    /// failure's after its one line on standard error.
    pub fn exit(self, result: Result<u8, Failure>) -> ExitCode {
        match result {
            Ok(code) => ExitCode::from(code),
            Err(f) => {
                eprintln!("{}", self.line(&f));
                ExitCode::from(f.code)
            }
        }
    }

    /// The line printed for `failure`.
    pub fn line(self, failure: &Failure) -> String {
        format!("{}{}", self.prefix, failure.message)
    }

    /// A command line clap did not accept, or `--help` / `--version`: help
    /// and version as clap prints them (standard output, exit 0); an error
    /// as the program's one line on standard error (`usage_line`), with this
    /// program's usage status.
    pub fn usage(self, e: clap::Error) -> ExitCode {
        if !e.use_stderr() {
            let _ = e.print();
            return ExitCode::from(0);
        }
        eprintln!("{}", self.usage_line(&e.render().to_string()));
        ExitCode::from(self.usage_code)
    }

    /// clap's several lines of error, usage and tips as one line: the
    /// error with what it lists (the missing arguments), clap's tips (a
    /// similar argument...), and where help is: the help of the subcommand
    /// the usage names (`stackfish perft --help`), else the program's.
    pub fn usage_line(self, clap_text: &str) -> String {
        let mut lines = clap_text.lines();
        let first = lines.next().map(str::trim).unwrap_or("bad command line");
        let what = first.strip_prefix("error: ").unwrap_or(first);
        // An error ending in ':' lists its subjects on the indented lines
        // below it, up to the first blank line.
        let below: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.trim().is_empty())
            .map(str::trim)
            .collect();
        let mut rest: Vec<&str> = lines.map(str::trim).filter(|l| !l.is_empty()).collect();
        let what = match what.strip_suffix(':') {
            Some(head) if !below.is_empty() => format!("{head}: {}", below.join(", ")),
            // Not a list: tips and choices, read with the rest.
            _ => {
                rest.splice(0..0, below);
                what.to_string()
            }
        };
        // Tips ("a similar argument exists") and the choices of a closed
        // value ("[possible values: ...]"); the usage block is left out.
        let tips: Vec<&str> = rest
            .iter()
            .filter_map(|l| {
                l.strip_prefix("tip: ")
                    .or_else(|| l.strip_prefix('[').and_then(|l| l.strip_suffix(']')))
            })
            .collect();
        let tips = match tips.is_empty() {
            true => String::new(),
            false => format!(" ({})", tips.join("; ")),
        };
        // "Usage: stackfish perft [OPTIONS] <DEPTH>": the command's words
        // before its first option or argument.
        let command = rest
            .iter()
            .find_map(|l| l.strip_prefix("Usage: "))
            .map(|usage| {
                let words: Vec<&str> = usage
                    .split_whitespace()
                    .take_while(|w| !w.starts_with(['[', '<', '-']))
                    .collect();
                words.join(" ")
            })
            .filter(|c| c.split(' ').next() == Some(self.name))
            .unwrap_or_else(|| self.name.to_string());
        format!(
            "{}{}{what}{tips}; try '{command} --help'",
            self.prefix, self.usage_kind
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_program_keeps_its_line_and_status() {
        let f = Failure::bad_input("cannot read x.jsonl: no such file");
        assert_eq!(
            STACKFISH.line(&f),
            "error: cannot read x.jsonl: no such file"
        );
        assert_eq!(f.code, 2);
        let f = Failure::from(ArenaError::Config("--games must be at least 1".into()));
        assert_eq!(
            ARENA.line(&f),
            "arena: config error: --games must be at least 1"
        );
        assert_eq!(f.code, 3);
    }

    #[test]
    fn a_usage_error_is_one_line_with_the_tips_and_a_hint_to_help() {
        let clap_text = "error: unexpected argument '--gmae' found\n\n  tip: a similar argument exists: '--game'\n\nUsage: stackfish perft --game <GAME>\n\nFor more information, try '--help'.\n";
        assert_eq!(
            STACKFISH.usage_line(clap_text),
            "error: unexpected argument '--gmae' found (a similar argument exists: '--game'); try 'stackfish perft --help'"
        );
        assert_eq!(
            STACKFISH.usage_line("error: invalid value 'cmd' for '<SHELL>'\n  [possible values: bash, zsh]\n\nFor more information, try '--help'.\n"),
            "error: invalid value 'cmd' for '<SHELL>' (possible values: bash, zsh); try 'stackfish --help'"
        );
        assert_eq!(
            ARENA.usage_line("error: a value is required for '--games <GAMES>' but none was supplied\n\nFor more information, try '--help'.\n"),
            "arena: usage error: a value is required for '--games <GAMES>' but none was supplied; try 'arena --help'"
        );
    }

    #[test]
    fn a_missing_argument_is_named_and_the_subcommands_help_pointed_at() {
        let clap_text = "error: the following required arguments were not provided:\n  <DEPTH>\n\nUsage: stackfish perft <DEPTH>\n\nFor more information, try '--help'.\n";
        assert_eq!(
            STACKFISH.usage_line(clap_text),
            "error: the following required arguments were not provided: <DEPTH>; try 'stackfish perft --help'"
        );
        let clap_text = "error: the following required arguments were not provided:\n  --engine <ENGINE>\n  <GAMES>\n\nUsage: arena compliance [OPTIONS] --engine <ENGINE> <GAMES>\n\nFor more information, try '--help'.\n";
        assert_eq!(
            ARENA.usage_line(clap_text),
            "arena: usage error: the following required arguments were not provided: --engine <ENGINE>, <GAMES>; try 'arena compliance --help'"
        );
    }
}
