//! Runtime facts for one turn, read here (in the program) and never inside a layer.

use std::path::Path;

use prompt_layers::RuntimeFacts;

/// The facts of this call: date and time zone from the system clock (unless
/// `date` is given), the workspace as working directory, OS, shell, model, and
/// the git branch from `<workspace>/.git/HEAD` when there is one.
pub(crate) fn gather(
    workspace: &Path,
    date: Option<String>,
    model: Option<String>,
) -> RuntimeFacts {
    let now = jiff::Zoned::now();
    let time_zone = now.time_zone().iana_name().map(str::to_owned);
    RuntimeFacts {
        date: Some(date.unwrap_or_else(|| now.date().to_string())),
        time_zone,
        cwd: Some(workspace.display().to_string()),
        os: Some(std::env::consts::OS.to_owned()),
        shell: std::env::var_os("SHELL").and_then(|s| {
            Path::new(&s)
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
        }),
        model,
        git_branch: git_branch(workspace),
    }
}

/// The branch `HEAD` points at, if `workspace` is a git checkout on a branch.
fn git_branch(workspace: &Path) -> Option<String> {
    let head = std::fs::read_to_string(workspace.join(".git").join("HEAD")).ok()?;
    head.trim()
        .strip_prefix("ref: refs/heads/")
        .map(str::to_owned)
}
