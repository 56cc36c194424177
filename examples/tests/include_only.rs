//! A layer library's include-only layer (`pipeline = []`) changes no
//! existing prompt: a user's own `prompt` binary that links one renders
//! byte for byte what the `prompt` binary without it renders, over the same
//! workspace, until a pipeline includes the layer.
//!
//! No test harness: this binary is that user's `prompt` (when `PROMPT_AS_CLI`
//! is set it runs `prompt_cli::main()`, with the layer below linked
//! in), and the test runs it and this package's `prompt` as child processes.

use std::path::Path;
use std::process::ExitCode;

use prompt_core::{Pipeline, prompt_layer, prompt_pipeline};

#[path = "common/mod.rs"]
mod common;

/// What a layer library ships for the pipelines that ask for it.
#[prompt_layer(
    priority = 50,
    stability = Stable,
    scope = Global,
    paths = [Basic, Cached],
    text = "House style: short sentences.",
    pipeline = []
)]
pub struct HouseStyle;

/// The one pipeline that takes it.
#[prompt_pipeline(paths = [Basic, Cached], include = [prompt_layers::Standard, HouseStyle])]
pub struct Styled;

fn main() -> ExitCode {
    if std::env::var_os(common::AS_CLI).is_some() {
        return prompt_cli::main();
    }
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws.path().join(".git")).unwrap();
    std::fs::write(ws.path().join("AGENTS.md"), "Run `make check`.\n").unwrap();
    let text = |o: &[u8]| String::from_utf8(o.to_vec()).unwrap();
    let ours = std::env::current_exe().unwrap();
    let theirs = Path::new(env!("CARGO_BIN_EXE_prompt"));

    for extra in [&[][..], &["--path", "basic"], &["--format", "json"]] {
        let with = common::render_with(&ours, true, home.path(), ws.path(), extra);
        let without = common::render_with(theirs, false, home.path(), ws.path(), extra);
        assert!(with.status.success(), "{extra:?}: {}", text(&with.stderr));
        assert!(
            without.status.success(),
            "{extra:?}: {}",
            text(&without.stderr)
        );
        assert!(
            !text(&with.stdout).contains("House style"),
            "{extra:?}: the include-only layer joined the default pipeline"
        );
        assert_eq!(
            text(&with.stdout),
            text(&without.stdout),
            "{extra:?}: linking an include-only layer changed the default prompt"
        );
    }

    // The pipeline that includes it does render it, first (priority 50).
    let styled = Pipeline::of::<Styled>().unwrap();
    assert_eq!(styled.specs().next().map(|s| s.name), Some("house_style"));
    // Include-only: in no pipeline of its own, and not registered at all
    // (the standard layers neither, so this binary's default is empty).
    assert!(prompt_core::pipeline::registered_layers().all(|s| s.name != "house_style"));
    assert!(Pipeline::collect().is_err());
    println!("include_only: the default prompt is unchanged in 3 renderings");
    ExitCode::SUCCESS
}
