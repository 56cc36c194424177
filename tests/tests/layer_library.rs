//! Linking a layer library adds nothing to a binary's own prompt: the
//! standard layers are include-only, so this binary (which links
//! `prompt_layers` for one source, `load_session`) renders its own default
//! pipeline byte for byte as a pipeline built without the registry, and
//! `include = [prompt_layers::Standard]` builds the standard layers from the
//! set, none of them registered.

use std::collections::BTreeSet;

use prompt_core::pipeline::{LayerEntry, LayerSet, registered_layers};
use prompt_core::spec::{DefaultPipeline, PromptPipeline};
use prompt_core::{Context, Pipeline, PromptBuilder, prompt_layer, prompt_pipeline};
use prompt_layers::{RuntimeFacts, SessionConfig, Standard, load_session};

/// This binary's own layer, in the default pipeline.
#[prompt_layer(priority = 10, stability = Stable, scope = Global, paths = [Basic, Cached], text = "You are Ferris.")]
pub struct Persona;

/// A second one, Dynamic.
#[prompt_layer(priority = 10_500, stability = Dynamic, paths = [Basic, Cached], text = "Be brief today.")]
pub struct Today;

/// A pipeline of this binary that takes the standard layers.
#[prompt_pipeline(paths = [Basic, Cached], include = [prompt_layers::Standard])]
pub struct WithStandard;

/// The session a binary that uses one of the library's sources loads.
fn session() -> (tempfile::TempDir, Context) {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("AGENTS.md"), "Run `make check`.\n").unwrap();
    let mut config = SessionConfig::new("agent", ws.path());
    config.home = None;
    let session = load_session(&config).unwrap();
    (ws, session)
}

fn names<'a>(specs: impl Iterator<Item = &'a prompt_core::LayerSpec>) -> BTreeSet<&'a str> {
    specs.map(|s| s.name).collect()
}

#[test]
fn linking_the_standard_library_leaves_the_default_pipeline_byte_identical() {
    let (_ws, session) = session();
    let turn = Context::new().with(RuntimeFacts::default().model("opus"));
    let linked = Pipeline::collect().unwrap();
    assert_eq!(
        names(linked.specs()),
        BTreeSet::from(["persona", "today"]),
        "linking prompt-layers added layers to this binary's default pipeline"
    );
    // The same layers, built without the registry: what a binary that does
    // not link prompt-layers collects.
    let without = Pipeline::from_layers(
        DefaultPipeline::SPEC,
        [LayerEntry::of::<Persona>(), LayerEntry::of::<Today>()],
    )
    .unwrap();
    for cached in [false, true] {
        let build = |pipeline: &Pipeline| {
            let builder = PromptBuilder::new(pipeline);
            let prompt = if cached {
                builder.build_cached(&session, &turn)
            } else {
                builder.build_basic(&session, &turn)
            };
            prompt.unwrap().text().to_owned()
        };
        assert_eq!(build(&linked), build(&without), "cached: {cached}");
        assert_eq!(build(&linked), "You are Ferris.\n\nBe brief today.");
    }
}

#[test]
fn include_builds_the_standard_layers_from_the_set_none_of_them_registered() {
    let standard = names(Standard::LAYERS.iter().map(|l| &l.spec));
    assert_eq!(standard.len(), 11);
    let registered = names(registered_layers());
    assert!(
        registered.is_disjoint(&standard),
        "standard layers in the registry: {:?}",
        registered.intersection(&standard).collect::<Vec<_>>()
    );
    assert_eq!(registered, BTreeSet::from(["persona", "today"]));

    let pipeline = Pipeline::of::<WithStandard>().unwrap();
    assert_eq!(names(pipeline.specs()), standard);
    assert!(
        pipeline
            .specs()
            .all(|s| s.included_by() == Some(WithStandard::SPEC.name))
    );
    let (_ws, session) = session();
    let turn = Context::new().with(RuntimeFacts::default().model("opus"));
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&session, &turn)
        .unwrap();
    assert!(
        prompt
            .stable()
            .contains("<file path=\"AGENTS.md\">\nRun `make check`."),
        "{}",
        prompt.stable()
    );
    assert!(prompt.dynamic().contains("- Model: opus"));
    // The same layers as the library's own standard pipeline, byte for byte.
    let theirs = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let theirs = PromptBuilder::new(&theirs)
        .build_cached(&session, &turn)
        .unwrap();
    assert_eq!(prompt.text(), theirs.text());
}
