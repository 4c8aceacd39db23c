//! The search's tunable numbers, listed once: constants in a normal build,
//! runtime values (UGI spin options) in a build with the `tune` feature.
//!
//! As Stockfish's `TUNE` does it: the one list below gives each number its
//! name, default, range and SPSA step sizes; a normal build turns each row
//! into an `#[inline(always)]` function returning the constant (no load, no
//! speed lost), and `--features tune` into a function reading an atomic
//! that `setoption` writes. `PARAMS` carries the rows for the engine's
//! option list and for `arena tune`.
//!
//! The search's numbers come in one set per `Profile` (Mixtour, Focus, the
//! other games), since what one game's tuning finds can cost another
//! (tournaments/log.md: Mixtour's SPSA values leaned negative in Coin
//! Stack and Focus); the time manager's are shared.

/// One tunable number.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// The UGI option name in a tuning build (`setoption name <name>`).
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    /// SPSA's perturbation at the last iteration (Fishtest's `c_end`), in
    /// the parameter's units.
    pub c_end: f64,
    /// SPSA's learning rate at the last iteration as `a_end / c_end^2`
    /// (Fishtest's `r_end`).
    pub r_end: f64,
}

/// Why a tuning value was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    #[error("no tunable parameter is called {0}")]
    Unknown(String),
    #[error("{name}: {value} is outside {min}..={max}")]
    OutOfRange {
        name: &'static str,
        value: i64,
        min: i32,
        max: i32,
    },
    #[error("this build has no tunable parameters (build with --features tune)")]
    NotTunable,
}

/// Whether this build reads the parameters at run time.
pub const TUNABLE: bool = cfg!(feature = "tune");

/// Which set of the search's numbers a game plays with: each game whose
/// search was tuned by itself has its own; the rest share `Other`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    Mixtour = 0,
    Focus = 1,
    Other = 2,
}

impl Profile {
    pub const ALL: [Profile; 3] = [Profile::Mixtour, Profile::Focus, Profile::Other];

    /// The profile of the game `pos` is a position of (Mixtour on any
    /// board and to any goal; the `focus` variant of Coin Stack).
    pub fn of<G: stackfish_games::Game>(pos: &G) -> Profile {
        use stackfish_games::coinstack::{CoinStack, CoinStackVariant};
        use stackfish_games::mixtour::{Mixtour, MixtourGrid};
        let any = pos as &dyn std::any::Any;
        if any.is::<Mixtour>() || any.is::<MixtourGrid>() {
            Profile::Mixtour
        } else if any
            .downcast_ref::<CoinStack>()
            .is_some_and(|c| c.variant() == CoinStackVariant::Focus)
        {
            Profile::Focus
        } else {
            Profile::Other
        }
    }
}

macro_rules! params {
    (
        per_game {
            $( $(#[$doc:meta])* $get:ident: $name:literal = [$mix:literal, $foc:literal, $oth:literal], $min:literal..=$max:literal, c_end $c:literal, r_end $r:literal; )*
        }
        shared {
            $( $(#[$gdoc:meta])* $gget:ident: $gname:literal = $gdefault:literal, $gmin:literal..=$gmax:literal, c_end $gc:literal, r_end $gr:literal; )*
        }
    ) => {
        /// Every tunable, in the order the option list shows them: each
        /// per-game number once per profile (`Mixtour...`, `Focus...`,
        /// `Search...` for the other games), then the shared ones.
        pub const PARAMS: &[Param] = &[
            $(
                Param { name: concat!("Mixtour", $name), default: $mix, min: $min, max: $max, c_end: $c, r_end: $r },
                Param { name: concat!("Focus", $name), default: $foc, min: $min, max: $max, c_end: $c, r_end: $r },
                Param { name: concat!("Search", $name), default: $oth, min: $min, max: $max, c_end: $c, r_end: $r },
            )*
            $( Param { name: $gname, default: $gdefault, min: $gmin, max: $gmax, c_end: $gc, r_end: $gr }, )*
        ];

        $(
            $(#[$doc])*
            #[cfg(not(feature = "tune"))]
            #[inline(always)]
            pub fn $get(profile: Profile) -> i32 {
                const BY_PROFILE: [i32; 3] = [$mix, $foc, $oth];
                BY_PROFILE[profile as usize]
            }

            $(#[$doc])*
            #[cfg(feature = "tune")]
            #[inline]
            pub fn $get(profile: Profile) -> i32 {
                slots::$get[profile as usize].load(std::sync::atomic::Ordering::Relaxed)
            }
        )*

        $(
            $(#[$gdoc])*
            #[cfg(not(feature = "tune"))]
            #[inline(always)]
            pub fn $gget() -> i32 {
                $gdefault
            }

            $(#[$gdoc])*
            #[cfg(feature = "tune")]
            #[inline]
            pub fn $gget() -> i32 {
                slots::$gget.load(std::sync::atomic::Ordering::Relaxed)
            }
        )*

        #[cfg(feature = "tune")]
        #[allow(non_upper_case_globals)]
        mod slots {
            use std::sync::atomic::AtomicI32;
            $( pub static $get: [AtomicI32; 3] = [AtomicI32::new($mix), AtomicI32::new($foc), AtomicI32::new($oth)]; )*
            $( pub static $gget: AtomicI32 = AtomicI32::new($gdefault); )*
        }

        /// The slot of the parameter at `index` of `PARAMS`.
        #[cfg(feature = "tune")]
        fn slot(index: usize) -> &'static std::sync::atomic::AtomicI32 {
            const SLOTS: &[&std::sync::atomic::AtomicI32] = &[
                $( &slots::$get[0], &slots::$get[1], &slots::$get[2], )*
                $( &slots::$gget, )*
            ];
            SLOTS[index]
        }
    };
}

params! {
    per_game {
        /// Late move pruning happens at most this deep.
        lmp_max_depth: "LmpMaxDepth" = [3, 3, 3], 0..=8, c_end 0.5, r_end 0.002;
        /// Late move pruning skips the quiet moves after the first
        /// `base + per_depth2 * depth^2`.
        lmp_base: "LmpBase" = [5, 6, 6], 1..=30, c_end 1.0, r_end 0.002;
        lmp_per_depth2: "LmpPerDepth2" = [4, 4, 4], 0..=16, c_end 0.5, r_end 0.002;
        /// Reverse futility pruning at most this deep (0: never): a node
        /// whose evaluation beats beta by `rfp_margin` a ply of depth, and
        /// whose side faces no win in one, returns its evaluation.
        rfp_max_depth: "RfpMaxDepth" = [1, 0, 0], 0..=8, c_end 0.5, r_end 0.002;
        rfp_margin: "RfpMargin" = [83, 120, 120], 10..=500, c_end 10.0, r_end 0.002;
        /// Null-move pruning from this depth on...
        nmp_min_depth: "NmpMinDepth" = [2, 3, 3], 1..=10, c_end 0.5, r_end 0.002;
        /// ... with a search `base + depth / divisor` plies shallower.
        nmp_base: "NmpBase" = [3, 3, 3], 1..=8, c_end 0.5, r_end 0.002;
        nmp_divisor: "NmpDivisor" = [3, 4, 4], 1..=16, c_end 0.5, r_end 0.002;
        /// First aspiration half-window, in score units, from depth
        /// `aspiration_min_depth` on.
        aspiration_window: "AspirationWindow" = [7, 30, 30], 5..=200, c_end 4.0, r_end 0.002;
        aspiration_min_depth: "AspirationMinDepth" = [3, 4, 4], 1..=12, c_end 0.5, r_end 0.002;
        /// Late-move reductions from this depth on (at least 2: a reduction is
        /// capped at `depth - 2`, which must not be negative)...
        lmr_min_depth: "LmrMinDepth" = [3, 3, 3], 2..=10, c_end 0.5, r_end 0.002;
        /// ... of the quiet moves after the first this many...
        lmr_min_moves: "LmrMinMoves" = [4, 3, 3], 1..=16, c_end 0.5, r_end 0.002;
        /// ... by `lmr_base / 100 + ln(depth) * ln(index) / (lmr_divisor / 100)` plies.
        lmr_base: "LmrBase" = [50, 50, 50], 0..=300, c_end 8.0, r_end 0.002;
        lmr_divisor: "LmrDivisor" = [285, 225, 225], 50..=600, c_end 15.0, r_end 0.002;
        /// Quiescence stops this many plies past the horizon. In Mixtour capture
        /// chains are short, but in Focus nearly every move onto a tall stack
        /// captures and unbounded chains multiplied a search by 50.
        qsearch_max_plies: "QsearchMaxPlies" = [6, 6, 6], 1..=20, c_end 0.5, r_end 0.002;
    }
    shared {
        /// Without `movestogo`, plan as if this many moves remained.
        time_moves_to_go: "TimeMovesToGo" = 25, 5..=80, c_end 2.0, r_end 0.002;
        /// Share of the increment spent on this move, in percent.
        time_increment_share: "TimeIncrementShare" = 75, 0..=100, c_end 5.0, r_end 0.002;
        /// The hard limit is this many soft limits, capped by `time_hard_share`
        /// percent of the clock.
        time_hard_factor: "TimeHardFactor" = 4, 1..=10, c_end 0.5, r_end 0.002;
        time_hard_share: "TimeHardShare" = 40, 5..=90, c_end 3.0, r_end 0.002;
    }
}

/// The row called `name` (any case), with its index in `PARAMS`.
pub fn find(name: &str) -> Option<(usize, &'static Param)> {
    PARAMS
        .iter()
        .enumerate()
        .find(|(_, p)| p.name.eq_ignore_ascii_case(name))
}

/// The parameter's current value (its default in a normal build).
pub fn value(index: usize) -> i32 {
    #[cfg(feature = "tune")]
    {
        slot(index).load(std::sync::atomic::Ordering::Relaxed)
    }
    #[cfg(not(feature = "tune"))]
    {
        PARAMS[index].default
    }
}

/// Sets the parameter called `name` for every search of this process
/// from now on; in range, or an error and nothing changes.
pub fn set(name: &str, value: i64) -> Result<(), ParamError> {
    let (index, p) = find(name).ok_or_else(|| ParamError::Unknown(name.to_string()))?;
    if value < i64::from(p.min) || value > i64::from(p.max) {
        return Err(ParamError::OutOfRange {
            name: p.name,
            value,
            min: p.min,
            max: p.max,
        });
    }
    #[cfg(feature = "tune")]
    {
        // In range of an i32 range, so the cast keeps the value.
        slot(index).store(value as i32, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
    #[cfg(not(feature = "tune"))]
    {
        let _ = index;
        Err(ParamError::NotTunable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_sound() {
        let mut names = std::collections::HashSet::new();
        for p in PARAMS {
            assert!(
                names.insert(p.name.to_ascii_lowercase()),
                "{} twice",
                p.name
            );
            assert!(p.min <= p.default && p.default <= p.max, "{}", p.name);
            // The engine's spin options are unsigned.
            assert!(p.min >= 0, "{}", p.name);
            assert!(p.c_end > 0.0 && p.r_end > 0.0, "{}", p.name);
            assert!(p.c_end < f64::from(p.max - p.min), "{}", p.name);
        }
        for (i, p) in PARAMS.iter().enumerate() {
            assert_eq!(find(&p.name.to_ascii_uppercase()).map(|f| f.0), Some(i));
        }
        // Reductions are capped at depth - 2, which must not go negative.
        assert!(find("SearchLmrMinDepth").unwrap().1.min >= 2);
    }

    #[test]
    fn protocol_md_lists_every_row_as_it_is() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../protocol.md");
        let text = std::fs::read_to_string(path).expect("protocol.md");
        let default = |name: String| find(&name).expect("a row").1.default;
        for p in PARAMS {
            let row = if let Some(x) = p.name.strip_prefix("Search") {
                // A per-game number: one row with the three defaults.
                let (mix, foc) = (default(format!("Mixtour{x}")), default(format!("Focus{x}")));
                format!(
                    "| `{x}` | {mix} | {foc} | {} | {} | {} |",
                    p.default, p.min, p.max
                )
            } else if p.name.starts_with("Mixtour") || p.name.starts_with("Focus") {
                continue;
            } else {
                format!("| `{}` | {} | {} | {} |", p.name, p.default, p.min, p.max)
            };
            assert!(text.contains(&row), "protocol.md lacks: {row}");
        }
    }

    #[test]
    fn bad_names_and_values_are_refused() {
        assert_eq!(
            set("NoSuchThing", 1),
            Err(ParamError::Unknown("NoSuchThing".into()))
        );
        let (i, p) = find("SearchLmpBase").unwrap();
        let before = value(i);
        assert!(matches!(
            set(p.name, i64::from(p.max) + 1),
            Err(ParamError::OutOfRange { .. })
        ));
        assert!(set(p.name, -1).is_err());
        assert_eq!(value(i), before);
    }

    #[cfg(not(feature = "tune"))]
    #[test]
    fn a_normal_build_keeps_its_constants() {
        assert_eq!(set("SearchLmpBase", 7), Err(ParamError::NotTunable));
        for (profile, name) in [
            (Profile::Mixtour, "MixtourLmpBase"),
            (Profile::Focus, "FocusLmpBase"),
            (Profile::Other, "SearchLmpBase"),
        ] {
            assert_eq!(lmp_base(profile), find(name).unwrap().1.default);
        }
    }

    #[test]
    fn every_per_game_number_has_a_row_per_profile() {
        let per_game: Vec<&str> = PARAMS
            .iter()
            .filter_map(|p| p.name.strip_prefix("Search"))
            .collect();
        assert!(per_game.len() >= 10, "{per_game:?}");
        for name in per_game {
            for prefix in ["Mixtour", "Focus"] {
                let (_, row) = find(&format!("{prefix}{name}")).expect(name);
                let (_, other) = find(&format!("Search{name}")).unwrap();
                assert_eq!((row.min, row.max), (other.min, other.max), "{name}");
            }
        }
    }

    #[test]
    fn each_game_has_its_profile() {
        use stackfish_games::coinstack::{CoinStack, CoinStackVariant};
        use stackfish_games::mixtour::{Mixtour, MixtourGrid, MixtourVariant};
        use stackfish_games::Game;
        let v = MixtourVariant::STANDARD;
        assert_eq!(Profile::of(&Mixtour::start(&v)), Profile::Mixtour);
        assert_eq!(Profile::of(&MixtourGrid::start(&v)), Profile::Mixtour);
        let focus = CoinStack::start(&CoinStackVariant::Focus);
        assert_eq!(Profile::of(&focus), Profile::Focus);
        let coinstack = CoinStack::start(&CoinStackVariant::CoinStack);
        assert_eq!(Profile::of(&coinstack), Profile::Other);
        let castle = stackfish_games::castle::Castle::start(
            &stackfish_games::castle::CastleVariant::LEVEL_1,
        );
        assert_eq!(Profile::of(&castle), Profile::Other);
    }

    #[cfg(feature = "tune")]
    #[test]
    fn a_tuning_build_reads_what_was_set() {
        // Only this test touches this parameter (the slots are global).
        let (i, p) = find("TimeHardShare").unwrap();
        set(p.name, 55).unwrap();
        assert_eq!((time_hard_share(), value(i)), (55, 55));
        set(p.name, i64::from(p.default)).unwrap();
        assert_eq!(time_hard_share(), p.default);
        // A game's own number changes that game's search only.
        let (j, q) = find("FocusNmpDivisor").unwrap();
        set(q.name, 9).unwrap();
        assert_eq!(value(j), 9);
        assert_eq!(nmp_divisor(Profile::Focus), 9);
        assert_ne!(nmp_divisor(Profile::Mixtour), 9);
        assert_ne!(nmp_divisor(Profile::Other), 9);
        set(q.name, i64::from(q.default)).unwrap();
    }
}
