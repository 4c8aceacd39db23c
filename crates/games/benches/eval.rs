//! The cost of the Mixtour evaluation as the search pays it, for
//! instruction counts under callgrind: positions of fixed pseudo-random
//! games, each evaluated once per round. `cargo bench -p stackfish-games
//! --bench eval -- <walk|fresh|incremental> [rounds]`: `walk` only plays
//! the games (the cost to subtract), `fresh` evaluates every position from
//! scratch, `incremental` as the search does: the network's sums kept from
//! move to move (`Game::eval_update`) and the evaluation read from them.
//! Instructions per evaluation = (count of a mode - count of `walk`) /
//! evaluations printed. `--hidden N` plays a network of N hidden units
//! with made-up weights in place of the shipped one, to see how the cost
//! grows with the first layer.

use std::hint::black_box;

use stackfish_games::mixtour::eval::FEATURES;
use stackfish_games::mixtour::nnue::{self, Network, INPUTS};
use stackfish_games::mixtour::{Mixtour, MixtourVariant};
use stackfish_games::Game;

const GAMES: u64 = 200;
const PLIES: usize = 60;

/// A fixed sequence of move choices (splitmix64), the same on every run.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.iter().skip(1).find(|a| !a.starts_with('-')).cloned();
    let mode = mode.unwrap_or_else(|| "fresh".into());
    let number = |after: &str| {
        args.iter()
            .position(|a| a == after)
            .and_then(|i| args.get(i + 1))
            .and_then(|a| a.parse::<u64>().ok())
    };
    let rounds = args
        .iter()
        .skip(1)
        .take_while(|a| *a != "--hidden")
        .find_map(|a| a.parse().ok())
        .unwrap_or(1);
    let mut nets = nnue::Nets::default();
    if let Some(hidden) = number("--hidden") {
        let hidden = hidden as usize;
        let mut state = 7;
        let mut small = || (splitmix(&mut state) % 61) as i16 - 30;
        let net = Network::new(
            1,
            (0..INPUTS * hidden).map(|_| small()).collect(),
            (0..hidden).map(|_| small()).collect(),
            (0..hidden).map(|_| small()).collect(),
            0,
            vec![1; FEATURES],
        );
        nets = nnue::Nets::before_built_in(net).expect("a network that loads");
    }
    let mut evaluations = 0u64;
    let mut sum = 0i64;
    let mut moves = Vec::new();
    for round in 0..rounds {
        let mut rng = round;
        for _ in 0..GAMES {
            let mut pos = Mixtour::start(&MixtourVariant::STANDARD);
            let mut acc = <Mixtour as Game>::Eval::default();
            let mut next = acc.clone();
            if mode == "incremental" {
                pos.eval_refresh(&nets, &mut acc);
            }
            for _ in 0..PLIES {
                if pos.outcome().is_over() {
                    break;
                }
                match mode.as_str() {
                    "walk" => {}
                    "fresh" => {
                        sum += nnue::evaluate(&nets, black_box(&pos)) as i64;
                        evaluations += 1;
                    }
                    "incremental" => {
                        sum += black_box(&pos).evaluate_with(&nets, &acc) as i64;
                        evaluations += 1;
                    }
                    other => {
                        eprintln!("unknown mode {other}: walk, fresh or incremental");
                        std::process::exit(2);
                    }
                }
                moves.clear();
                pos.generate_moves(&mut moves);
                let mv = moves[(splitmix(&mut rng) % moves.len() as u64) as usize];
                if mode == "incremental" {
                    let before = pos;
                    pos.play(mv);
                    before.eval_update(&nets, mv, &pos, &acc, &mut next);
                    std::mem::swap(&mut acc, &mut next);
                } else {
                    pos.play(mv);
                }
            }
        }
    }
    println!("{mode}: {evaluations} evaluations, checksum {sum}");
}
