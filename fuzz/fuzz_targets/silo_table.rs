//! A Silo endgame table file as `SiloTablePath` opens it (`Table::open`:
//! the header of format.rs, the length, the block index), then probed: the
//! input is written to a file, and a table that opens answers positions of
//! its configuration (values, best moves, lines) without a panic, from
//! blocks that may not decompress.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use stackfish_games::Side;
use stackfish_tables::format::Row;
use stackfish_tables::Table;

/// Entries probed in a table that opens.
const PROBES: u64 = 4;

fn path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("stackfish-fuzz-{}.tbl", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    std::fs::write(path(), data).expect("the fuzz table is written");
    let Ok(table) = Table::open(path()) else {
        return;
    };
    let config = table.config();
    let entries = table.header().entries;
    // Spread over the table, so that different blocks are read.
    for k in 0..PROBES {
        let index = (entries / PROBES) * k + (data.len() as u64 % entries.max(1));
        let row = Row::at(index % entries.max(1), config);
        for side in [Side::P1, Side::P2] {
            let pos = row.position(config, side);
            let _ = table.value(&pos);
            let _ = table.best_move(&pos);
            let _ = table.line(&pos);
        }
    }
    let _ = (table.problem(), table.header().statistics());
});
