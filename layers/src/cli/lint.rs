//! `prompt lint`: the contract checks over a workspace.

use std::process::ExitCode;

use crate::SubAgents;
use prompt_core::contract::{Contract, Volatile};

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
/// with the workspace as the one scenario. Prints the report; exit 1 when a
/// check fails.
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
    if report.is_ok() {
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::FAILURE)
    }
}
