//! The tools behind `prompt-core`'s features: provider requests and the
//! cache-cost simulation (`providers`), the credential scan (`secrets`) and
//! each contract check on small pipelines (`contract`), and the cache
//! ledger's verdicts over real prompts (`observe`), every count a
//! provider sends summed without wrapping (`provider_counts`), the
//! routing key replicas share, sharded past the provider's rate (`affinity`),
//! and Amazon Bedrock's Converse body and usage (`bedrock`).
//!
//! `contract_checks.rs` declares a pipeline of its own (`quiet`); the
//! standard pipeline's contract, which walks every linked pipeline, is in
//! the `standard` binary instead.

#[path = "../common/mod.rs"]
mod common;

mod affinity;
mod bedrock;
mod cache_cost;
mod contract_checks;
mod history;
mod keep_alive;
mod observe;
mod provider_counts;
mod providers;
mod secrets;
