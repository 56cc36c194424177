//! What a subcommand returns: an exit code, or a [`CliError`].

use std::error::Error;
use std::fmt;
use std::process::ExitCode;

/// What kind of failure a [`CliError`] is; it decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CliErrorKind {
    /// Bad usage (exit code 2): an unknown agent, pipeline, setting or
    /// option value, or an input file the command cannot take.
    Usage,
    /// A failed command (exit code 1): a check that found problems, a file
    /// that could not be read or written, an agent or client that failed.
    Failed,
}

/// Why a `prompt` command failed, as [`Main::try_run`](super::Main::try_run) returns
/// it: what [`Main::run`](super::Main::run) prints on stderr after
/// `prompt: `, and the exit code.
///
/// Its [`Display`](fmt::Display) is this failure's own words; the error that
/// caused it (an I/O error, an agent's error, a pipeline's problems) is its
/// [`source`](Error::source), never repeated in the message. Print the whole
/// chain, each cause after `: `, as `Main::run` does. The words may hold
/// names read from a repository (file names, layer names) as they are:
/// `Main::run` escapes their control characters before printing, and a
/// caller that prints [`report`](Self::report) to a terminal should too.
///
/// ```
/// use prompt_cli::{CliError, CliErrorKind};
///
/// let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
/// let error = CliError::new(CliErrorKind::Failed, "cannot read `a.json`").with_source(io);
/// assert_eq!(error.to_string(), "cannot read `a.json`");
/// assert_eq!(std::error::Error::source(&error).unwrap().to_string(), "gone");
/// assert_eq!(error.exit_code(), 1);
/// ```
pub struct CliError {
    kind: CliErrorKind,
    /// This failure's own words; `None` when it is only its cause's.
    message: Option<String>,
    source: Option<Box<dyn Error + Send + Sync + 'static>>,
}

impl CliError {
    /// A failure of `kind` in `message`'s words, with no cause.
    pub fn new(kind: CliErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: Some(message.into()),
            source: None,
        }
    }

    /// Bad usage (exit code 2) in `message`'s words.
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(CliErrorKind::Usage, message)
    }

    /// A failed command (exit code 1) in `message`'s words.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::new(CliErrorKind::Failed, message)
    }

    /// A failed command that is `error` and nothing more: its message and
    /// its sources are `error`'s own.
    pub fn from_error(error: impl Into<Box<dyn Error + Send + Sync + 'static>>) -> Self {
        Self {
            kind: CliErrorKind::Failed,
            message: None,
            source: Some(error.into()),
        }
    }

    /// The same failure, caused by `source`.
    #[must_use]
    pub fn with_source(
        mut self,
        source: impl Into<Box<dyn Error + Send + Sync + 'static>>,
    ) -> Self {
        if let Some(own) = self.source.take() {
            // A failure that was its cause's alone keeps that cause's words.
            self.message.get_or_insert_with(|| own.to_string());
        }
        self.source = Some(source.into());
        self
    }

    /// The same failure as bad usage (exit code 2).
    #[must_use]
    pub fn into_usage(mut self) -> Self {
        self.kind = CliErrorKind::Usage;
        self
    }

    /// The same failure as a failed command (exit code 1).
    #[must_use]
    pub fn into_failed(mut self) -> Self {
        self.kind = CliErrorKind::Failed;
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> CliErrorKind {
        self.kind
    }

    /// The process exit code for this failure: 2 for bad usage, else 1.
    pub fn exit_code(&self) -> u8 {
        match self.kind {
            CliErrorKind::Usage => 2,
            CliErrorKind::Failed => 1,
        }
    }

    /// This failure and every cause, joined by `: `: the line `prompt`
    /// prints.
    pub fn report(&self) -> String {
        crate::sources::report(self)
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.message, &self.source) {
            (Some(message), _) => f.write_str(message),
            (None, Some(source)) => fmt::Display::fmt(source, f),
            (None, None) => f.write_str("the command failed"),
        }
    }
}

impl fmt::Debug for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CliError")
            .field("kind", &self.kind)
            .field("message", &self.message)
            .field("source", &self.source)
            .finish()
    }
}

impl Error for CliError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match (&self.message, &self.source) {
            // Own words: the cause is the source.
            (Some(_), Some(source)) => Some(&**source),
            // The cause's words: its sources are ours.
            (None, Some(source)) => source.source(),
            (_, None) => None,
        }
    }
}

impl From<prompt_core::PipelineError> for CliError {
    fn from(error: prompt_core::PipelineError) -> Self {
        Self::from_error(error)
    }
}

/// What a command returns: its exit code, or a failure.
pub(crate) type Outcome = Result<ExitCode, CliError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cause_is_printed_once_whichever_way_it_was_given() {
        let io = || std::io::Error::other("disk on fire");
        let own = CliError::failed("cannot write `x`").with_source(io());
        assert_eq!(own.report(), "cannot write `x`: disk on fire");
        let only = CliError::from_error(io());
        assert_eq!(only.to_string(), "disk on fire");
        assert!(only.source().is_none());
        assert_eq!(only.report(), "disk on fire");
        let wrapped = CliError::from_error(io()).with_source(std::io::Error::other("deeper"));
        assert_eq!(wrapped.report(), "disk on fire: deeper");
    }

    #[test]
    fn usage_exits_2_and_the_rest_1() {
        assert_eq!(CliError::usage("no").exit_code(), 2);
        assert_eq!(CliError::failed("no").exit_code(), 1);
        assert_eq!(
            CliError::failed("no").into_usage().kind(),
            CliErrorKind::Usage
        );
        let debug = format!("{:?}", CliError::usage("no"));
        assert!(debug.starts_with("CliError { kind: Usage"), "{debug}");
    }
}
