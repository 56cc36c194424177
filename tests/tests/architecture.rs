//! The dependency direction inside `prompt-core`: each module uses only the
//! modules below it, so the crate has a bottom (`spec`) and no cycle.
//!
//! The order is the one `ARCHITECTURE.md` draws. A `use crate::x` (or any
//! `crate::x::..` path in code, not in comments) from a module to one above
//! it fails this test with the file, the line and the rule.

use std::path::{Path, PathBuf};

/// Bottom up. Modules on one rank may not use each other either, unless
/// listed in the same rank's group below.
const ORDER: &[&[&str]] = &[
    &["spec"],
    &["fingerprint", "text", "tokens", "write"],
    &["context"],
    &["layer"],
    &["layer_set"],
    &["registry"],
    &["pipeline"],
    &["budget"],
    &["assembly"],
    &["testing", "providers", "secrets"],
    &["diff"],
    &["contract"],
    // The macro support module: generated code's one entry point, above all.
    &["__private_v1"],
];

fn rank(module: &str) -> Option<usize> {
    ORDER.iter().position(|rank| rank.contains(&module))
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`None`: the crate root).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src).unwrap();
    let first = relative
        .components()
        .next()?
        .as_os_str()
        .to_str()?
        .to_owned();
    match first.as_str() {
        "lib.rs" => None,
        "private_v1.rs" => Some("__private_v1".to_owned()),
        _ => Some(first.trim_end_matches(".rs").to_owned()),
    }
}

/// Every `crate::<module>` a line of code names, outside comments and strings.
fn crate_paths(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        rest = &rest[at + "crate::".len()..];
        // `$crate::` and `prompt_crate::` are not this crate's paths.
        if before.is_some_and(|c| c == '$' || c.is_alphanumeric() || c == '_') {
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            found.push(name);
        }
    }
    // `use crate::{a, b::c}` groups.
    if let Some(group) = code.trim_start().strip_prefix("use crate::{") {
        for item in group.split(',') {
            let name: String = item
                .trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.push(name);
            }
        }
    }
    found
}

#[test]
fn every_module_uses_only_the_modules_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../prompt-core/src");
    let mut all = Vec::new();
    files(&src, &mut all);
    all.sort();
    let mut problems = Vec::new();
    let mut seen = 0;
    for file in &all {
        let Some(module) = module_of(&src, file) else {
            continue; // the root re-exports everything
        };
        let Some(own) = rank(&module) else {
            problems.push(format!(
                "{}: module `{module}` has no place in ORDER (tests/tests/architecture.rs); add it at the rank of what it uses",
                file.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        // Unit tests may reach anywhere.
        let code = text.split("#[cfg(test)]").next().unwrap();
        for (number, line) in code.lines().enumerate() {
            for used in crate_paths(line) {
                seen += 1;
                if used == module {
                    continue;
                }
                let Some(theirs) = rank(&used) else {
                    continue; // a root re-export, such as `crate::Pipeline` in docs
                };
                if theirs >= own {
                    problems.push(format!(
                        "{}:{}: `{module}` uses `crate::{used}`, which is not below it; \
                         move what it needs down (constants and error types belong with \
                         the lowest module that uses them)",
                        file.strip_prefix(&src).unwrap().display(),
                        number + 1
                    ));
                }
            }
        }
    }
    assert!(
        seen > 50,
        "found only {seen} crate paths: is the scan broken?"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_scan_sees_paths_and_groups_and_skips_comments() {
    assert_eq!(crate_paths("use crate::spec::LayerSpec;"), ["spec"]);
    assert_eq!(
        crate_paths("use crate::{context::Context, spec::Stability};"),
        ["context", "spec"]
    );
    assert!(crate_paths("/// see [`x`](crate::pipeline::Pipeline)").is_empty());
    assert!(crate_paths("$crate::__private_v1::x").is_empty());
    assert_eq!(
        crate_paths("let x = crate::assembly::f(); // crate::budget"),
        ["assembly"]
    );
}
