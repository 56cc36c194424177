//! The workspace options `render`, `size` and `lint` share, and the session
//! they load: the one paradigm a real folder gives.

use std::path::PathBuf;

use prompt_core::contract::Paradigm;
use prompt_core::{Context, Pipeline, TurnContext};
use prompt_layers::{RuntimeFacts, SessionConfig, SubAgent, SubAgents, load_session};

use prompt_examples::agents::{Agent, Layout};

use crate::facts;

/// Where the agent works, and which pipeline renders for it.
#[derive(clap::Args)]
pub(crate) struct WorkspaceArgs {
    /// The workspace the agent works in (default: the current directory).
    #[arg(long)]
    workspace: Option<PathBuf>,
    /// The working directory, at or below the workspace (default: the workspace).
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// The app name: memory, skills and overrides live in `.<app>` folders.
    /// A plain name of at most 64 characters, with no leading dot.
    #[arg(long, default_value = "agent", value_parser = crate::cmd::args::APP)]
    app: String,
    /// Also read AGENTS.md / CLAUDE.md in each directory from the workspace down to `--cwd`.
    #[arg(long)]
    nested_docs: bool,
    /// The folder `{% include "@shared/..." %}` reads from. Inside the
    /// workspace it may not lead out of it through a symlink.
    #[arg(long)]
    shared: Option<PathBuf>,
    /// A directory searched for `system-prompt.md` (repeatable, in order).
    #[arg(long = "prompt-path")]
    prompt_path: Vec<PathBuf>,
    /// A sub-agent, as `NAME=DESCRIPTION` (repeatable); enables the coordinator layer.
    #[arg(long = "sub-agent", value_parser = parse_sub_agent)]
    sub_agents: Vec<SubAgent>,
    /// The pipeline to use.
    #[arg(long, default_value = prompt_core::spec::DEFAULT_PIPELINE, conflicts_with = "agent")]
    pipeline: String,
    /// A reference agent (recursive, aleph, kitsoki): its pipeline, over its
    /// built-in fixture workspace unless `--workspace` is given.
    #[arg(long, value_parser = crate::parse_agent)]
    agent: Option<Agent>,
    /// With `--agent` and `--workspace DIR`: DIR is laid out like the
    /// built-in fixture (recursive: `DIR/workspace` is the workspace and
    /// `DIR/home` the user's home). Without it DIR is the workspace, whatever
    /// folders it holds.
    #[arg(long, requires = "agent")]
    fixture: bool,
    /// The date to state, instead of today's (for reproducible output); one
    /// line of at most 64 visible characters.
    #[arg(long, value_parser = crate::cmd::args::DATE)]
    pub(crate) date: Option<String>,
    /// The model name to state in the prompt; also the model of `render
    /// --format anthropic|openai` requests and of `prompt cache` (defaults
    /// there: claude-sonnet-4-5, gpt-5); one line of at most 128 visible characters.
    #[arg(long, value_parser = crate::cmd::args::MODEL)]
    pub(crate) model: Option<String>,
}

/// A loaded workspace: the pipeline, the session and this turn.
pub(crate) struct Loaded {
    pub(crate) pipeline: Pipeline,
    pub(crate) session: Context,
    pub(crate) facts: RuntimeFacts,
    pub(crate) turn: TurnContext,
}

impl WorkspaceArgs {
    /// The reference agent chosen with `--agent`, if any.
    pub(crate) fn agent(&self) -> Option<Agent> {
        self.agent
    }

    /// How the agent reads its folder: as a fixture root for the built-in
    /// fixture or with `--fixture`, else as the workspace. Never guessed from
    /// what the folder holds.
    pub(crate) fn layout(&self) -> Layout {
        if self.fixture || self.workspace.is_none() {
            Layout::Fixture
        } else {
            Layout::Workspace
        }
    }

    /// The folder an agent renders over: `--workspace`, else its built-in fixture.
    pub(crate) fn agent_workspace(&self, agent: Agent) -> Result<PathBuf, String> {
        let workspace = self.workspace.clone().unwrap_or_else(|| agent.fixture());
        if workspace.is_dir() {
            return Ok(workspace);
        }
        let hint = if self.workspace.is_none() {
            " (the built-in fixture lives in the source checkout; pass --workspace DIR)"
        } else {
            ""
        };
        Err(format!(
            "workspace `{}` is not a directory{hint}",
            workspace.display()
        ))
    }

    /// The pipeline and the paradigms `size` and `lint` check: a reference
    /// agent's own paradigms over its workspace, or the folder as the one
    /// paradigm of the standard pipeline.
    pub(crate) fn paradigms(self) -> Result<(Pipeline, Vec<Paradigm>), String> {
        let Some(agent) = self.agent else {
            let (pipeline, paradigm) = self.load()?.into_paradigm();
            return Ok((pipeline, vec![paradigm]));
        };
        let workspace = self.agent_workspace(agent)?;
        let pipeline = agent.pipeline().map_err(|e| e.to_string())?;
        let paradigms = agent
            .paradigms(&workspace, self.layout())
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|p| Paradigm::new(p.name, p.session).turn(p.turn))
            .collect();
        Ok((pipeline, paradigms))
    }

    /// Reads the workspace's sources and gathers this turn's facts.
    pub(crate) fn load(self) -> Result<Loaded, String> {
        let workspace = match self.workspace {
            Some(dir) => dir,
            None => std::env::current_dir()
                .map_err(|e| format!("cannot read the current directory: {e}"))?,
        };
        if !workspace.is_dir() {
            return Err(format!(
                "workspace `{}` is not a directory",
                workspace.display()
            ));
        }
        let pipeline = Pipeline::named(&self.pipeline).map_err(|e| e.to_string())?;

        let mut config = SessionConfig::new(self.app, &workspace);
        config.cwd = self.cwd.unwrap_or_else(|| workspace.clone());
        config.home = std::env::var_os("HOME").map(PathBuf::from);
        config.shared_dir = self.shared;
        config.prompt_search_path = self.prompt_path;
        config.project_docs.nested = self.nested_docs;
        let mut session = load_session(&config).map_err(|e| e.to_string())?;
        if !self.sub_agents.is_empty() {
            session.insert(SubAgents(self.sub_agents));
        }

        let (facts, warning) = facts::gather(&config, self.date, self.model);
        if let Some(warning) = warning {
            crate::warn(&warning);
        }
        let mut turn = Context::new().with(facts.clone());
        match config.load_scratchpad() {
            Ok(scratchpad) => {
                turn.insert(scratchpad);
            }
            Err(error) => crate::warn(&format!("{error}; rendering without the scratchpad")),
        }
        Ok(Loaded {
            pipeline,
            session,
            facts,
            turn,
        })
    }
}

impl Loaded {
    /// The folder as the one paradigm, named `workspace`: this turn, then a
    /// turn with no facts (only the dynamic suffix may differ). Declares the
    /// distinctive facts (date, time zone, cwd, model, git branch) of three
    /// characters or more; OS and shell names are common words, so they are
    /// not matched.
    pub(crate) fn into_paradigm(self) -> (Pipeline, Paradigm) {
        let mut paradigm = Paradigm::new("workspace", self.session)
            .turn(self.turn)
            .turn(Context::new());
        for (label, value) in self.facts.entries() {
            if !matches!(label, "OS" | "Shell") && value.chars().count() >= 3 {
                paradigm = paradigm.fact(label, value);
            }
        }
        (self.pipeline, paradigm)
    }
}

fn parse_sub_agent(arg: &str) -> Result<SubAgent, String> {
    match arg.split_once('=') {
        Some((name, description)) if !name.trim().is_empty() => Ok(SubAgent {
            name: name.trim().to_owned(),
            description: description.trim().to_owned(),
        }),
        _ => Err(format!("expected NAME=DESCRIPTION, got `{arg}`")),
    }
}
