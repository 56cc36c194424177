//! `prompt lint`: the contract checks over a workspace.

use std::process::ExitCode;

use crate::SubAgents;
use prompt_checks::contract::{Contract, Volatile};

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
/// (`prompt_checks::testing::forgotten_crates`). Prints the report; exit 1
/// when a check fails or a crate is forgotten.
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
    for tool in tools {
        contract = contract.extra_text(format!("tool `{}`", tool.name), tool.description);
    }
    let report = contract.run();
    print(&report.to_string())?;
    // A layer crate of the binary's workspace that it needs and does not
    // link: the pipeline checked is missing its layers.
    let forgotten = prompt_checks::testing::forgotten_crates();
    for problem in &forgotten {
        print(&format!("forgotten layer crate: {problem}\n"))?;
    }
    if report.is_ok() && forgotten.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::FAILURE)
    }
}
