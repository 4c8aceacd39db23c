//! Man pages and shell completion scripts, generated from a binary's clap
//! definition (clap_mangen, clap_complete), so they can never disagree with
//! the flags the binary really takes. Both binaries call these from a
//! subcommand: `completions <shell>` prints a script, `man --dir <dir>`
//! writes the pages (the Debian package is built from them).

use std::ffi::OsStr;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::builder::{PossibleValue, TypedValueParser};

pub use clap_complete::Shell;

/// Writes the completion script of the binary described by `cmd` for
/// `shell` to `out`.
pub fn write_completions(mut cmd: clap::Command, shell: Shell, out: &mut dyn Write) {
    let name = cmd.get_name().to_string();
    clap_complete::generate(shell, &mut cmd, name, out);
}

/// Writes one page in section 1 for `cmd` and one for each visible
/// subcommand, at any depth (`stackfish.1`, `stackfish-perft.1`, ...), into
/// `dir`, which is created if missing. Returns the files written.
pub fn write_man_pages(cmd: clap::Command, dir: &Path) -> io::Result<Vec<PathBuf>> {
    write_man_pages_with(cmd, dir, &[], &[])
}

/// As [`write_man_pages`], with an EXIT STATUS section (`exit_status`: each
/// code and what it means) and an EXAMPLES section (each command and what it
/// does) at the end of the program's own page.
pub fn write_man_pages_with(
    cmd: clap::Command,
    dir: &Path,
    exit_status: &[(&str, &str)],
    examples: &[(&str, &str)],
) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    // `help` is clap's pseudo-subcommand, not a page of its own; building
    // fills in the names subcommand pages are titled by (`stackfish-perft`).
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    // Subcommands carry no version of their own: every page names the
    // program's, as man(1) shows it in the footer.
    let source = match cmd.get_version() {
        Some(v) => format!("{} {v}", cmd.get_name()),
        None => cmd.get_name().to_string(),
    };
    let mut written = Vec::new();
    write_pages(cmd, &source, dir, &mut written)?;
    // The program's own page is written last.
    if let Some(page) = written.last() {
        let mut text = std::fs::read(page)?;
        text.extend(roff_section("\"EXIT STATUS\"", exit_status).as_bytes());
        text.extend(roff_section("EXAMPLES", examples).as_bytes());
        std::fs::write(page, text)?;
    }
    Ok(written)
}

/// A man page section of tagged paragraphs (`.TP`); empty without items.
fn roff_section(title: &str, items: &[(&str, &str)]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let mut out = format!(".SH {title}\n");
    for (tag, body) in items {
        out.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", roff(tag), roff(body)));
    }
    out
}

/// Text escaped for roff: backslashes and dashes, and no line that starts
/// with a control character.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

fn write_pages(
    cmd: clap::Command,
    source: &str,
    dir: &Path,
    written: &mut Vec<PathBuf>,
) -> io::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub.clone(), source, dir, written)?;
    }
    let page = clap_mangen::Man::new(cmd)
        .source(source)
        .manual("stackfish manual");
    written.push(page.generate_to(dir)?);
    Ok(())
}

/// A string argument with a closed set of usual values, declared to clap so
/// completion scripts and `--help` list them, but not checked by clap: the
/// code that reads the value gives the specific error (an unknown game names
/// the known ones), and some accept more (the arena's `--game` with
/// `--referee engines` takes a game the rules library does not know, names
/// are case-insensitive).
pub fn choices(values: &'static [&'static str]) -> Choices {
    Choices(values)
}

/// See [`choices`].
#[derive(Clone, Copy, Debug)]
pub struct Choices(&'static [&'static str]);

impl TypedValueParser for Choices {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.0.iter().map(|v| PossibleValue::new(*v))))
    }
}

/// The arguments of `cmd` and its subcommands, at any depth, that have no
/// help text, as `command --arg` (clap's own `--help` and `--version` aside).
pub fn args_without_help(cmd: &clap::Command) -> Vec<String> {
    let mut missing = Vec::new();
    let mut cmd = cmd.clone().disable_help_subcommand(true);
    cmd.build();
    collect_without_help(&cmd, cmd.get_name(), &mut missing);
    missing
}

fn collect_without_help(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        if id == "help" || id == "version" || arg.is_hide_set() {
            continue;
        }
        if arg.get_help().is_none() && arg.get_long_help().is_none() {
            missing.push(format!("{path} {id}"));
        }
    }
    for sub in cmd.get_subcommands() {
        collect_without_help(sub, &format!("{path} {}", sub.get_name()), missing);
    }
}
