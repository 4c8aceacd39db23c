//! `stackfish apbot` end to end against a fake Abstract Play
//! (tests/apbot_support): full games of every game and variant, and every
//! bad case of issue 25 with its answer.

mod apbot_support;

use std::time::Duration;

use apbot_support::*;

const FAST: &[&str] = &["--depth", "3", "--max-move-ms", "200"];

#[test]
fn full_games_of_every_game_and_variant_end_legally() {
    let (ap, bot, _state) = started("games", FAST);
    let games = [
        ("mix-1", "mixtour", 1, 0),
        ("mix-three", "mixtour", 2, 1),
        ("mix-five", "mixtour", 3, 0),
        ("focus-a", "focus", 0, 0),
        ("focus-b", "focus", 0, 1),
    ];
    for (i, (id, meta, goal, seat)) in games.iter().enumerate() {
        ap.new_game(id, meta, *goal, *seat, i as u64 + 1);
    }
    let all_over = ap.wait_for(240, |s| {
        games
            .iter()
            .all(|(id, ..)| s.games[*id].board.over().is_some())
    });
    let site = ap.site.lock().unwrap();
    for (id, ..) in games {
        let g = &site.games[id];
        assert!(g.refused.is_empty(), "{id}: refused {:?}", g.refused);
        eprintln!(
            "transcript {id} ({} plies, bot seat {}): {}",
            g.moves.len(),
            g.bot_seat + 1,
            g.moves.join(" ")
        );
        eprintln!("  result: {:?}", g.board.over());
    }
    assert!(
        all_over,
        "not all games ended: {:?}",
        bot.lines().iter().rev().take(20).collect::<Vec<_>>()
    );
    assert!(
        site.submissions.iter().all(|(_, _, status)| *status == 200),
        "{:?}",
        site.submissions
    );
    let max_202 = site.webhook_202.iter().max().unwrap();
    let mut answers: Vec<Duration> = site.answered.iter().map(|(_, d)| *d).collect();
    answers.sort();
    eprintln!(
        "latency: webhook to 202 max {:.1} ms over {} notifications; webhook to submission median {:.0} ms, max {:.0} ms",
        max_202.as_secs_f64() * 1000.0,
        site.webhook_202.len(),
        answers[answers.len() / 2].as_secs_f64() * 1000.0,
        answers.last().unwrap().as_secs_f64() * 1000.0
    );
    // AP wants the 202 within 100 ms; the times measured are printed
    // above. The bound here is generous, for a loaded CI machine.
    assert!(*max_202 < Duration::from_secs(1), "a 202 took {max_202:?}");
    // One log line per request and per submission, secrets never logged.
    let lines = bot.lines();
    assert!(lines
        .iter()
        .any(|l| l.contains("request method=POST verb=move game=mix-1 status=202")));
    assert!(lines
        .iter()
        .any(|l| l.contains("submit game=focus-a move=") && l.contains("status=200")));
    assert!(!lines.iter().any(|l| l.contains(CLIENT_SECRET)));
}

#[test]
fn ping_and_challenges_are_answered_at_once() {
    let (ap, bot, _state) = started("challenge", FAST);
    let (status, body, _) = request(bot.addr, "GET", &[], "");
    assert_eq!((status, body.as_str()), (200, r#"{"operational":true}"#));
    let challenge = |meta: &str, variants: &str| {
        let body = format!(
            r#"{{"verb":"challenge","metaGame":"{meta}","variants":{variants},"clockStart":72,"clockInc":24,"clockMax":240,"challengers":["p1"]}}"#
        );
        post_signed(bot.addr, &ap.signer, &body).0
    };
    assert_eq!(challenge("mixtour", "[]"), 200);
    assert_eq!(challenge("mixtour", r#"["three"]"#), 200);
    assert_eq!(challenge("mixtour", r#"["five"]"#), 200);
    assert_eq!(challenge("focus", "[]"), 200);
    assert_eq!(challenge("mixtour", r#"["three","five"]"#), 400);
    assert_eq!(challenge("mixtour", r#"["seven"]"#), 400);
    assert_eq!(challenge("chess", "[]"), 400);
    let unknown = r#"{"verb":"dance"}"#;
    assert_eq!(post_signed(bot.addr, &ap.signer, unknown).0, 400);
    assert_eq!(post_signed(bot.addr, &ap.signer, "not json").0, 400);
}

#[test]
fn bad_signatures_get_401_and_no_work() {
    let (ap, bot, state) = started("signatures", FAST);
    let body = r#"{"verb":"move","metaGame":"mixtour","variants":[],"gameid":"g1","clockCurr":10,"numPlayers":2,"moves":[]}"#;
    let good = |ts: u64, nonce: &str| ap.signer.headers(ts, nonce, body);
    // Tampered body: signed for another.
    let tampered = body.replace("g1", "g2");
    let n = nonce();
    assert_eq!(
        request(bot.addr, "POST", &good(now(), &n), &tampered).0,
        401
    );
    // Wrong key.
    let other = Signer::new(99);
    assert_eq!(
        request(
            bot.addr,
            "POST",
            &other.headers(now(), &nonce(), body),
            body
        )
        .0,
        401
    );
    // Stale and future timestamps.
    assert_eq!(
        request(bot.addr, "POST", &good(now() - 301, &nonce()), body).0,
        401
    );
    assert_eq!(
        request(bot.addr, "POST", &good(now() + 301, &nonce()), body).0,
        401
    );
    // Missing headers.
    let mut missing = good(now(), &nonce());
    missing.remove(2);
    assert_eq!(request(bot.addr, "POST", &missing, body).0, 401);
    assert_eq!(request(bot.addr, "POST", &[], body).0, 401);
    // None of it did any work.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(pending(&state), 0);
    assert!(ap.site.lock().unwrap().submissions.is_empty());
    assert_eq!(ap.site.lock().unwrap().token_requests, 0);
    // A good one is taken; the same nonce again is a replay.
    ap.site
        .lock()
        .unwrap()
        .games
        .insert("g1".into(), Game::fresh("mixtour", 1, 0));
    ap.site.lock().unwrap().faults.quiet = true;
    let n = nonce();
    assert_eq!(request(bot.addr, "POST", &good(now(), &n), body).0, 202);
    assert_eq!(request(bot.addr, "POST", &good(now(), &n), body).0, 401);
    assert!(bot.logged("nonce seen before"));
    assert!(
        ap.wait_for(30, |s| s.submissions.iter().filter(|x| x.2 == 200).count()
            == 1)
    );
}

#[test]
fn oversized_and_stalled_requests_do_not_tie_the_bot_up() {
    use std::io::{Read, Write};
    let (ap, bot, _state) = started("limits", FAST);
    let big = format!(r#"{{"verb":"move","pad":"{}"}}"#, "x".repeat(70 * 1024));
    let (status, _, _) = request(
        bot.addr,
        "POST",
        &ap.signer.headers(now(), &nonce(), &big),
        &big,
    );
    assert_eq!(status, 413);
    // Stalled clients: one that sends half a head, one that promises a body
    // and sends part of it.
    let mut head_only = std::net::TcpStream::connect(bot.addr).unwrap();
    head_only
        .write_all(b"POST /apbot HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    let mut half_body = std::net::TcpStream::connect(bot.addr).unwrap();
    half_body
        .write_all(b"POST /apbot HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"verb\"")
        .unwrap();
    // Meanwhile the bot answers.
    assert_eq!(request(bot.addr, "GET", &[], "").0, 200);
    for (name, mut s) in [("head", head_only), ("body", half_body)] {
        s.set_read_timeout(Some(Duration::from_secs(12))).unwrap();
        let start = std::time::Instant::now();
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        let took = start.elapsed();
        assert!(took < Duration::from_secs(11), "{name}: held for {took:?}");
        if name == "body" {
            assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        }
    }
}

#[test]
fn unknown_games_and_illegal_histories_are_refused_with_a_reason() {
    let (ap, bot, state) = started("refused", FAST);
    let note = |meta: &str, moves: &str| {
        format!(
            r#"{{"verb":"move","metaGame":"{meta}","variants":[],"gameid":"g","clockCurr":1,"numPlayers":2,"moves":{moves}}}"#
        )
    };
    assert_eq!(
        post_signed(bot.addr, &ap.signer, &note("chess", "[]")).0,
        400
    );
    assert_eq!(
        post_signed(bot.addr, &ap.signer, &note("mixtour", r#"[["c3","c3"]]"#)).0,
        400
    );
    assert_eq!(
        post_signed(bot.addr, &ap.signer, &note("focus", r#"[["d2-d4"]]"#)).0,
        400
    );
    let bad_id = note("mixtour", "[]").replace(r#""g""#, r#""../etc""#);
    assert_eq!(post_signed(bot.addr, &ap.signer, &bad_id).0, 400);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(pending(&state), 0);
    assert!(ap.site.lock().unwrap().submissions.is_empty());
    let lines = bot.lines();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("status=400") && l.contains("move 2 'c3'")),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.contains("unsupported game 'chess'")));
}

#[test]
fn an_expired_token_and_a_401_are_recovered() {
    let (ap, _bot, _state) = started("token", FAST);
    {
        let mut s = ap.site.lock().unwrap();
        // 61 s minus the bot's 60 s margin: each token is good for 1 s.
        s.faults.expires_in = Some(61);
        s.faults.unauthorized = 1;
        s.faults.quiet = true;
    }
    let accepted = |s: &Site| s.submissions.iter().filter(|x| x.2 == 200).count();
    ap.new_game("t1", "mixtour", 1, 0, 5);
    assert!(ap.wait_for(30, |s| accepted(s) == 1));
    // The 401 was answered with a new token and one retry.
    let tokens = ap.site.lock().unwrap().token_requests;
    assert_eq!(tokens, 2);
    assert_eq!(
        ap.site
            .lock()
            .unwrap()
            .submissions
            .iter()
            .filter(|x| x.2 == 401)
            .count(),
        1
    );
    // Within its life the token is reused; after it, a new one is fetched
    // before AP could refuse the old one.
    ap.new_game("t2", "focus", 0, 0, 5);
    assert!(ap.wait_for(30, |s| accepted(s) == 2));
    assert_eq!(ap.site.lock().unwrap().token_requests, tokens);
    std::thread::sleep(Duration::from_millis(1100));
    ap.new_game("t3", "focus", 0, 0, 6);
    assert!(ap.wait_for(30, |s| accepted(s) == 3));
    let s = ap.site.lock().unwrap();
    assert_eq!(s.token_requests, tokens + 1, "an expired token was reused");
    assert_eq!(s.submissions.iter().filter(|x| x.2 == 401).count(), 1);
}

#[test]
fn a_submission_waits_out_botquery_being_down() {
    let (ap, bot, state) = started("down", FAST);
    ap.site.lock().unwrap().faults.down = 4;
    ap.new_game("d1", "focus", 0, 0, 6);
    assert!(ap.wait_for(30, |s| s
        .submissions
        .iter()
        .any(|x| x.0 == "d1" && x.2 == 200)));
    assert_eq!(ap.site.lock().unwrap().faults.down, 0);
    let retries = bot
        .lines()
        .iter()
        .filter(|l| l.contains("game=d1") && l.contains("status=503"))
        .count();
    assert_eq!(retries, 4);
    let _ = state;
}

#[test]
fn a_bot_killed_mid_move_submits_after_restart() {
    // A long think, so that the kill lands between the 202 and the submission.
    let (ap, mut bot, state) = started("killed", &["--max-move-ms", "5000"]);
    ap.site.lock().unwrap().faults.quiet = true;
    ap.new_game("k1", "mixtour", 1, 0, 7);
    assert!(ap.wait_for(10, |s| !s.webhook_202.is_empty()));
    bot.kill();
    assert_eq!(pending(&state), 1);
    assert!(ap.site.lock().unwrap().submissions.is_empty());
    let bot = Bot::start(&ap, &state, FAST);
    assert!(ap.wait_for(30, |s| s
        .submissions
        .iter()
        .any(|x| x.0 == "k1" && x.2 == 200)));
    assert!(bot
        .lines()
        .iter()
        .any(|l| l.contains("resume game=k1 plies=0")));
    // Exactly one move was made from the stored notification.
    let s = ap.site.lock().unwrap();
    assert_eq!(s.submissions.len(), 1, "{:?}", s.submissions);
    assert_eq!(s.games["k1"].moves.len(), 2);
}

#[test]
fn a_duplicate_gives_one_submission_and_a_stale_one_is_dropped() {
    let (ap, bot, state) = started("duplicate", FAST);
    ap.site.lock().unwrap().faults.stall_ms = 300;
    ap.site.lock().unwrap().bot = None; // the test sends the notifications
    let mut game = Game::fresh("mixtour", 1, 0);
    let body = game.notification("dup");
    game.board = Board::new("mixtour", 1);
    ap.site.lock().unwrap().games.insert("dup".into(), game);
    assert_eq!(post_signed(bot.addr, &ap.signer, &body).0, 202);
    assert_eq!(post_signed(bot.addr, &ap.signer, &body).0, 202);
    assert!(ap.wait_for(30, |s| !s.submissions.is_empty()));
    std::thread::sleep(Duration::from_millis(1500));
    {
        let s = ap.site.lock().unwrap();
        assert_eq!(s.submissions.len(), 1, "{:?}", s.submissions);
    }
    assert!(bot
        .lines()
        .iter()
        .any(|l| l.contains("game=dup status=202") && l.contains("duplicate")));
    // The same state again after the game moved on (an admin's re-ping of
    // an old notification that was already settled is a duplicate too; a
    // notification for a position AP has left is refused by AP as not our
    // turn, and dropped without a retry).
    let stale = body.replace(r#""moves":[]"#, r#""moves":[["c3","b2"]]"#);
    {
        let mut s = ap.site.lock().unwrap();
        let g = s.games.get_mut("dup").unwrap();
        // AP's game is past that position already: it is the opponent's turn.
        g.bot_seat = 1;
    }
    assert_eq!(post_signed(bot.addr, &ap.signer, &stale).0, 202);
    assert!(ap.wait_for(30, |s| s.submissions.len() == 2));
    std::thread::sleep(Duration::from_millis(1000));
    let s = ap.site.lock().unwrap();
    assert_eq!(
        s.submissions.len(),
        2,
        "a refused move was retried: {:?}",
        s.submissions
    );
    assert_eq!(s.submissions[1].2, 500);
    assert!(bot
        .lines()
        .iter()
        .any(|l| l.contains("refused") && l.contains("not bot")));
    assert_eq!(pending(&state), 0);
}

#[test]
fn searches_beyond_the_limit_wait_their_turn() {
    let (ap, bot, _state) = started("pool", &["--searches", "1", "--max-move-ms", "300"]);
    ap.site.lock().unwrap().faults.quiet = true;
    for (i, id) in ["p1", "p2", "p3"].iter().enumerate() {
        ap.new_game(id, "focus", 0, 0, 20 + i as u64);
    }
    assert!(ap.wait_for(30, |s| s.submissions.len() == 3));
    assert!(bot.logged("thought game=p3") || bot.logged("thought game=p1"));
    // With one search at a time, every `think` is followed by its
    // `thought` before the next `think`.
    let mut thinking = 0;
    let mut most = 0;
    for line in bot.lines() {
        if line.starts_with("apbot: think ") {
            thinking += 1;
        } else if line.starts_with("apbot: thought ") {
            thinking -= 1;
        }
        most = most.max(thinking);
    }
    assert_eq!(most, 1, "{:?}", bot.lines());
}
