//! The `prompt` CLI against a hostile workspace: every subcommand swept with
//! hostile files, fenced file text, roots that may not be left, and output
//! that never carries a control character or a secret from the environment.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod fence;
mod parsed;
mod roots;
mod sweep;
mod writes;
