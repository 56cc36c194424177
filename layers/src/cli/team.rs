//! `prompt cache --users N`: a team of N over one workspace, priced by
//! [`TeamSimulation`]; this file only renders the prompts.

use crate::sources::{CappedText, MemoryFile, UserPreferences};
use prompt_core::PromptBuilder;
use prompt_core::providers::anthropic::CacheTtl;
use prompt_core::providers::simulation::{TeamPrefix, TeamSimulation};
use prompt_core::tokens::{CountStats, Memoized, TokenCounter};
use serde::Serialize;

use super::formats::DEFAULT_ANTHROPIC_MODEL;
use super::workspace::WorkspaceArgs;

/// What `--users N --json` prints: the simulation's report, with what
/// counting cost.
#[derive(Serialize)]
struct Output<'a> {
    #[serde(flatten)]
    report: &'a prompt_core::providers::simulation::TeamReport,
    counting: CountStats,
}

/// The report for `users` teammates who differ only in their one-line
/// `user.md` (`I am teammate K of N.`), as text or JSON.
///
/// The prompts share everything but that line, so one [`Memoized`] counter
/// serves the whole run: the shared text is counted once, not once per
/// teammate and prefix.
pub(crate) fn run(
    workspace: WorkspaceArgs,
    users: usize,
    ttl: CacheTtl,
    usd_per_mtok: f64,
    counter: &dyn TokenCounter,
    json: bool,
) -> Result<String, String> {
    let model = workspace
        .model
        .clone()
        .unwrap_or_else(|| DEFAULT_ANTHROPIC_MODEL.to_owned());
    let chosen = workspace
        .choose(prompt_core::AssemblyPath::Cached, None, None)
        .map_err(|f| f.message)?;
    let mut loaded = chosen.load()?;
    let path = loaded
        .session
        .get::<UserPreferences>()
        .map(|p| p.0.path.clone())
        .unwrap_or_else(|| "~/.agent/memory/user.md".into());
    let counter = Memoized::new(counter);
    let simulation = TeamSimulation::new(&model)
        .ttl(ttl)
        .usd_per_mtok(usd_per_mtok);
    let mut team: Vec<TeamPrefix> = Vec::with_capacity(users);
    for k in 1..=users {
        let line = format!("I am teammate {k} of {users}.");
        loaded.session.insert(UserPreferences(MemoryFile {
            path: path.clone(),
            text: Some(CappedText::from_text(
                path.to_string_lossy(),
                &line,
                line.len(),
            )),
            problem: None,
        }));
        let prompt = PromptBuilder::new(&loaded.pipeline)
            .build_cached(&loaded.session, &loaded.turn)
            .map_err(|e| e.to_string())?;
        team.push(simulation.prefix(format!("teammate {k}"), &prompt, &counter));
    }
    let report = simulation.run(&team, &counter).map_err(|e| e.to_string())?;
    let counting = counter.stats();
    if json {
        let output = Output {
            report: &report,
            counting,
        };
        return serde_json::to_string_pretty(&output)
            .map(|s| s + "\n")
            .map_err(|e| e.to_string());
    }
    Ok(format!(
        "pipeline `{}`, {users} teammates who differ only in a one-line {}, tokens counted with {}\n{report}\n{}",
        loaded.pipeline.name(),
        path.display(),
        counter.name(),
        super::cache::estimate_note(&counter),
    ))
}
