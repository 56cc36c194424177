//! The one trait a pipeline implements when it loads its own session and
//! turn: [`Agent`], chosen on the command line with `--agent NAME`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use prompt_checks::contract::Scenario;
use prompt_core::budget::TokenBudget;
use prompt_core::tokens::TokenCounter;
use prompt_core::{
    AssembledPrompt, AssemblyPath, Context, Pipeline, PromptBuilder, PromptMode, TurnContext,
};

use crate::{RuntimeFacts, SessionConfig, SubAgent, SubAgents, load_session};

/// What an [`Agent`] returns when it cannot load or render: any error; the
/// CLI prints its message (and exits 1).
pub type AgentError = Box<dyn std::error::Error + Send + Sync>;

/// A pipeline that loads its own session and turn, plugged into the CLI with
/// [`main_with`](super::main_with) and chosen with `--agent NAME`.
///
/// Only [`name`](Agent::name) and [`pipeline`](Agent::pipeline) are
/// required. The defaults load the standard sources ([`load_session`] over
/// [`Options::session_config`]) and this call's runtime facts, so a pipeline
/// whose layers read those needs no `Agent` at all (`--pipeline NAME`). An
/// agent with its own config file or sources overrides
/// [`load_session`](Agent::load_session) (and [`turn`](Agent::turn));
/// one that assembles in its own way (several channels, text welded on after
/// assembly) overrides [`render`](Agent::render) and
/// [`scenarios`](Agent::scenarios), which every subcommand goes through.
///
/// ```standalone_crate
/// use prompt_core::{Context, prompt_layer, prompt_pipeline, LayerInput, LayerWriter, Render};
/// use prompt_core::{SessionValue, Stable};
/// use prompt_cli::{Agent, AgentError, Options};
///
/// #[prompt_pipeline(paths = [Cached], modes = [Full])]
/// pub struct Ferris;
///
/// /// What the agent read from its own config file.
/// #[derive(Clone)]
/// pub struct Motto(String);
/// impl SessionValue for Motto {}
///
/// #[prompt_layer(priority = 100, stability = Stable, paths = [Cached], modes = [Full], pipeline = Ferris)]
/// pub struct MottoLayer;
/// impl Render<Stable> for MottoLayer {
///     fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
///         if let Some(Motto(motto)) = input.get::<Motto>() {
///             out.push_str(motto);
///         }
///     }
/// }
///
/// /// `prompt render --agent ferris`: reads `ferris.txt` from the workspace.
/// struct FerrisAgent;
///
/// impl Agent for FerrisAgent {
///     fn name(&self) -> &str { "ferris" }
///     fn pipeline(&self) -> &str { "ferris" }
///     fn load_session(&self, options: &Options) -> Result<Context, AgentError> {
///         let motto = std::fs::read_to_string(options.workspace.join("ferris.txt"))?;
///         Ok(Context::new().with(Motto(motto.trim().to_owned())))
///     }
/// }
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("ferris.txt"), "Crabs first.\n").unwrap();
/// let prompt = FerrisAgent.render(&Options::new(dir.path())).unwrap();
/// assert_eq!(prompt.text(), "Crabs first.");
/// // A binary's `main` is then:
/// // fn main() -> std::process::ExitCode { prompt_cli::main_with(&[&FerrisAgent]) }
/// ```
pub trait Agent: Sync {
    /// The name `--agent` takes (lowercase, e.g. `ferris`).
    fn name(&self) -> &str;

    /// The name of the pipeline it renders (`#[prompt_pipeline]`'s, in snake_case).
    fn pipeline(&self) -> &str;

    /// The packages whose layers its pipeline needs (`-` or `_`, e.g.
    /// `["my-layers", "prompt-layers"]`). A layer crate nothing in the binary
    /// names is dropped by the linker, and its layers vanish without a word;
    /// every subcommand run with `--agent` checks these first and names the
    /// `use my_layers as _;` line that links a missing one. Default: none.
    fn required_crates(&self) -> &[&'static str] {
        &[]
    }

    /// The folder it renders over when `--workspace` is not given; `None`:
    /// the current directory.
    fn default_workspace(&self) -> Option<PathBuf> {
        None
    }

    /// The `--set KEY=VALUE` keys it reads from [`Options::settings`], each
    /// with one line saying what it does; a key not listed is refused.
    fn settings(&self) -> &[(&'static str, &'static str)] {
        &[]
    }

    /// The session context: what stays the same for every call of a session.
    /// Default: the standard sources ([`load_session`] over
    /// [`Options::session_config`]) and `--sub-agent`s as [`SubAgents`].
    ///
    /// # Errors
    /// Whatever the agent's loading returns; the CLI prints it.
    fn load_session(&self, options: &Options) -> Result<Context, AgentError> {
        standard_session(options)
    }

    /// The turn context of one call. Default: this call's runtime facts
    /// (date from `--date`, model, cwd, git branch) and the scratchpad.
    ///
    /// # Errors
    /// Whatever the agent's loading returns; the CLI prints it.
    fn turn(&self, options: &Options, session: &Context) -> Result<TurnContext, AgentError> {
        let _ = session;
        Ok(standard_turn(options))
    }

    /// What `render` (and `exec`, `cache`) sends: [`load_session`](Agent::load_session)
    /// and [`turn`](Agent::turn) assembled on `options.path` in `options.mode`,
    /// with `options.budget` and `options.counter`.
    ///
    /// # Errors
    /// The loading's error, or the pipeline's or assembly's.
    fn render(&self, options: &Options) -> Result<Rendered, AgentError> {
        let pipeline = Pipeline::named(self.pipeline())?;
        let session = self.load_session(options)?;
        let turn = self.turn(options, &session)?;
        let prompt = options.build(&pipeline, &session, &turn)?;
        Ok(Rendered::of(prompt))
    }

    /// The named session + turn contexts `size` and `lint` measure and
    /// check. Default: one scenario, `workspace`, over this call's session
    /// and turn, then the same session with an empty turn, declaring the
    /// turn's distinctive runtime facts (a fact stated twice fails `lint`).
    ///
    /// # Errors
    /// The loading's error.
    fn scenarios(&self, options: &Options) -> Result<Vec<Scenario>, AgentError> {
        let session = self.load_session(options)?;
        let turn = self.turn(options, &session)?;
        let facts = turn.get::<RuntimeFacts>().cloned();
        let mut scenario = Scenario::new("workspace", session)
            .turn(turn)
            .turn(TurnContext::new());
        // The distinctive facts (date, time zone, cwd, model, git branch) of
        // three characters or more; OS and shell names are common words.
        for (label, value) in facts.iter().flat_map(RuntimeFacts::entries) {
            if !matches!(label, "OS" | "Shell") && value.chars().count() >= 3 {
                scenario = scenario.fact(label, value);
            }
        }
        Ok(vec![scenario])
    }
}

/// The standard session: [`load_session`] over [`Options::session_config`],
/// plus [`SubAgents`] when `--sub-agent` was given.
///
/// # Errors
/// A [`prompt_layers::ConfigError`] from loading.
pub fn standard_session(options: &Options) -> Result<Context, AgentError> {
    let mut session = load_session(&options.session_config())?;
    if !options.sub_agents.is_empty() {
        session.insert(SubAgents(options.sub_agents.clone()));
    }
    Ok(session)
}

/// The standard turn: this call's [`RuntimeFacts`](crate::RuntimeFacts) and
/// the scratchpad; what cannot be read is a warning on stderr.
pub fn standard_turn(options: &Options) -> TurnContext {
    let config = options.session_config();
    let (facts, warning) =
        super::facts::gather(&config, options.date.clone(), options.model.clone());
    if let Some(warning) = warning {
        super::warn(&warning);
    }
    let mut turn = TurnContext::new().with(facts);
    match config.load_scratchpad() {
        Ok(scratchpad) => {
            turn.insert(scratchpad);
        }
        Err(error) => super::warn(&format!(
            "{}; rendering without the scratchpad",
            crate::sources::report(&error)
        )),
    }
    turn
}

/// What the command line asked for, as an [`Agent`] reads it.
#[derive(Clone)]
#[non_exhaustive]
pub struct Options {
    /// The folder to render over: `--workspace`, else the agent's
    /// [`default_workspace`](Agent::default_workspace), else the current directory.
    pub workspace: PathBuf,
    /// `--fixture`: the folder is laid out like the agent's built-in fixture
    /// (true as well when no `--workspace` was given and the agent has a default).
    pub fixture: bool,
    /// `--cwd`: the working directory (default: the workspace).
    pub cwd: Option<PathBuf>,
    /// `--app`: memory, skills and overrides live in `.<app>` folders.
    pub app: String,
    /// `--home`: the user's home (default: `$HOME`).
    pub home: Option<PathBuf>,
    /// `--shared`: the folder `{% include "@shared/..." %}` reads from.
    pub shared: Option<PathBuf>,
    /// `--prompt-path`: folders searched for `system-prompt.md`, in order.
    pub prompt_path: Vec<PathBuf>,
    /// `--nested-docs`: also read AGENTS.md / CLAUDE.md from the workspace down to the cwd.
    pub nested_docs: bool,
    /// `--sub-agent NAME=DESCRIPTION`: sub-agents are enabled when any is given.
    pub sub_agents: Vec<SubAgent>,
    /// `--set KEY=VALUE`: the agent's own settings (see [`Agent::settings`]).
    pub settings: BTreeMap<String, String>,
    /// `--path`: the assembly path.
    pub path: AssemblyPath,
    /// `--mode`: `None` is the agent's choice, else [`PromptMode::Full`].
    pub mode: Option<PromptMode>,
    /// `--date`: the date to state instead of today's.
    pub date: Option<String>,
    /// `--model`: the model to state.
    pub model: Option<String>,
    /// `--budget-chars` / `--budget-tokens`.
    pub budget: Option<TokenBudget>,
    /// `--tokenizer`: the counter for the budget and the trace.
    pub counter: Option<Arc<dyn TokenCounter>>,
}

impl Options {
    /// The options of `prompt render --workspace DIR` with nothing else
    /// given: app `agent`, `$HOME`, the Cached path.
    pub fn new(workspace: impl Into<PathBuf>) -> Self {
        Self {
            workspace: workspace.into(),
            fixture: false,
            cwd: None,
            app: "agent".to_owned(),
            home: std::env::var_os("HOME").map(PathBuf::from),
            shared: None,
            prompt_path: Vec::new(),
            nested_docs: false,
            sub_agents: Vec::new(),
            settings: BTreeMap::new(),
            path: AssemblyPath::Cached,
            mode: None,
            date: None,
            model: None,
            budget: None,
            counter: None,
        }
    }

    /// The standard sources' configuration for these options.
    pub fn session_config(&self) -> SessionConfig {
        let mut config = SessionConfig::new(self.app.clone(), &self.workspace);
        config.cwd = self.cwd.clone().unwrap_or_else(|| self.workspace.clone());
        config.home.clone_from(&self.home);
        config.shared_dir.clone_from(&self.shared);
        config.prompt_search_path.clone_from(&self.prompt_path);
        config.project_docs.nested = self.nested_docs;
        config
    }

    /// A `--set` value, if given.
    pub fn setting(&self, key: &str) -> Option<&str> {
        self.settings.get(key).map(String::as_str)
    }

    /// `session` and `turn` assembled with `pipeline` on [`path`](Self::path)
    /// in [`mode`](Self::mode), with the budget and counter.
    ///
    /// # Errors
    /// The [`prompt_core::AssemblyError`] of the build.
    pub fn build(
        &self,
        pipeline: &Pipeline,
        session: &Context,
        turn: &TurnContext,
    ) -> Result<AssembledPrompt, prompt_core::AssemblyError> {
        let mut builder = PromptBuilder::new(pipeline).mode(self.mode.unwrap_or_default());
        if let Some(counter) = &self.counter {
            builder = builder.counter(Arc::clone(counter));
        }
        if let Some(budget) = self.budget {
            builder = builder.budget(budget);
        }
        match self.path {
            AssemblyPath::Cached => builder.build_cached(session, turn),
            AssemblyPath::Basic => builder.build_basic(session, turn),
        }
    }
}

/// What an agent sends as its system prompt for one render.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Rendered {
    /// The assembled prompt (parts and trace).
    pub prompt: AssembledPrompt,
    /// The system prompt as sent: the prompt's text plus anything the agent
    /// adds after assembly.
    pub text: String,
}

impl Rendered {
    /// A rendering of `prompt` that sends `text` (the prompt's text plus
    /// what the agent adds after assembly).
    pub fn new(prompt: AssembledPrompt, text: impl Into<String>) -> Self {
        Self {
            prompt,
            text: text.into(),
        }
    }

    /// A rendering that sends exactly the assembled prompt.
    pub fn of(prompt: AssembledPrompt) -> Self {
        Self {
            text: prompt.text(),
            prompt,
        }
    }
}

impl std::ops::Deref for Rendered {
    type Target = AssembledPrompt;

    fn deref(&self) -> &AssembledPrompt {
        &self.prompt
    }
}
