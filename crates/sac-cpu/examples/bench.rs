//! The Mixtour part of `bench` on the script's engine, natively: the
//! reference the script's speed in a JS engine is compared with
//! (tools/js-speed.sh). Prints the bench lines and `<nodes> nodes <nps> nps`.
//!
//!     cargo run --profile dist -p stackfish-sac-cpu --example bench

use std::time::Instant;

fn main() {
    let start = Instant::now();
    let nodes = stackfish_sac_cpu::bench_mixtour(None, &mut |line| println!("{line}"));
    let ms = start.elapsed().as_millis().max(1) as u64;
    println!("{nodes} nodes {} nps", nodes * 1000 / ms);
}
