//! The one place that maps a variant name to a game type and its settings.
//! Everything that chooses a game at run time (engine option `Game`, arena
//! `--game`, `perft --game`) goes through `with_variant`, so adding a game is
//! one line here.

use super::castle::{Castle, CastleVariant};
use super::coinstack::{CoinStack, CoinStackVariant};
use super::line::{AnyGame, Line, NamedLine, ShapedLine};
use super::mixtour::{Mixtour, MixtourGrid, MixtourVariant};
use super::silo::{Silo, SiloVariant};
use super::{ablate, castle, coinstack, mixtour, Game};

/// Code that must be instantiated for the concrete game type of a variant.
pub trait VariantVisitor: Sized {
    type Output;
    fn visit<G: Game>(self, name: &'static str, variant: G::Variant) -> Self::Output;

    /// A game played on boards of many shapes, whose position strings give
    /// the shape (Mixtour): `F` is the fast type of its standard board, `G`
    /// the general type of every board. By default `G` serves everything;
    /// code where speed matters (the engine, perft) picks `F` whenever the
    /// position is on the standard board.
    fn visit_shaped<F: Game, G: Game<Variant = F::Variant>>(
        self,
        name: &'static str,
        variant: G::Variant,
    ) -> Self::Output {
        self.visit::<G>(name, variant)
    }
}

/// Every variant name we know, in the order the `Game` option lists them.
pub fn variant_names() -> &'static [&'static str] {
    &[
        "mixtour",
        "mixtour-5",
        "silo",
        "silo-8",
        "coinstack",
        "focus",
        "castle",
        "castle-2",
        "castle-3",
    ]
}

/// Calls `visitor` with the game type and settings of variant `name`
/// (case-insensitive); `None` for an unknown name.
pub fn with_variant<V: VariantVisitor>(name: &str, visitor: V) -> Option<V::Output> {
    let name = name.trim().to_ascii_lowercase();
    Some(match name.as_str() {
        "mixtour" => {
            visitor.visit_shaped::<Mixtour, MixtourGrid>("mixtour", MixtourVariant::STANDARD)
        }
        "mixtour-5" => {
            visitor.visit_shaped::<Mixtour, MixtourGrid>("mixtour-5", MixtourVariant::FIVE_POINTS)
        }
        "silo" => visitor.visit::<Silo>("silo", SiloVariant::STANDARD),
        "silo-8" => visitor.visit::<Silo>("silo-8", SiloVariant::EIGHT),
        "coinstack" => visitor.visit::<CoinStack>("coinstack", CoinStackVariant::CoinStack),
        "focus" => visitor.visit::<CoinStack>("focus", CoinStackVariant::Focus),
        "castle" => visitor.visit::<Castle>("castle", CastleVariant::LEVEL_1),
        "castle-2" => visitor.visit::<Castle>("castle-2", CastleVariant::LEVEL_2),
        "castle-3" => visitor.visit::<Castle>("castle-3", CastleVariant::LEVEL_3),
        _ => return None,
    })
}

struct NewGame;

impl VariantVisitor for NewGame {
    type Output = Box<dyn AnyGame>;
    fn visit<G: Game>(self, name: &'static str, variant: G::Variant) -> Box<dyn AnyGame> {
        Box::new(NamedLine {
            name,
            line: Line::<G>::new(variant),
        })
    }

    /// The fast type on the standard board, the general one elsewhere.
    fn visit_shaped<F: Game, G: Game<Variant = F::Variant>>(
        self,
        name: &'static str,
        variant: G::Variant,
    ) -> Box<dyn AnyGame> {
        Box::new(ShapedLine::<F, G>::new(name, variant))
    }
}

/// A new game of variant `name` at its start position.
pub fn new_game(name: &str) -> Option<Box<dyn AnyGame>> {
    with_variant(name, NewGame)
}

struct DealtStart(u64);

impl VariantVisitor for DealtStart {
    type Output = Option<String>;
    fn visit<G: Game>(self, _name: &'static str, variant: G::Variant) -> Option<String> {
        G::dealt_start(&variant, self.0).map(|pos| pos.fen())
    }
}

/// The position string of a start of variant `name` dealt from `seed`
/// (`Game::dealt_start`); `None` for a game whose start is fixed, or an
/// unknown name.
pub fn dealt_start_fen(name: &str, seed: u64) -> Option<String> {
    with_variant(name, DealtStart(seed)).flatten()
}

/// The names `STACKFISH_ABLATE` takes (`ablate`): every evaluation's term
/// names, and the names of groups of terms. Silo's evaluation has no named
/// terms.
pub const ABLATION_NAMES: [&[&str]; 4] = [
    &mixtour::eval::NAMES,
    &coinstack::eval::NAMES,
    &coinstack::eval::GROUPS,
    &castle::eval::NAMES,
];

const _: () = if let Some(list) = ablate::ABLATED {
    assert!(
        ablate::all_known(list, &ABLATION_NAMES),
        "STACKFISH_ABLATE names a term that no evaluation has (see the NAMES of the eval modules)"
    );
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ablation_names_are_unique_within_an_evaluation() {
        for names in ABLATION_NAMES {
            for (i, a) in names.iter().enumerate() {
                assert!(!names[..i].contains(a), "{a} twice");
                assert!(!a.contains(','), "{a}");
            }
        }
        // A group name is not also a term name of the same evaluation.
        for group in coinstack::eval::GROUPS {
            assert!(!coinstack::eval::NAMES.contains(&group));
        }
    }

    #[test]
    fn every_evaluation_with_weights_can_be_ablated() {
        // Each game's term names are accepted, Castle's included.
        let evaluations: [&[&str]; 3] = [
            &mixtour::eval::NAMES,
            &coinstack::eval::NAMES,
            &castle::eval::NAMES,
        ];
        for name in evaluations.into_iter().flatten() {
            assert!(ablate::all_known(name, &ABLATION_NAMES), "{name}");
        }
        assert!(!ablate::all_known("no_such_term", &ABLATION_NAMES));
    }
}
