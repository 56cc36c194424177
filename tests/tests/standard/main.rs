//! The standard pipeline of `prompt-layers` as a binary that names it sees
//! it: every layer over the fixture workspace, its manifest, its contract
//! (over every pipeline linked here, so this binary declares none of its
//! own) and one session assembled from many threads.

#[path = "../common/mod.rs"]
mod common;

mod concurrency;
mod contract;
mod manifest;
mod pipeline;
mod scopes;
