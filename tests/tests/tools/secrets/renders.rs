//! False positives on what the project itself renders and ships as text:
//! the standard pipeline over the fixture workspace (both channels), the
//! reference agents' fixtures and the prompts their real counterparts
//! render (the differential tests' files), every snapshot, the docs, real
//! AGENTS.md / CLAUDE.md / SKILL.md files, the libraries' own sources, and
//! the negative corpus. Each source's findings are counted; none is allowed.

use std::path::{Path, PathBuf};

use prompt_checks::secrets::{scan, scan_prompt};
use prompt_tests::FixtureWorkspace;

use crate::common::{full_config, render};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file below `dir` whose name ends with one of `ends` (all files when
/// empty), sorted.
fn files(dir: &Path, ends: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file()
                && (ends.is_empty() || ends.iter().any(|end| path.to_string_lossy().ends_with(end)))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Each finding in `text`, as `where: rule "secret"`.
fn findings(name: &str, text: &str) -> Vec<String> {
    scan(text)
        .into_iter()
        .map(|f| format!("{name}: {} {:?}", f.rule, &text[f.range]))
        .collect()
}

fn scan_files(paths: &[PathBuf]) -> (usize, usize, Vec<String>) {
    let mut bytes = 0;
    let mut found = Vec::new();
    for path in paths {
        // Binary files (images) are not text a prompt holds.
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        bytes += text.len();
        let name = path
            .strip_prefix(root())
            .unwrap_or(path)
            .display()
            .to_string();
        found.extend(findings(&name, &text));
    }
    (paths.len(), bytes, found)
}

#[test]
fn nothing_the_project_renders_or_ships_as_text_is_a_finding() {
    let root = root();
    let mut sources: Vec<(&str, usize, usize, Vec<String>)> = Vec::new();

    // The standard pipeline over the fixture workspace, every source on.
    let ws = FixtureWorkspace::new();
    let prompt = render(&full_config(&ws));
    let text = prompt.text();
    let found: Vec<String> = scan_prompt(&prompt)
        .into_iter()
        .map(|f| format!("standard pipeline: {} in {:?}", f.finding.rule, f.layer))
        .collect();
    sources.push((
        "the standard pipeline (fixture workspace)",
        1,
        text.len() + prompt.reminder().map_or(0, str::len),
        found,
    ));

    let groups: [(&str, Vec<PathBuf>); 7] = [
        (
            "the reference agents' fixtures",
            files(&root.join("examples/fixtures"), &[]),
        ),
        (
            "the reference agents' real renders and inputs (differential)",
            files(&root.join("examples/tests/agents/differential"), &[]),
        ),
        (
            "snapshots (rendered prompts, requests, manifests)",
            [
                files(&root.join("tests/tests"), &[".snap"]),
                files(&root.join("examples/tests"), &[".snap"]),
            ]
            .concat(),
        ),
        (
            "docs (docs/, README, ARCHITECTURE, CONTRIBUTING, CHANGELOG)",
            [
                files(&root.join("docs"), &[".md"]),
                [
                    "README.md",
                    "ARCHITECTURE.md",
                    "CONTRIBUTING.md",
                    "CHANGELOG.md",
                ]
                .iter()
                .map(|f| root.join(f))
                .collect(),
            ]
            .concat(),
        ),
        (
            "real AGENTS.md, CLAUDE.md, SKILL.md files",
            files(&root.join("tests/fixtures/real"), &[]),
        ),
        (
            "the fixture workspace's files",
            files(&root.join("tests/fixtures/workspace"), &[]),
        ),
        (
            "the libraries' sources (but the secrets module's own)",
            [
                files(&root.join("prompt-core/src"), &[".rs", ".md"]),
                files(&root.join("prompt-core/checks/src"), &[".rs", ".md"]),
                files(&root.join("prompt-core/providers/src"), &[".rs", ".md"]),
                files(&root.join("prompt-macros/src"), &[".rs"]),
                files(&root.join("layers/src"), &[".rs", ".md"]),
                files(&root.join("layers/cli/src"), &[".rs", ".md"]),
                files(&root.join("examples/src"), &[".rs"]),
            ]
            .concat()
            .into_iter()
            .filter(|p| !p.starts_with(root.join("prompt-core/checks/src/secrets")))
            .collect(),
        ),
    ];
    for (name, paths) in groups {
        assert!(!paths.is_empty(), "{name}: no files found");
        let (count, bytes, found) = scan_files(&paths);
        sources.push((name, count, bytes, found));
    }

    let negatives = super::corpus("negative.txt");
    let found: Vec<String> = negatives
        .iter()
        .flat_map(|case| findings(&format!("negative.txt:{}", case.line), &case.text))
        .collect();
    sources.push((
        "negative.txt (keyish prose and code)",
        negatives.len(),
        negatives.iter().map(|c| c.text.len()).sum(),
        found,
    ));

    println!("| source | texts | bytes | findings |");
    println!("|---|---|---|---|");
    for (name, texts, bytes, found) in &sources {
        println!("| {name} | {texts} | {bytes} | {} |", found.len());
    }
    let all: Vec<&String> = sources.iter().flat_map(|(_, _, _, f)| f).collect();
    assert!(
        all.is_empty(),
        "false positives:\n{}",
        all.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
