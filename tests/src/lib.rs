//! Helpers shared by the integration tests. This crate defines no layer, so
//! a test binary's pipelines hold only what that binary defines or names.

use prompt_core::{
    AssemblyPath, LayerEntry, LayerInput, LayerSpec, Pipeline, PromptMode, Render, Stability,
};

/// A spec for `Pipeline::from_layers`, leaked to get the `'static` the
/// registry's specs have. Paths: both; modes: all; pipeline: `"test"`.
pub fn spec(name: &str, priority: u32, stability: Stability) -> &'static LayerSpec {
    leak(LayerSpec {
        name: Box::leak(name.to_owned().into_boxed_str()),
        priority,
        stability,
        paths: &[AssemblyPath::Basic, AssemblyPath::Cached],
        modes: PromptMode::ALL,
        pipeline: "test",
        silent: None,
        type_name: "TestLayer",
        file: "tests/src/lib.rs",
        line: priority,
    })
}

/// Leaks `spec` for a `'static` borrow.
pub fn leak(spec: LayerSpec) -> &'static LayerSpec {
    Box::leak(Box::new(spec))
}

/// A layer that writes a fixed text (empty: silent).
#[derive(Debug, Clone)]
pub struct Fixed(pub String);

impl Render for Fixed {
    fn render(&self, out: &mut String, _input: &LayerInput<'_>) {
        out.push_str(&self.0);
    }
}

/// A pipeline `"test"` of [`Fixed`] layers: `(name, priority, stability, text)`.
///
/// # Panics
/// When the layers do not form a valid pipeline: a test fixture bug.
pub fn fixed(layers: &[(&str, u32, Stability, &str)]) -> Pipeline {
    let entries = layers.iter().map(|(name, priority, stability, text)| {
        LayerEntry::new(spec(name, *priority, *stability), Fixed((*text).to_owned()))
    });
    match Pipeline::from_layers("test", entries) {
        Ok(pipeline) => pipeline,
        Err(error) => panic!("invalid test pipeline: {error}"),
    }
}
