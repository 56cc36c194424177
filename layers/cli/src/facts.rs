//! Runtime facts for one turn, read here (in the program) and never inside a layer.

use std::path::Path;

use crate::RuntimeFacts;
use crate::SessionConfig;
use crate::sources::git_branch;

/// The facts of this call: date and time zone from the system clock (unless
/// `date` is given), the working directory, OS, shell, model, and the git
/// branch of the repository that holds the working directory (found upward,
/// never above the workspace). A `HEAD` that cannot be read is a warning.
pub(crate) fn gather(
    config: &SessionConfig,
    date: Option<String>,
    model: Option<String>,
) -> (RuntimeFacts, Option<String>) {
    let now = jiff::ZonedDateTime::now();
    let time_zone = now.time_zone().iana_name().map(str::to_owned);
    let (git_branch, warning) = match git_branch(&config.workspace, &config.cwd) {
        Ok(branch) => (branch, None),
        Err(error) => (
            None,
            Some(format!(
                "{}; no git branch stated",
                crate::sources::report(&error)
            )),
        ),
    };
    // `RuntimeFacts` is `#[non_exhaustive]` outside prompt-layers.
    let mut facts = RuntimeFacts::default();
    facts.date = Some(date.unwrap_or_else(|| now.date().to_string()));
    facts.time_zone = time_zone;
    facts.cwd = Some(config.cwd.display().to_string());
    facts.os = Some(std::env::consts::OS.to_owned());
    facts.shell = std::env::var_os("SHELL").and_then(|s| {
        Path::new(&s)
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
    });
    facts.model = model;
    facts.git_branch = git_branch;
    (facts, warning)
}
