//! A small learned evaluation for the standard game (5 x 5 board, one point
//! wins): one hidden layer over sparse inputs, plus the linear terms of
//! `eval` with weights of its own, all in integers. Trained by
//! `stackfish train` (crates/lab/src/train.rs) on positions of recorded games; the
//! weights ship in `net.bin` next to this file. Other boards and goals keep
//! the linear evaluation alone.
//!
//! Inputs, from the side to move's view (colours swapped when player 2 is to
//! move, so one set of weights serves both): one per cell and stack (30
//! stacks of height 1 to 4, each order of colours) and one per reserve size
//! of each side. At most 25 + 2 are active. Hidden: `HIDDEN` units, clipped
//! to [0, 1]. The sum is computed afresh at each evaluation (about 27 rows
//! of `HIDDEN` additions): positions are copied, not unmade, in the search.
//!
//! Integers: the first layer is scaled by `QA` (an activation of 1 is
//! `QA`), the output weights by `QB` per centi-unit, so the network's part
//! is `(b2 + sum h_i w2_i) / (QA * QB)` centi-units; the linear part is in
//! centi-units already.

use std::sync::OnceLock;

use super::board::{Bits, Board};
use super::eval::{features, FEATURES};
use super::Position;
use crate::{Game, Side};

pub const CELLS: usize = 25;
/// Stacks of height 1 to 4: codes 2..=31 of `Stack` (sentinel bit on top).
pub const CODES: usize = 30;
/// Reserve sizes 0..=20 of one side.
pub const RESERVES: usize = 21;
pub const INPUTS: usize = CELLS * CODES + 2 * RESERVES;
pub const HIDDEN: usize = 64;
/// Most inputs active at once: a stack per cell and two reserves.
pub const MAX_ACTIVE: usize = CELLS + 2;
pub const QA: i32 = 255;
pub const QB: i32 = 16;
const MAGIC: &[u8; 8] = b"SFNNUE01";

/// Why bytes are not a network this build can load.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetworkError {
    #[error("not a stackfish network (bad magic)")]
    BadMagic,
    /// The shape of the network is fixed at compile time; a file of another
    /// length is another shape.
    #[error("network of {found} bytes, expected {expected} for {INPUTS} x {HIDDEN}", INPUTS = INPUTS, HIDDEN = HIDDEN)]
    Length { found: usize, expected: usize },
    #[error("truncated")]
    Truncated,
}

/// The quantized network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    /// `INPUTS` rows of `HIDDEN`.
    pub w1: Vec<i16>,
    pub b1: Vec<i16>,
    pub w2: Vec<i16>,
    pub b2: i32,
    /// Weights of `eval::features`, centi-units.
    pub linear: [i32; FEATURES],
}

impl Network {
    /// The file format: `MAGIC`, then little-endian i16 `w1`, `b1`, `w2`,
    /// i32 `b2` and the `FEATURES` linear weights as i32.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        for v in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.b2.to_le_bytes());
        for v in self.linear {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        let body = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or(NetworkError::BadMagic)?;
        let want = 2 * (INPUTS * HIDDEN + 2 * HIDDEN) + 4 + 4 * FEATURES;
        if body.len() != want {
            return Err(NetworkError::Length {
                found: body.len(),
                expected: want,
            });
        }
        let mut i16s = body
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| (&mut i16s).take(n).collect::<Vec<i16>>();
        let (w1, b1, w2) = (take(INPUTS * HIDDEN), take(HIDDEN), take(HIDDEN));
        let rest = &body[2 * (INPUTS * HIDDEN + 2 * HIDDEN)..];
        let mut i32s = rest
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        let b2 = i32s.next().ok_or(NetworkError::Truncated)?;
        let mut linear = [0; FEATURES];
        for w in &mut linear {
            *w = i32s.next().ok_or(NetworkError::Truncated)?;
        }
        Ok(Network {
            w1,
            b1,
            w2,
            b2,
            linear,
        })
    }

    /// The network's evaluation of the inputs `active` and the linear
    /// features `f`, in centi-units. The sums are taken in 64 bits and the
    /// result saturated: a network file's weights are anyone's, and
    /// extreme ones must not overflow (the search clamps what it gets).
    pub fn evaluate(&self, active: &[u16], f: &[i32; FEATURES]) -> i32 {
        let mut acc = [0i32; HIDDEN];
        for (a, &b) in acc.iter_mut().zip(&self.b1) {
            *a = b as i32;
        }
        for &i in active {
            let row = &self.w1[i as usize * HIDDEN..(i as usize + 1) * HIDDEN];
            for (a, &w) in acc.iter_mut().zip(row) {
                *a += w as i32;
            }
        }
        let hidden: i64 = acc
            .iter()
            .zip(&self.w2)
            .map(|(&a, &w)| i64::from(a.clamp(0, QA)) * i64::from(w))
            .sum();
        let linear: i64 = f
            .iter()
            .zip(&self.linear)
            .map(|(&f, &w)| i64::from(f) * i64::from(w))
            .sum();
        let value = (i64::from(self.b2) + hidden) / i64::from(QA * QB) + linear;
        value.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
    }
}

static NETWORK: OnceLock<Option<Network>> = OnceLock::new();

/// The network the evaluation uses: the one `install`ed, else the one in
/// `net.bin`.
pub fn network() -> Option<&'static Network> {
    NETWORK
        .get_or_init(|| Network::from_bytes(include_bytes!("net.bin")).ok())
        .as_ref()
}

/// Puts `net` in place of the built-in network for the rest of the process
/// (`None`: the linear evaluation everywhere), so a trained network can be
/// played without a rebuild. Only before the first evaluation: false, and
/// nothing changes, after it.
pub fn install(net: Option<Network>) -> bool {
    NETWORK.set(net).is_ok()
}

/// Whether the network knows this kind of position: the full 5 x 5 board
/// (on either board type) and a one-point goal.
pub fn applies<B: Board>(pos: &Position<B>) -> bool {
    if pos.goal() != 1 {
        return false;
    }
    if B::MAX_FILES == 5 && B::MAX_RANKS == 5 {
        return true;
    }
    let board = pos.board();
    board.files() == 5 && board.ranks() == 5 && board.playable().count() == 25
}

/// The active inputs of `pos` (which `applies`), from the side to move's
/// view; returns how many were written.
pub fn active<B: Board>(pos: &Position<B>, out: &mut [u16; MAX_ACTIVE]) -> usize {
    let us = pos.side_to_move();
    let mut n = 0;
    for cell in pos.occupied().cells() {
        let stack = pos.stack(cell as u8);
        let h = stack.height();
        let mut code = stack.code();
        if us == Side::P2 {
            // Swap colours below the sentinel bit: our pieces read as 0.
            code ^= (1 << h) - 1;
        }
        // Cells numbered a1 = 0, b1 = 1, ..., e5 = 24 on either board type.
        let cell = cell / B::STRIDE * 5 + cell % B::STRIDE;
        out[n] = (cell * CODES + code as usize - 2) as u16;
        n += 1;
    }
    let them = us.opponent();
    let reserve = |side: Side| (pos.reserve(side) as usize).min(RESERVES - 1);
    out[n] = (CELLS * CODES + reserve(us)) as u16;
    out[n + 1] = (CELLS * CODES + RESERVES + reserve(them)) as u16;
    n + 2
}

/// The network's evaluation of `pos`, if there is a network and it applies.
pub fn evaluate<B: Board>(pos: &Position<B>) -> Option<i32> {
    let net = network()?;
    if !applies(pos) {
        return None;
    }
    let mut inputs = [0u16; MAX_ACTIVE];
    let n = active(pos, &mut inputs);
    Some(net.evaluate(&inputs[..n], &features(pos)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mixtour::{Mixtour, MixtourVariant};

    #[test]
    fn inputs_are_the_same_with_colours_and_turn_swapped() {
        let a = Mixtour::from_fen(
            &MixtourVariant::STANDARD,
            "x,1,x3/x4,22/x2,221,x2/2,2,x2,2211/11,x4 1 14,12 0,0 1 -",
        )
        .unwrap();
        let b = Mixtour::from_fen(
            &MixtourVariant::STANDARD,
            "x,2,x3/x4,11/x2,112,x2/1,1,x2,1122/22,x4 2 12,14 0,0 1 -",
        )
        .unwrap();
        let (mut ia, mut ib) = ([0; MAX_ACTIVE], [0; MAX_ACTIVE]);
        let (na, nb) = (active(&a, &mut ia), active(&b, &mut ib));
        assert_eq!(ia[..na], ib[..nb]);
        // Seven stacks (b5, e4, c3, a2, b2, e2, a1) and two reserves.
        assert_eq!(na, 7 + 2);
        assert!(ia[..na].iter().all(|&i| (i as usize) < INPUTS));
    }

    /// The standard game is evaluated by the network, a five-point game
    /// (same board, same stacks) by the linear features alone.
    #[test]
    fn the_network_evaluates_the_standard_game_and_only_it() {
        let board = "x,1,x3/x4,22/x2,221,x2/2,2,x2,2211/11,x4 1 14,12 0,0";
        let standard =
            Mixtour::from_fen(&MixtourVariant::STANDARD, &format!("{board} 1 -")).unwrap();
        let five =
            Mixtour::from_fen(&MixtourVariant::FIVE_POINTS, &format!("{board} 5 -")).unwrap();
        assert_eq!(
            evaluate(&standard),
            Some(super::super::eval::evaluate(&standard))
        );
        assert_eq!(evaluate(&five), None);
        assert_eq!(
            super::super::eval::evaluate(&five),
            super::super::eval::linear(&five)
        );
    }

    /// The shipped network has learnt the game's main fact: four-high
    /// stacks one move from a tower are worth the most. Player 1 tops a1
    /// and c3 (four high) and e5 (three high), player 2 only b4 and d2:
    /// good for player 1 with the move (it completes a tower at once), and
    /// still bad for player 2 when player 2 moves.
    #[test]
    fn the_shipped_network_sees_a_won_position() {
        let fen =
            |side: u8| format!("x4,221/x,2,x3/x2,2221,x2/x3,2,x/2221,x4 {side} 17,10 0,0 1 -");
        let p1 = Mixtour::from_fen(&MixtourVariant::STANDARD, &fen(1)).unwrap();
        let p2 = Mixtour::from_fen(&MixtourVariant::STANDARD, &fen(2)).unwrap();
        let (to_move, waiting) = (evaluate(&p1).unwrap(), evaluate(&p2).unwrap());
        assert!(to_move > 200 && waiting < 0, "{to_move} {waiting}");
    }

    #[test]
    fn the_file_round_trips_and_the_shipped_one_reads() {
        let net = Network {
            w1: (0..INPUTS * HIDDEN).map(|i| (i % 97) as i16 - 48).collect(),
            b1: (0..HIDDEN).map(|i| i as i16).collect(),
            w2: (0..HIDDEN).map(|i| -(i as i16)).collect(),
            b2: -12345,
            linear: [3; FEATURES],
        };
        assert_eq!(Network::from_bytes(&net.to_bytes()), Ok(net.clone()));
        assert!(Network::from_bytes(&net.to_bytes()[..100]).is_err());
        assert!(
            Network::from_bytes(include_bytes!("net.bin")).is_ok(),
            "net.bin does not read"
        );
    }

    /// Found by the fuzz target `mixtour_network`: a network file whose
    /// weights are all at their extremes overflowed the sums (a panic with
    /// overflow checks, a wrapped score without). It saturates instead.
    #[test]
    fn fuzz_mixtour_network_extreme_weights_saturate() {
        let pos = Mixtour::from_fen(
            &MixtourVariant::STANDARD,
            "x,1,x3/x4,22/x2,221,x2/2,2,x2,2211/11,x4 1 14,12 0,0 1 -",
        )
        .unwrap();
        let mut inputs = [0; MAX_ACTIVE];
        let n = active(&pos, &mut inputs);
        let f = features(&pos);
        let extreme = |w: i16, b: i32| Network {
            w1: vec![w; INPUTS * HIDDEN],
            b1: vec![w; HIDDEN],
            w2: vec![w; HIDDEN],
            b2: b,
            linear: [b; FEATURES],
        };
        let high = extreme(i16::MAX, i32::MAX).evaluate(&inputs[..n], &f);
        let low = extreme(i16::MAX, i32::MIN).evaluate(&inputs[..n], &f);
        // Every linear weight at an extreme: the sum is far beyond i32, on
        // the side of the features' sum (times the weights' sign).
        let sum: i32 = f.iter().sum();
        assert_ne!(sum, 0, "the position has features");
        let (up, down) = if sum > 0 {
            (i32::MAX, i32::MIN)
        } else {
            (i32::MIN, i32::MAX)
        };
        assert_eq!((high, low), (up, down));
    }
}
