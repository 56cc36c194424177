//! The subcommands beyond `render` and `manifest`, one per file.

pub(crate) mod args;
pub(crate) mod cache;
pub(crate) mod diff;
pub(crate) mod exec;
pub(crate) mod formats;
pub(crate) mod lint;
pub(crate) mod size;
pub(crate) mod team;

use std::process::ExitCode;

/// A failed command: one line for stderr, and the exit code.
pub(crate) struct Failure {
    pub(crate) message: String,
    pub(crate) code: u8,
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Self { message, code: 1 }
    }
}

/// What a command returns: its exit code, or a failure.
pub(crate) type Outcome = Result<ExitCode, Failure>;
