//! The runtime of `prompt-core` on pipelines built in the test (`"test"`,
//! from `prompt_tests::fixed`): what each layer sees and how the prompt is
//! joined, the budget and what it leaves, contexts, run-time validation,
//! traces, the pipeline invariants over generated pipelines and the token
//! counters.
//!
//! The one attribute layer here (`validation.rs`' `anchor`) joins the default
//! pipeline, which no test of this binary collects.

mod assembly;
mod budget;
mod budget_fit;
mod context;
mod pipeline_properties;
mod prefix_cache;
mod render_contract;
mod tokens;
mod trace;
mod validation;
