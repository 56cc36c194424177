//! Every code block of the docs a user copies from (the README, each
//! package's README, `docs/*.md`, prompt-core's attribute references) holds
//! as written:
//!
//! - each ```toml block's dependency lines name packages that exist: this
//!   workspace's with its version and features it has, any other at a
//!   version this workspace's `Cargo.lock` resolves, a client crate with
//!   the features it needs to send (`CLIENT_FEATURES`);
//! - each Rust block (```rust, or a bare ```) is in a file some crate
//!   includes as rustdoc (`#[doc = include_str!(..)]`), so `cargo test
//!   --doc` compiles it; none is `ignore`d (a block that cannot compile is
//!   ```text, with the reason beside it);
//! - the one ```rs block (not compiled by rustdoc) is the README's own
//!   `prompt` binary, which `tests/tests/external/cli.rs` builds verbatim.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// The documents checked, relative to the root.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut out = vec![PathBuf::from("README.md")];
    for folder in ["docs", "prompt-core/docs"] {
        for entry in std::fs::read_dir(root.join(folder)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".md") {
                out.push(Path::new(folder).join(name));
            }
        }
    }
    for package in packages().values() {
        let readme = package.dir.join("README.md");
        if root.join(&readme).is_file() && readme != Path::new("README.md") {
            out.push(readme);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A workspace package: its folder (relative), version and features.
struct Package {
    dir: PathBuf,
    version: String,
    features: BTreeSet<String>,
}

fn packages() -> BTreeMap<String, Package> {
    let root = root();
    let workspace: toml::Table =
        toml::from_str(&std::fs::read_to_string(root.join("Cargo.toml")).unwrap()).unwrap();
    let version = workspace["workspace"]["package"]["version"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut out = BTreeMap::new();
    for member in workspace["workspace"]["members"].as_array().unwrap() {
        let dir = PathBuf::from(member.as_str().unwrap());
        let manifest: toml::Table =
            toml::from_str(&std::fs::read_to_string(root.join(&dir).join("Cargo.toml")).unwrap())
                .unwrap();
        let package = manifest["package"].as_table().unwrap();
        let name = package["name"].as_str().unwrap().to_owned();
        let mut features: BTreeSet<String> = manifest
            .get("features")
            .and_then(|f| f.as_table())
            .map(|f| f.keys().cloned().collect())
            .unwrap_or_default();
        // An optional dependency is a feature of its own name.
        if let Some(deps) = manifest.get("dependencies").and_then(|d| d.as_table()) {
            for (dep, spec) in deps {
                if spec.get("optional").and_then(toml::Value::as_bool) == Some(true) {
                    features.insert(dep.clone());
                }
            }
        }
        out.insert(
            name,
            Package {
                dir,
                version: version.clone(),
                features,
            },
        );
    }
    out
}

/// The versions `Cargo.lock` resolves, per package name.
fn locked() -> BTreeMap<String, Vec<String>> {
    let lock: toml::Table =
        toml::from_str(&std::fs::read_to_string(root().join("Cargo.lock")).unwrap()).unwrap();
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for package in lock["package"].as_array().unwrap() {
        out.entry(package["name"].as_str().unwrap().to_owned())
            .or_default()
            .push(package["version"].as_str().unwrap().to_owned());
    }
    out
}

/// A fenced block: its info string, its text, the line it opens on.
struct Block {
    info: String,
    text: String,
    line: usize,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String, String)> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some((n + 1, info.trim().to_owned(), String::new()));
                }
            }
            Some((at, info, body)) => {
                if trimmed == "```" {
                    out.push(Block {
                        info: std::mem::take(info),
                        text: std::mem::take(body),
                        line: *at,
                    });
                    open = None;
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    assert!(open.is_none(), "a block is never closed");
    out
}

/// `X`, `X.Y` or `X.Y.Z` (a caret requirement) against `version`.
fn caret(requirement: &str, version: &str) -> bool {
    let exact = requirement.starts_with('=');
    let requirement = requirement.trim_start_matches(['=', '^']);
    let parse = |v: &str| -> Vec<u64> {
        v.split(['.', '-', '+'])
            .take(3)
            .map(|n| n.parse().unwrap_or(0))
            .collect()
    };
    let (want, have) = (parse(requirement), parse(version));
    if exact {
        return want.iter().zip(&have).all(|(w, h)| w == h);
    }
    // The leftmost non-zero component given must match; the rest at least.
    let significant = want.iter().position(|&n| n != 0).unwrap_or(want.len() - 1);
    have.len() >= want.len()
        && want
            .iter()
            .zip(&have)
            .take(significant + 1)
            .all(|(w, h)| w == h)
        && have[..want.len()] >= want[..]
}

/// The features a client crate needs before it can send anything: without
/// them it compiles and has no client (rig-core's HTTP transport is its
/// `reqwest` feature; async-openai's `Client::chat` is `chat-completion`'s).
const CLIENT_FEATURES: &[(&str, &[&str])] = &[
    ("rig-core", &["reqwest"]),
    ("async-openai", &["chat-completion"]),
];

/// The problems of one dependency line.
fn dependency(
    name: &str,
    spec: &toml::Value,
    workspace: &BTreeMap<String, Package>,
    locked: &BTreeMap<String, Vec<String>>,
) -> Vec<String> {
    let (version, features) = match spec {
        toml::Value::String(v) => (Some(v.as_str()), Vec::new()),
        toml::Value::Table(t) => (
            t.get("version").and_then(toml::Value::as_str),
            t.get("features")
                .and_then(toml::Value::as_array)
                .map(|f| {
                    f.iter()
                        .map(|f| f.as_str().unwrap().to_owned())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default(),
        ),
        other => return vec![format!("`{name}`: {other} is no dependency")],
    };
    let mut problems = Vec::new();
    let Some(version) = version else {
        return vec![format!("`{name}` names no version")];
    };
    if let Some(package) = workspace.get(name) {
        if !caret(version, &package.version) {
            problems.push(format!(
                "`{name} = \"{version}\"`, but the workspace's is {}",
                package.version
            ));
        }
        for feature in &features {
            if !package.features.contains(feature) {
                problems.push(format!(
                    "`{name}` has no feature `{feature}` (it has {:?})",
                    package.features
                ));
            }
        }
    } else {
        for need in CLIENT_FEATURES
            .iter()
            .filter(|(client, _)| *client == name)
            .flat_map(|(_, needs)| needs.iter())
        {
            if !features.iter().any(|f| f == need) {
                problems.push(format!(
                    "`{name}` without feature `{need}`: it builds requests and cannot send them"
                ));
            }
        }
        match locked.get(name) {
            None => problems.push(format!("`{name}` is no package this workspace resolves")),
            Some(versions) if !versions.iter().any(|v| caret(version, v)) => problems.push(
                format!("`{name} = \"{version}\"`, but Cargo.lock resolves {versions:?}"),
            ),
            Some(_) => {}
        }
    }
    problems
}

/// The files some crate of the workspace includes as rustdoc.
fn doctested() -> BTreeSet<PathBuf> {
    let root = root();
    let mut out = BTreeSet::new();
    let mut stack: Vec<PathBuf> = packages()
        .values()
        .map(|p| root.join(&p.dir).join("src"))
        .collect();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (at, _) in text.match_indices("#[doc = include_str!(\"") {
                let rest = &text[at + "#[doc = include_str!(\"".len()..];
                let included = &rest[..rest.find('"').unwrap()];
                if let Ok(file) = path.parent().unwrap().join(included).canonicalize() {
                    out.insert(file);
                }
            }
        }
    }
    out
}

/// Whether the block at `line` of `document` is the README's own `prompt`
/// binary, which `tests/tests/external/cli.rs` builds verbatim.
fn readme_binary(document: &Path, text: &str, line: usize) -> bool {
    let before: usize = text.lines().take(line).map(|l| l.len() + 1).sum();
    document == Path::new("README.md") && text[..before].contains("## Your own `prompt` binary")
}

#[test]
fn every_dependency_line_and_rust_block_in_the_docs_holds_as_written() {
    let root = root();
    let workspace = packages();
    let locked = locked();
    let doctested = doctested();
    let mut problems = Vec::new();
    let mut counted = (0, 0);
    for document in documents() {
        let text = std::fs::read_to_string(root.join(&document)).unwrap();
        let compiled = doctested.contains(&root.join(&document).canonicalize().unwrap());
        for block in blocks(&text) {
            let at = format!("{}:{}", document.display(), block.line);
            let info: Vec<&str> = block.info.split(',').map(str::trim).collect();
            match info[0] {
                "toml" => {
                    counted.0 += 1;
                    let table: toml::Table = match toml::from_str(&block.text) {
                        Ok(table) => table,
                        Err(error) => {
                            problems.push(format!("{at}: not TOML: {error}"));
                            continue;
                        }
                    };
                    // A `[dependencies]` table, or the lines of one.
                    let tables: Vec<&toml::Table> = ["dependencies", "dev-dependencies"]
                        .iter()
                        .filter_map(|key| table.get(*key).and_then(toml::Value::as_table))
                        .collect();
                    let lines = if tables.is_empty() && !table.contains_key("package") {
                        vec![&table]
                    } else {
                        tables
                    };
                    for lines in lines {
                        for (name, spec) in lines {
                            for problem in dependency(name, spec, &workspace, &locked) {
                                problems.push(format!("{at}: {problem}"));
                            }
                        }
                    }
                }
                "" | "rust" => {
                    counted.1 += 1;
                    if !compiled {
                        problems.push(format!(
                            "{at}: a Rust block in a file no crate doctests (`#[doc = include_str!(..)]` on a hidden struct)"
                        ));
                    }
                    if info.contains(&"ignore") {
                        problems.push(format!(
                            "{at}: an `ignore`d block: compile it, or make it ```text with the reason"
                        ));
                    }
                }
                "rs" if !readme_binary(&document, &text, block.line) => {
                    problems.push(format!(
                        "{at}: an ```rs block is compiled by nothing: make it ```rust"
                    ));
                }
                _ => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The test read what it should: the READMEs' and guides' blocks.
    assert!(counted.0 >= 10 && counted.1 >= 20, "{counted:?}");
}

#[test]
fn caret_requirements_match_as_cargo_reads_them() {
    assert!(caret("0.1", "0.1.0"));
    assert!(caret("0.44", "0.44.3"));
    assert!(!caret("0.44", "0.45.0"));
    assert!(caret("0.7.2", "0.7.4"));
    assert!(!caret("0.7.2", "0.7.1"));
    assert!(caret("1", "1.48.0"));
    assert!(!caret("1", "2.0.0"));
    assert!(caret("=0.1.0", "0.1.0"));
    assert!(!caret("=0.1.0", "0.1.1"));
}

#[test]
fn a_client_line_without_the_features_it_sends_with_is_a_problem() {
    let workspace = BTreeMap::new();
    let locked: BTreeMap<String, Vec<String>> = [
        ("rig-core".to_owned(), vec!["0.44.0".to_owned()]),
        ("async-openai".to_owned(), vec!["0.43.0".to_owned()]),
    ]
    .into();
    let line = |text: &str| -> toml::Table { toml::from_str(text).unwrap() };
    let bare = line(r#"rig-core = "0.44""#);
    assert_eq!(
        dependency("rig-core", &bare["rig-core"], &workspace, &locked).len(),
        1
    );
    let sends = line(r#"rig-core = { version = "0.44", features = ["reqwest"] }"#);
    assert!(dependency("rig-core", &sends["rig-core"], &workspace, &locked).is_empty());
    let types_only = line(r#"async-openai = { version = "0.43", features = ["responses"] }"#);
    assert_eq!(
        dependency(
            "async-openai",
            &types_only["async-openai"],
            &workspace,
            &locked
        )
        .len(),
        1
    );
}
