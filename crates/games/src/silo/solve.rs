//! Strong solution of a Silo position by retrograde analysis over every
//! position reachable from it: the game-theoretic value of each, the length
//! of its optimal line (win fastest, lose slowest), and perfect play.
//! Pure: no I/O, no clocks; the caller times it.
//!
//! Why retrograde and not a forward search: the standard row has 1.6e9
//! arrangements with Red to move (the other side is the mirror image), and
//! at 2 bytes each they fit in memory; one backward sweep then gives exact
//! distances for every one of them, which the engine plays from. A
//! depth-first proof search must re-prove positions at every iteration of
//! the distance bound; `prove_by_search` below is that method, kept to
//! measure against (docs/silo.md has the figures).
//!
//! Draws. The rules know no draw, and the house rule makes a third
//! repetition one. A position is a draw here when neither side can force a
//! win in the game graph (which has cycles: a value the backward sweep never
//! reaches). That is the exact value under the repetition rule too: a forced
//! win found by the sweep strictly shortens at each of the winner's moves, so
//! it never repeats a position and the house rule cannot save the loser; and
//! from a drawn position each side can stay among drawn positions forever,
//! which under the house rule ends in a repetition, a draw. The arena's ply
//! cap is not modelled (optimal lines here are far below it).

use std::collections::HashMap;
use std::fmt;

use fxhash::FxBuildHasher;

use super::{Move, Silo, MAX_SQUARES};
use crate::{Game, GameResult, Outcome, Side};

/// The game-theoretic value of a position for the side to move, with the
/// number of plies of the optimal line (passes count as plies).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins in this many plies (0: it has already won, only
    /// possible in a position given as text).
    Win(u16),
    /// The side to move loses in this many plies (0: it has lost).
    Loss(u16),
    /// Neither side can force a win: play goes on until a repetition.
    Draw,
}

impl Value {
    /// The value of the parent when this is the value of the child reached
    /// by one move.
    pub fn parent(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(n + 1),
            Value::Loss(n) => Value::Win(n + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// Orders values for the side to move: larger is better. Faster wins are
    /// better, slower losses are better.
    fn rank(self) -> i32 {
        match self {
            Value::Win(n) => 100_000 - n as i32,
            Value::Draw => 0,
            Value::Loss(n) => -100_000 + n as i32,
        }
    }

    /// Plies to the end: positive when the side to move wins, negative
    /// when it loses, 0 for a draw.
    pub fn signed_plies(self) -> i32 {
        match self {
            Value::Win(n) => n as i32,
            Value::Loss(n) => -(n as i32),
            Value::Draw => 0,
        }
    }

    pub fn plies(self) -> Option<u16> {
        match self {
            Value::Win(n) | Value::Loss(n) => Some(n),
            Value::Draw => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(n) => write!(f, "win in {n} plies"),
            Value::Loss(n) => write!(f, "loss in {n} plies"),
            Value::Draw => f.write_str("draw"),
        }
    }
}

/// How a position is solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The full space when it applies (equal checker counts, small enough
    /// index tables), else the reachable set.
    Auto,
    /// Number the positions reachable from the root through a hash map and
    /// store the game graph explicitly; any checker counts.
    Reachable,
    /// Index every arrangement of the checkers with Red to move (Blue to
    /// move is the mirror image) and sweep backwards with un-moves; no
    /// graph or hash map is stored. Needs equal checker counts.
    FullSpace,
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Method::Auto => "auto",
            Method::Reachable => "retrograde analysis over the positions reachable from the root",
            Method::FullSpace => {
                "retrograde analysis over every arrangement of the checkers (colour-swap mirror symmetry)"
            }
        })
    }
}

/// Bounds on the work a solve may do.
#[derive(Clone, Copy, Debug)]
pub struct SolveLimits {
    pub method: Method,
    /// Stop with an error once this many distinct positions are found
    /// (about 60 bytes each while solving, 20 in the kept table).
    pub max_positions: usize,
}

impl Default for SolveLimits {
    /// About 6 GiB at the peak for the reachable method; the full-space
    /// method takes 2 bytes a position, so the standard row (1.6e9) fits.
    fn default() -> SolveLimits {
        SolveLimits {
            method: Method::Auto,
            max_positions: 100_000_000,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolveError {
    /// The exact position key needs `bits` > 64 (two bits per checker and
    /// one per square, plus the side): too many checkers for this solver.
    TooWide { bits: u32 },
    /// More reachable positions than `SolveLimits::max_positions`.
    TooManyPositions { limit: usize },
    /// The full-space method does not apply: `reason`.
    NotFullSpace { reason: String },
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::TooWide { bits } => write!(
                f,
                "position key needs {bits} bits (at most 64): too many checkers to solve"
            ),
            SolveError::TooManyPositions { limit } => {
                write!(f, "more than {limit} positions")
            }
            SolveError::NotFullSpace { reason } => {
                write!(f, "the full-space method does not apply: {reason}")
            }
        }
    }
}

impl std::error::Error for SolveError {}

/// An exact 64-bit name of a position: the colours of all checkers in
/// reading order (`total` bits), then each square's height in unary (that
/// many ones and a zero: `total + squares` bits), then the side to move.
/// Unlike the Zobrist hash it cannot collide, so a solution stays a proof.
fn key(pos: &Silo) -> u64 {
    let total = pos.total();
    let mut k = pos.colours as u64;
    let mut at = total;
    for sq in 0..pos.squares() {
        let h = pos.heights[sq] as u32;
        k |= ((1u64 << h) - 1) << at;
        at += h + 1;
    }
    k | (pos.side.index() as u64) << at
}

fn key_bits(pos: &Silo) -> u32 {
    2 * pos.total() + pos.squares() as u32 + 1
}

/// Every solved position's value, looked up by position.
#[derive(Clone, Debug)]
pub struct Table {
    kind: TableKind,
}

#[derive(Clone, Debug)]
enum TableKind {
    /// From the reachable-set method: exact keys to values.
    Reachable {
        /// Row length and checkers of the game: keys of other games could
        /// coincide with these.
        shape: (usize, [u8; 2]),
        index: HashMap<u64, u32, FxBuildHasher>,
        values: Vec<Value>,
    },
    /// From the full-space method: every arrangement of the checkers.
    Full(Box<FullTable>),
}

impl Table {
    /// The value of `pos`, if the table covers it (the reachable method
    /// covers what is reachable from its root; the full-space method every
    /// position with the same row and checkers).
    pub fn value(&self, pos: &Silo) -> Option<Value> {
        match &self.kind {
            TableKind::Reachable {
                shape,
                index,
                values,
            } => {
                if *shape != (pos.squares(), pos.counts) || key_bits(pos) > 64 {
                    return None;
                }
                index.get(&key(pos)).map(|&i| values[i as usize])
            }
            TableKind::Full(full) => full.value(pos),
        }
    }

    /// Positions in the table (the full-space method stores each position
    /// once for both sides to move, by symmetry).
    pub fn len(&self) -> usize {
        match &self.kind {
            TableKind::Reachable { values, .. } => values.len(),
            TableKind::Full(full) => full.values.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many of the positions are wins, losses and draws for the side
    /// to move.
    pub fn census(&self) -> (u64, u64, u64) {
        let mut c = (0, 0, 0);
        let mut count = |v: Value| match v {
            Value::Win(_) => c.0 += 1,
            Value::Loss(_) => c.1 += 1,
            Value::Draw => c.2 += 1,
        };
        match &self.kind {
            TableKind::Reachable { values, .. } => values.iter().for_each(|&v| count(v)),
            TableKind::Full(full) => full.values.iter().for_each(|&e| count(decode(e))),
        }
        c
    }
}

/// The result of a solve.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The root's value for its side to move.
    pub value: Value,
    /// The optimal line from the root (cut at `PV_DRAW_PLIES` for a draw).
    pub pv: Vec<Move>,
    /// Distinct positions reachable from the root, the root included.
    pub positions: u64,
    /// Moves between them (edges of the game graph); for the full-space
    /// method, the backward moves followed.
    pub edges: u64,
    pub method: Method,
    pub table: Table,
}

impl Solution {
    /// The result of the game under perfect play, from player 1's view.
    pub fn result(&self, root: &Silo) -> Option<GameResult> {
        let side = root.side_to_move();
        match self.value {
            Value::Win(_) => Some(GameResult::win_for(side)),
            Value::Loss(_) => Some(GameResult::win_for(side.opponent())),
            Value::Draw => None,
        }
    }
}

/// How far the principal line of a drawn position is written out.
pub const PV_DRAW_PLIES: usize = 40;

/// A terminal position's value; `None` while the game goes on.
fn terminal_value(pos: &Silo) -> Option<Value> {
    match pos.outcome() {
        Outcome::Ongoing => None,
        Outcome::Over { result, .. } if result.winner() == Some(pos.side_to_move()) => {
            Some(Value::Win(0))
        }
        Outcome::Over { .. } => Some(Value::Loss(0)),
    }
}

/// Rebuilds a position from its key (the inverse of `key`, given the row
/// length and the checker total, which a game never changes).
fn from_key(k: u64, squares: usize, counts: [u8; 2]) -> Silo {
    let total = counts[0] as u32 + counts[1] as u32;
    let mut pos = Silo {
        colours: (k & ((1u64 << total) - 1)) as u128,
        heights: [0; MAX_SQUARES],
        squares: squares as u8,
        counts,
        side: Side::P1,
        hash: 0,
    };
    let mut rest = k >> total;
    for sq in 0..squares {
        let h = rest.trailing_ones();
        pos.heights[sq] = h as u8;
        rest >>= h + 1;
    }
    if rest & 1 == 1 {
        pos.side = Side::P2;
    }
    pos.hash = pos.compute_hash();
    pos
}

/// Solves `root` by the reachable-set method: every position reachable from
/// it gets its value. Works for any checker counts whose key fits 64 bits.
pub fn solve_reachable(root: &Silo, limits: &SolveLimits) -> Result<Solution, SolveError> {
    let bits = key_bits(root);
    if bits > 64 {
        return Err(SolveError::TooWide { bits });
    }
    let (squares, counts) = (root.squares(), root.counts);

    // Forward: number the reachable positions breadth first and record each
    // one's children (compressed rows: children of i at succ[first[i]..first[i+1]]).
    let mut index: HashMap<u64, u32, FxBuildHasher> = HashMap::default();
    let mut keys: Vec<u64> = vec![key(root)];
    index.insert(keys[0], 0);
    let mut first: Vec<u64> = vec![0];
    let mut succ: Vec<u32> = Vec::new();
    let mut moves = Vec::with_capacity(MAX_SQUARES);
    let mut i = 0;
    while i < keys.len() {
        let pos = from_key(keys[i], squares, counts);
        if terminal_value(&pos).is_none() {
            moves.clear();
            pos.generate_moves(&mut moves);
            for &mv in &moves {
                let mut child = pos;
                child.play(mv);
                let k = key(&child);
                let next = keys.len() as u32;
                let j = *index.entry(k).or_insert(next);
                if j == next {
                    if keys.len() >= limits.max_positions {
                        return Err(SolveError::TooManyPositions {
                            limit: limits.max_positions,
                        });
                    }
                    keys.push(k);
                }
                succ.push(j);
            }
        }
        first.push(succ.len() as u64);
        i += 1;
    }
    let n = keys.len();
    drop(keys);

    // Backward edges, by counting sort of the forward ones.
    let mut pred_first = vec![0u64; n + 1];
    for &c in &succ {
        pred_first[c as usize + 1] += 1;
    }
    for i in 0..n {
        pred_first[i + 1] += pred_first[i];
    }
    let mut fill = pred_first.clone();
    let mut pred = vec![0u32; succ.len()];
    for p in 0..n {
        for &c in &succ[first[p] as usize..first[p + 1] as usize] {
            pred[fill[c as usize] as usize] = p as u32;
            fill[c as usize] += 1;
        }
    }
    drop(fill);
    let edges = succ.len() as u64;
    // Children not yet known to be wins for their side to move.
    let mut open: Vec<u8> = (0..n).map(|p| (first[p + 1] - first[p]) as u8).collect();
    drop(succ);
    drop(first);

    // Backward sweep, one distance at a time so that the first win found for
    // a position is its fastest and the last child resolving a loss is its
    // slowest.
    let mut value: Vec<Option<Value>> = vec![None; n];
    let mut frontier: Vec<u32> = Vec::new();
    // Terminal positions are exactly those without children; find them again
    // from the table of keys kept in `index`.
    for (&k, &i) in &index {
        if open[i as usize] == 0 {
            let pos = from_key(k, squares, counts);
            // A position without children is over: a non-terminal one always
            // has a move or the pass.
            value[i as usize] = terminal_value(&pos);
            debug_assert!(value[i as usize].is_some());
            frontier.push(i);
        }
    }
    frontier.sort_unstable(); // fixed order, whatever the hasher does
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for &c in &frontier {
            let v = value[c as usize].expect("frontier positions are solved");
            for &p in &pred[pred_first[c as usize] as usize..pred_first[c as usize + 1] as usize] {
                let p = p as usize;
                if value[p].is_some() {
                    continue;
                }
                match v {
                    Value::Loss(_) => {
                        value[p] = Some(v.parent());
                        next.push(p as u32);
                    }
                    Value::Win(_) => {
                        open[p] -= 1;
                        if open[p] == 0 {
                            value[p] = Some(v.parent());
                            next.push(p as u32);
                        }
                    }
                    Value::Draw => unreachable!("draws are never in the frontier"),
                }
            }
        }
        frontier = next;
    }
    drop(pred);
    drop(pred_first);
    drop(open);

    let table = Table {
        kind: TableKind::Reachable {
            shape: (squares, counts),
            index,
            values: value
                .into_iter()
                .map(|v| v.unwrap_or(Value::Draw))
                .collect(),
        },
    };
    let root_value = table.value(root).expect("the root is in its table");
    let pv = principal_line(root, &table);
    Ok(Solution {
        value: root_value,
        pv,
        positions: n as u64,
        edges,
        method: Method::Reachable,
        table,
    })
}

/// The best move in `pos` by the table: the fastest win, else a draw, else
/// the slowest loss; with the value of `pos` it leads to. `None` when the
/// game is over or `pos` is not in the table.
pub fn best_move(pos: &Silo, table: &Table) -> Option<(Move, Value)> {
    best_move_by(pos, |p| table.value(p))
}

/// `best_move` with the values read by `value` (any table that knows them).
pub fn best_move_by(pos: &Silo, value: impl Fn(&Silo) -> Option<Value>) -> Option<(Move, Value)> {
    if pos.outcome().is_over() {
        return None;
    }
    let mut moves = Vec::with_capacity(MAX_SQUARES);
    pos.generate_moves(&mut moves);
    let mut best: Option<(Move, Value)> = None;
    for mv in moves {
        let mut child = *pos;
        child.play(mv);
        let v = value(&child)?.parent();
        if best.is_none_or(|(_, b)| v.rank() > b.rank()) {
            best = Some((mv, v));
        }
    }
    best
}

/// The optimal line from `root`: best moves until the game ends (a draw is
/// written out for `PV_DRAW_PLIES` plies).
pub fn principal_line(root: &Silo, table: &Table) -> Vec<Move> {
    principal_line_by(root, |p| table.value(p))
}

/// `principal_line` with the values read by `value`.
pub fn principal_line_by(root: &Silo, value: impl Fn(&Silo) -> Option<Value>) -> Vec<Move> {
    let mut line = Vec::new();
    let mut pos = *root;
    while let Some((mv, _)) = best_move_by(&pos, &value) {
        if line.len() >= PV_DRAW_PLIES && value(&pos) == Some(Value::Draw) {
            break;
        }
        line.push(mv);
        pos.play(mv);
    }
    line
}

/// The root of `stackfish solve`: the position `fen` of game `name` (only
/// Silo variants), or the variant's start.
pub fn root(name: &str, fen: Option<&str>) -> Result<Silo, String> {
    struct Root<'a>(Option<&'a str>);
    impl crate::VariantVisitor for Root<'_> {
        type Output = Result<Silo, String>;
        fn visit<G: Game>(self, name: &'static str, variant: G::Variant) -> Self::Output {
            let variant = (&variant as &dyn std::any::Any)
                .downcast_ref::<super::SiloVariant>()
                .ok_or_else(|| format!("no solver for game '{name}' (only Silo)"))?;
            match self.0 {
                Some(fen) => Silo::from_fen(variant, fen).map_err(|e| e.to_string()),
                None => Ok(Silo::start(variant)),
            }
        }
    }
    crate::with_variant(name, Root(fen)).unwrap_or_else(|| {
        Err(format!(
            "unknown game '{name}' (known: {})",
            crate::variant_names().join(", ")
        ))
    })
}

/// Runs `stackfish solve`: reads variant `name` (through the registry; only
/// Silo variants have a solver) and `fen` (or the variant's start), solves
/// it, and returns the root with its solution. `Err` names what was wrong.
pub fn solve_command(
    name: &str,
    fen: Option<&str>,
    method: &str,
) -> Result<(Silo, Solution), String> {
    let method = match method {
        "auto" => Method::Auto,
        "reachable" => Method::Reachable,
        "full" => Method::FullSpace,
        other => return Err(format!("unknown method '{other}' (auto, reachable, full)")),
    };
    let limits = SolveLimits {
        method,
        ..SolveLimits::default()
    };
    let root = root(name, fen)?;
    let solution = solve(&root, &limits).map_err(|e| e.to_string())?;
    Ok((root, solution))
}

/// The text `stackfish solve` prints (the caller measured `seconds`).
pub fn solve_report(root: &Silo, solution: &Solution, seconds: f64) -> String {
    let result = match solution.result(root) {
        Some(r) => format!("{} ({})", r.pgn(), r.ugi()),
        None => "1/2-1/2 (draw by repetition)".to_string(),
    };
    let length = match solution.value.plies() {
        Some(n) => n.to_string(),
        None => "none (draw)".to_string(),
    };
    let pv: Vec<String> = solution.pv.iter().map(|m| m.to_string()).collect();
    let (wins, losses, draws) = solution.table.census();
    format!(
        "Position: {}\nValue: {} for player {} to move\nResult: {}\nOptimal line length: {} plies\nLine: {}\nMethod: {}\nPositions: {} ({} wins, {} losses, {} draws for the side to move)\nEdges: {}\nTime: {:.3} s\n",
        root.fen(),
        solution.value,
        root.side_to_move().digit(),
        result,
        length,
        pv.join(" "),
        solution.method,
        solution.positions,
        wins,
        losses,
        draws,
        solution.edges,
        seconds
    )
}

/// Solves `root` by the method `limits.method` asks for.
pub fn solve(root: &Silo, limits: &SolveLimits) -> Result<Solution, SolveError> {
    match limits.method {
        Method::Reachable => solve_reachable(root, limits),
        Method::FullSpace => solve_full(root),
        Method::Auto => match FullSpace::new(root) {
            Ok(_) => solve_full(root),
            Err(_) => solve_reachable(root, limits),
        },
    }
}

// ---------------------------------------------------------------------------
// The full-space method.
//
// Every arrangement of r Red and b Blue checkers on the row, with Red to
// move, gets an index: (rank of the colour string in reading order) x (rank
// of the stack heights). A position with Blue to move is looked up as its
// mirror image (row reversed, colours swapped), which with r = b is in the
// same space, so the table is half the size and the rules are only ever
// applied for Red.
//
// Each entry is 16 bits (`Entry`): while open, how many children are not yet
// known to be wins for their mover; once solved, win/loss and distance.
// The sweep goes backwards by distance from the finished positions, with
// un-moves: the position before Blue's move onto square t is found by
// taking Blue's highest checker on t and all above it back to t + 1 (that
// segment is exactly what Blue moved). A finished position is never a
// predecessor, since no move is played from it.

/// Largest colour-string length with a direct rank table (2^24 entries).
const MAX_FULL_CHECKERS: u32 = 24;
/// Largest unary height code: it must fit a u64.
const MAX_FULL_HEIGHT_BITS: u32 = 63;

/// One table entry: bit 15 solved, bit 14 win (for Red to move), bits
/// 0..14 the distance in plies; unsolved: the open-children count.
type Entry = u16;
const SOLVED: Entry = 1 << 15;
const WIN: Entry = 1 << 14;
const DISTANCE: Entry = WIN - 1;

fn decode(e: Entry) -> Value {
    if e & SOLVED == 0 {
        Value::Draw
    } else if e & WIN != 0 {
        Value::Win(e & DISTANCE)
    } else {
        Value::Loss(e & DISTANCE)
    }
}

fn encode(v: Value) -> Entry {
    match v {
        Value::Win(n) => SOLVED | WIN | n,
        Value::Loss(n) => SOLVED | n,
        Value::Draw => 0,
    }
}

/// An arrangement: colours in reading order (1 = Blue) and heights.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Row {
    pub(super) colours: u64,
    pub(super) heights: [u8; MAX_SQUARES],
}

#[inline]
pub fn mask(n: u32) -> u64 {
    if n >= 64 {
        !0
    } else {
        (1u64 << n) - 1
    }
}

/// The index tables of one row length and checker count.
#[derive(Clone, Debug)]
pub(super) struct FullSpace {
    squares: usize,
    /// Checkers per colour (equal).
    per_side: u32,
    total: u32,
    /// Colour strings with `per_side` ones, in increasing order.
    patterns: Vec<u32>,
    /// Rank of each colour string (by value; unused entries 0).
    pattern_rank: Vec<u32>,
    /// Heights of each composition of `total` into `squares` parts, in
    /// increasing order of their unary codes.
    compositions: Vec<[u8; MAX_SQUARES]>,
    /// Binomial coefficients, `binomial[n][k]`, to rank compositions
    /// without a table as large as their codes (which would miss the cache).
    binomial: Vec<[u64; MAX_SQUARES]>,
}

/// The values of every arrangement with Red to move.
#[derive(Clone, Debug)]
struct FullTable {
    space: FullSpace,
    values: Vec<Entry>,
}

impl FullTable {
    fn value(&self, pos: &Silo) -> Option<Value> {
        let sp = &self.space;
        if pos.squares() != sp.squares
            || pos.checkers(Side::P1) != sp.per_side
            || pos.checkers(Side::P2) != sp.per_side
        {
            return None;
        }
        let row = Row {
            colours: pos.colours as u64,
            heights: pos.heights,
        };
        let row = match pos.side_to_move() {
            Side::P1 => row,
            Side::P2 => sp.mirror(row),
        };
        Some(decode(self.values[sp.index(&row) as usize]))
    }
}

/// Next larger number with the same count of ones (Gosper's hack).
pub fn next_combination(x: u64) -> u64 {
    let c = x & x.wrapping_neg();
    let r = x + c;
    (((r ^ x) >> 2) / c) | r
}

impl FullSpace {
    pub(super) fn new(root: &Silo) -> Result<FullSpace, SolveError> {
        let not = |reason: String| Err(SolveError::NotFullSpace { reason });
        let (r, b) = (root.checkers(Side::P1), root.checkers(Side::P2));
        if r != b {
            return not(format!(
                "{r} Red and {b} Blue checkers: the mirror symmetry needs equal counts"
            ));
        }
        let (squares, total) = (root.squares(), r + b);
        let height_bits = total + squares as u32 - 1;
        if total > MAX_FULL_CHECKERS || height_bits > MAX_FULL_HEIGHT_BITS {
            return not(format!(
                "{total} checkers on {squares} squares: index tables too large"
            ));
        }
        let count = |bits: u32, ones: u32| -> u64 {
            // Binomial(bits, ones), exact in u128 for these sizes.
            let mut c: u128 = 1;
            for i in 0..ones as u128 {
                c = c * (bits as u128 - i) / (i + 1);
            }
            c as u64
        };
        let size = count(total, r).saturating_mul(count(height_bits, total));
        // Frontier entries are u32; that also bounds the table to 8 GiB.
        if size > u32::MAX as u64 {
            return not(format!("{size} positions"));
        }
        let mut binomial = vec![[0u64; MAX_SQUARES]; height_bits as usize + 1];
        for n in 0..binomial.len() {
            binomial[n][0] = 1;
            for k in 1..MAX_SQUARES {
                binomial[n][k] = if n == 0 {
                    0
                } else {
                    binomial[n - 1][k - 1] + binomial[n - 1][k]
                };
            }
        }
        let mut patterns = Vec::new();
        let mut pattern_rank = vec![0u32; 1 << total];
        let mut x = mask(b);
        while x < 1 << total {
            pattern_rank[x as usize] = patterns.len() as u32;
            patterns.push(x as u32);
            x = next_combination(x);
        }
        let mut compositions = Vec::new();
        // Unary code: per square, `h` ones then a zero (the last zero left
        // out), so the codes are the strings with `total` ones.
        let mut x = mask(total);
        while x < 1 << height_bits {
            let mut heights = [0u8; MAX_SQUARES];
            let mut rest = x;
            for h in heights.iter_mut().take(squares) {
                let n = rest.trailing_ones();
                *h = n as u8;
                rest >>= n + 1;
            }
            compositions.push(heights);
            x = next_combination(x);
        }
        Ok(FullSpace {
            squares,
            per_side: r,
            total,
            patterns,
            pattern_rank,
            compositions,
            binomial,
        })
    }

    pub(super) fn size(&self) -> u64 {
        self.patterns.len() as u64 * self.compositions.len() as u64
    }

    /// The rank of the colours times the number of compositions plus the
    /// rank of the heights. The unary code of the heights has its zeros at
    /// z_j = h_0 + .. + h_j + j; codes with the same number of ones in
    /// increasing order are the complements of the zero sets in decreasing
    /// colex order, whose rank is the sum of binomial(z_j, j + 1).
    #[inline]
    pub(super) fn index(&self, row: &Row) -> u64 {
        let mut colex = 0;
        let mut z = 0;
        for j in 0..self.squares - 1 {
            z += row.heights[j] as usize;
            colex += self.binomial[z + j][j + 1];
        }
        let count = self.compositions.len() as u64;
        self.pattern_rank[row.colours as usize] as u64 * count + (count - 1 - colex)
    }

    #[inline]
    pub(super) fn row(&self, index: u64) -> Row {
        let n = self.compositions.len() as u64;
        Row {
            colours: self.patterns[(index / n) as usize] as u64,
            heights: self.compositions[(index % n) as usize],
        }
    }

    /// The row reversed with the colours swapped: Blue's view as Red's.
    #[inline]
    pub(super) fn mirror(&self, row: Row) -> Row {
        let mut out = Row {
            colours: 0,
            heights: [0; MAX_SQUARES],
        };
        let mut start = 0;
        let mut end = self.total;
        for sq in 0..self.squares {
            let h = row.heights[sq] as u32;
            let stack = (!row.colours >> start) & mask(h);
            end -= h;
            out.colours |= stack << end;
            out.heights[self.squares - 1 - sq] = h as u8;
            start += h;
        }
        out
    }

    /// Takes `owner`'s highest checker on `from` with everything above it
    /// onto the top of the neighbour `to`; `None` if `from` holds none.
    #[inline]
    fn transfer(&self, row: &Row, owner: Side, from: usize, to: usize) -> Option<Row> {
        let start: u32 = row.heights[..from].iter().map(|&h| h as u32).sum();
        let end = start + row.heights[from] as u32;
        let span = mask(end) & !mask(start);
        let own = match owner {
            Side::P1 => !row.colours & span,
            Side::P2 => row.colours & span,
        };
        if own == 0 {
            return None;
        }
        let p = 63 - own.leading_zeros();
        let k = end - p;
        let segment = (row.colours >> p) & mask(k);
        let mut out = *row;
        if to == from + 1 {
            let ht = row.heights[to] as u32;
            let target = (row.colours >> end) & mask(ht);
            let span = mask(end + ht) & !mask(p);
            out.colours = (row.colours & !span) | (target | segment << ht) << p;
        } else {
            let rest = (row.colours >> start) & mask(p - start);
            out.colours = (row.colours & !span) | (segment | rest << k) << start;
        }
        out.heights[from] -= k as u8;
        out.heights[to] += k as u8;
        Some(out)
    }

    /// Whether `side` has all its checkers as one run in one stack.
    fn has_won(&self, row: &Row, side: Side) -> bool {
        let own = match side {
            Side::P1 => !row.colours & mask(self.total),
            Side::P2 => row.colours,
        };
        let lo = own.trailing_zeros();
        let hi = 63 - own.leading_zeros();
        if own.count_ones() != hi - lo + 1 {
            return false;
        }
        let mut end = 0;
        for &h in &row.heights[..self.squares] {
            end += h as u32;
            if lo < end {
                return hi < end;
            }
        }
        false
    }

    fn is_over(&self, row: &Row) -> bool {
        self.has_won(row, Side::P1) || self.has_won(row, Side::P2)
    }

    /// How many children `row` has: a move per square but the last holding
    /// a Red checker, or the pass.
    fn move_count(&self, row: &Row) -> Entry {
        let mut n = 0;
        let mut start = 0;
        for &h in &row.heights[..self.squares - 1] {
            let end = start + h as u32;
            n += (!row.colours & mask(end) & !mask(start) != 0) as Entry;
            start = end;
        }
        n.max(1)
    }

    /// Red's moves from `row` as the indices (used by the tests to check
    /// `parents` against the forward moves) of the children (mirrored to
    /// Red to move); the pass when Red has no move.
    #[cfg(test)]
    pub(super) fn children(&self, row: &Row, out: &mut Vec<u64>) {
        out.clear();
        for sq in 0..self.squares - 1 {
            if let Some(child) = self.transfer(row, Side::P1, sq, sq + 1) {
                out.push(self.index(&self.mirror(child)));
            }
        }
        if out.is_empty() {
            out.push(self.index(&self.mirror(*row)));
        }
    }

    /// The unfinished positions (as indices, mirrored to Red to move) from
    /// which Blue's last move or forced pass led to `row` (Red to move).
    pub(super) fn parents(&self, row: &Row, out: &mut Vec<u64>) {
        out.clear();
        for t in 0..self.squares - 1 {
            if let Some(before) = self.transfer(row, Side::P2, t, t + 1) {
                if !self.is_over(&before) {
                    out.push(self.index(&self.mirror(before)));
                }
            }
        }
        // Blue passed: all Blue checkers on square a, nothing finished.
        let first = row.heights[0] as u32;
        if row.colours & !mask(first) == 0 && !self.is_over(row) {
            out.push(self.index(&self.mirror(*row)));
        }
    }
}

/// Solves `root` by the full-space method: the value of every position with
/// the same row length and checkers, whether reachable or not.
pub fn solve_full(root: &Silo) -> Result<Solution, SolveError> {
    let space = FullSpace::new(root)?;
    let n = space.size();
    let mut values: Vec<Entry> = vec![0; n as usize];
    let mut frontier: Vec<u32> = Vec::new();
    let mut buffer = Vec::with_capacity(MAX_SQUARES + 1);
    for i in 0..n {
        let row = space.row(i);
        // Red to move: Blue moved last, so Blue's run counts first.
        if space.has_won(&row, Side::P2) {
            values[i as usize] = encode(Value::Loss(0));
            frontier.push(i as u32);
        } else if space.has_won(&row, Side::P1) {
            values[i as usize] = encode(Value::Win(0));
            frontier.push(i as u32);
        } else {
            values[i as usize] = space.move_count(&row);
        }
    }
    let mut edges = 0u64;
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for &c in &frontier {
            let v = decode(values[c as usize]);
            space.parents(&space.row(c as u64), &mut buffer);
            edges += buffer.len() as u64;
            for &p in &buffer {
                let e = &mut values[p as usize];
                if *e & SOLVED != 0 {
                    continue;
                }
                match v {
                    Value::Loss(_) => {
                        *e = encode(v.parent());
                        next.push(p as u32);
                    }
                    _ => {
                        *e -= 1;
                        if *e == 0 {
                            *e = encode(v.parent());
                            next.push(p as u32);
                        }
                    }
                }
            }
        }
        frontier = next;
    }
    // Whatever is still open is a draw; clear the counters.
    for e in values.iter_mut() {
        if *e & SOLVED == 0 {
            *e = 0;
        }
    }
    let table = Table {
        kind: TableKind::Full(Box::new(FullTable { space, values })),
    };
    let value = table.value(root).expect("the root is in its space");
    let pv = principal_line(root, &table);
    Ok(Solution {
        value,
        pv,
        positions: n,
        edges,
        method: Method::FullSpace,
        table,
    })
}

// ---------------------------------------------------------------------------
// Depth-first proof search, kept to measure the retrograde methods against
// (and as a fallback where no table fits: it needs memory only for what it
// visits).

/// What the proof search knows of a position: the largest bound at which
/// it is still open, and the smallest at which it is decided (and how).
#[derive(Clone, Copy, Debug)]
struct Proof {
    /// Open within this many plies (0: nothing known).
    open_within: u16,
    /// Decided within this many plies: (bound, side to move wins).
    decided: Option<(u16, bool)>,
}

/// The statistics of a proof search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProofStats {
    /// The value; `Value::Draw` here means only that no bound up to the
    /// limit decided it (a true draw if the limit exceeds every distance).
    pub value: Value,
    /// Positions expanded, over all iterations.
    pub nodes: u64,
    /// Distinct positions in the memo at the end.
    pub positions: u64,
}

/// Iterative deepening on the ply bound d: "can the side to move force a
/// win within d plies, or the opponent?" with every answer memoised; the
/// first d that decides the root is its exact distance (the fastest win or
/// slowest loss). Gives up with `TooManyPositions` past `max_positions`.
pub fn prove_by_search(
    root: &Silo,
    max_plies: u16,
    max_positions: usize,
) -> Result<ProofStats, SolveError> {
    let mut memo: HashMap<Silo, Proof, FxBuildHasher> = HashMap::default();
    let mut nodes = 0;
    for d in 0..=max_plies {
        if let Some(win) = bounded(root, d, &mut memo, &mut nodes, max_positions)? {
            let value = if win { Value::Win(d) } else { Value::Loss(d) };
            return Ok(ProofStats {
                value,
                nodes,
                positions: memo.len() as u64,
            });
        }
    }
    Ok(ProofStats {
        value: Value::Draw,
        nodes,
        positions: memo.len() as u64,
    })
}

/// `Some(true)`: the side to move wins within `d` plies; `Some(false)`: it
/// loses within `d`; `None`: neither is forced within `d`.
fn bounded(
    pos: &Silo,
    d: u16,
    memo: &mut HashMap<Silo, Proof, FxBuildHasher>,
    nodes: &mut u64,
    max_positions: usize,
) -> Result<Option<bool>, SolveError> {
    if let Some(v) = terminal_value(pos) {
        return Ok(Some(matches!(v, Value::Win(_))));
    }
    if d == 0 {
        return Ok(None);
    }
    if let Some(p) = memo.get(pos) {
        match p.decided {
            Some((bound, win)) if bound <= d => return Ok(Some(win)),
            _ if p.open_within >= d => return Ok(None),
            _ => {}
        }
    }
    *nodes += 1;
    let mut moves = Vec::with_capacity(MAX_SQUARES);
    pos.generate_moves(&mut moves);
    let mut all_lose_for_us = true;
    let mut result = None;
    for mv in moves {
        let mut child = *pos;
        child.play(mv);
        match bounded(&child, d - 1, memo, nodes, max_positions)? {
            Some(false) => {
                result = Some(true);
                break;
            }
            Some(true) => {}
            None => all_lose_for_us = false,
        }
    }
    if result.is_none() && all_lose_for_us {
        result = Some(false);
    }
    if memo.len() >= max_positions && !memo.contains_key(pos) {
        return Err(SolveError::TooManyPositions {
            limit: max_positions,
        });
    }
    let entry = memo.entry(*pos).or_insert(Proof {
        open_within: 0,
        decided: None,
    });
    match result {
        Some(win) => entry.decided = Some((d, win)),
        None => entry.open_within = entry.open_within.max(d),
    }
    Ok(result)
}
