//! The start-up CPU check of `stackfish` and `arena` on its own, with the
//! rules' fast paths after it: tests/cpu/run.sh builds it for x86-64-v3 (in
//! a minute, where the whole engine would take many) and runs it on an
//! emulated CPU without AVX, where it must refuse with the one line and
//! exit 2 rather than die of an illegal instruction.
//!
//! `main` is the binaries' (src/cli.rs `unsupported_cpu`): the check first,
//! the rest out of line.

use std::process::ExitCode;

use stackfish_games::mixtour::{Mixtour, MixtourVariant};
use stackfish_games::{perft, Game};

fn main() -> ExitCode {
    if stackfish_games::cpu::refuse_unsupported_build("cpu_check", &mut std::io::stderr().lock()) {
        return ExitCode::from(2);
    }
    start()
}

/// Work that runs the hot paths: a Mixtour perft to depth 4.
#[inline(never)]
fn start() -> ExitCode {
    let pos = Mixtour::start(&MixtourVariant::STANDARD);
    println!("perft 4: {}", perft(&pos, 4));
    ExitCode::SUCCESS
}
