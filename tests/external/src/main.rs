//! A user's agent: its own layers, its own pipeline, only `prompt-core` as a dependency.
#![forbid(unsafe_code)]

use prompt_core::{
    prompt_layer, Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render, SessionValue,
    Stable, TurnValue,
};

/// Who the agent is.
#[prompt_layer(priority = 100, stability = Stable, paths = [Basic, Cached], text = "You review pull requests.")]
pub struct Persona;

/// The repository under review: session data.
pub struct Repo(pub &'static str);
impl SessionValue for Repo {}

/// Names the repository.
#[prompt_layer(priority = 200, stability = Stable, paths = [Cached], after = [Persona])]
pub struct RepoLayer;

impl Render<Stable> for RepoLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if let Some(Repo(name)) = input.get::<Repo>() {
            out.push_str("Repository: ");
            out.push_str(name);
        }
    }
}

/// The pull request number: per turn.
pub struct Pr(pub u32);
impl TurnValue for Pr {}

/// Names the pull request.
#[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached])]
pub struct PrLayer;

impl Render for PrLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if let Some(Pr(n)) = input.get::<Pr>() {
            out.push_str(&format!("Pull request: #{n}"));
        }
    }
}

fn main() {
    let pipeline = match Pipeline::collect() {
        Ok(pipeline) => pipeline,
        Err(error) => {
            eprintln!("{error}");
            std::process::exit(2);
        }
    };
    let session = Context::new().with(Repo("acme/widgets"));
    let turn = Context::new().with(Pr(42));
    let prompt = PromptBuilder::new(&pipeline).build_cached(&session, &turn).unwrap();
    for part in prompt.parts() {
        println!("[cache={}] {:?}", part.cache, part.content);
    }
}
