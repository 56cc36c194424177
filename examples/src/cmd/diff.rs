//! `prompt diff A.json B.json`: why the second prompt missed the cache.

use std::path::PathBuf;
use std::process::ExitCode;

use prompt_core::diff::{StablePrefix, explain};

use super::{Failure, Outcome};
use crate::print;

/// Arguments of `prompt diff`.
#[derive(clap::Args)]
pub(crate) struct DiffArgs {
    /// The earlier prompt: the output of `prompt render --format json`.
    a: PathBuf,
    /// The later prompt, in the same form.
    b: PathBuf,
}

/// Exit 0 when the stable prefixes are identical, 1 when not, 2 when a file
/// cannot be read (as `diff` and `cmp` do).
pub(crate) fn run(args: DiffArgs) -> Outcome {
    let a = read(&args.a)?;
    let b = read(&args.b)?;
    let diff = explain(&a, &b);
    print(&diff.to_string())?;
    Ok(if diff.identical {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn read(path: &PathBuf) -> Result<StablePrefix, Failure> {
    let trouble = |message: String| Failure { message, code: 2 };
    let json = std::fs::read_to_string(path)
        .map_err(|e| trouble(format!("cannot read `{}`: {e}", path.display())))?;
    StablePrefix::from_json(&json, &path.display().to_string()).map_err(|e| trouble(e.to_string()))
}
