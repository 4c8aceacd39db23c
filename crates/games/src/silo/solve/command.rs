//! `stackfish solve`: the root from a game name and a position string, the
//! solve by the method named, and the report the binary prints.

use super::{solve, Method, Solution, SolveError, SolveLimits};
use crate::silo::Silo;
use crate::{FenError, Game, UnknownGame};

/// Why `stackfish solve` could not start or finish.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error(transparent)]
    UnknownGame(#[from] UnknownGame),
    /// A game the registry knows, but not a Silo variant.
    #[error("no solver for game '{0}' (only Silo)")]
    NoSolver(String),
    #[error(transparent)]
    Fen(#[from] FenError),
    #[error("unknown method '{0}' (auto, reachable, full)")]
    UnknownMethod(String),
    #[error(transparent)]
    Solve(#[from] SolveError),
}

/// The root of `stackfish solve`: the position `fen` of game `name` (only
/// Silo variants), or the variant's start.
pub fn root(name: &str, fen: Option<&str>) -> Result<Silo, CommandError> {
    struct Root<'a>(Option<&'a str>);
    impl crate::VariantVisitor for Root<'_> {
        type Output = Result<Silo, CommandError>;
        fn visit<G: Game>(self, name: &'static str, variant: G::Variant) -> Self::Output {
            let variant = (&variant as &dyn std::any::Any)
                .downcast_ref::<crate::silo::SiloVariant>()
                .ok_or_else(|| CommandError::NoSolver(name.to_string()))?;
            match self.0 {
                Some(fen) => Ok(Silo::from_fen(variant, fen)?),
                None => Ok(Silo::start(variant)),
            }
        }
    }
    crate::with_variant(name, Root(fen)).unwrap_or_else(|| Err(UnknownGame::new(name).into()))
}

/// Runs `stackfish solve`: reads variant `name` (through the registry; only
/// Silo variants have a solver) and `fen` (or the variant's start), solves
/// it, and returns the root with its solution. `Err` names what was wrong.
pub fn solve_command(
    name: &str,
    fen: Option<&str>,
    method: &str,
) -> Result<(Silo, Solution), CommandError> {
    let method = match method {
        "auto" => Method::Auto,
        "reachable" => Method::Reachable,
        "full" => Method::FullSpace,
        other => return Err(CommandError::UnknownMethod(other.to_string())),
    };
    let limits = SolveLimits {
        method,
        ..SolveLimits::default()
    };
    let root = root(name, fen)?;
    let solution = solve(&root, &limits)?;
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
