//! Strong solution of a Silo position by retrograde analysis over every
//! position reachable from it: the game-theoretic value of each, the length
//! of its optimal line (win fastest, lose slowest), and perfect play.
//! Pure: no I/O, no clocks; the caller times it.
//!
//! Why retrograde and not alpha-beta: the standard row has a few million
//! reachable positions (see README-silo.md for the figures), so all of them
//! fit in memory, and one backward sweep gives exact distances for every
//! one of them, which the engine then plays from. Depth-first proof search
//! has to re-prove the same positions at every iteration of the distance
//! bound; `prove_depth` below is that method, kept to measure against.
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
use crate::game::{Game, GameResult, Outcome, Side};

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

/// Bounds on the work a solve may do.
#[derive(Clone, Copy, Debug)]
pub struct SolveLimits {
    /// Stop with an error once this many distinct positions are found
    /// (about 60 bytes each while solving, 20 in the kept table).
    pub max_positions: usize,
}

impl Default for SolveLimits {
    /// About 6 GiB at the peak.
    fn default() -> SolveLimits {
        SolveLimits {
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
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::TooWide { bits } => write!(
                f,
                "position key needs {bits} bits (at most 64): too many checkers to solve"
            ),
            SolveError::TooManyPositions { limit } => {
                write!(f, "more than {limit} reachable positions")
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

/// Every reachable position's value, looked up by position.
#[derive(Clone, Debug, Default)]
pub struct Table {
    index: HashMap<u64, u32, FxBuildHasher>,
    values: Vec<Value>,
}

impl Table {
    /// The value of `pos`, if it was reachable from the solved position.
    pub fn value(&self, pos: &Silo) -> Option<Value> {
        self.index.get(&key(pos)).map(|&i| self.values[i as usize])
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// How many of the positions are wins, losses and draws for the side
    /// to move.
    pub fn census(&self) -> (u64, u64, u64) {
        let mut c = (0, 0, 0);
        for v in &self.values {
            match v {
                Value::Win(_) => c.0 += 1,
                Value::Loss(_) => c.1 += 1,
                Value::Draw => c.2 += 1,
            }
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
    /// Moves between them (edges of the game graph).
    pub edges: u64,
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

/// Solves `root`: every position reachable from it gets its value.
pub fn solve(root: &Silo, limits: &SolveLimits) -> Result<Solution, SolveError> {
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
        index,
        values: value
            .into_iter()
            .map(|v| v.unwrap_or(Value::Draw))
            .collect(),
    };
    let root_value = table.values[0];
    let pv = principal_line(root, &table);
    Ok(Solution {
        value: root_value,
        pv,
        positions: n as u64,
        edges,
        table,
    })
}

/// The best move in `pos` by the table: the fastest win, else a draw, else
/// the slowest loss; with the value of `pos` it leads to. `None` when the
/// game is over or `pos` is not in the table.
pub fn best_move(pos: &Silo, table: &Table) -> Option<(Move, Value)> {
    if pos.outcome().is_over() {
        return None;
    }
    let mut moves = Vec::with_capacity(MAX_SQUARES);
    pos.generate_moves(&mut moves);
    let mut best: Option<(Move, Value)> = None;
    for mv in moves {
        let mut child = *pos;
        child.play(mv);
        let v = table.value(&child)?.parent();
        if best.is_none_or(|(_, b)| v.rank() > b.rank()) {
            best = Some((mv, v));
        }
    }
    best
}

/// The optimal line from `root`: best moves until the game ends (a draw is
/// written out for `PV_DRAW_PLIES` plies).
pub fn principal_line(root: &Silo, table: &Table) -> Vec<Move> {
    let mut line = Vec::new();
    let mut pos = *root;
    while let Some((mv, _)) = best_move(&pos, table) {
        if line.len() >= PV_DRAW_PLIES && table.value(&pos) == Some(Value::Draw) {
            break;
        }
        line.push(mv);
        pos.play(mv);
    }
    line
}

/// Runs `stackfish solve`: reads variant `name` (through the registry; only
/// Silo variants have a solver) and `fen` (or the variant's start), solves
/// it, and returns the root with its solution. `Err` names what was wrong.
pub fn solve_command(
    name: &str,
    fen: Option<&str>,
    limits: &SolveLimits,
) -> Result<(Silo, Solution), String> {
    struct Root<'a>(Option<&'a str>);
    impl crate::game::VariantVisitor for Root<'_> {
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
    let root = crate::game::with_variant(name, Root(fen)).unwrap_or_else(|| {
        Err(format!(
            "unknown game '{name}' (known: {})",
            crate::game::variant_names().join(", ")
        ))
    })?;
    let solution = solve(&root, limits).map_err(|e| e.to_string())?;
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
        "Position: {}\nValue: {} for player {} to move\nResult: {}\nOptimal line length: {} plies\nLine: {}\nMethod: retrograde analysis over all reachable positions\nPositions: {} ({} wins, {} losses, {} draws for the side to move)\nEdges: {}\nTime: {:.3} s\n",
        root.fen(),
        solution.value,
        root.side_to_move().digit(),
        result,
        length,
        pv.join(" "),
        solution.positions,
        wins,
        losses,
        draws,
        solution.edges,
        seconds
    )
}
