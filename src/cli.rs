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
    /// What the error line starts with.
    prefix: &'static str,
    /// The status of a command line clap refuses.
    usage_code: u8,
}

/// `error: <what>`; usage errors exit 2 (clap's own status).
pub const STACKFISH: Program = Program {
    prefix: "error: ",
    usage_code: EXIT_BAD_INPUT,
};

/// `arena: <ArenaError>` (`arena: config error: ...`); usage errors exit 3
/// like every failed run.
pub const ARENA: Program = Program {
    prefix: "arena: ",
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

    /// A command line clap did not accept, or `--help` / `--version`: clap
    /// prints it (help on standard output, errors on standard error); help
    /// and version exit 0, errors with this program's usage status.
    pub fn usage(self, e: clap::Error) -> ExitCode {
        let _ = e.print();
        ExitCode::from(if e.use_stderr() { self.usage_code } else { 0 })
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
}
