//! The engine's UGI/UCI loop as the native binary runs it: the engine
//! crate's loop with table files (`SiloTablePath`) readable.

use std::io::{BufRead, Write};

pub use stackfish_engine::protocol::*;

/// Runs the protocol until `quit` or end of input, reading Silo tables
/// from files when `SiloTablePath` names a folder, and playing `networks`.
pub fn run(
    networks: stackfish_games::Networks,
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) {
    let host = Host {
        table_loader: Some(stackfish_engine_tables::load),
        networks,
    };
    run_with(host, input, output)
}
