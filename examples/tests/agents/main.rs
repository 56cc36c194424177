//! The three reference agents (recursive, aleph, kitsoki) as a library: their
//! prompts, manifests and provider requests as snapshots, their contract with
//! byte ratchets, and a hostile kitsoki `app.yaml`.
//!
//! kitsoki's trace record is `agents_kitsoki_trace.rs`, alone in its binary.

mod aleph;
mod app_yaml;
mod contract;
mod differential;
mod kitsoki;
mod providers;
mod recursive;
