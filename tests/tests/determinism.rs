//! The same inputs give the same bytes and fingerprint in separate processes.
//!
//! The parent test runs this binary twice more, each time running only
//! `render_in_child`, and compares what the children print.

use std::process::Command;

use prompt_core::fingerprint::Fingerprint;
use prompt_core::{
    Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render, Stable, prompt_layer,
};

const CHILD: &str = "PROMPT_TESTS_DETERMINISM_CHILD";

#[derive(Debug)]
struct Memory(Vec<(&'static str, &'static str)>);

impl prompt_core::SessionValue for Memory {}
#[derive(Debug)]
struct Cwd(&'static str);

impl prompt_core::TurnValue for Cwd {}
#[derive(Debug)]
struct Model(&'static str);

impl prompt_core::TurnValue for Model {}

#[prompt_layer(priority = 1, stability = Stable, paths = [Basic, Cached], text = "You are careful.")]
struct Persona;

#[prompt_layer(priority = 2, stability = Stable, paths = [Basic, Cached])]
struct MemoryLayer;

impl Render<Stable> for MemoryLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if let Some(Memory(entries)) = input.get::<Memory>() {
            out.push_str("# Memory");
            for (key, value) in entries {
                let _ = write!(out, "\n- {key}: {value}");
            }
        }
    }
}

#[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Basic, Cached])]
struct Runtime;

impl Render for Runtime {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        let cwd = input.get::<Cwd>().map_or("?", |c| c.0);
        let model = input.get::<Model>().map_or("?", |m| m.0);
        let _ = write!(out, "cwd={cwd} model={model}");
    }
}

/// The assembled prompt's bytes and fingerprint, as one printable string.
fn render() -> String {
    let pipeline = Pipeline::collect().unwrap();
    let session = Context::new().with(Memory(vec![
        ("editor", "helix"),
        ("tabs", "spaces"),
        ("lang", "rust"),
    ]));
    let turn = Context::new().with(Cwd("/repo")).with(Model("opus"));
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&session, &turn)
        .unwrap();
    format!(
        "{:?}\n{}",
        prompt.text(),
        prompt.trace().stable_fingerprint()
    )
}

#[test]
fn render_in_child() {
    let rendered = render();
    assert!(
        rendered.contains("# Memory\\n- editor: helix"),
        "{rendered}"
    );
    if std::env::var_os(CHILD).is_some() {
        println!("<<<{rendered}>>>");
    }
}

fn child_output() -> String {
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "render_in_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let start = stdout.find("<<<").expect("child printed its render") + 3;
    let end = stdout.find(">>>").unwrap();
    stdout[start..end].to_owned()
}

#[test]
fn same_inputs_same_bytes_and_fingerprint_across_processes() {
    if std::env::var_os(CHILD).is_some() {
        return; // only the parent compares
    }
    let first = child_output();
    let second = child_output();
    assert_eq!(first, second);
    assert_eq!(first, render());
}

/// A known answer: the fingerprint is SHA-256 of the prefix's bytes, in hex.
/// A change of digest would change every user's cache key, so it must fail here.
#[test]
fn the_fingerprint_is_the_sha256_of_the_prefix() {
    assert_eq!(
        Fingerprint::of("").to_string(),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        Fingerprint::of("abc").to_string(),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(Fingerprint::of("abc").short(), "ba7816bf8f01cfea");
    let pipeline = Pipeline::collect().unwrap();
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(prompt.stable(), "You are careful.");
    assert_eq!(
        prompt.trace().stable_fingerprint().to_string(),
        "1c8263f8d319d73353265e4d405142d93205d9f02a972d6c6d5e749b83c75b97"
    );
}
