//! AP's webhook signatures: the Ed25519 public key in the forms AP
//! publishes it, and the check of one request's three headers.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use ring::signature::{UnparsedPublicKey, ED25519};

/// AP's current key, as its reference verifier embeds it.
pub const AP_PUBLIC_KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINBTbzcpb7MaQM3TIFzsS8YmPqqT2y+/fJgevp20lzLm";

/// A signed request older or newer than this (seconds) is refused.
pub const REPLAY_WINDOW_SECS: u64 = 300;

/// The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410) before the
/// 32 key bytes.
const SPKI_PREFIX: [u8; 12] = [
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
];

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("the public key is not base64: {0}")]
    Base64(String),
    #[error("the public key is not an Ed25519 key ({0})")]
    NotEd25519(&'static str),
    #[error("no public key found (expected an RFC 4716 SSH2 block, an 'ssh-ed25519 ...' line or a PEM public key)")]
    Empty,
}

/// Why a request's signature was refused; each answers 401.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("missing header {0}")]
    Missing(&'static str),
    #[error("bad X-Signature-Timestamp")]
    BadTimestamp,
    #[error("timestamp {0} s away from now (at most {REPLAY_WINDOW_SECS} s)")]
    Stale(u64),
    #[error("bad X-Signature-Nonce (expected 32 lower-case hex characters)")]
    BadNonce,
    #[error("the signature does not verify")]
    Invalid,
    #[error("nonce seen before")]
    Replayed,
}

/// AP's Ed25519 public key: 32 bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicKey(pub [u8; 32]);

impl PublicKey {
    /// Reads an RFC 4716 block (`---- BEGIN SSH2 PUBLIC KEY ----`), an
    /// OpenSSH line (`ssh-ed25519 AAAA... comment`) or a PEM SPKI key
    /// (`-----BEGIN PUBLIC KEY-----`).
    pub fn parse(text: &str) -> Result<PublicKey, KeyError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(KeyError::Empty);
        }
        if let Some(rest) = text.strip_prefix("ssh-ed25519") {
            let blob = rest.split_whitespace().next().ok_or(KeyError::Empty)?;
            return from_ssh_wire(&decode(blob)?);
        }
        if text.starts_with("---- BEGIN SSH2 PUBLIC KEY ----") {
            return from_ssh_wire(&decode(&armoured_body(text, true))?);
        }
        if text.starts_with("-----BEGIN PUBLIC KEY-----") {
            let der = decode(&armoured_body(text, false))?;
            return match der.strip_prefix(&SPKI_PREFIX[..]) {
                Some(key) if key.len() == 32 => Ok(PublicKey(key.try_into().expect("32 bytes"))),
                _ => Err(KeyError::NotEd25519("not an Ed25519 SubjectPublicKeyInfo")),
            };
        }
        Err(KeyError::Empty)
    }

    /// Checks the signature of `<timestamp>.<nonce>.<body>` and the
    /// timestamp's distance from `now` (Unix seconds). The nonce cache is
    /// the caller's (after this check, so unsigned traffic never fills it).
    pub fn verify(
        &self,
        timestamp: Option<&str>,
        nonce: Option<&str>,
        signature: Option<&str>,
        body: &[u8],
        now: u64,
    ) -> Result<(), SignatureError> {
        let timestamp = timestamp.ok_or(SignatureError::Missing("X-Signature-Timestamp"))?;
        let nonce = nonce.ok_or(SignatureError::Missing("X-Signature-Nonce"))?;
        let signature = signature.ok_or(SignatureError::Missing("X-Signature"))?;
        let ts: u64 = timestamp
            .parse()
            .ok()
            .filter(|_| timestamp.bytes().all(|b| b.is_ascii_digit()))
            .ok_or(SignatureError::BadTimestamp)?;
        let away = now.abs_diff(ts);
        if away > REPLAY_WINDOW_SECS {
            return Err(SignatureError::Stale(away));
        }
        if nonce.len() != 32
            || !nonce
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        {
            return Err(SignatureError::BadNonce);
        }
        let sig = BASE64
            .decode(signature.trim())
            .map_err(|_| SignatureError::Invalid)?;
        let mut message = Vec::with_capacity(timestamp.len() + nonce.len() + body.len() + 2);
        message.extend_from_slice(timestamp.as_bytes());
        message.push(b'.');
        message.extend_from_slice(nonce.as_bytes());
        message.push(b'.');
        message.extend_from_slice(body);
        UnparsedPublicKey::new(&ED25519, &self.0)
            .verify(&message, &sig)
            .map_err(|_| SignatureError::Invalid)
    }
}

impl Default for PublicKey {
    fn default() -> PublicKey {
        PublicKey::parse(AP_PUBLIC_KEY).expect("the built-in key parses")
    }
}

fn decode(text: &str) -> Result<Vec<u8>, KeyError> {
    BASE64
        .decode(text.trim())
        .map_err(|e| KeyError::Base64(e.to_string()))
}

/// The base64 lines of an armoured block: without the BEGIN/END lines and,
/// for RFC 4716, its `Header: value` lines (a header line ending in `\`
/// continues on the next line).
fn armoured_body(text: &str, rfc4716: bool) -> String {
    let mut body = String::new();
    let mut continued = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with("----") || line.is_empty() {
            continue;
        }
        if rfc4716 && (continued || line.contains(':')) {
            continued = line.ends_with('\\');
            continue;
        }
        body.push_str(line);
    }
    body
}

/// SSH wire format: string "ssh-ed25519", string of 32 key bytes.
fn from_ssh_wire(blob: &[u8]) -> Result<PublicKey, KeyError> {
    let mut rest = blob;
    let mut field = || -> Result<&[u8], KeyError> {
        let (len, tail) = rest
            .split_first_chunk::<4>()
            .ok_or(KeyError::NotEd25519("truncated SSH key"))?;
        let len = u32::from_be_bytes(*len) as usize;
        if tail.len() < len {
            return Err(KeyError::NotEd25519("truncated SSH key"));
        }
        let (value, tail) = tail.split_at(len);
        rest = tail;
        Ok(value)
    };
    if field()? != b"ssh-ed25519" {
        return Err(KeyError::NotEd25519("the SSH key type is not ssh-ed25519"));
    }
    let key = field()?;
    let key: [u8; 32] = key
        .try_into()
        .map_err(|_| KeyError::NotEd25519("the key is not 32 bytes"))?;
    Ok(PublicKey(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "d0536f37296fb31a40cdd3205cec4bc6263eaa93db2fbf7c981ebe9db49732e6";

    fn hex(key: &PublicKey) -> String {
        key.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn the_three_forms_of_aps_key_give_its_bytes() {
        let rfc4716 = "---- BEGIN SSH2 PUBLIC KEY ----\nComment: \"AP webhook key\"\n\
                       AAAAC3NzaC1lZDI1NTE5AAAAINBTbzcpb7MaQM3TIFzsS8YmPqqT2y+/fJgevp20lzLm\n\
                       ---- END SSH2 PUBLIC KEY ----\n";
        let pem = "-----BEGIN PUBLIC KEY-----\n\
                   MCowBQYDK2VwAyEA0FNvNylvsxpAzdMgXOxLxiY+qpPbL798mB6+nbSXMuY=\n\
                   -----END PUBLIC KEY-----\n";
        for text in [AP_PUBLIC_KEY, rfc4716, pem] {
            assert_eq!(hex(&PublicKey::parse(text).unwrap()), HEX, "{text}");
        }
        assert_eq!(hex(&PublicKey::default()), HEX);
    }

    #[test]
    fn other_keys_are_refused() {
        assert!(matches!(PublicKey::parse(""), Err(KeyError::Empty)));
        assert!(PublicKey::parse("ssh-rsa AAAAB3NzaC1yc2E=").is_err());
        // A bare 32-byte key in base64 is not one of AP's forms.
        assert!(PublicKey::parse("0FNvNylvsxpAzdMgXOxLxiY+qpPbL798mB6+nbSXMuY=").is_err());
        assert!(matches!(
            PublicKey::parse("ssh-ed25519 !!!"),
            Err(KeyError::Base64(_))
        ));
    }

    #[test]
    fn a_signature_verifies_only_over_the_exact_message() {
        let pair = ring::signature::Ed25519KeyPair::from_seed_unchecked(&[7; 32]).unwrap();
        let key = PublicKey(
            ring::signature::KeyPair::public_key(&pair)
                .as_ref()
                .try_into()
                .unwrap(),
        );
        let (ts, nonce, body) = ("1767225600", "0123456789abcdef0123456789abcdef", b"{}");
        let sig = BASE64.encode(pair.sign(b"1767225600.0123456789abcdef0123456789abcdef.{}"));
        let check =
            |body: &[u8], now: u64| key.verify(Some(ts), Some(nonce), Some(&sig), body, now);
        assert_eq!(check(body, 1767225600), Ok(()));
        assert_eq!(check(b"{ }", 1767225600), Err(SignatureError::Invalid));
        assert_eq!(check(body, 1767225600 + 300), Ok(()));
        assert_eq!(
            check(body, 1767225600 + 301),
            Err(SignatureError::Stale(301))
        );
        assert_eq!(
            check(body, 1767225600 - 301),
            Err(SignatureError::Stale(301))
        );
        assert_eq!(
            PublicKey::default().verify(Some(ts), Some(nonce), Some(&sig), body, 1767225600),
            Err(SignatureError::Invalid)
        );
        assert_eq!(
            key.verify(Some(ts), None, Some(&sig), body, 1767225600),
            Err(SignatureError::Missing("X-Signature-Nonce"))
        );
    }
}
