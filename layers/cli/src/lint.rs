//! `prompt lint`: the contract checks over a workspace.

use std::process::ExitCode;

use crate::SubAgents;
use prompt_checks::contract::{Contract, Report, Volatile};

use super::outcome::Outcome;
use super::print;
use super::workspace::WorkspaceArgs;

/// Arguments of `prompt lint`.
#[derive(clap::Args)]
pub(crate) struct LintArgs {
    #[command(flatten)]
    workspace: WorkspaceArgs,
}

/// Runs every contract check (but the ratchet, which needs a committed file)
/// with the workspace as the one scenario (or the scenarios the binary
/// registered for the pipeline, `Main::scenarios`), then names each layer
/// crate of the binary's Cargo workspace that it needs and does not link
/// (`prompt_checks::testing::forgotten_crates`). The binary's allowances
/// for the pipeline (`Main::allow`) are the contract's. Prints the report,
/// whose first line counts the forgotten crates among the failures, and
/// whose fix for a volatile value names `Main::allow`; exit 1 when a check
/// fails or a crate is forgotten.
pub(crate) fn run(args: LintArgs) -> Outcome {
    let (pipeline, scenarios) = args.workspace.scenarios()?;
    let tools: Vec<_> = scenarios
        .iter()
        .flat_map(|p| SubAgents::tools_for(p.session()))
        .collect();
    let mut contract = Contract::new(&pipeline, &scenarios);
    if pipeline.layer("episodic_recall").is_some() {
        contract = contract.allow(
            "episodic_recall",
            Volatile::Date,
            "episodes are dated by episodes.jsonl, which changes between sessions, never within one",
        );
    }
    for (layer, kind, reason) in crate::registered_allowances(pipeline.name()) {
        contract = contract.allow(layer, kind, reason);
    }
    for tool in tools {
        contract = contract.extra_text(format!("tool `{}`", tool.name), tool.description);
    }
    let report = contract.run();
    // A layer crate of the binary's workspace that it needs and does not
    // link: the pipeline checked is missing its layers.
    let forgotten = prompt_checks::testing::forgotten_crates();
    print(&text(pipeline.name(), &report, &forgotten))?;
    if report.is_ok() && forgotten.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::FAILURE)
    }
}

/// The report as `lint` prints it: its first line's verdict counts the
/// forgotten crates too (so it never says `ok` when `lint` exits 1), each
/// forgotten crate is a `FAIL` line after the contract's failures, and the
/// fix for a volatile value names the call a CLI user makes,
/// `Main::allow(pipeline, ..)`, instead of the library's `Contract::allow`.
fn text(pipeline: &str, report: &Report, forgotten: &[impl std::fmt::Display]) -> String {
    let whole = report.to_string();
    let (headline, rest) = whole.split_once('\n').unwrap_or((&whole, ""));
    let mut out = String::with_capacity(whole.len() + 256);
    let failures = report.failures().len() + forgotten.len();
    // `contract of pipeline `NAME`: VERDICT (N assemblies over ..)`
    let prefix = format!("contract of pipeline `{pipeline}`: ");
    match headline
        .strip_prefix(&prefix)
        .and_then(|verdict| verdict.split_once(" ("))
    {
        Some((_, counts)) => {
            let verdict = match failures {
                0 => "ok".to_owned(),
                1 => "1 failure".to_owned(),
                n => format!("{n} failures"),
            };
            out.push_str(&format!("{prefix}{verdict} ({counts}\n"));
        }
        None => {
            out.push_str(headline);
            out.push('\n');
        }
    }
    // The contract's failures, then the forgotten crates, then its notes.
    let (failed, notes) = if rest.starts_with("note ") {
        ("", rest)
    } else {
        match rest.find("\nnote ") {
            Some(at) => rest.split_at(at + 1),
            None => (rest, ""),
        }
    };
    out.push_str(&failed.replace(
        "allow it: `.allow(\"",
        &format!(
            "allow it in the binary's `main`: `prompt_cli::Main::new().allow(\"{pipeline}\", \""
        ),
    ));
    for problem in forgotten {
        out.push_str(&format!("FAIL forgotten layer crate: {problem}\n"));
    }
    out.push_str(notes);
    out
}
