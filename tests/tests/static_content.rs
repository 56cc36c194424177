//! `text = ".."` and `file = ".."` layers render their content.

use prompt_core::{Context, Pipeline, PromptBuilder, PromptLayer, prompt_layer};

#[prompt_layer(priority = 1, stability = Stable, paths = [Basic, Cached], text = "Answer in English.")]
struct Language;

// Relative to this package's manifest directory (`tests/`), embedded at compile time.
#[prompt_layer(priority = 2, stability = Stable, paths = [Basic, Cached], file = "ui/persona.md")]
struct Persona;

#[test]
fn text_and_file_layers_render_their_content() {
    let pipeline = Pipeline::collect().unwrap();
    let prompt = PromptBuilder::new(&pipeline)
        .build_basic(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(
        prompt.text(),
        // The file's trailing newline is trimmed, so it adds nothing to the separator.
        format!(
            "Answer in English.\n\n{}",
            include_str!("../ui/persona.md").trim_end()
        )
    );
    assert_eq!(Persona::SPEC.name, "persona");
    assert_eq!(Language::SPEC.file(), "tests/static_content.rs");
    assert_eq!(Language::SPEC.package(), "prompt-tests");
}
