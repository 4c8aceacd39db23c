//! The Mixtour network file (`Network::from_bytes`, what `STACKFISH_NET`
//! loads): the input as a whole file, and written over the shipped
//! network at an offset it picks (so that most of a file still reads and
//! the weights it changes reach the evaluation). A network that loads must
//! evaluate every position without a panic.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use stackfish_games::mixtour::nnue::{self, Network, MAX_ACTIVE};
use stackfish_games::mixtour::{Mixtour, MixtourVariant};
use stackfish_games::Game;

/// Positions of a game played from the start, each with its network inputs.
fn positions() -> &'static [Mixtour] {
    static POSITIONS: OnceLock<Vec<Mixtour>> = OnceLock::new();
    POSITIONS.get_or_init(|| {
        let mut pos = Mixtour::start(&MixtourVariant::STANDARD);
        let mut out = vec![pos.clone()];
        let mut moves = Vec::new();
        for ply in 0..40 {
            moves.clear();
            pos.generate_moves(&mut moves);
            if moves.is_empty() || pos.outcome().is_over() {
                break;
            }
            pos.play(moves[(ply * 7 + 3) % moves.len()]);
            out.push(pos.clone());
        }
        out
    })
}

fn evaluate_all(net: &Network) {
    for pos in positions() {
        if !nnue::applies(pos) {
            continue;
        }
        let mut active = [0u16; MAX_ACTIVE];
        let n = nnue::active(pos, &mut active);
        let features = stackfish_games::mixtour::eval::features(pos);
        let _ = net.evaluate(&active[..n], &features);
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(net) = Network::from_bytes(data) {
        evaluate_all(&net);
    }
    let Some(shipped) = nnue::Nets::built_in().first() else {
        return;
    };
    let Some((at, patch)) = data.split_first_chunk::<4>() else {
        return;
    };
    let mut bytes = shipped.to_bytes();
    let at = u32::from_le_bytes(*at) as usize % (bytes.len() + 1);
    let end = (at + patch.len()).min(bytes.len());
    bytes[at..end].copy_from_slice(&patch[..end - at]);
    if let Ok(net) = Network::from_bytes(&bytes) {
        evaluate_all(&net);
    }
});
