//! The runtime of `prompt-core` on pipelines built in the test (`"test"`,
//! from `prompt_tests::fixed`): what each layer sees and how the prompt is
//! joined, the budget, the pipeline invariants over generated pipelines, the
//! token counters, and the edge cases mutation runs found unguarded.
//!
//! The one attribute layer here (`edges.rs`' `anchor`) joins the default
//! pipeline, which no test of this binary collects.

mod assembly;
mod budget;
mod edges;
mod pipeline_properties;
mod prefix_cache;
mod render_contract;
mod tokens;
