//! Renders the standard pipeline, with a base-prompt template, in a graph
//! where minijinja 2 has its default features on and minijinja 3 is linked
//! too; prints one labelled line per fact `tests/tests/external/minijinja.rs`
//! checks.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;

use prompt_core::{Context, Pipeline, PromptBuilder};
use prompt_layers::sources::Templates;
use prompt_layers::{load_session, RuntimeFacts, SessionConfig};

/// A template with a macro, which both minijinja versions render with their
/// default features.
const MACRO: &str = "{% macro hi(name) %}Hi {{ name }}{% endmacro %}{{ hi(\"Ada\") }}";

fn main() {
    // The user's own minijinja: `macros` is on (a default feature).
    let mut env = minijinja::Environment::new();
    env.add_template("m", MACRO).unwrap();
    println!("minijinja 2: {}", env.get_template("m").unwrap().render(()).unwrap());
    let mut env3 = minijinja3::Environment::new();
    env3.add_template("m", MACRO).unwrap();
    println!("minijinja 3: {}", env3.get_template("m").unwrap().render(()).unwrap());

    // prompt-layers in the same graph: the subset still refuses the macro,
    // naming the file, instead of rendering it or failing to compile.
    let templates = Templates::new(None);
    let vars = BTreeMap::new();
    match templates.render_str("system-prompt.md".as_ref(), MACRO, &vars) {
        Ok(text) => println!("prompt-layers macro: Ok({text})"),
        Err(error) => println!("prompt-layers macro: Err({error})"),
    }

    // The standard pipeline, with a base-prompt template the subset allows.
    let workspace = std::env::temp_dir().join(format!("external-minijinja-{}", std::process::id()));
    std::fs::create_dir_all(workspace.join(".agent")).unwrap();
    std::fs::write(
        workspace.join(".agent/system-prompt.md"),
        "You are {{ \"terse\"|upper }}.{% if true %} Always.{% endif %}",
    )
    .unwrap();
    std::fs::write(workspace.join("AGENTS.md"), "Run `make test`.").unwrap();
    let session = load_session(&SessionConfig::new("agent", &workspace)).unwrap();
    let turn = Context::new().with(RuntimeFacts::default().model("opus"));
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>()
        .unwrap_or_else(|e| panic!("{e}"));
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&session, &turn)
        .unwrap();
    std::fs::remove_dir_all(&workspace).unwrap();
    println!("stable: {:?}", prompt.stable());
    println!("dynamic: {:?}", prompt.dynamic());
}
