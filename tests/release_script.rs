//! tools/release.sh's fault paths, run with a PATH of the system's tools
//! less the ones under test and stand-ins for cargo, rustc and rustup (the
//! full release takes too long for a test): every missing tool gives one
//! line naming what installs it, all in one run, and nothing is built and
//! no folder is left; a failed build leaves none; a finished one is renamed
//! into place with its SHA256SUMS; `--help` prints the usage. The same for
//! the build-*.sh scripts it calls.

#![cfg(unix)]

use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The Rust targets a release needs; the stand-in rustup lists them.
const ALL_TARGETS: &str = "x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu \
                           x86_64-pc-windows-gnu wasm32-unknown-unknown";

/// Never linked from the system, so that a test decides whether they exist.
const NEVER_LINKED: &[&str] = &[
    "cargo",
    "rustc",
    "rustup",
    "cargo-deb",
    "maturin",
    "zig",
    "auditwheel",
];

/// The cross linkers release.sh looks for: never linked from the system
/// either, but stand-ins that do nothing (the stand-in cargo builds nothing
/// to link), so that the tests do not depend on the machine's packages; a
/// test leaves one out to see it missing.
const CROSS_LINKERS: &[&str] = &["x86_64-w64-mingw32-gcc", "aarch64-linux-gnu-gcc"];

const CARGO: &str = r#"#!/bin/sh
# cargo for tools/release.sh's tests: `deb --version` works unless
# STUB_NO_CARGO_DEB; `build --target T` writes stand-in .exe files into
# $CARGO_TARGET_DIR/T/dist (release.sh builds in the dist profile), or
# fails when STUB_BUILD_FAILS. Every call is logged to $STUB_LOG.
echo "cargo $*" >>"$STUB_LOG"
case "$1" in
    deb) [ -z "$STUB_NO_CARGO_DEB" ] ;;
    build)
        if [ -n "$STUB_BUILD_FAILS" ]; then echo "stub cargo: build failed" >&2; exit 101; fi
        t=""; prev=""
        for a in "$@"; do [ "$prev" = "--target" ] && t=$a; prev=$a; done
        d="$CARGO_TARGET_DIR/$t/dist"
        mkdir -p "$d"
        echo "MZ stackfish for $t" >"$d/stackfish.exe"
        echo "MZ arena for $t" >"$d/arena.exe" ;;
    *) exit 0 ;;
esac
"#;

const RUSTUP: &str = r#"#!/bin/sh
# rustup for tools/release.sh's tests: lists $STUB_TARGETS as installed.
[ "$1 $2 $3" = "target list --installed" ] && for t in $STUB_TARGETS; do echo "$t"; done
exit 0
"#;

const RUSTC: &str = r#"#!/bin/sh
# rustc for tools/build-deb.sh's tests: an x86-64 Linux host.
[ "$1" = -vV ] && echo "host: x86_64-unknown-linux-gnu"
exit 0
"#;

/// The stand-in cross linkers: they link nothing (the stand-in cargo builds
/// nothing), and name a C library as gcc does when it has one.
const LINKER: &str = r#"#!/bin/sh
case "$1" in -print-file-name=*) echo "/stub/sysroot/lib/${1#-print-file-name=}" ;; esac
exit 0
"#;

struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("stackfish-release-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("out")).expect("scratch folder");
        Scratch { dir }
    }

    /// A folder of links to every program in the system's folders except
    /// `without`, NEVER_LINKED and CROSS_LINKERS, plus the stand-in cargo and
    /// rustup and the cross linkers not in `without`.
    fn path_without(&self, without: &[&str]) -> String {
        let bin = self.dir.join("bin");
        std::fs::create_dir_all(&bin).expect("bin folder");
        for folder in ["/usr/local/bin", "/usr/bin", "/bin"] {
            let Ok(entries) = std::fs::read_dir(folder) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                let name = name.as_ref();
                if without.contains(&name)
                    || NEVER_LINKED.contains(&name)
                    || CROSS_LINKERS.contains(&name)
                {
                    continue;
                }
                let link = bin.join(name);
                if !link.exists() {
                    let _ = symlink(entry.path(), &link);
                }
            }
        }
        let linkers = CROSS_LINKERS
            .iter()
            .filter(|name| !without.contains(name))
            .map(|&name| (name, LINKER));
        for (name, text) in [("cargo", CARGO), ("rustup", RUSTUP), ("rustc", RUSTC)]
            .into_iter()
            .chain(linkers)
        {
            let file = bin.join(name);
            std::fs::write(&file, text).expect("stand-in written");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        bin.display().to_string()
    }

    /// The checkout as the scripts see it: a link to it in the scratch
    /// folder, whose path has no space even where the clone's has (a
    /// release refuses such a path; see `a_path_with_a_space_is_refused`).
    fn checkout(&self) -> PathBuf {
        self.checkout_at("checkout")
    }

    fn checkout_at(&self, name: &str) -> PathBuf {
        let link = self.dir.join(name);
        if !link.exists() {
            symlink(ROOT, &link).expect("link to the checkout");
        }
        link
    }

    fn out(&self) -> PathBuf {
        self.dir.join("out").join("rel")
    }

    /// Everything in the out folder's parent: a release, or what is left of one.
    fn left(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.dir.join("out"))
            .expect("out folder")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// Where the stand-in cargo logs its calls.
    fn cargo_log(&self) -> PathBuf {
        self.dir.join("cargo.log")
    }

    /// The calls that built something: none when a script stops first.
    fn builds(&self) -> Vec<String> {
        std::fs::read_to_string(self.cargo_log())
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("cargo build") || l.starts_with("cargo deb --no-build"))
            .map(str::to_string)
            .collect()
    }

    fn release(&self, path: &str, env: &[(&str, &str)], args: &[&str]) -> Output {
        let out = self.out().display().to_string();
        let mut all = vec!["--out", out.as_str()];
        all.extend_from_slice(args);
        self.script("release.sh", path, env, &all)
    }

    /// tools/SCRIPT run with `path` as its PATH, its builds in the scratch
    /// folder.
    fn script(&self, script: &str, path: &str, env: &[(&str, &str)], args: &[&str]) -> Output {
        self.script_from(&self.checkout(), script, path, env, args)
    }

    /// tools/SCRIPT of the checkout seen at `checkout`.
    fn script_from(
        &self,
        checkout: &Path,
        script: &str,
        path: &str,
        env: &[(&str, &str)],
        args: &[&str],
    ) -> Output {
        let mut command = Command::new("/bin/bash");
        command
            .arg(checkout.join("tools").join(script))
            .args(args)
            .env_clear()
            .env("PATH", path)
            .env(
                "HOME",
                std::env::var("HOME").unwrap_or_else(|_| "/root".into()),
            )
            .env("TMPDIR", &self.dir)
            .env("RELEASE_TARGET_DIR", self.dir.join("target"))
            .env("CARGO_TARGET_DIR", self.dir.join("target"))
            .env("SOURCE_DATE_EPOCH", "1700000000")
            .env("STUB_TARGETS", ALL_TARGETS)
            .env("STUB_LOG", self.cargo_log());
        for (k, v) in env {
            command.env(k, v);
        }
        command
            .output()
            .unwrap_or_else(|e| panic!("bash runs tools/{script}: {e}"))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The script stops before building: exit 1, exactly `lines` on stderr,
/// no build started, nothing in the out folder's parent.
fn assert_missing(scratch: &Scratch, out: Output, lines: &[&str]) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert_eq!(err.lines().collect::<Vec<_>>(), lines, "stderr: {err}");
    assert_eq!(
        scratch.builds(),
        Vec::<String>::new(),
        "built before stopping"
    );
    assert!(
        scratch.left().is_empty(),
        "left behind: {:?}",
        scratch.left()
    );
}

#[test]
fn a_missing_cross_compiler_names_its_debian_package() {
    let s = Scratch::new("mingw");
    let path = s.path_without(&["x86_64-w64-mingw32-gcc"]);
    let out = s.release(&path, &[], &["--only", "windows"]);
    assert_missing(
        &s,
        out,
        &["release: x86_64-w64-mingw32-gcc is missing; install it with: apt-get install gcc-mingw-w64-x86-64"],
    );

    let s = Scratch::new("aarch64-gcc");
    let path = s.path_without(&["aarch64-linux-gnu-gcc"]);
    let out = s.release(&path, &[], &["--only", "linux-aarch64"]);
    assert_missing(
        &s,
        out,
        &["release: aarch64-linux-gnu-gcc is missing; install it with: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross"],
    );
}

#[test]
fn a_missing_rust_target_names_the_rustup_command() {
    let s = Scratch::new("target");
    let path = s.path_without(&[]);
    let out = s.release(
        &path,
        &[("STUB_TARGETS", "x86_64-unknown-linux-gnu")],
        &["--only", "windows"],
    );
    assert_missing(
        &s,
        out,
        &["release: the Rust target x86_64-pc-windows-gnu is missing; install it with: rustup target add x86_64-pc-windows-gnu"],
    );
}

#[test]
fn missing_cargo_deb_and_maturin_name_their_installs() {
    let s = Scratch::new("cargo-deb");
    let path = s.path_without(&[]);
    let out = s.release(
        &path,
        &[("STUB_NO_CARGO_DEB", "1")],
        &["--only", "linux-x86_64"],
    );
    assert_missing(
        &s,
        out,
        &["release: cargo-deb is missing; install it with: cargo install cargo-deb --locked"],
    );

    // All three PyPI tools at once (no python3, so no `python3 -m ziglang`).
    let s = Scratch::new("maturin");
    let path = s.path_without(&["python3"]);
    let out = s.release(&path, &[], &["--only", "python"]);
    assert_missing(
        &s,
        out,
        &[
            "release: maturin is missing; install it with: pip install maturin==1.16.0",
            "release: zig is missing; install it with: pip install ziglang==0.17.1",
            "release: auditwheel is missing; install it with: pip install auditwheel==6.8.2",
        ],
    );
}

#[test]
fn every_missing_tool_of_a_full_release_is_named_in_one_run() {
    let s = Scratch::new("all-missing");
    let path = s.path_without(&[
        "x86_64-w64-mingw32-gcc",
        "zip",
        "readelf",
        "dpkg-deb",
        "python3",
        "rsvg-convert",
        "npm",
    ]);
    // Only the host's target: aarch64 (Linux and the wheel) and wasm32
    // (npm and the site) are each needed by two parts, named once.
    let out = s.release(
        &path,
        &[
            ("STUB_TARGETS", "x86_64-unknown-linux-gnu"),
            ("STUB_NO_CARGO_DEB", "1"),
        ],
        &[],
    );
    assert_missing(
        &s,
        out,
        &[
            "release: cargo-deb is missing; install it with: cargo install cargo-deb --locked",
            "release: readelf is missing; install it with: apt-get install binutils",
            "release: dpkg-deb is missing; install it with: apt-get install dpkg",
            "release: the Rust target aarch64-unknown-linux-gnu is missing; install it with: rustup target add aarch64-unknown-linux-gnu",
            "release: the Rust target x86_64-pc-windows-gnu is missing; install it with: rustup target add x86_64-pc-windows-gnu",
            "release: x86_64-w64-mingw32-gcc is missing; install it with: apt-get install gcc-mingw-w64-x86-64",
            "release: zip is missing; install it with: apt-get install zip",
            "release: maturin is missing; install it with: pip install maturin==1.16.0",
            "release: zig is missing; install it with: pip install ziglang==0.17.1",
            "release: auditwheel is missing; install it with: pip install auditwheel==6.8.2",
            "release: the Rust target wasm32-unknown-unknown is missing; install it with: rustup target add wasm32-unknown-unknown",
            "release: rsvg-convert is missing; install it with: apt-get install librsvg2-bin",
            "release: npm is missing; install it with: apt-get install npm",
        ],
    );
    assert!(
        !s.dir.join("target").exists(),
        "a build folder was made before stopping"
    );
}

#[test]
fn the_cross_c_library_is_asked_of_the_cross_gcc() {
    // A cross gcc that finds no libc.so echoes the bare name.
    let s = Scratch::new("arm-libc");
    let path = s.path_without(&[]);
    let gcc = Path::new(&path).join("aarch64-linux-gnu-gcc");
    std::fs::write(&gcc, "#!/bin/sh\necho libc.so\n").expect("stand-in gcc");
    let out = s.release(&path, &[], &["--only", "linux-aarch64"]);
    assert_missing(
        &s,
        out,
        &["release: the arm64 C library for cross-linking is missing; install it with: apt-get install libc6-dev-arm64-cross"],
    );
}

#[test]
fn help_prints_the_usage_before_any_check() {
    // The parts the script accepts, from its own refusal of another.
    let s = Scratch::new("parts");
    let path = s.path_without(&[]);
    let refusal = text(&s.release(&path, &[], &["--only", "solaris"]).stderr);
    let parts: Vec<String> = refusal
        .split("(one of: ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .expect("the refusal lists the parts")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    assert!(parts.len() >= 6, "{refusal}");

    for flag in ["--help", "-h"] {
        // maturin, zig and auditwheel are missing here: the usage comes first.
        let s = Scratch::new("help");
        let path = s.path_without(&[]);
        let out = s.release(&path, &[], &[flag]);
        let usage = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{flag}: {}", text(&out.stderr));
        assert_eq!(text(&out.stderr), "", "{flag}");
        assert!(
            usage.contains("tools/release.sh [--out DIR] [--only PART,...] [--profile P]"),
            "{flag}: {usage}"
        );
        for part in &parts {
            assert!(
                usage.contains(part.as_str()),
                "{flag}: no {part} in {usage}"
            );
        }
        assert!(!usage.contains("#!"), "{flag}: {usage}");
        assert_eq!(s.builds(), Vec::<String>::new());
        assert!(s.left().is_empty(), "left behind: {:?}", s.left());
    }
}

#[test]
fn the_build_scripts_name_every_missing_tool_at_once() {
    let s = Scratch::new("site");
    let path = s.path_without(&["rsvg-convert"]);
    let out = s.script(
        "build-site.sh",
        &path,
        &[("STUB_TARGETS", "x86_64-unknown-linux-gnu")],
        &[],
    );
    assert_missing(
        &s,
        out,
        &[
            "build-site: the Rust target wasm32-unknown-unknown is missing; install it with: rustup target add wasm32-unknown-unknown",
            "build-site: rsvg-convert (it draws the site's icons) is missing; install it with: apt-get install librsvg2-bin",
        ],
    );

    let s = Scratch::new("deb");
    let path = s.path_without(&["aarch64-linux-gnu-gcc"]);
    let out = s.script(
        "build-deb.sh",
        &path,
        &[
            ("STUB_TARGETS", "x86_64-unknown-linux-gnu"),
            ("STUB_NO_CARGO_DEB", "1"),
        ],
        &["--target", "aarch64-unknown-linux-gnu"],
    );
    assert_missing(
        &s,
        out,
        &[
            "build-deb: cargo-deb is missing; install it with: cargo install cargo-deb --locked",
            "build-deb: the Rust target aarch64-unknown-linux-gnu is missing; install it with: rustup target add aarch64-unknown-linux-gnu",
            "build-deb: aarch64-linux-gnu-gcc is missing; install it with: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross",
        ],
    );

    let s = Scratch::new("sac-cpu");
    let path = s.path_without(&["node", "npm"]);
    let out = s.script(
        "build-sac-cpu.sh",
        &path,
        &[("STUB_TARGETS", "x86_64-unknown-linux-gnu")],
        &[],
    );
    assert_missing(
        &s,
        out,
        &[
            "build-sac-cpu: the Rust target wasm32-unknown-unknown is missing; install it with: rustup target add wasm32-unknown-unknown",
            "build-sac-cpu: node is missing; install it with: apt-get install nodejs",
            "build-sac-cpu: npm is missing; install it with: apt-get install npm",
        ],
    );

    let s = Scratch::new("wheels");
    let path = s.path_without(&["python3"]);
    let out = s.script(
        "build-wheels.sh",
        &path,
        &[("STUB_TARGETS", "x86_64-unknown-linux-gnu")],
        &["--out", &s.out().display().to_string()],
    );
    assert_missing(
        &s,
        out,
        &[
            "build-wheels: maturin is missing; install it with: pip install maturin==1.16.0",
            "build-wheels: zig is missing; install it with: pip install ziglang==0.17.1",
            "build-wheels: auditwheel is missing; install it with: pip install auditwheel==6.8.2",
            "build-wheels: the Rust target aarch64-unknown-linux-gnu is missing; install it with: rustup target add aarch64-unknown-linux-gnu",
        ],
    );
}

#[test]
fn the_build_scripts_print_their_usage() {
    for (script, usage) in [
        ("build-site.sh", "tools/build-site.sh [--profile P]"),
        (
            "build-deb.sh",
            "tools/build-deb.sh --target aarch64-unknown-linux-gnu --profile release",
        ),
        ("build-sac-cpu.sh", "tools/build-sac-cpu.sh [--profile P] [--level N]"),
        (
            "build-wheels.sh",
            "tools/build-wheels.sh [--out DIR] [--profile P] [--sdist] [--no-wheels] [x86_64] [aarch64]",
        ),
    ] {
        for flag in ["--help", "-h"] {
            // No tool at all beside the shell's: the usage needs none.
            let s = Scratch::new("script-help");
            let path = s.path_without(&["rsvg-convert", "readelf", "dpkg-deb", "python3"]);
            let out = s.script(script, &path, &[("STUB_TARGETS", "")], &[flag]);
            let printed = text(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{script} {flag}: {}", text(&out.stderr));
            assert!(printed.contains(usage), "{script} {flag}: {printed}");
            assert_eq!(s.builds(), Vec::<String>::new(), "{script} {flag}");
        }
    }
}

#[test]
fn an_unknown_part_is_refused() {
    let s = Scratch::new("part");
    let path = s.path_without(&[]);
    let out = s.release(&path, &[], &["--only", "windows,solaris"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unknown part solaris"),
        "{}",
        text(&out.stderr)
    );
    assert!(s.left().is_empty());
}

#[test]
fn a_path_with_a_space_is_refused() {
    // The path remapping travels in RUSTFLAGS, split at spaces, and mingw's
    // dlltool fails in such a folder: the release says so before building.
    let s = Scratch::new("space");
    let path = s.path_without(&[]);
    let checkout = s.checkout_at("my clone");
    let out_dir = s.out().display().to_string();
    let out = s.script_from(
        &checkout,
        "release.sh",
        &path,
        &[],
        &["--out", &out_dir, "--only", "windows"],
    );
    let want = format!(
        "release: a release is built in folders whose paths have no space, not '{}' \
         (clone elsewhere, or set RELEASE_TARGET_DIR)",
        checkout.display()
    );
    assert_missing(&s, out, &[&want]);
}

#[test]
fn a_failed_build_leaves_no_folder() {
    let s = Scratch::new("fails");
    let path = s.path_without(&[]);
    let out = s.release(&path, &[("STUB_BUILD_FAILS", "1")], &["--only", "windows"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("stub cargo: build failed"),
        "{}",
        text(&out.stderr)
    );
    assert!(s.left().is_empty(), "left behind: {:?}", s.left());
}

#[test]
fn a_finished_release_replaces_the_folder_with_sums_that_check() {
    let s = Scratch::new("done");
    let path = s.path_without(&[]);
    assert!(
        path_has(&path, "zip"),
        "this test needs zip (Debian's zip package) on the system"
    );
    // A stale release of the same name is replaced, not merged into.
    std::fs::create_dir_all(s.out()).expect("old release");
    std::fs::write(s.out().join("stale.txt"), "old").expect("old file");

    let out = s.release(&path, &[], &["--only", "windows"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(
        s.left(),
        vec!["rel".to_string()],
        "only the finished folder"
    );
    assert_eq!(text(&out.stdout).trim(), s.out().display().to_string());
    let version = workspace_version();
    let zip = format!("stackfish-{version}-x86_64-windows.zip");
    let mut files: Vec<String> = std::fs::read_dir(s.out())
        .expect("release folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, vec!["SHA256SUMS".to_string(), zip.clone()]);
    let check = Command::new("sha256sum")
        .args(["-c", "SHA256SUMS"])
        .current_dir(s.out())
        .output()
        .expect("sha256sum runs");
    assert!(check.status.success(), "{}", text(&check.stdout));
    assert!(text(&check.stdout).contains(&format!("{zip}: OK")));
    // `zip -sf` lists an archive's files, one a line, indented.
    let listing = Command::new("zip")
        .arg("-sf")
        .arg(s.out().join(&zip))
        .output()
        .expect("zip runs");
    let names = text(&listing.stdout);
    let names: Vec<&str> = names.lines().map(str::trim).collect();
    for name in [
        "stackfish.exe",
        "arena.exe",
        "LICENSE.txt",
        "README.md",
        "docs/rules/mixtour.md",
    ] {
        assert!(names.contains(&name), "{name} not in {names:?}");
    }

    // Built again with the same SOURCE_DATE_EPOCH: the same bytes.
    let first = std::fs::read(s.out().join(&zip)).expect("zip");
    let again = s.release(&path, &[], &["--only", "windows"]);
    assert_eq!(
        again.status.code(),
        Some(0),
        "stderr: {}",
        text(&again.stderr)
    );
    assert!(
        std::fs::read(s.out().join(&zip)).expect("zip") == first,
        "the zip differs between two builds"
    );
}

fn path_has(path: &str, tool: &str) -> bool {
    path.split(':').any(|d| Path::new(d).join(tool).exists())
}

/// The version in Cargo.toml's [workspace.package], read as a person would.
fn workspace_version() -> String {
    let toml = std::fs::read_to_string(Path::new(ROOT).join("Cargo.toml")).expect("Cargo.toml");
    let section = toml
        .split("[workspace.package]")
        .nth(1)
        .expect("[workspace.package]");
    let line = section
        .lines()
        .find(|l| l.starts_with("version = "))
        .expect("a version line");
    line.trim_start_matches("version = ")
        .trim_matches('"')
        .to_string()
}
