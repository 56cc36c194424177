//! What the CLI test binaries share: how the `prompt` binary is started.

use std::path::Path;
use std::process::Command;

/// `prompt <args>` with `HOME` at `home`, UTC, and no `RUST_LOG` or `SHELL`
/// from the machine, so what it states is the same everywhere.
pub fn command(args: &[&str], home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_prompt"));
    command
        .args(args)
        .env("HOME", home)
        .env("TZ", "UTC")
        .env_remove("RUST_LOG")
        .env_remove("SHELL");
    command
}
