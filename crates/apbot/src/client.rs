//! The bot's calls to AP: an OAuth client-credentials token, cached until
//! shortly before it expires, and the move submission to `/botQuery`.
//! Blocking (ureq): each call runs on a blocking thread of its own.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A cached token is dropped this long before AP says it expires.
pub const TOKEN_MARGIN: Duration = Duration::from_secs(60);
/// AP's reference client: 15 s for the token, 30 s for botQuery.
pub const TOKEN_TIMEOUT: Duration = Duration::from_secs(15);
pub const SUBMIT_TIMEOUT: Duration = Duration::from_secs(30);

/// The bot's credentials. `Debug` never shows the secret.
#[derive(Clone)]
pub struct Credentials {
    pub client_id: String,
    pub client_secret: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Credentials({}, secret hidden)", self.client_id)
    }
}

/// Why a call to AP failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// No answer (connection, TLS, timeout): worth retrying.
    #[error("{url}: {message}")]
    Network { url: String, message: String },
    /// An answer with a status that is not success.
    #[error("{url} answered {status}: {body}")]
    Status {
        url: String,
        status: u16,
        body: String,
    },
    #[error("{url}: the token answer has no access_token ({body})")]
    BadToken { url: String, body: String },
}

impl CallError {
    pub fn status(&self) -> Option<u16> {
        match self {
            CallError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// What a submission came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Submitted {
    /// 200: AP took the move.
    Accepted,
    /// 500 with AP's message: the move was refused for good (illegal, not
    /// our turn, game gone). Never retried: a refused move stays refused.
    Refused(String),
}

pub struct ApClient {
    agent: ureq::Agent,
    token_url: String,
    api_url: String,
    scope: String,
    credentials: Credentials,
    token: Mutex<Option<(String, Instant)>>,
}

impl ApClient {
    pub fn new(token_url: &str, api_url: &str, scope: &str, credentials: Credentials) -> ApClient {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(SUBMIT_TIMEOUT))
            .build()
            .into();
        ApClient {
            agent,
            token_url: token_url.to_string(),
            api_url: api_url.to_string(),
            scope: scope.to_string(),
            credentials,
            token: Mutex::new(None),
        }
    }

    /// The cached token, or a new one.
    pub fn token(&self) -> Result<String, CallError> {
        if let Some((token, until)) = &*self.token.lock().unwrap_or_else(|e| e.into_inner()) {
            if Instant::now() < *until {
                return Ok(token.clone());
            }
        }
        let token_url = &self.token_url;
        let network = |e: ureq::Error| CallError::Network {
            url: token_url.clone(),
            message: e.to_string(),
        };
        let mut answer = self
            .agent
            .post(token_url)
            .config()
            .timeout_global(Some(TOKEN_TIMEOUT))
            .build()
            .send_form([
                ("grant_type", "client_credentials"),
                ("client_id", self.credentials.client_id.as_str()),
                ("client_secret", self.credentials.client_secret.as_str()),
                ("scope", self.scope.as_str()),
            ])
            .map_err(network)?;
        let status = answer.status().as_u16();
        let body = answer.body_mut().read_to_string().map_err(network)?;
        if status != 200 {
            return Err(CallError::Status {
                url: token_url.clone(),
                status,
                body: snippet(&body),
            });
        }
        let value: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        let token = value["access_token"]
            .as_str()
            .filter(|t| !t.is_empty())
            .ok_or_else(|| CallError::BadToken {
                url: token_url.clone(),
                body: snippet(&body),
            })?
            .to_string();
        let lifetime = Duration::from_secs(value["expires_in"].as_u64().unwrap_or(3600));
        let until = Instant::now() + lifetime.saturating_sub(TOKEN_MARGIN);
        *self.token.lock().unwrap_or_else(|e| e.into_inner()) = Some((token.clone(), until));
        Ok(token)
    }

    fn drop_token(&self) {
        *self.token.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// Submits `mv` in game `game_id` once; on a 401 with a fresh token once
    /// more. Network errors and statuses other than 200 and 500 are errors
    /// for the caller to retry.
    pub fn submit(&self, meta: &str, game_id: &str, mv: &str) -> Result<Submitted, CallError> {
        let body = serde_json::json!({
            "verb": "move",
            "gameid": game_id,
            "metaGame": meta,
            "move": mv,
        })
        .to_string();
        let mut answer = self.post_move(&body)?;
        if answer.0 == 401 {
            self.drop_token();
            answer = self.post_move(&body)?;
        }
        match answer {
            (200, _) => Ok(Submitted::Accepted),
            (500, body) if is_message(&body) => Ok(Submitted::Refused(snippet(&body))),
            (status, body) => Err(CallError::Status {
                url: self.api_url.clone(),
                status,
                body: snippet(&body),
            }),
        }
    }

    fn post_move(&self, body: &str) -> Result<(u16, String), CallError> {
        let token = self.token()?;
        let network = |e: ureq::Error| CallError::Network {
            url: self.api_url.clone(),
            message: e.to_string(),
        };
        let mut answer = self
            .agent
            .post(&self.api_url)
            .header("Authorization", &format!("Bearer {token}"))
            .content_type("application/json")
            .send(body)
            .map_err(network)?;
        let status = answer.status().as_u16();
        let text = answer.body_mut().read_to_string().unwrap_or_default();
        Ok((status, text))
    }
}

/// AP's own refusals are `{"message": ...}`; a gateway's 500 is not, and is
/// retried like any other server error.
fn is_message(body: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(body)
        .map(|v| v["message"].is_string())
        .unwrap_or(false)
}

/// At most 300 characters of an answer, for a log line.
fn snippet(body: &str) -> String {
    let one_line: String = body
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    one_line.chars().take(300).collect()
}
