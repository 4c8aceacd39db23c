//! A network, its file and its kept sums: the file format (a header
//! naming the game and the shape, then the weights), the check that the
//! integer sums cannot overflow, the quantized forward pass, the first
//! layer's sums kept per ply. A game says what its inputs are through
//! `Layout` and the closures it hands to `Network::refresh` and
//! `Network::update`; which networks an evaluation plays is its caller's
//! (each game's `Nets`).
//!
//! A network: one hidden layer over sparse inputs (each an input that is
//! on or off, from the side to move's view), clipped to [0, 1], plus linear
//! terms over the game's hand-made features with weights of their own, all
//! in integers. The first layer is scaled by `QA` (an activation of 1 is
//! `QA`), the output weights by `QB` per centi-unit, so the network's part
//! is `(b2 + sum h_i w2_i) / (QA * QB)` centi-units; the linear part is in
//! centi-units already.

use std::marker::PhantomData;
use std::ops::Range;

use std::fmt;

use crate::simd;

pub const QA: i32 = 255;
pub const QB: i32 = 16;
/// The most hidden units a network may have.
pub const MAX_HIDDEN: usize = 512;
/// The most inputs any game's network has active at once (the length of
/// the row lists the kernels take).
pub const MAX_ACTIVE: usize = 64;
/// The most inputs one move turns off (or on) in any game, per view.
pub const MAX_CHANGED: usize = 8;
/// The file's first bytes.
const MAGIC: &[u8; 8] = b"STACKNET";
/// The first bytes of a version 1 file (no header: 792 x 64 implied).
const MAGIC_V1: &[u8; 8] = b"SFNNUE01";
/// The format this build reads and writes.
pub const VERSION: u16 = 2;
/// Magic, version, game, scope, a zero byte, inputs, hidden units, linear
/// features.
pub const HEADER_BYTES: usize = 8 + 2 + 8 + 1 + 1 + 4 + 4 + 4;

/// What a game's network is: its name in the file, its inputs and
/// features, and what the scope byte of the header may say.
pub trait Layout: 'static {
    /// The game field of the header: the name, zero-padded to 8 bytes.
    const GAME: &'static [u8; 8];
    /// The name as messages give it: in the file's field, and as a title.
    const NAME: &'static str;
    const TITLE: &'static str;
    const INPUTS: usize;
    /// The linear features (the game's hand-made evaluation terms).
    const FEATURES: usize;
    /// The bits the scope byte may have (at least one is set): which
    /// games of the kind the network evaluates.
    const SCOPE_BITS: u8;
    /// The name of the scope byte and what it means, for the error of a
    /// bad one.
    const SCOPE_FIELD: &'static str;
    const SCOPE: &'static str;
    /// Groups of inputs of which at most one is active at once, covering
    /// every input: with them `Network::check` bounds the sums.
    fn groups() -> Vec<Range<usize>>;

    /// What else the game's engine needs of a network, checked after
    /// everything else `Network::check` checks (Focus: its linear part
    /// kept beside the sums fits their 16 bits). Nothing by default.
    fn check_layout(net: &Network<Self>) -> Result<(), NetworkError>
    where
        Self: Sized,
    {
        let _ = net;
        Ok(())
    }
}

/// Why bytes are not a network this build can load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkError {
    BadMagic,
    Version {
        found: u16,
    },
    Game {
        found: String,
        expected: &'static str,
    },
    Scope {
        found: u8,
        field: &'static str,
        meaning: &'static str,
    },
    Inputs {
        found: u32,
        expected: usize,
        game: &'static str,
    },
    Features {
        found: u32,
        expected: usize,
        game: &'static str,
    },
    /// The header gives the shape, the shape the length.
    Length {
        found: usize,
        expected: usize,
        hidden: usize,
    },
    Truncated {
        found: usize,
    },
    /// The sums of the first layer are kept in 16 bits.
    Accumulator {
        unit: usize,
        bound: i64,
    },
    /// Focus keeps its linear part with the sums (`coinstack::nnue`).
    Linear {
        bound: i64,
    },
    /// The output layer is summed in 32 bits.
    Output {
        bound: i64,
    },
    /// The vector kernels take the hidden units in blocks of `simd::LANES`.
    Hidden {
        hidden: usize,
    },
    Shape {
        what: &'static str,
        found: usize,
        expected: usize,
    },
}

impl fmt::Display for NetworkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadMagic => write!(f, "not a stackfish network (bad magic)"),
            Self::Version { found } => write!(
                f,
                "network file version {found}; this build reads version {VERSION}"
            ),
            Self::Game { found, expected } => write!(f, "a network for {found}, not for {expected}"),
            Self::Scope {
                found,
                field,
                meaning,
            } => write!(f, "{field} field {found:#05b}: {meaning}"),
            Self::Inputs {
                found,
                expected,
                game,
            } => write!(
                f,
                "{found} inputs; this build's {game} network has {expected}"
            ),
            Self::Features {
                found,
                expected,
                game,
            } => write!(
                f,
                "{found} linear features; this build's {game} evaluation has {expected}"
            ),
            Self::Length {
                found,
                expected,
                hidden,
            } => write!(
                f,
                "network of {found} bytes, expected {expected} for {hidden} hidden units"
            ),
            Self::Truncated { found } => write!(
                f,
                "truncated: {found} bytes, shorter than the {HEADER_BYTES}-byte header"
            ),
            Self::Accumulator { unit, bound } => write!(
                f,
                "hidden unit {unit} can sum to {bound}, beyond the 16 bits its accumulator has"
            ),
            Self::Linear { bound } => write!(
                f,
                "the linear features can sum to {bound}, beyond the 16 bits they are kept in"
            ),
            Self::Output { bound } => write!(f, "the output weights can sum to {bound}, beyond 32 bits"),
            Self::Hidden { hidden } => write!(
                f,
                "{hidden} hidden units: a network has a positive multiple of {}, at most {MAX_HIDDEN}",
                simd::LANES
            ),
            Self::Shape {
                what,
                found,
                expected,
            } => write!(f, "{what} has {found} weights, expected {expected}"),
        }
    }
}

impl std::error::Error for NetworkError {}

/// The game a network file is for (its header's game field), if the file
/// starts as a network of this format does.
pub fn game_of(bytes: &[u8]) -> Option<String> {
    if !bytes.starts_with(MAGIC) || bytes.len() < HEADER_BYTES {
        return None;
    }
    let name = bytes[10..18].split(|&b| b == 0).next().unwrap_or(&[]);
    Some(String::from_utf8_lossy(name).into_owned())
}

/// A quantized network of the game `L`.
#[derive(Debug, PartialEq, Eq)]
pub struct Network<L> {
    /// The scope byte (`Layout::SCOPE`): for Mixtour the goals it
    /// evaluates, bit g - 1 for goal g.
    pub scope: u8,
    /// `L::INPUTS` rows of `hidden` (the length of `b1`).
    pub w1: Vec<i16>,
    pub b1: Vec<i16>,
    pub w2: Vec<i16>,
    pub b2: i32,
    /// Weights of the game's linear features, centi-units.
    pub linear: Vec<i32>,
    layout: PhantomData<fn() -> L>,
}

impl<L> Clone for Network<L> {
    fn clone(&self) -> Self {
        Network {
            scope: self.scope,
            w1: self.w1.clone(),
            b1: self.b1.clone(),
            w2: self.w2.clone(),
            b2: self.b2,
            linear: self.linear.clone(),
            layout: PhantomData,
        }
    }
}

impl<L: Layout> Network<L> {
    /// A network of these weights (unchecked: `check` says whether the
    /// engine can use it).
    pub fn new(
        scope: u8,
        w1: Vec<i16>,
        b1: Vec<i16>,
        w2: Vec<i16>,
        b2: i32,
        linear: Vec<i32>,
    ) -> Network<L> {
        Network {
            scope,
            w1,
            b1,
            w2,
            b2,
            linear,
            layout: PhantomData,
        }
    }

    /// The file format (protocol.md, "The network file"): a header of
    /// `HEADER_BYTES` (magic, version, game, scope, shape), then
    /// little-endian i16 `w1`, `b1`, `w2`, i32 `b2` and the linear weights
    /// as i32.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(L::GAME);
        out.extend_from_slice(&[self.scope, 0]);
        for n in [L::INPUTS, self.hidden(), L::FEATURES] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        for v in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.b2.to_le_bytes());
        for v in &self.linear {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// Reads a file of `to_bytes`'s format, or says what is wrong with it
    /// first: magic, version, game, scope, shape, length, then the sums
    /// (`check`).
    pub fn from_bytes(bytes: &[u8]) -> Result<Network<L>, NetworkError> {
        if bytes.starts_with(MAGIC_V1) {
            return Err(NetworkError::Version { found: 1 });
        }
        if !bytes.starts_with(MAGIC) {
            return Err(NetworkError::BadMagic);
        }
        let Some((header, body)) = bytes.split_first_chunk::<HEADER_BYTES>() else {
            return Err(NetworkError::Truncated { found: bytes.len() });
        };
        let u32_at = |at: usize| {
            u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
        };
        let version = u16::from_le_bytes([header[8], header[9]]);
        if version != VERSION {
            return Err(NetworkError::Version { found: version });
        }
        if &header[10..18] != L::GAME {
            let name = header[10..18].split(|&b| b == 0).next().unwrap_or(&[]);
            return Err(NetworkError::Game {
                found: String::from_utf8_lossy(name).into_owned(),
                expected: L::NAME,
            });
        }
        let scope = header[18];
        if scope == 0 || scope & !L::SCOPE_BITS != 0 {
            return Err(NetworkError::Scope {
                found: scope,
                field: L::SCOPE_FIELD,
                meaning: L::SCOPE,
            });
        }
        let (inputs, hidden, features) = (u32_at(20), u32_at(24), u32_at(28));
        if inputs as usize != L::INPUTS {
            return Err(NetworkError::Inputs {
                found: inputs,
                expected: L::INPUTS,
                game: L::TITLE,
            });
        }
        if features as usize != L::FEATURES {
            return Err(NetworkError::Features {
                found: features,
                expected: L::FEATURES,
                game: L::TITLE,
            });
        }
        let hidden = hidden as usize;
        if hidden == 0 || !hidden.is_multiple_of(simd::LANES) || hidden > MAX_HIDDEN {
            return Err(NetworkError::Hidden { hidden });
        }
        let want = 2 * (L::INPUTS * hidden + 2 * hidden) + 4 + 4 * L::FEATURES;
        if body.len() != want {
            return Err(NetworkError::Length {
                found: bytes.len(),
                expected: HEADER_BYTES + want,
                hidden,
            });
        }
        let mut i16s = body
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| (&mut i16s).take(n).collect::<Vec<i16>>();
        let (w1, b1, w2) = (take(L::INPUTS * hidden), take(hidden), take(hidden));
        let mut i32s = body[2 * (L::INPUTS * hidden + 2 * hidden)..]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        // The length was checked: every value is there.
        let b2 = i32s.next().unwrap_or(0);
        let linear = i32s.take(L::FEATURES).collect();
        let net = Network::new(scope, w1, b1, w2, b2, linear);
        net.check()?;
        Ok(net)
    }

    /// The number of hidden units.
    pub fn hidden(&self) -> usize {
        self.b1.len()
    }

    /// Whether any linear feature has a weight: a network without them
    /// (`stackfish train --no-linear`) is evaluated without computing
    /// the features.
    #[inline]
    pub fn has_linear(&self) -> bool {
        self.linear.iter().any(|&w| w != 0)
    }

    /// Whether the accumulators and the output layer compute this
    /// network's sums exactly: the shapes agree, and no sum can leave the
    /// integers it is kept in (every network `stackfish train` writes
    /// passes; a file of extreme weights does not).
    pub fn check(&self) -> Result<(), NetworkError> {
        let hidden = self.hidden();
        if hidden == 0 || !hidden.is_multiple_of(simd::LANES) || hidden > MAX_HIDDEN {
            return Err(NetworkError::Hidden { hidden });
        }
        for (what, found, expected) in [
            ("the first layer", self.w1.len(), L::INPUTS * hidden),
            ("the output layer", self.w2.len(), hidden),
            ("the linear part", self.linear.len(), L::FEATURES),
        ] {
            if found != expected {
                return Err(NetworkError::Shape {
                    what,
                    found,
                    expected,
                });
            }
        }
        // At most one input of each group is active.
        let mut bound: Vec<i64> = self.b1.iter().map(|&b| i64::from(b).abs()).collect();
        for group in L::groups() {
            for (j, bound) in bound.iter_mut().enumerate() {
                let most = group
                    .clone()
                    .map(|i| i64::from(self.w1[i * hidden + j]).abs())
                    .max()
                    .unwrap_or(0);
                *bound += most;
            }
        }
        if let Some((unit, &bound)) = bound
            .iter()
            .enumerate()
            .find(|(_, &b)| b > i64::from(i16::MAX))
        {
            return Err(NetworkError::Accumulator { unit, bound });
        }
        let bound: i64 = self
            .w2
            .iter()
            .map(|&w| i64::from(w).abs() * i64::from(QA))
            .sum();
        if bound > i64::from(i32::MAX) {
            return Err(NetworkError::Output { bound });
        }
        L::check_layout(self)
    }

    /// Row `input` of the first layer.
    #[inline(always)]
    pub fn row(&self, input: usize) -> &[i16] {
        let hidden = self.hidden();
        &self.w1[input * hidden..(input + 1) * hidden]
    }

    /// The evaluation from the first layer's sums `acc` (one view) and the
    /// linear features `f`: what `evaluate` computes from the inputs.
    #[inline]
    pub fn evaluate_sums(&self, acc: &[i16], f: &[i32]) -> i32 {
        let hidden = i64::from(simd::output(acc, &self.w2, QA as i16));
        self.finish(hidden, f)
    }

    /// The output bias and the linear part added to the output layer's sum.
    #[inline(always)]
    fn finish(&self, hidden: i64, f: &[i32]) -> i32 {
        let linear: i64 = f
            .iter()
            .zip(&self.linear)
            .map(|(&f, &w)| i64::from(f) * i64::from(w))
            .sum();
        let value = (i64::from(self.b2) + hidden) / i64::from(QA * QB) + linear;
        value.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
    }

    /// The network's evaluation of the inputs `active` and the linear
    /// features `f`, in centi-units, one input at a time: the reference of
    /// the accumulators. The sums are taken in 32 and 64 bits and the
    /// result saturated, so that a network of any weights evaluates (the
    /// search clamps what it gets).
    pub fn evaluate(&self, active: &[u16], f: &[i32]) -> i32 {
        let mut acc = vec![0i32; self.hidden()];
        for (a, &b) in acc.iter_mut().zip(&self.b1) {
            *a = b as i32;
        }
        for &i in active {
            for (a, &w) in acc.iter_mut().zip(self.row(i as usize)) {
                *a += w as i32;
            }
        }
        let hidden: i64 = acc
            .iter()
            .zip(&self.w2)
            .map(|(&a, &w)| i64::from(a.clamp(0, QA)) * i64::from(w))
            .sum();
        self.finish(hidden, f)
    }

    /// The first layer's sums of the inputs `active` into `sums`
    /// (`hidden` long), by the vector kernels.
    #[inline]
    pub fn sums(&self, active: &[u16], sums: &mut [i16]) {
        let mut rows: [&[i16]; MAX_ACTIVE] = [&[]; MAX_ACTIVE];
        for (row, &i) in rows.iter_mut().zip(active) {
            *row = self.row(i as usize);
        }
        simd::update(sums, &self.b1, &rows[..active.len().min(MAX_ACTIVE)], &[]);
    }

    /// The network's evaluation of the inputs `active` by the vector
    /// kernels (what the search gets without kept sums).
    #[inline]
    pub fn evaluate_fast(&self, active: &[u16], f: &[i32]) -> i32 {
        let mut sums = [0i16; MAX_HIDDEN];
        let sums = &mut sums[..self.hidden()];
        self.sums(active, sums);
        self.evaluate_sums(sums, f)
    }

    /// `acc` afresh for the two `views` (the game's sides, the first
    /// player's first): `inputs(view, out)` writes the active inputs from
    /// `view`'s side and returns how many.
    #[inline]
    pub fn refresh<V>(
        &self,
        acc: &mut Accumulator,
        views: [V; 2],
        mut inputs: impl FnMut(V, &mut [u16; MAX_ACTIVE]) -> usize,
    ) {
        let hidden = self.hidden();
        acc.sums.resize(2 * hidden, 0);
        for (view, sums) in views.into_iter().zip(acc.sums.chunks_exact_mut(hidden)) {
            let mut active = [0u16; MAX_ACTIVE];
            let n = inputs(view, &mut active);
            self.sums(&active[..n], sums);
        }
        acc.valid = true;
    }

    /// `out` from `before` (the parent's sums) for the two `views`, as
    /// `refresh` has them: `changes(view, delta)` names the inputs a move
    /// turned off and on from `view`'s side.
    #[inline]
    pub fn update<V>(
        &self,
        before: &Accumulator,
        out: &mut Accumulator,
        views: [V; 2],
        mut changes: impl FnMut(V, &mut Delta),
    ) {
        let hidden = self.hidden();
        out.sums.resize(2 * hidden, 0);
        for (view, (sums, before)) in views.into_iter().zip(
            out.sums
                .chunks_exact_mut(hidden)
                .zip(before.sums.chunks_exact(hidden)),
        ) {
            let mut delta = Delta::default();
            changes(view, &mut delta);
            let mut adds: [&[i16]; MAX_CHANGED] = [&[]; MAX_CHANGED];
            let mut subs: [&[i16]; MAX_CHANGED] = [&[]; MAX_CHANGED];
            for (row, &i) in adds.iter_mut().zip(&delta.on[..delta.ons]) {
                *row = self.row(i as usize);
            }
            for (row, &i) in subs.iter_mut().zip(&delta.off[..delta.offs]) {
                *row = self.row(i as usize);
            }
            simd::update(sums, before, &adds[..delta.ons], &subs[..delta.offs]);
        }
        out.valid = true;
    }

    /// The evaluation from valid kept sums, for the side of `view` (0 or
    /// 1: its place in the views `refresh` was given) to move.
    #[inline]
    pub fn evaluate_kept(&self, acc: &Accumulator, view: usize, f: &[i32]) -> i32 {
        let hidden = self.hidden();
        self.evaluate_sums(&acc.sums[view * hidden..(view + 1) * hidden], f)
    }
}

/// The inputs one move turns off and on, from one view.
#[derive(Clone, Copy, Debug, Default)]
pub struct Delta {
    off: [u16; MAX_CHANGED],
    on: [u16; MAX_CHANGED],
    offs: usize,
    ons: usize,
}

impl Delta {
    /// `input` is no longer active.
    #[inline(always)]
    pub fn off(&mut self, input: usize) {
        self.off[self.offs] = input as u16;
        self.offs += 1;
    }

    /// `input` is active now.
    #[inline(always)]
    pub fn on(&mut self, input: usize) {
        self.on[self.ons] = input as u16;
        self.ons += 1;
    }

    /// `was` became `is` (nothing when they are the same input).
    #[inline(always)]
    pub fn change(&mut self, was: usize, is: usize) {
        if was != is {
            self.off(was);
            self.on(is);
        }
    }
}

/// The first layer's sums of one position for both views, kept by the
/// search per ply (the games' `Game::Eval`).
#[derive(Clone, Debug, Default)]
pub struct Accumulator {
    /// The sums from player 1's view, then from player 2's, `hidden` each
    /// (Focus keeps its linear part after them: `coinstack::nnue::Paired`);
    /// meaningful only when `valid`.
    sums: Vec<i16>,
    /// Whether the sums are those of the position: false where the network
    /// does not apply (or there is none, or the build ablates terms).
    valid: bool,
}

impl Accumulator {
    /// Whether the sums are those of the position.
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// The sums, as the one who wrote them laid them out.
    #[inline(always)]
    pub fn sums(&self) -> &[i16] {
        &self.sums
    }

    /// The sums to write, `width` of them, in a layout of the caller's own
    /// (Focus keeps its linear part beside them): marked as the position's.
    #[inline(always)]
    pub fn write(&mut self, width: usize) -> &mut [i16] {
        self.sums.resize(width, 0);
        self.valid = true;
        &mut self.sums
    }

    /// Marks the sums as not the position's (no network evaluates it).
    #[inline]
    pub fn invalidate(&mut self) {
        self.valid = false;
    }
}
