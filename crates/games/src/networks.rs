//! The networks of every game as a host holds them (`Networks`): the
//! engine's session, a trainer or a bot owns one and hands each search its
//! game's share (`Game::nets`). Beside the registry of variants, above the
//! games whose networks it holds.

use crate::{coinstack, mixtour};
use stackfish_nnue::NetworkError;

/// The networks of every game that has them, as a host holds them (the
/// engine's session, a trainer, a bot) and hands each search its game's
/// (`Game::nets`): the built-in ones, unless the host loaded another
/// (`read`) or none (`none`). Cheap to clone. Reading a file is the
/// host's job; this only decodes its bytes.
#[derive(Clone, Debug, Default)]
pub struct Networks {
    /// `None`: the built-in ones, decoded only when a game of them is
    /// played, so that a host of one game (the StackAndConquer script)
    /// carries no other game's networks.
    mixtour: Option<mixtour::nnue::Nets>,
    focus: Option<coinstack::nnue::Nets>,
}

impl Networks {
    /// No network in any game: the linear evaluations alone.
    pub fn none() -> Networks {
        Networks {
            mixtour: Some(mixtour::nnue::Nets::none()),
            focus: Some(coinstack::nnue::Nets::none()),
        }
    }

    /// The built-in networks with the network file `bytes` played instead
    /// of the built-in one of the game its header names: Focus's file
    /// replaces Focus's network, any other is read (and refused, with the
    /// reason) as Mixtour's, which goes before Mixtour's built-in ones and
    /// evaluates the goals it covers. The other game keeps its own.
    pub fn read(bytes: &[u8]) -> Result<Networks, NetworkError> {
        if stackfish_nnue::game_of(bytes).as_deref() == Some("focus") {
            let net = coinstack::nnue::Network::from_bytes(bytes)?;
            Ok(Networks {
                focus: Some(coinstack::nnue::Nets::new(net)?),
                ..Networks::default()
            })
        } else {
            let net = mixtour::nnue::Network::from_bytes(bytes)?;
            Ok(Networks {
                mixtour: Some(mixtour::nnue::Nets::before_built_in(net)?),
                ..Networks::default()
            })
        }
    }

    /// Mixtour's networks.
    pub fn mixtour(&self) -> mixtour::nnue::Nets {
        match &self.mixtour {
            Some(nets) => nets.clone(),
            None => mixtour::nnue::Nets::built_in().clone(),
        }
    }

    /// Focus's network.
    pub fn focus(&self) -> coinstack::nnue::Nets {
        match &self.focus {
            Some(nets) => nets.clone(),
            None => coinstack::nnue::Nets::built_in().clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A network file replaces the network of the game its header names
    /// and no other: Focus's is Focus's alone, Mixtour's goes before
    /// Mixtour's built-in ones; a file of neither is refused.
    #[test]
    fn a_file_replaces_its_own_games_network_only() {
        let focus_bytes = include_bytes!("coinstack/net-focus.bin");
        let focus = coinstack::nnue::Network::from_bytes(focus_bytes).unwrap();
        let read = Networks::read(focus_bytes).unwrap();
        assert_eq!(read.focus().network(), Some(&focus));
        assert_eq!(&read.mixtour(), mixtour::nnue::Nets::built_in());

        let mixtour_bytes = include_bytes!("mixtour/net-g23.bin");
        let g23 = mixtour::nnue::Network::from_bytes(mixtour_bytes).unwrap();
        let read = Networks::read(mixtour_bytes).unwrap();
        let built_in = mixtour::nnue::Nets::built_in().list();
        assert_eq!(read.mixtour().list()[0], g23);
        assert_eq!(read.mixtour().list()[1..], *built_in);
        let focus_built_in = coinstack::nnue::Nets::built_in().network();
        assert_eq!(read.focus().network(), focus_built_in);

        assert_eq!(
            Networks::read(b"not a network").map(|_| ()),
            Err(NetworkError::BadMagic)
        );
        let none = Networks::none();
        assert!(none.mixtour().list().is_empty() && none.focus().network().is_none());
    }
}
