//! The `prompt` CLI, started as the binary cargo builds for these tests:
//! rendering, the contract commands (`lint`, `size`, `diff`), delivery
//! formats and the cache report, `exec`, `explain` (a cache ledger's log, a
//! Claude Code transcript), and the reference agents' commands.

#[path = "../common/mod.rs"]
mod common;

mod agents;
mod contract;
mod delivery;
mod exec;
mod explain;
mod formats;
mod options;
mod printed;
mod render;
mod report_browser;
mod team;
