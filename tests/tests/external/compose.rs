//! A user composing a sub-agent, in a workspace of their own (`tests/external-compose`):
//! a layer crate that has never heard of the sub-agent, and an app whose
//! `SubAgent` pipeline takes it and the standard set with `include = [..]`.

use crate::{cargo_run, line};

/// The app's output, built with `features` (the workspace's target folder
/// for external crates is shared with `external.rs`, so the dependencies
/// are built once).
fn run(features: &[&str]) -> String {
    let mut args = vec!["-p", "app"];
    args.extend(features.iter().flat_map(|f| ["--features", *f]));
    cargo_run("external-compose/Cargo.toml", &args)
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
        "persona, base_prompt, quoted_files, tools, project_memory, project_context, skills_index, \
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
