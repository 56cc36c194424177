//! A user's crate with a strict lint set: nothing the attributes generate may
//! trip it (rustc lints only; trybuild does not run clippy).
#![deny(
    warnings,
    missing_docs,
    missing_debug_implementations,
    missing_copy_implementations,
    unsafe_code,
    unused_qualifications,
    unused_results,
    unused_import_braces,
    unreachable_pub,
    trivial_casts,
    trivial_numeric_casts,
    elided_lifetimes_in_paths,
    single_use_lifetimes,
    unused_lifetimes,
    variant_size_differences,
    let_underscore_drop,
    non_ascii_idents,
    meta_variable_misuse,
    redundant_lifetimes,
    unit_bindings,
    unnameable_types,
    rust_2018_idioms,
    future_incompatible,
    nonstandard_style
)]

use prompt_core::{
    LayerInput, LayerWriter, Pipeline, Render, Stable, prompt_layer, prompt_pipeline,
};

/// A pipeline.
#[prompt_pipeline(paths = [Basic, Cached], modes = [Full])]
#[derive(Debug, Clone, Copy)]
pub struct Strict;

/// A static layer.
#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], modes = [Full], text = "Hi.", pipeline = Strict)]
#[derive(Debug, Clone, Copy)]
pub struct PersonaLayer;

/// A layer with fields.
#[prompt_layer(priority = 200, stability = Stable, paths = [Basic], pipeline = [Strict], after = [PersonaLayer], silent = "never")]
#[derive(Debug, Default)]
pub struct RulesLayer {
    rules: Vec<String>,
}

impl Render<Stable> for RulesLayer {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_, Stable>) {
        for rule in &self.rules {
            out.push_str(rule);
        }
    }
}

/// A Dynamic layer with every optional key.
#[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], pipeline = Strict, yields = Truncate, channel = System)]
#[derive(Debug, Clone, Copy)]
pub struct ClockLayer;

impl Render for ClockLayer {
    fn render(&self, _out: &mut LayerWriter<'_>, _input: &LayerInput<'_>) {}
}

/// A layer in the default pipeline, with a const-expression priority.
#[prompt_layer(priority = BASE + 1, stability = Stable, paths = [Basic, Cached], text = "Default.\n")]
#[derive(Debug, Clone, Copy)]
pub struct DefaultLayer;

const BASE: u32 = 10;

fn main() {
    let pipeline = Pipeline::of::<Strict>().expect("valid pipeline");
    assert_eq!(pipeline.len(), 3);
}
