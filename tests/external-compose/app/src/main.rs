//! The main agent (the default pipeline: the tools crate's layer and a
//! persona; the standard layers are include-only, so linking them adds
//! nothing here) and, with feature `sub-agent`, a sub-agent pipeline that
//! takes those and the standard set with `include` and serves Basic only.
#![forbid(unsafe_code)]

use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder, TurnContext};

/// Who the agent is: in the default pipeline, like every layer here.
#[prompt_layer(priority = 500, stability = Stable, scope = Global, paths = [Basic, Cached], text = "You are terse.")]
pub struct PersonaLayer;

/// Without the sub-agent, nothing else names the layer crates: name them here.
#[cfg(not(feature = "sub-agent"))]
use {prompt_layers as _, tools as _};

/// The sub-agent: the only place `prompt_layers` and `tools` are named.
#[cfg(feature = "sub-agent")]
#[prompt_core::prompt_pipeline(paths = [Basic], include = [prompt_layers::Standard, tools::ToolsLayer, PersonaLayer])]
pub struct SubAgent;

fn main() {
    let (session, turn) = (Context::new(), TurnContext::new());
    let main = Pipeline::collect().unwrap_or_else(|e| panic!("{e}"));
    let prompt = PromptBuilder::new(&main).build_cached(&session, &turn).unwrap();
    println!("main cached: {:?}", prompt.parts());
    #[cfg(feature = "sub-agent")]
    {
        let sub = Pipeline::of::<SubAgent>().unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = sub.specs().map(|s| s.name).collect();
        println!("sub layers: {}", names.join(", "));
        let basic = PromptBuilder::new(&sub).build_basic(&session, &turn).unwrap();
        println!("sub basic: {:?}", basic.text());
        match PromptBuilder::new(&sub).build_cached(&session, &turn) {
            Ok(prompt) => println!("sub cached: Ok({:?})", prompt.text()),
            Err(error) => println!("sub cached: Err({error})"),
        }
    }
}
