//! A user composing a sub-agent, in a workspace of their own (`tests/external-compose`):
//! a layer crate that has never heard of the sub-agent, and an app whose
//! `SubAgent` pipeline takes it and the standard set with `include = [..]`.

use std::path::Path;
use std::process::Command;

/// The app's output, built with `features` (the workspace's target folder
/// for external crates is shared with `external.rs`, so the dependencies
/// are built once).
fn run(features: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = root.join("external-compose/Cargo.toml");
    let target = root.join("../target/external");
    let output = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--locked", "-p", "app", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target)
        .args(features.iter().flat_map(|f| ["--features", f]))
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "external workspace failed:\n{stderr}"
    );
    String::from_utf8(output.stdout).unwrap()
}

fn line<'a>(output: &'a str, label: &str) -> &'a str {
    output
        .lines()
        .find_map(|l| l.strip_prefix(label))
        .unwrap_or_else(|| panic!("no `{label}` line in:\n{output}"))
}

#[test]
fn a_sub_agent_includes_the_standard_set_and_a_crate_that_never_heard_of_it() {
    let with = run(&["sub-agent"]);
    let without = run(&[]);

    // The main agent's Cached prompt is byte-identical with and without the
    // sub-agent: including a layer takes nothing from the pipeline it joined first.
    let main = line(&with, "main cached: ");
    assert_eq!(main, line(&without, "main cached: "));
    assert!(main.contains("Tools: grep, edit."), "{main}");
    assert!(main.contains("You are terse."), "{main}");

    // The tools crate is named only in `include`, and it is linked: its
    // layer is in both pipelines.
    assert_eq!(
        line(&with, "sub layers: "),
        "persona, base_prompt, tools, project_memory, project_context, skills_index, \
         user_preferences, facts, runtime_context"
    );
    let basic = line(&with, "sub basic: ");
    assert!(
        basic.starts_with("\"You are terse.\\n\\nYou are a careful coding agent")
            && basic.ends_with("Tools: grep, edit.\""),
        "{basic}"
    );

    // Basic only: a Cached build is an error, not an empty prompt.
    assert_eq!(
        line(&with, "sub cached: "),
        "Err(pipeline `sub_agent` serves the path(s) [basic], not `cached`: call the builder \
         for a path it serves, or add `cached` to its `#[prompt_pipeline(paths = [..])]`)"
    );
}
