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

fn accepted(s: &Site, id: &str) -> usize {
    s.submissions
        .iter()
        .filter(|x| x.0 == id && x.2 == 200)
        .count()
}

#[test]
fn sigterm_mid_search_refuses_new_webhooks_exits_0_and_the_move_is_submitted_once_after_restart() {
    // A 5 s think and a 1.5 s stop: the stop lands mid-search.
    let (ap, mut bot, state) = started(
        "sigterm-pending",
        &["--max-move-ms", "5000", "--stop-timeout-ms", "1500"],
    );
    ap.site.lock().unwrap().faults.quiet = true;
    ap.new_game("s1", "mixtour", 1, 0, 7);
    assert!(bot.logged("think game=s1"));
    let sent = std::time::Instant::now();
    let pid = bot.child.id().to_string();
    std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(bot.logged("stopping signal=SIGTERM in_flight=1"));
    // While it drains, a new webhook is refused and not stored.
    let mut other = Game::fresh("focus", 0, 0);
    other.moves.clear();
    let (status, _) = post_signed(bot.addr, &ap.signer, &other.notification("s2"));
    assert_eq!(status, 503);
    let (code, _) = bot.wait_exit(10);
    let took = sent.elapsed();
    assert_eq!(code, Some(0), "{:?}", bot.lines());
    assert!(took < std::time::Duration::from_secs(5), "took {took:?}");
    assert!(bot
        .lines()
        .iter()
        .any(|l| l.contains("stopped-with-pending pending=1")));
    assert_eq!(pending(&state), 1);
    assert!(ap.site.lock().unwrap().submissions.is_empty());
    // After the restart the move is submitted, once.
    let bot = Bot::start(&ap, &state, &["--depth", "3", "--max-move-ms", "200"]);
    assert!(ap.wait_for(30, |s| accepted(s, "s1") == 1));
    std::thread::sleep(std::time::Duration::from_millis(500));
    let s = ap.site.lock().unwrap();
    assert_eq!(s.submissions.len(), 1, "{:?}", s.submissions);
    assert!(bot.lines().iter().any(|l| l.contains("resume game=s1")));
    assert_eq!(pending(&state), 0);
}

#[test]
fn sigterm_lets_a_search_within_the_deadline_finish_and_submit_before_exit() {
    let (ap, mut bot, state) = started(
        "sigterm-drain",
        &["--max-move-ms", "1000", "--stop-timeout-ms", "4000"],
    );
    ap.site.lock().unwrap().faults.quiet = true;
    ap.new_game("d1", "focus", 0, 0, 8);
    assert!(bot.logged("think game=d1"));
    let (code, took) = bot.terminate(10);
    assert_eq!(code, Some(0), "{:?}", bot.lines());
    assert!(took < std::time::Duration::from_secs(5), "took {took:?}");
    assert_eq!(accepted(&ap.site.lock().unwrap(), "d1"), 1);
    assert!(bot.lines().iter().any(|l| l.contains("stopped pending=0")));
    assert_eq!(pending(&state), 0);
    // Nothing is left for a restart to submit.
    let bot = Bot::start(&ap, &state, &["--depth", "3"]);
    assert!(bot.logged("listening on"));
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(ap.site.lock().unwrap().submissions.len(), 1);
}

#[test]
fn an_api_url_that_is_not_botquery_is_refused_at_start_and_by_check() {
    let ap = FakeAp::start(Signer::new(25));
    let state = temp_dir("api-url");
    let dev = format!("http://{}/dev", ap.addr);
    for extra in [&["--check"][..], &[]] {
        let out = bot_command_to(&ap, &dev, &state, extra)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(
            text.contains(&format!(
                "--api-url {dev}: the path does not end in /botQuery"
            )) && text.contains("/<stage>/botQuery"),
            "{text}"
        );
    }
    assert_eq!(ap.site.lock().unwrap().token_requests, 0);
}

#[test]
fn metrics_count_requests_signatures_searches_and_submissions() {
    let (ap, bot, _state) = started("metrics", &["--depth", "2", "--max-move-ms", "200"]);
    ap.site.lock().unwrap().faults.quiet = true;
    ap.new_game("m1", "mixtour", 1, 0, 3);
    assert!(ap.wait_for(30, |s| accepted(s, "m1") == 1));
    let body = r#"{"verb":"move"}"#;
    let (status, _, _) = request(
        bot.addr,
        "POST",
        &Signer::new(9).headers(now(), &nonce(), body),
        body,
    );
    assert_eq!(status, 401);
    assert_eq!(request(bot.addr, "GET", &[], "").0, 200);
    let (status, text) = get(bot.addr, "/metrics");
    assert_eq!(status, 200, "{text}");
    let value = |name: &str| sample(&text, name).unwrap_or_else(|| panic!("no {name} in {text}"));
    assert_eq!(
        value(r#"apbot_requests_total{verb="move",status="202"}"#),
        1.0
    );
    assert_eq!(value(r#"apbot_requests_total{verb="-",status="401"}"#), 1.0);
    assert_eq!(
        value(r#"apbot_requests_total{verb="ping",status="200"}"#),
        1.0
    );
    assert_eq!(value("apbot_signature_failures_total"), 1.0);
    assert_eq!(value("apbot_searches_started_total"), 1.0);
    assert_eq!(value("apbot_searches_finished_total"), 1.0);
    assert_eq!(value("apbot_searches_failed_total"), 0.0);
    assert_eq!(value(r#"apbot_submissions_total{outcome="accepted"}"#), 1.0);
    assert_eq!(value("apbot_pending_notifications"), 0.0);
    // The game goes on (the bot's move did not end it).
    assert_eq!(value("apbot_games_in_progress"), 1.0);
    assert_eq!(value("apbot_webhook_response_seconds_count"), 1.0);
    assert_eq!(
        value(r#"apbot_webhook_response_seconds_bucket{le="+Inf"}"#),
        1.0
    );
    assert_eq!(value("apbot_notification_to_submission_seconds_count"), 1.0);
    let start = value("process_start_time_seconds");
    assert!((now() as f64 - start).abs() < 120.0, "{start}");
    assert!(text.contains("# TYPE apbot_webhook_response_seconds histogram"));
}

#[test]
fn metrics_on_an_address_of_their_own_leave_the_webhook_listener_alone() {
    let ap = FakeAp::start(Signer::new(25));
    let state = temp_dir("metrics-listen");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let metrics = format!("127.0.0.1:{port}");
    let bot = Bot::start(&ap, &state, &["--metrics-listen", &metrics]);
    let (status, text) = get(metrics.parse().unwrap(), "/metrics");
    assert_eq!(status, 200);
    assert!(text.contains("process_start_time_seconds"));
    // The webhook listener answers /metrics as AP's ping.
    let (status, body) = get(bot.addr, "/metrics");
    assert_eq!((status, body.as_str()), (200, r#"{"operational":true}"#));
    assert_eq!(get(metrics.parse().unwrap(), "/apbot").0, 404);
}

#[test]
fn json_logs_are_one_object_a_line_with_the_text_lines_fields() {
    let (ap, bot, _state) = started(
        "json-logs",
        &[
            "--log-format",
            "json",
            "--depth",
            "2",
            "--max-move-ms",
            "200",
        ],
    );
    ap.site.lock().unwrap().faults.quiet = true;
    ap.new_game("j1", "focus", 0, 0, 4);
    assert!(ap.wait_for(30, |s| accepted(s, "j1") == 1));
    assert!(bot.logged("\"event\":\"submit\""));
    let lines: Vec<serde_json::Value> = bot
        .lines()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    let request = lines
        .iter()
        .find(|v| v["event"] == "request" && v["verb"] == "move")
        .expect("a request line");
    assert_eq!(request["game"], "j1");
    assert_eq!(request["status"], 202);
    assert_eq!(request["note"], "stored");
    assert!(request["ms"].is_number() && request["ts"].is_string());
    let submit = lines.iter().find(|v| v["event"] == "submit").unwrap();
    assert_eq!(submit["status"], 200);
    assert!(submit["move"].is_string() && submit["nodes"].is_u64());
    assert!(lines
        .iter()
        .any(|v| v["event"] == "think" && v["plies"] == 0));
}
