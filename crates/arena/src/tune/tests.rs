//! The SPSA rule on synthetic objectives, and the parsers.

use super::*;

fn param(name: &str, start: f64, min: f64, max: f64, c_end: f64, r_end: f64) -> TuneParam {
    TuneParam {
        name: name.into(),
        start,
        min,
        max,
        c_end,
        r_end,
    }
}

/// Plays SPSA against a known objective: the expected result of a pair
/// is the difference of `-(x - target)^2` summed over the parameters,
/// squashed into [-2, 2], and the pair's result is drawn around it.
fn run_synthetic(spsa: &mut Spsa, targets: &[f64], noise_seed: u64) {
    let mut rng = StdRng::seed_from_u64(noise_seed);
    let f = |x: &[i64]| -> f64 {
        x.iter()
            .zip(targets)
            .map(|(&v, t)| -(v as f64 - t).powi(2))
            .sum()
    };
    for k in 1..=spsa.schedule.iterations {
        let pert = spsa.perturb(k);
        let diff = f(&pert.plus) - f(&pert.minus);
        // Each game is won by theta+ with a logistic probability of the gap.
        let p = 1.0 / (1.0 + (-diff / 20.0).exp());
        let mut result = 0.0;
        for _ in 0..2 {
            result += if rng.gen::<f64>() < p { 1.0 } else { -1.0 };
        }
        spsa.update(&pert, result);
    }
}

#[test]
fn converges_to_the_optimum_of_a_noisy_quadratic() {
    let params = vec![
        param("A", 20.0, 0.0, 100.0, 4.0, 0.02),
        param("B", 90.0, 0.0, 100.0, 4.0, 0.02),
        param("C", 5.0, 0.0, 10.0, 1.0, 0.05),
    ];
    let targets = [60.0, 35.0, 8.0];
    let mut spsa = Spsa::new(params, Schedule::new(4000), Rounding::Random, 7);
    run_synthetic(&mut spsa, &targets, 11);
    for (i, (t, want)) in spsa.theta.iter().zip(targets).enumerate() {
        let tolerance = if i == 2 { 1.5 } else { 6.0 };
        assert!(
            (t - want).abs() < tolerance,
            "parameter {i}: theta {t:.2}, optimum {want}"
        );
    }
}

#[test]
fn without_signal_theta_wanders_little() {
    let mut spsa = Spsa::new(
        vec![param("A", 50.0, 0.0, 100.0, 4.0, 0.002)],
        Schedule::new(2000),
        Rounding::Random,
        3,
    );
    // A flat objective: every pair is a coin toss.
    let mut rng = StdRng::seed_from_u64(9);
    for k in 1..=2000 {
        let pert = spsa.perturb(k);
        let r = if rng.gen::<bool>() { 1.0 } else { -1.0 };
        spsa.update(&pert, r);
    }
    assert!((spsa.theta[0] - 50.0).abs() < 10.0, "{}", spsa.theta[0]);
}

#[test]
fn theta_and_the_engines_values_stay_in_range() {
    // Steps far larger than the range, from the edges.
    let params = vec![
        param("Lo", 0.0, 0.0, 3.0, 2.0, 5.0),
        param("Hi", 3.0, 0.0, 3.0, 2.0, 5.0),
    ];
    let mut spsa = Spsa::new(params, Schedule::new(50), Rounding::Random, 1);
    for k in 1..=50 {
        let pert = spsa.perturb(k);
        for v in pert.plus.iter().chain(&pert.minus) {
            assert!((0..=3).contains(v), "{v}");
        }
        spsa.update(&pert, if k % 3 == 0 { -2.0 } else { 2.0 });
        for t in &spsa.theta {
            assert!((0.0..=3.0).contains(t), "{t}");
        }
    }
    assert!(spsa.rounded().iter().all(|v| (0..=3).contains(v)));
}

#[test]
fn the_schedule_ends_at_c_end_and_r_end() {
    let p = param("A", 0.0, -10.0, 10.0, 0.5, 0.002);
    let s = Schedule::new(1000);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12 * b.abs().max(1.0);
    assert!(close(s.c_k(&p, 1000), 0.5));
    assert!(close(s.a_k(&p, 1000), 0.002 * 0.25));
    // Both shrink from the first iteration on, c by k^-0.101.
    assert!(s.c_k(&p, 1) > s.c_k(&p, 2) && s.c_k(&p, 2) > s.c_k(&p, 1000));
    assert!(close(s.c_k(&p, 1), 0.5 * 1000f64.powf(0.101)));
    assert!(s.a_k(&p, 1) > s.a_k(&p, 1000));
    // The last step of a won pair is r_end * c_end * result.
    let mut spsa = Spsa::new(vec![p], s, Rounding::Nearest, 1);
    let pert = Perturbation {
        k: 1000,
        signs: vec![1],
        plus: vec![1],
        minus: vec![0],
    };
    spsa.update(&pert, 2.0);
    assert!(close(spsa.theta[0], 0.002 * 0.5 * 2.0));
}

#[test]
fn a_win_moves_theta_towards_theta_plus() {
    let params = vec![
        param("A", 5.0, 0.0, 10.0, 1.0, 0.1),
        param("B", 5.0, 0.0, 10.0, 1.0, 0.1),
    ];
    let mut spsa = Spsa::new(params, Schedule::new(10), Rounding::Nearest, 1);
    let pert = spsa.perturb(1);
    spsa.update(&pert, 2.0);
    for i in 0..2 {
        let towards = (pert.plus[i] - pert.minus[i]).signum() as f64;
        assert_eq!((spsa.theta[i] - 5.0).signum(), towards);
    }
}

#[test]
fn random_rounding_is_unbiased_and_nearest_rounds() {
    let p = param("A", 0.0, 0.0, 10.0, 1.0, 0.1);
    let mut rng = StdRng::seed_from_u64(1);
    let n = 20_000;
    let sum: i64 = (0..n)
        .map(|_| to_integer(3.3, &p, Rounding::Random, &mut rng))
        .sum();
    let mean = sum as f64 / n as f64;
    assert!((mean - 3.3).abs() < 0.02, "{mean}");
    for _ in 0..100 {
        let v = to_integer(3.3, &p, Rounding::Random, &mut rng);
        assert!(v == 3 || v == 4);
    }
    assert_eq!(to_integer(3.6, &p, Rounding::Nearest, &mut rng), 4);
    assert_eq!(to_integer(-2.0, &p, Rounding::Nearest, &mut rng), 0);
    assert_eq!(to_integer(12.7, &p, Rounding::Random, &mut rng), 10);
}

#[test]
fn the_same_seed_draws_the_same_perturbations() {
    let params = vec![param("A", 5.0, 0.0, 10.0, 1.0, 0.1); 4];
    let a = Spsa::new(params.clone(), Schedule::new(10), Rounding::Random, 42);
    let b = Spsa::new(params, Schedule::new(10), Rounding::Random, 42);
    assert_eq!(a.perturb(3), b.perturb(3));
    assert_ne!(a.perturb(3).signs, a.perturb(4).signs);
}

#[test]
fn parameter_files_and_option_lines() {
    let text = "# name,value,min,max,c_end,r_end\nFoo, 3, 0, 8, 0.5, 0.002\n\nBar,30,5,200,4,0.002 # window\n";
    let p = parse_params(text).unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(p[1], param("Bar", 30.0, 5.0, 200.0, 4.0, 0.002));
    for (bad, says) in [
        ("Foo,3,0,8,0.5", "expected name,value"),
        ("Foo,x,0,8,0.5,0.002", "'x' is not a number"),
        ("Foo,9,0,8,0.5,0.002", "outside"),
        ("Foo,3,0,8,0,0.002", "positive"),
    ] {
        let e = parse_params(bad).unwrap_err().to_string();
        assert!(e.contains(says) && e.contains("line 1"), "{bad}: {e}");
    }
    assert_eq!(
        parse_spin("option name Search Lmp Base type spin default 6 min 1 max 30"),
        Some(("Search Lmp Base".into(), 6, 1, 30))
    );
    assert_eq!(
        parse_spin("option name Game type combo default mixtour var mixtour"),
        None
    );
    let lines = vec![
        "option name SearchA type spin default 6 min 1 max 30".to_string(),
        "option name Hash type spin default 16 min 1 max 1024".to_string(),
        "option name SearchB type spin default 100 min 0 max 200".to_string(),
    ];
    let steps = |n: &str| (n == "SearchA").then_some((0.5, 0.003));
    let p = params_from_options(&lines, "Search", &steps);
    assert_eq!(
        p,
        vec![
            param("SearchA", 6.0, 1.0, 30.0, 0.5, 0.003),
            param("SearchB", 100.0, 0.0, 200.0, 10.0, DEFAULT_R_END)
        ]
    );
}

/// A fake engine with a MockSpinA option that plays the first legal move
/// of the position it was given; with `works` false, one that exits when
/// greeted.
fn fake_engine(works: bool) -> Box<dyn stackfish_client::transport::Transport> {
    use stackfish_client::transport::FakeTransport;
    use stackfish_games::variants::new_game;
    let mut pos = new_game("mixtour").expect("mixtour");
    Box::new(FakeTransport::new(move |line: &str| {
        let out: Vec<&str> = match line {
            "ugi" if !works => return None,
            "ugi" => vec![
                "option name MockSpinA type spin default 5 min 0 max 10",
                "ugiok",
            ],
            "isready" => vec!["readyok"],
            _ if line.starts_with("position startpos") => {
                pos = new_game("mixtour").expect("mixtour");
                for m in line.split_whitespace().skip(3) {
                    pos.play_text(m).expect("a legal move");
                }
                vec![]
            }
            _ if line.starts_with("go") => {
                return Some(vec![format!("bestmove {}", pos.legal_moves()[0])])
            }
            _ => vec![],
        };
        Some(out.into_iter().map(String::from).collect())
    }))
}

#[test]
fn an_engine_that_fails_its_handshake_forfeits_the_game_and_the_run_goes_on() {
    // Issue 41: the match runner forfeited such a game, the tuner stopped
    // the whole run. Start 1 is the check before any game, start 2 fails
    // (theta+ plays first and forfeits), starts 3 and 4 play the return game.
    let starts = std::sync::atomic::AtomicU32::new(0);
    let spawn = |_: &EngineSpec| {
        let n = starts.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(fake_engine(n != 2))
    };
    let dir = std::env::temp_dir().join(format!("arena-tune-forfeit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = TuneConfig {
        engine: EngineSpec {
            name: "fake".into(),
            cmd: "fake".into(),
            depth: Some(1),
            ..EngineSpec::default()
        },
        game: "mixtour".into(),
        params: vec![param("MockSpinA", 5.0, 0.0, 10.0, 1.0, 0.002)],
        schedule: Schedule::new(1),
        rounding: Rounding::Nearest,
        pairs: 1,
        seed: 1,
        concurrency: 1,
        openings: None,
        max_plies: 6,
        timeouts: Timeouts::default(),
        trace: dir.join("trace.jsonl"),
        resume: false,
        report_every: 0,
    };
    let mut out = Vec::new();
    let outcome = run_tune(&cfg, &mut out, &spawn).expect("the run goes on");
    assert_eq!(outcome.iterations_done, 1);
    assert_eq!(starts.load(Ordering::SeqCst), 4);
    let trace = std::fs::read_to_string(&cfg.trace).unwrap();
    let line: serde_json::Value =
        serde_json::from_str(trace.lines().nth(1).expect("the iteration's line")).unwrap();
    // theta+ lost the forfeit and drew the return game at the ply limit.
    assert_eq!(line["result"], -1.0, "{trace}");
    let _ = std::fs::remove_dir_all(&dir);
}
