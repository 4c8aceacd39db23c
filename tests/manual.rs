//! Man pages and shell completions of both binaries, checked against what
//! the binaries' own `--help` lists, and the completion scripts run in bash.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const STACKFISH: &str = env!("CARGO_BIN_EXE_stackfish");
const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn run(exe: &str, args: &[&str]) -> Output {
    Command::new(exe).args(args).output().expect("binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stackfish-manual-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The subcommands `<exe> --help` lists under "Commands:", without `help`.
fn listed_subcommands(exe: &str) -> Vec<String> {
    let help = text(&run(exe, &["--help"]).stdout);
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

fn check_man_pages(exe: &str, name: &str) {
    let subcommands = listed_subcommands(exe);
    assert!(
        subcommands.len() >= 3,
        "{name} --help lists too few commands: {subcommands:?}"
    );
    let dir = temp_dir(name);
    let out = run(
        exe,
        &["man", "--dir", dir.to_str().expect("utf-8 temp path")],
    );
    assert!(out.status.success(), "{name} man: {}", text(&out.stderr));
    let mut expected: Vec<String> = subcommands
        .iter()
        .map(|s| format!("{name}-{s}.1"))
        .collect();
    expected.push(format!("{name}.1"));
    expected.sort();
    let mut found: Vec<String> = std::fs::read_dir(&dir)
        .expect("pages written")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    assert_eq!(found, expected, "{name}: one page per command");
    for page in &found {
        let body = std::fs::read_to_string(dir.join(page)).expect("page is text");
        let title = page.trim_end_matches(".1");
        assert!(
            body.contains(&format!(".TH {title} 1 ")),
            "{page}: no title line"
        );
        assert!(body.contains(".SH NAME"), "{page}: no NAME section");
        assert!(
            body.contains(&format!("{name} {}", env!("CARGO_PKG_VERSION"))),
            "{page}: the version is not named"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_command_of_stackfish_has_a_man_page() {
    check_man_pages(STACKFISH, "stackfish");
    let dir = temp_dir("stackfish-perft");
    let out = run(STACKFISH, &["man", "--dir", dir.to_str().expect("utf-8")]);
    assert!(out.status.success());
    let perft = std::fs::read_to_string(dir.join("stackfish-perft.1")).expect("perft page");
    for flag in ["fen", "moves", "divide", "game"] {
        assert!(
            perft.contains(&format!("\\-\\-{flag}")),
            "perft page lacks --{flag}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_command_of_the_arena_has_a_man_page() {
    check_man_pages(ARENA, "arena");
}

#[test]
fn man_pages_to_an_unwritable_folder_fail_with_a_message() {
    let file = temp_dir("not-a-folder");
    std::fs::write(&file, "a file, not a folder").expect("temp file");
    let inside = file.join("pages");
    let target = inside.to_str().expect("utf-8");
    for (exe, code) in [(STACKFISH, 2), (ARENA, 3)] {
        let out = run(exe, &["man", "--dir", target]);
        assert_eq!(out.status.code(), Some(code), "{exe}");
        assert!(
            text(&out.stderr).contains("cannot write man pages"),
            "{exe}: {}",
            text(&out.stderr)
        );
    }
    let _ = std::fs::remove_file(&file);
}

/// Completes `words` (the last one being typed) with the bash script and
/// returns the candidates.
fn bash_complete(script: &Path, function: &str, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let last = words.len() - 1;
    let prev = if last > 0 { words[last - 1] } else { words[0] };
    let code = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={last}; {function} '{}' '{}' '{prev}'; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        words[0],
        words[last],
    );
    let out = Command::new("bash")
        .args(["-c", &code])
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "bash: {}", text(&out.stderr));
    text(&out.stdout).lines().map(str::to_string).collect()
}

#[test]
fn bash_completion_completes_commands_and_flags() {
    let dir = temp_dir("bash");
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (exe, name) in [(STACKFISH, "stackfish"), (ARENA, "arena")] {
        let out = run(exe, &["completions", "bash"]);
        assert!(out.status.success());
        let script = dir.join(format!("{name}.bash"));
        std::fs::write(&script, &out.stdout).expect("script written");
        let syntax = Command::new("bash")
            .arg("-n")
            .arg(&script)
            .output()
            .expect("bash runs");
        assert!(syntax.status.success(), "{name}: {}", text(&syntax.stderr));
    }
    let stackfish = dir.join("stackfish.bash");
    let arena = dir.join("arena.bash");
    let complete =
        |script: &Path, words: &[&str]| bash_complete(script, &format!("_{}", words[0]), words);
    assert_eq!(complete(&stackfish, &["stackfish", "pe"]), ["perft"]);
    assert_eq!(
        complete(&stackfish, &["stackfish", "perft", "--di"]),
        ["--divide"]
    );
    assert_eq!(complete(&arena, &["arena", "mer"]), ["merge"]);
    assert_eq!(complete(&arena, &["arena", "--sp"]), ["--sprt"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn zsh_and_fish_scripts_name_their_binary() {
    for (exe, name) in [(STACKFISH, "stackfish"), (ARENA, "arena")] {
        let zsh = text(&run(exe, &["completions", "zsh"]).stdout);
        assert!(zsh.starts_with(&format!("#compdef {name}")), "{name} zsh");
        let fish = text(&run(exe, &["completions", "fish"]).stdout);
        assert!(
            fish.contains(&format!("complete -c {name} ")),
            "{name} fish"
        );
    }
}

#[test]
fn an_unknown_shell_is_refused_with_the_choices() {
    for exe in [STACKFISH, ARENA] {
        let out = run(exe, &["completions", "cmd.exe"]);
        assert!(!out.status.success(), "{exe}");
        let err = text(&out.stderr);
        assert!(
            err.contains("bash") && err.contains("zsh") && err.contains("fish"),
            "{err}"
        );
        assert!(out.stdout.is_empty(), "{exe}: printed a script anyway");
    }
}

#[test]
fn a_bad_command_line_is_one_error_line_with_a_hint_to_help() {
    // The hint names the help of the subcommand the line was for.
    for (exe, args, line, code, help) in [
        (
            STACKFISH,
            &["perft", "--gmae", "x"][..],
            "error: unexpected argument '--gmae' found",
            2,
            "stackfish perft",
        ),
        (
            STACKFISH,
            &["frobnicate"][..],
            "error: unrecognized subcommand 'frobnicate'",
            2,
            "stackfish",
        ),
        (
            ARENA,
            &["--games"][..],
            "arena: usage error: a value is required for '--games <GAMES>' but none was supplied",
            3,
            "arena",
        ),
    ] {
        let out = run(exe, args);
        assert_eq!(out.status.code(), Some(code), "{exe} {args:?}");
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(line), "{err}");
        assert_eq!(exe == STACKFISH, help.starts_with("stackfish"));
        assert!(
            err.trim_end().ends_with(&format!("; try '{help} --help'")),
            "{err}"
        );
    }
}

#[test]
fn closed_choices_complete_to_their_values_not_to_file_names() {
    let dir = temp_dir("choices");
    std::fs::create_dir_all(&dir).expect("temp dir");
    // A file whose name starts like a value: offered if files are offered.
    std::fs::write(dir.join("gx-file"), "").expect("temp file");
    let mut scripts = Vec::new();
    for (exe, name) in [(STACKFISH, "stackfish"), (ARENA, "arena")] {
        let out = run(exe, &["completions", "bash"]);
        assert!(out.status.success());
        let script = dir.join(format!("{name}.bash"));
        std::fs::write(&script, &out.stdout).expect("script written");
        scripts.push(script);
    }
    let complete = |script: &Path, words: &[&str]| {
        let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
        let last = words.len() - 1;
        let code = format!(
            "cd '{}'; source '{}'; COMP_WORDS=({}); COMP_CWORD={last}; _{} '{}' '{}' '{}'; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\" | sort",
            dir.display(),
            script.display(),
            quoted.join(" "),
            words[0],
            words[0],
            words[last],
            words[last - 1],
        );
        let out = Command::new("bash")
            .args(["-c", &code])
            .output()
            .expect("bash runs");
        assert!(out.status.success(), "bash: {}", text(&out.stderr));
        text(&out.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let (stackfish, arena) = (&scripts[0], &scripts[1]);
    assert_eq!(
        complete(stackfish, &["stackfish", "perft", "--game", "mi"]),
        ["mixtour", "mixtour-5"]
    );
    assert_eq!(
        complete(stackfish, &["stackfish", "tune", "--game", "f"]),
        ["focus"]
    );
    assert_eq!(
        complete(stackfish, &["stackfish", "solve", "--method", "f"]),
        ["full"]
    );
    assert_eq!(
        complete(arena, &["arena", "--tournament", "g"]),
        ["gauntlet"]
    );
    assert_eq!(
        complete(arena, &["arena", "--game", "si"]),
        ["silo", "silo-8"]
    );
    assert_eq!(
        complete(arena, &["arena", "openings", "--game", "c"]),
        ["castle", "castle-2", "castle-3", "coinstack"]
    );
    assert_eq!(
        complete(arena, &["arena", "compliance", "--game", "g"]),
        Vec::<String>::new()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_test_engines_print_their_usage() {
    for exe in [
        env!("CARGO_BIN_EXE_mock-engine"),
        env!("CARGO_BIN_EXE_negamax-engine"),
    ] {
        for flag in ["--help", "-h"] {
            let out = Command::new(exe)
                .arg(flag)
                .stdin(std::process::Stdio::null())
                .output()
                .expect("engine runs");
            assert_eq!(out.status.code(), Some(0), "{exe} {flag}");
            let usage = text(&out.stdout);
            assert!(usage.starts_with("Usage: "), "{exe} {flag}: {usage}");
            assert!(!usage.contains("ugiok"), "{exe} {flag}: {usage}");
        }
    }
}

#[test]
fn the_main_pages_have_exit_status_and_examples() {
    for (exe, name, codes) in [
        (STACKFISH, "stackfish", &["0", "1", "2"][..]),
        (ARENA, "arena", &["0", "1", "2", "3", "130"][..]),
    ] {
        let dir = temp_dir(&format!("{name}-sections"));
        let out = run(exe, &["man", "--dir", dir.to_str().expect("utf-8")]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let page = std::fs::read_to_string(dir.join(format!("{name}.1"))).expect("page");
        let status = page
            .split(".SH \"EXIT STATUS\"")
            .nth(1)
            .unwrap_or_else(|| panic!("{name}.1: no EXIT STATUS section"));
        let status = status.split(".SH").next().unwrap_or_default();
        for code in codes {
            assert!(
                status.contains(&format!("\\fB{code}\\fR")),
                "{name}.1: exit status {code} not described:\n{status}"
            );
        }
        let examples = page
            .split(".SH EXAMPLES")
            .nth(1)
            .unwrap_or_else(|| panic!("{name}.1: no EXAMPLES section"));
        assert!(
            examples.contains(&format!("{name} ")),
            "{name}.1: {examples}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
