//! The repository stands on its own: no file in it may point to a path
//! outside it (a sibling folder of the checkout, a developer's absolute
//! path), and every relative link of a Markdown page must land on a file or
//! folder inside the repository.
//!
//! Files are the ones git knows (tracked, or new and not ignored); without
//! git (an exported tarball) the tree is walked, skipping build output.
//! Binary files are skipped.

use std::path::{Component, Path, PathBuf};
use std::process::Command;

/// Text that names a place outside the repository. Built from pieces so
/// this file does not match itself.
fn outside_patterns() -> Vec<String> {
    let shared = ["sha", "red"].concat();
    vec![
        // The project's notes live next to the checkout, never in it.
        format!("../{shared}"),
        format!("{shared}/rules"),
        format!("{shared}/style.md"),
        format!("{shared}/arena-notes"),
        // Absolute paths of the machines the project is developed on.
        ["/wo", "rk/"].concat(),
        ["/ho", "me/"].concat(),
        ["/Us", "ers/"].concat(),
        ["/ro", "ot/"].concat(),
    ]
}

/// Every line of `text` that names a place outside, as (line number, the
/// first pattern it matches).
fn outside_references(text: &str, patterns: &[String]) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let p = patterns.iter().find(|p| line.contains(p.as_str()))?;
            Some((i + 1, p.clone()))
        })
        .collect()
}

/// The targets of inline Markdown links `[text](target)`, without the
/// `#anchor`; web addresses and pure anchors are left out.
fn markdown_links(text: &str) -> Vec<(usize, String)> {
    let mut links = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = rest[..end].split('#').next().unwrap_or("").trim();
            rest = &rest[end..];
            let external = target.contains("://") || target.starts_with("mailto:");
            if !target.is_empty() && !external {
                links.push((i + 1, target.to_string()));
            }
        }
    }
    links
}

/// Where a relative link from `file` (relative to the root) leads, or
/// `None` when it climbs above the root or is absolute.
fn resolve_link(file: &Path, target: &str) -> Option<PathBuf> {
    if target.starts_with('/') {
        return None;
    }
    let mut parts: Vec<Component> = file
        .parent()
        .into_iter()
        .flat_map(|p| p.components())
        .collect();
    for c in Path::new(target).components() {
        match c {
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            other => parts.push(other),
        }
    }
    Some(parts.iter().collect())
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Files git knows about (tracked, or untracked and not ignored), relative
/// to the root; `None` when git is not there or this is not a checkout.
fn git_files(root: &Path) -> Option<Vec<PathBuf>> {
    let out = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let list = String::from_utf8(out.stdout).ok()?;
    Some(
        list.split('\0')
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .filter(|p| root.join(p).is_file())
            .collect(),
    )
}

/// Every file under the root except build output, dependencies and
/// hidden folders (`.git`).
fn walked_files(root: &Path) -> Vec<PathBuf> {
    const SKIP: [&str; 2] = ["target", "node_modules"];
    let mut files = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let rel = dir.join(&name);
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !name.starts_with('.') && !SKIP.contains(&name.as_str()) {
                    stack.push(rel);
                }
            } else if kind.is_file() {
                files.push(rel);
            }
        }
    }
    files
}

/// The file as text, or `None` for a binary (a NUL byte, or not UTF-8).
fn read_text(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

#[test]
fn no_file_points_outside_the_repository() {
    let root = root();
    let files = git_files(&root).unwrap_or_else(|| walked_files(&root));
    assert!(
        files.iter().any(|f| f == Path::new("README.md")),
        "the file list does not look like this repository: {} files",
        files.len()
    );
    let patterns = outside_patterns();
    let mut problems = Vec::new();
    for file in &files {
        let Some(text) = read_text(&root.join(file)) else {
            continue;
        };
        for (line, pattern) in outside_references(&text, &patterns) {
            problems.push(format!("{}:{line}: mentions '{pattern}'", file.display()));
        }
        if file.extension().is_some_and(|e| e == "md") {
            for (line, target) in markdown_links(&text) {
                match resolve_link(file, &target) {
                    None => problems.push(format!(
                        "{}:{line}: link '{target}' leaves the repository",
                        file.display()
                    )),
                    Some(path) if !root.join(&path).exists() => problems.push(format!(
                        "{}:{line}: link '{target}' points to nothing ({} does not exist)",
                        file.display(),
                        path.display()
                    )),
                    Some(_) => {}
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "references outside the repository (write the facts into docs/ instead):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checks_catch_what_they_should_and_only_that() {
    let patterns = outside_patterns();
    let shared = ["sha", "red"].concat();
    let bad = [
        format!("see `{shared}/rules/mixtour.md`"),
        format!("formulas in ../{shared}/arena-notes.md"),
        ["built in /wo", "rk/main/target"].concat(),
        ["cd /ho", "me/alice/stackfish"].concat(),
    ];
    for text in &bad {
        assert_eq!(outside_references(text, &patterns).len(), 1, "{text}");
    }
    let fine = [
        "see docs/rules/mixtour.md and ../protocol.md",
        "installed under /usr/share/stackfish and /usr/bin/stackfish",
        "let shared = Arc::new(Shared::new(16));",
        "git worktree add /tmp/sf-old 7eac271",
    ];
    for text in fine {
        assert!(outside_references(text, &patterns).is_empty(), "{text}");
    }

    let md = "[a](../protocol.md) [b](rules/silo.md#perft) [c](https://x.org/a) [d](#top)";
    let links: Vec<String> = markdown_links(md).into_iter().map(|l| l.1).collect();
    assert_eq!(links, ["../protocol.md", "rules/silo.md"]);
    let page = Path::new("docs/engine.md");
    assert_eq!(
        resolve_link(page, "../protocol.md"),
        Some("protocol.md".into())
    );
    assert_eq!(
        resolve_link(page, "rules/silo.md"),
        Some("docs/rules/silo.md".into())
    );
    assert_eq!(resolve_link(page, "../../outside.md"), None);
    assert_eq!(resolve_link(page, "/etc/passwd"), None);
}
