//! `stackfish apbot` operations: `--check` and its exit statuses, secrets
//! from the environment or an owner-only file, and built-in TLS.

mod apbot_support;

use std::io::{Read, Write};
use std::sync::Arc;

use apbot_support::*;

fn check(ap: &FakeAp, name: &str, env: &[(&str, &str)], remove: &[&str]) -> (i32, String) {
    let state = temp_dir(name);
    let mut command = bot_command(ap, &state, &["--check"]);
    for (k, v) in env {
        command.env(k, v);
    }
    for k in remove {
        command.env_remove(k);
    }
    let out = command
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn check_validates_the_configuration_and_fetches_a_token() {
    let ap = FakeAp::start(Signer::new(25));
    let (code, text) = check(&ap, "check-ok", &[], &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("apbot: check ok"), "{text}");
    assert_eq!(ap.site.lock().unwrap().token_requests, 1);
    assert!(!text.contains(CLIENT_SECRET));
    // Wrong secret: AP refuses the token, exit 1, the secret not shown.
    let (code, text) = check(
        &ap,
        "check-secret",
        &[("AP_CLIENT_SECRET", "wrong-one")],
        &[],
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("cannot fetch a token") && !text.contains("wrong-one"),
        "{text}"
    );
    // No credentials: exit 2, naming the variable.
    let (code, text) = check(&ap, "check-id", &[], &["AP_CLIENT_ID"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("AP_CLIENT_ID is not set"), "{text}");
}

#[test]
fn a_secret_file_must_be_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let ap = FakeAp::start(Signer::new(25));
    let dir = temp_dir("secret-file");
    let file = dir.join("secret");
    std::fs::write(&file, format!("{CLIENT_SECRET}\n")).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let path = file.to_str().unwrap();
    let env = [("AP_CLIENT_SECRET_FILE", path)];
    let (code, text) = check(&ap, "secret-open", &env, &["AP_CLIENT_SECRET"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("readable by others"), "{text}");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (code, text) = check(&ap, "secret-closed", &env, &["AP_CLIENT_SECRET"]);
    assert_eq!(code, 0, "{text}");
}

#[test]
fn a_bad_key_file_is_refused_with_exit_2() {
    let ap = FakeAp::start(Signer::new(25));
    let state = temp_dir("bad-key");
    let mut command = bot_command(&ap, &state, &["--check"]);
    let key = state.with_extension("pub");
    std::fs::write(&key, "ssh-rsa AAAAB3NzaC1yc2E= not-ed25519\n").unwrap();
    let out = command
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("no public key found"), "{text}");
    assert_eq!(ap.site.lock().unwrap().token_requests, 0);
}

#[test]
fn built_in_tls_serves_the_same_answers() {
    let ap = FakeAp::start(Signer::new(25));
    let state = temp_dir("tls");
    let here = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/apbot_support");
    let (cert, key) = (
        format!("{here}/tls-cert.pem"),
        format!("{here}/tls-key.pem"),
    );
    let bot = Bot::start(
        &ap,
        &state,
        &["--tls-cert", &cert, "--tls-key", &key, "--depth", "2"],
    );
    assert!(bot.logged("listening on https://"));
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for c in rustls::pki_types::CertificateDer::pem_file_iter(&cert).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let sock = std::net::TcpStream::connect(bot.addr).unwrap();
    let mut tls = rustls::StreamOwned::new(conn, sock);
    tls.write_all(b"GET /apbot HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    let _ = tls.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with(r#"{"operational":true}"#), "{answer}");
    // Plain HTTP on the TLS port gets no answer.
    let (status, _, _) = request(bot.addr, "GET", &[], "");
    assert_eq!(status, 0);
}
