//! What a subcommand returns: an exit code, or a failure to print.

use std::process::ExitCode;

/// A failed command: one line for stderr, and the exit code.
pub(crate) struct Failure {
    pub(crate) message: String,
    pub(crate) code: u8,
}

impl Failure {
    /// A usage error (exit 2): an unknown agent, pipeline or setting.
    pub(crate) fn usage(message: String) -> Self {
        Self { message, code: 2 }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Self { message, code: 1 }
    }
}

/// What a command returns: its exit code, or a failure.
pub(crate) type Outcome = Result<ExitCode, Failure>;
