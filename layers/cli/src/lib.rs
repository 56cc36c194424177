//! The `prompt` CLI as a library: render a pipeline for a workspace,
//! measure it, lint it, simulate its cache, explain a cache miss (between
//! two renders, or across a production log), print its manifest, or run
//! Claude Code, Codex or Gemini CLI with it (`exec`). The
//! exact `--tokenizer o200k|cl100k` needs feature `tiktoken` (tiktoken's
//! tables weigh several MB).
//!
//! Registration is link-time, so the tool must be linked into the binary
//! whose layers it describes. A user's own `prompt` is a few lines; it sees
//! every pipeline linked into it:
//!
//! ```no_run
//! use prompt_layers as _; // and `use my_layers as _;`: name every crate of layers
//!
//! fn main() -> std::process::ExitCode {
//!     prompt_cli::main()
//! }
//! ```
//!
//! A pipeline that loads its own session and turn (its own config file, its
//! own sources) implements [`Agent`] and is registered with
//! [`main_with`]`(&[&MyAgent])`; `--agent NAME` chooses it. [`Main`] also
//! names the binary's default pipeline, the scenarios `lint` checks a
//! pipeline over (for layers fed by the binary's own turn values), and the
//! volatile values `lint` allows a Stable layer ([`Main::allow`], what
//! `lint`'s failure for one names).
//!
//! Under `cargo run`, every subcommand that builds a pipeline asks Cargo
//! for the workspace's layer crates the binary depends on but never names
//! ([`prompt_checks::testing::forgotten_crates`]): a warning with the `use`
//! line to add (`lint` fails on it). An installed binary says nothing.
//!
//! [`Main::try_run`] runs the same CLI over given arguments and returns a
//! failure as a [`CliError`] (its words, its cause as `source()`, its exit
//! code) instead of printing it.
//!
//! ```text
//! prompt render [--workspace DIR] [--cwd DIR] [--app NAME] [--home DIR] [--path cached|basic]
//!               [--mode full|compact|minimal] [--trace] [--check-secrets [--redact]]
//!               [--format text|json|annotated|anthropic|openai|gemini|bedrock|claude-cli]
//!               [--budget-chars N | --budget-tokens N] [--tokenizer approx|o200k|cl100k] ...
//! prompt cache  [workspace options] --turns N [--ttl 5m|1h] [--bust-at K] [--gaps LIST] [--idle TIME] [--json]
//! prompt size   [workspace options] [--json] [--html FILE]
//! prompt lint   [workspace options]
//! prompt diff A.json B.json
//! prompt explain LOG | --claude TRANSCRIPT [--turn FILE]  [--html FILE] [--usd-per-mtok N] [--json]
//! prompt manifest [--pipeline NAME | --agent NAME | --all]
//! prompt exec   [workspace options] [--path] [--mode] [--budget-*] [--trace] [--check-secrets]
//!               [--client-kind claude|codex|gemini] -- CLIENT ARGS...
//! ```
//!
//! Workspace options: `--pipeline NAME` picks a pipeline linked into the
//! binary (loaded from the standard sources), `--agent NAME` a registered
//! [`Agent`] (over its built-in workspace unless `--workspace DIR` is
//! given; `--set KEY=VALUE` passes it its own settings). `--fixture` reads
//! `--workspace DIR` laid out like an agent's built-in fixture.
//!
//! `RUST_LOG=prompt_core=debug` prints each assembly's trace to stderr.
//!
//! Everything printed about files (trace notes, warnings, errors) has its
//! control characters escaped: a file name or note cannot drive the terminal.

#![cfg_attr(docsrs, feature(doc_cfg))]

// The paths these modules were written against inside prompt-layers
// (`crate::cli::…`, `crate::sources::…`, `crate::SessionConfig`), kept so
// the modules read as they did there.
use crate as cli;
use prompt_layers::{RuntimeFacts, SessionConfig, SubAgent, SubAgents, load_session};
mod sources {
    pub(crate) use prompt_layers::sources::__cli::{open, read_head, report};
    pub(crate) use prompt_layers::sources::*;
}

mod agent;
pub(crate) mod args;
mod cache;
mod diff;
mod escape;
mod exec;
mod explain;
mod facts;
mod formats;
mod lint;
mod outcome;
mod report;
mod secrets;
mod size;
mod team;
mod workspace;

// The one escape every writer calls, under the names the text writers use.
pub(crate) use escape::{lines as escape_lines, text as escape};

pub use agent::{Agent, AgentError, Options, Rendered, standard_session, standard_turn};
pub use outcome::{CliError, CliErrorKind};
/// The kinds of volatile value [`Main::allow`] lets a Stable layer state.
pub use prompt_checks::contract::Volatile;

use prompt_checks::contract::Scenario;
// Without `--cfg prompt_unstable` only the hook below reads the formats' kinds.
#[cfg(not(prompt_unstable))]
const _: () = {
    let _ = formats::render_formats;
};

/// This workspace's test hooks: the render formats the CLI's own tests hold
/// every list of formats to. Not API: behind `--cfg prompt_unstable` (in
/// `RUSTFLAGS`, as this workspace's `.cargo/config.toml` sets it), with no
/// semver promise.
#[cfg(prompt_unstable)]
#[doc(hidden)]
pub mod __private {
    pub use super::formats::{FormatKind, render_formats};
}

use std::cell::RefCell;
use std::io::Write as _;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use prompt_checks::secrets::{redact, scan};
use prompt_core::pipeline::Problem;
use prompt_core::{AssemblyPath, AssemblyTrace, Pipeline, PromptMode};

use formats::{DeliveryArgs, Format};
use outcome::Outcome;
use workspace::WorkspaceArgs;

/// What the [`Main`] running on this thread registered, for the length of
/// its call only ([`Registered::enter`]): no process-wide state, so two
/// calls in one process (embedded, or tests) each see their own.
struct Registered {
    agents: &'static [&'static dyn Agent],
    default_pipeline: Option<&'static str>,
    scenarios: Vec<(&'static str, ScenariosFn)>,
    allowances: Vec<Allowance>,
    /// Whether this call warned of forgotten crates already.
    warned: bool,
}

thread_local! {
    static CURRENT: RefCell<Option<Registered>> = const { RefCell::new(None) };
}

impl Registered {
    /// `main`'s registrations, current on this thread until the guard drops
    /// (which puts back what a caller's own call had registered).
    fn enter(main: Main) -> RegisteredGuard {
        let registered = Registered {
            agents: main.agents,
            default_pipeline: main.default_pipeline,
            scenarios: main.scenarios,
            allowances: main.allowances,
            warned: false,
        };
        RegisteredGuard(CURRENT.with(|current| current.replace(Some(registered))))
    }

    /// `read` over the current call's registrations (`None` outside a call).
    fn with<R>(read: impl FnOnce(Option<&mut Registered>) -> R) -> R {
        CURRENT.with(|current| read(current.borrow_mut().as_mut()))
    }
}

/// Restores the registrations that were current before [`Registered::enter`].
struct RegisteredGuard(Option<Registered>);

impl Drop for RegisteredGuard {
    fn drop(&mut self) {
        let previous = self.0.take();
        CURRENT.with(|current| *current.borrow_mut() = previous);
    }
}

/// The scenarios `prompt lint` and `prompt size` check a pipeline with,
/// as [`Main::scenarios`] registers them: built from the command line's
/// [`Options`] (usually [`standard_session`] and [`standard_turn`] plus the
/// binary's own [`TurnValue`](prompt_core::TurnValue)s).
pub type ScenariosFn = fn(&Options) -> Result<Vec<Scenario>, AgentError>;

/// The `prompt` CLI with what this binary registers: its [`Agent`]s, the
/// pipeline `--pipeline` defaults to, the scenarios `lint` and `size`
/// check a pipeline with, and the volatile values `lint` allows. [`main`] and [`main_with`] are the shorthands
/// for a binary that needs neither of the last two.
///
/// Without [`default_pipeline`](Main::default_pipeline), `--pipeline`
/// defaults to the built-in `default`, and `prompt render` without
/// `--pipeline` in a binary that declares other pipelines says on stderr
/// which one it rendered. Without [`scenarios`](Main::scenarios) for a
/// pipeline, `lint` and `size` check it over one scenario, the standard
/// sources and this call's runtime facts, so a layer fed by the binary's
/// own [`TurnValue`](prompt_core::TurnValue) speaks in none of them and
/// `lint` fails it as unreachable.
///
/// ```standalone_crate
/// use prompt_checks::contract::{Contract, Scenario};
/// use prompt_core::{LayerInput, LayerWriter, Render, TurnValue, prompt_layer, prompt_pipeline};
/// use prompt_cli::{AgentError, Main, Options, standard_session, standard_turn};
///
/// #[prompt_pipeline(paths = [Cached], modes = [Full])]
/// pub struct Quill;
///
/// /// The writer's mood, which Quill's own loop puts in each turn.
/// pub struct Mood(pub String);
/// impl TurnValue for Mood {}
///
/// #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], modes = [Full], pipeline = Quill)]
/// pub struct MoodLayer;
/// impl Render for MoodLayer {
///     fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
///         if let Some(Mood(mood)) = input.get::<Mood>() {
///             out.push_str("Write in a ");
///             out.push_str(mood);
///             out.push_str(" voice.");
///         }
///     }
/// }
///
/// /// What `prompt lint --pipeline quill` checks: the standard session,
/// /// and this call's turn with a mood in it.
/// fn quill_scenarios(options: &Options) -> Result<Vec<Scenario>, AgentError> {
///     let session = standard_session(options)?;
///     let turn = standard_turn(options).with(Mood("calm".into()));
///     Ok(vec![Scenario::new("calm", session).turn(turn)])
/// }
///
/// // The binary: `fn main() -> std::process::ExitCode { quill_main().run() }`.
/// fn quill_main() -> Main {
///     Main::new().default_pipeline("quill").scenarios("quill", quill_scenarios)
/// }
/// # let _ = quill_main;
///
/// // What `lint` then runs, passing: the layer speaks in the scenario.
/// let dir = tempfile::tempdir().unwrap();
/// let pipeline = prompt_core::Pipeline::named("quill").unwrap();
/// let scenarios = quill_scenarios(&Options::new(dir.path())).unwrap();
/// let report = Contract::new(&pipeline, &scenarios).run();
/// assert!(report.is_ok(), "{report}");
/// ```
#[must_use]
pub struct Main {
    agents: &'static [&'static dyn Agent],
    default_pipeline: Option<&'static str>,
    scenarios: Vec<(&'static str, ScenariosFn)>,
    allowances: Vec<Allowance>,
}

/// One [`Main::allow`]: the library's `Contract::allow` for one pipeline.
struct Allowance {
    pipeline: &'static str,
    layer: String,
    kind: Volatile,
    reason: String,
}

impl Default for Main {
    fn default() -> Self {
        Self::new()
    }
}

impl Main {
    /// No agent, `--pipeline` defaulting to `default`, no scenarios of its own.
    pub fn new() -> Self {
        Self {
            agents: &[],
            default_pipeline: None,
            scenarios: Vec::new(),
            allowances: Vec::new(),
        }
    }

    /// `agents` registered for `--agent NAME`.
    pub fn agents(mut self, agents: &'static [&'static dyn Agent]) -> Self {
        self.agents = agents;
        self
    }

    /// The pipeline every subcommand renders, measures or checks when
    /// `--pipeline` is not given (`#[prompt_pipeline]`'s name, in
    /// snake_case). A name this binary does not have stops every subcommand
    /// with the list of those it has.
    pub fn default_pipeline(mut self, pipeline: &'static str) -> Self {
        self.default_pipeline = Some(pipeline);
        self
    }

    /// The scenarios `prompt lint --pipeline PIPELINE` and `prompt size
    /// --pipeline PIPELINE` check, instead of the one standard scenario:
    /// what a pipeline whose layers read the binary's own values needs to
    /// pass `lint`. A second call for one pipeline replaces the first.
    pub fn scenarios(mut self, pipeline: &'static str, scenarios: ScenariosFn) -> Self {
        self.scenarios.retain(|(name, _)| *name != pipeline);
        self.scenarios.push((pipeline, scenarios));
        self
    }

    /// Lets the Stable layer `layer` of `pipeline` state values of `kind`
    /// when `prompt lint --pipeline PIPELINE` checks it, for `reason`: what
    /// [`Contract::allow`](prompt_checks::contract::Contract::allow) does
    /// in a test, and what `lint`'s failure for a volatile value names.
    /// An empty reason is a failure of its own. A pipeline this binary does
    /// not have is bad usage, as for [`scenarios`](Self::scenarios).
    ///
    /// ```
    /// use prompt_cli::{Main, Volatile};
    ///
    /// // `fn main() -> ExitCode { runbook_main().run() }`
    /// fn runbook_main() -> Main {
    ///     Main::new().allow(
    ///         "standard",
    ///         "account_runbook",
    ///         Volatile::Time,
    ///         "the maintenance window is the same every day",
    ///     )
    /// }
    /// # let _ = runbook_main;
    /// ```
    pub fn allow(
        mut self,
        pipeline: &'static str,
        layer: impl Into<String>,
        kind: Volatile,
        reason: impl Into<String>,
    ) -> Self {
        self.allowances.push(Allowance {
            pipeline,
            layer: layer.into(),
            kind,
            reason: reason.into(),
        });
        self
    }

    /// Parses the process's arguments, runs the subcommand, prints errors
    /// to stderr (control characters escaped, line breaks kept) and returns
    /// the exit code: 0, 1 for a failed check or error, 2 for bad usage
    /// (a default pipeline or a pipeline given scenarios that this binary
    /// does not have is bad usage too). It installs the process's tracing
    /// subscriber (`RUST_LOG`, to stderr) unless one is installed already:
    /// `run` is for a binary's `main`; an embedding program calls
    /// [`try_run`](Self::try_run), which installs nothing.
    pub fn run(self) -> ExitCode {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .try_init();
        match self.start(None) {
            Ok(code) => code,
            Err(error) => {
                eprintln!("prompt: {}", escape_lines(&error.report()));
                ExitCode::from(error.exit_code())
            }
        }
    }

    /// [`run`](Self::run) over `args` (the program name first, as
    /// [`std::env::args_os`] gives them), returning the failure instead of
    /// printing it. `--help` and `--version` print and return 0; bad usage
    /// is a [`CliErrorKind::Usage`] error in clap's words.
    ///
    /// It holds no process-wide state: this `Main`'s registrations hold for
    /// this call only, so calls with different registrations in one process
    /// each see their own, and no tracing subscriber is installed (the
    /// caller's, if any, receives the events).
    ///
    /// ```
    /// use prompt_cli::{CliErrorKind, Main};
    ///
    /// let error = Main::new().try_run(["prompt", "render", "--pipeline", "nope"]).unwrap_err();
    /// assert_eq!(error.kind(), CliErrorKind::Usage);
    /// assert!(error.to_string().starts_with("unknown pipeline `nope`"), "{error}");
    /// ```
    ///
    /// # Errors
    /// The command's failure: its message, its cause as
    /// [`source`](std::error::Error::source), and its exit code.
    pub fn try_run<I, T>(self, args: I) -> Result<ExitCode, CliError>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        match Cli::try_parse_from(args) {
            Ok(cli) => self.start(Some(cli)),
            Err(error) if !error.use_stderr() => {
                print(&error.render().to_string())?;
                Ok(ExitCode::SUCCESS)
            }
            Err(error) => Err(CliError::usage(
                error
                    .render()
                    .to_string()
                    .trim_end()
                    .trim_start_matches("error: "),
            )),
        }
    }

    /// Makes what this binary registered current for this call, then runs
    /// `cli` (the process's arguments when `None`: clap prints help,
    /// version and bad usage itself, and exits).
    fn start(self, cli: Option<Cli>) -> Outcome {
        let names = prompt_core::pipeline::pipeline_names();
        let unknown = self
            .default_pipeline
            .into_iter()
            .chain(self.scenarios.iter().map(|(name, _)| *name))
            .chain(self.allowances.iter().map(|allowance| allowance.pipeline))
            .find(|name| !names.contains(name));
        let _registered = Registered::enter(self);
        if let Some(name) = unknown {
            check_pipeline(name)?;
        }
        run(cli.unwrap_or_else(Cli::parse))
    }
}

#[derive(Parser)]
#[command(
    name = "prompt",
    version,
    about = "Assemble layered LLM system prompts"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Render the system prompt for a workspace, or a provider request carrying it.
    Render(RenderArgs),
    /// Simulate a session of N calls and what Anthropic's prompt cache saves.
    Cache(cache::CacheArgs),
    /// Per-layer bytes for every path and mode, with a bar per layer.
    Size(size::SizeArgs),
    /// Run the contract checks over a workspace; exit 1 with the report when one fails.
    Lint(lint::LintArgs),
    /// Say whether two `render --format json` outputs share their stable prefix, and if not why.
    Diff(diff::DiffArgs),
    /// What the provider's cache served, request by request, and why each
    /// miss missed: from a cache ledger's log, or a Claude Code transcript.
    Explain(explain::ExplainArgs),
    /// Render as `render` does, then run Claude Code, Codex or Gemini CLI with
    /// the stable prefix in its system slot and the dynamic part in each turn's
    /// user message (Claude Code) or before the first prompt (Codex, Gemini).
    Exec(exec::ExecArgs),
    /// The per-turn hook `exec` installs in Claude Code:
    /// prints one turn's dynamic part and reminder as the hook's output.
    #[command(hide = true)]
    Turn(exec::turn::TurnArgs),
    /// Print a pipeline's manifest: every layer, in order, as a Markdown table.
    /// An invalid pipeline's table is printed too, its problems beneath (on
    /// stderr, exit 1).
    Manifest {
        /// The pipeline to describe (default: the binary's default pipeline, else `default`).
        #[arg(long, conflicts_with_all = ["all", "agent"])]
        pipeline: Option<String>,
        /// Describe a registered agent's pipeline.
        #[arg(long, conflicts_with = "all")]
        agent: Option<String>,
        /// Every pipeline of this binary, as `docs/layers.md` holds them.
        #[arg(long)]
        all: bool,
    },
}

#[derive(clap::Args)]
struct RenderArgs {
    #[command(flatten)]
    workspace: WorkspaceArgs,
    /// Print the assembly trace (layers, bytes, notes) to stderr.
    #[arg(long)]
    trace: bool,
    /// `cached`: stable prefix + dynamic suffix; `basic`: one flat prompt.
    #[arg(long, value_enum, default_value_t = PathArg::Cached)]
    path: PathArg,
    /// How much the prompt says (default: full; Aleph: its `aleph.toml`).
    #[arg(long)]
    mode: Option<PromptMode>,
    /// What to print: the prompt, a view of it, or a provider's request or
    /// CLI placement carrying it.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Scan the prompt for credential-shaped strings (API keys, private keys,
    /// secret assignments); if any, name each (layer, byte range) on stderr and
    /// exit 1 without printing the prompt.
    #[arg(long)]
    check_secrets: bool,
    /// With `--check-secrets` and `--format text`: print the prompt with each
    /// finding replaced by `[REDACTED <kind>]` instead of failing.
    #[arg(long, requires = "check_secrets")]
    redact: bool,
    #[command(flatten)]
    delivery: DeliveryArgs,
}

#[derive(Clone, Copy, ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PathArg {
    Cached,
    Basic,
}

impl From<PathArg> for AssemblyPath {
    fn from(path: PathArg) -> Self {
        match path {
            PathArg::Cached => AssemblyPath::Cached,
            PathArg::Basic => AssemblyPath::Basic,
        }
    }
}

/// The `prompt` CLI over every pipeline linked into this binary, with no
/// [`Agent`] registered: `fn main() -> ExitCode { prompt_cli::main() }`
/// (`Main::new().run()`, see [`Main::run`]).
pub fn main() -> ExitCode {
    main_with(&[])
}

/// The `prompt` CLI with `agents` registered for `--agent NAME`:
/// `Main::new().agents(agents).run()` (see [`Main::run`]).
pub fn main_with(agents: &'static [&'static dyn Agent]) -> ExitCode {
    Main::new().agents(agents).run()
}

/// The agents this call's [`Main`] registered.
fn agents() -> &'static [&'static dyn Agent] {
    Registered::with(|config| config.map_or(&[][..], |config| config.agents))
}

/// The pipeline this call's [`Main`] named with [`Main::default_pipeline`].
pub(crate) fn default_pipeline() -> Option<&'static str> {
    Registered::with(|config| config.and_then(|config| config.default_pipeline))
}

/// The pipeline a subcommand takes when neither `--pipeline`, `--agent`
/// nor the binary names one: `default` when the binary's own layers join
/// it, else `standard` ([`StandardPipeline`](prompt_layers::StandardPipeline)): the
/// standard layers are include-only, so a binary with no layers of its own
/// renders the standard prompt.
pub(crate) fn builtin_pipeline() -> &'static str {
    let own = match Pipeline::collect() {
        Ok(_) => true,
        Err(error) => !matches!(error.problems.as_slice(), [Problem::Empty { .. }]),
    };
    if own {
        prompt_core::spec::DEFAULT_PIPELINE
    } else {
        STANDARD_PIPELINE
    }
}

/// The name of [`StandardPipeline`](prompt_layers::StandardPipeline).
pub(crate) const STANDARD_PIPELINE: &str =
    <prompt_layers::StandardPipeline as prompt_core::spec::PromptPipeline>::SPEC.name;

/// The scenarios this call's [`Main`] registered for `pipeline` ([`Main::scenarios`]).
pub(crate) fn registered_scenarios(pipeline: &str) -> Option<ScenariosFn> {
    Registered::with(|config| {
        config?
            .scenarios
            .iter()
            .find(|(name, _)| *name == pipeline)
            .map(|(_, scenarios)| *scenarios)
    })
}

/// The allowances the binary registered for `pipeline` ([`Main::allow`]):
/// `(layer, kind, reason)`.
pub(crate) fn registered_allowances(pipeline: &str) -> Vec<(String, Volatile, String)> {
    Registered::with(|config| {
        config.map_or_else(Vec::new, |config| {
            config
                .allowances
                .iter()
                .filter(|allowance| allowance.pipeline == pipeline)
                .map(|allowance| {
                    (
                        allowance.layer.clone(),
                        allowance.kind,
                        allowance.reason.clone(),
                    )
                })
                .collect()
        })
    })
}

/// Each layer crate of the binary's Cargo workspace that the binary needs
/// and does not link ([`prompt_checks::testing::forgotten_crates`]), as a
/// warning on stderr, once per call. `lint` fails on them instead.
pub(crate) fn warn_forgotten_crates() {
    let warned = Registered::with(|config| {
        config.is_some_and(|config| std::mem::replace(&mut config.warned, true))
    });
    if warned {
        return;
    }
    for problem in prompt_checks::testing::forgotten_crates() {
        warn(&problem.to_string());
    }
}

/// The agent registered as `name`, or an error listing the registered ones.
pub(crate) fn find_agent(name: &str) -> Result<&'static dyn Agent, CliError> {
    if let Some(agent) = agents()
        .iter()
        .copied()
        .find(|agent| agent.name().eq_ignore_ascii_case(name))
    {
        return Ok(agent);
    }
    let known: Vec<&str> = agents().iter().map(|a| a.name()).collect();
    Err(CliError::usage(if known.is_empty() {
        format!(
            "unknown agent `{}`: this binary registers no agent; use --pipeline NAME \
             (pipelines: {})",
            escape(name),
            prompt_core::pipeline::pipeline_names().join(", ")
        )
    } else {
        format!(
            "unknown agent `{}`: expected one of {}",
            escape(name),
            known.join(", ")
        )
    }))
}

/// An error for a `--pipeline` this binary does not have, listing those it has.
pub(crate) fn check_pipeline(name: &str) -> Result<(), CliError> {
    let names = prompt_core::pipeline::pipeline_names();
    if names.contains(&name) {
        return Ok(());
    }
    // A pipeline declared in a crate the binary never names is not linked:
    // its name is missing here, and that is the likely cause.
    Err(CliError::usage(format!(
        "unknown pipeline `{}`; this binary has: {}\n\
         a pipeline declared in another crate (your package's own library included) is linked \
         only when main.rs names that crate: `use my_layers as _;`",
        escape(name),
        names.join(", ")
    )))
}

fn run(cli: Cli) -> Outcome {
    // Every subcommand that builds a pipeline says which layer crates it
    // lacks; `lint` fails on them, `turn` (a client's hook) stays quiet.
    if matches!(
        cli.command,
        Command::Render(_)
            | Command::Cache(_)
            | Command::Size(_)
            | Command::Exec(_)
            | Command::Manifest { .. }
    ) {
        warn_forgotten_crates();
    }
    match cli.command {
        Command::Manifest { all: true, .. } => print(&all_manifests()?)?,
        Command::Manifest {
            pipeline, agent, ..
        } => {
            let name = match &agent {
                Some(agent) => find_agent(agent)?.pipeline(),
                None => {
                    let pipeline = match pipeline.as_deref().or(default_pipeline()) {
                        Some(name) => name,
                        None => builtin_pipeline(),
                    };
                    check_pipeline(pipeline)?;
                    pipeline
                }
            };
            let (manifest, error) = Pipeline::manifest_named(name);
            print(&manifest)?;
            if let Some(error) = error {
                // The table of what it would hold, then what is wrong with it.
                return Err(CliError::failed(error.to_string()));
            }
        }
        Command::Render(args) => render(args)?,
        Command::Cache(args) => return cache::run(args),
        Command::Size(args) => return size::run(args),
        Command::Lint(args) => return lint::run(args),
        Command::Diff(args) => return diff::run(args),
        Command::Explain(args) => return explain::run(args),
        Command::Exec(args) => return exec::run(args),
        Command::Turn(args) => return exec::turn::run(args),
    }
    Ok(ExitCode::SUCCESS)
}

/// `docs/layers.md`: every pipeline's manifest, under a note saying how to regenerate it.
fn all_manifests() -> Result<String, CliError> {
    let mut out = String::from(
        "<!-- Generated by `prompt manifest --all`; do not edit. Regenerate with\n     \
         cargo run -p prompt-examples -- manifest --all > docs/layers.md -->\n\n\
         # Layers of every pipeline\n",
    );
    for name in prompt_core::pipeline::pipeline_names() {
        let pipeline = match Pipeline::named(name) {
            Ok(pipeline) => pipeline,
            // The default pipeline need not have layers (the standard ones
            // are include-only): a binary may use declared pipelines only.
            Err(error)
                if name == prompt_core::spec::DEFAULT_PIPELINE
                    && matches!(error.problems.as_slice(), [Problem::Empty { .. }]) =>
            {
                continue;
            }
            Err(error) => return Err(CliError::from_error(error)),
        };
        out.push('\n');
        out.push_str(&pipeline.manifest().replacen("# Pipeline", "## Pipeline", 1));
    }
    Ok(out)
}

fn render(args: RenderArgs) -> Result<(), CliError> {
    let options = OutputOptions {
        trace: args.trace,
        format: args.format,
        check_secrets: args.check_secrets,
        redact: args.redact,
        delivery: &args.delivery,
        model: args.workspace.model.clone(),
    };
    let rendered = assemble(&args.workspace, args.path, args.mode, &args.delivery)?;
    if let Some(note) = args.workspace.unstated_pipeline() {
        eprintln!("prompt: {note}");
    }
    output(&rendered.prompt, rendered.text, &options)
}

/// What `render` (and `exec`, with the same options) assembles: the
/// chosen agent's render, or the standard loading of `--pipeline`, with the
/// budget and counter of `delivery`.
pub(crate) fn assemble(
    workspace: &WorkspaceArgs,
    path: PathArg,
    mode: Option<PromptMode>,
    delivery: &DeliveryArgs,
) -> Result<Rendered, CliError> {
    let chosen = workspace.choose(path.into(), mode, Some(delivery))?;
    chosen.render()
}

/// How `render` prints what it assembled.
struct OutputOptions<'a> {
    trace: bool,
    format: Format,
    check_secrets: bool,
    redact: bool,
    delivery: &'a DeliveryArgs,
    model: Option<String>,
}

/// Prints `text` (the prompt as sent), its JSON or its annotation, and the
/// trace when asked; with `--check-secrets`, refuses (or redacts) a prompt
/// holding credential-shaped strings.
fn output(
    prompt: &prompt_core::AssembledPrompt,
    mut text: String,
    args: &OutputOptions,
) -> Result<(), CliError> {
    if args.trace {
        eprint!("{}", trace_summary(prompt.trace()));
        eprint!(
            "{}",
            formats::trace_lines(prompt, args.format, args.delivery, args.model.as_deref())
        );
    }
    // A request body is built before the check, so the check sees it.
    let body = formats::request(prompt, args.format, args.delivery, args.model.as_deref())?;
    if args.check_secrets {
        if args.redact && !matches!(args.format, Format::Text) {
            return Err(CliError::failed("--redact applies to --format text only"));
        }
        let mut sent = vec![secrets::Sent::Text("the text printed", &text)];
        if let Some(body) = &body {
            sent.push(secrets::Sent::Body(body));
        }
        let verb = if args.redact { "redacted" } else { "secret" };
        let findings = secrets::check(prompt, &sent, verb);
        for found in &findings {
            eprint!("{}", found.lines);
        }
        if !findings.is_empty() && !args.redact {
            return Err(CliError::failed(format!(
                "the prompt holds {} credential-shaped string(s); remove them from the files named by `--trace`, or pass --redact",
                findings.len()
            )));
        }
        text = redact(&text, &scan(&text));
    }
    match args.format {
        Format::Text => print(&(text + "\n")),
        Format::Json => print(&escape::json(prompt).map_err(CliError::from_error)?),
        Format::Annotated => {
            print(&prompt_checks::testing::annotate(prompt).map_err(CliError::from_error)?)
        }
        _ => print(&body.unwrap_or_default()),
    }
}

/// The trace as lines for a person: one per layer, then its notes.
pub(crate) fn trace_summary(trace: &AssemblyTrace) -> String {
    let mut out = format!(
        "{} {} {}: stable {} B (fingerprint {}), dynamic {} B\n",
        escape(trace.pipeline),
        trace.path,
        trace.mode,
        trace.stable_bytes,
        trace.stable_fingerprint().short(),
        trace.dynamic_bytes
    );
    for layer in &trace.layers {
        let state = if layer.silent {
            "silent".to_owned()
        } else {
            format!("{} B", layer.bytes)
        };
        out.push_str(&format!(
            "  {:>5} {:<18} {state}\n",
            layer.priority,
            escape(layer.name)
        ));
        for note in &layer.notes {
            out.push_str(&format!("          - {}\n", escape(note)));
        }
    }
    out
}

/// A warning on stderr, control characters escaped.
pub(crate) fn warn(message: &str) {
    eprintln!("prompt: warning: {}", escape(message));
}

/// Writes to stdout; a closed pipe (`prompt render | head`) is not an error.
pub(crate) fn print(text: &str) -> Result<(), CliError> {
    match std::io::stdout().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::failed(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_multi_line_error_keeps_its_line_breaks_and_escapes_the_rest() {
        let message = "pipeline `x` is invalid:\n  - no layer\x1b]0;t\x07\r";
        assert_eq!(
            escape_lines(message),
            "pipeline `x` is invalid:\n  - no layer\\u{1b}]0;t\\u{7}\\r"
        );
        assert!(!escape_lines("a\nb").contains("\\n"));
    }

    struct Named(&'static str);
    impl Agent for Named {
        fn name(&self) -> &str {
            self.0
        }
        fn pipeline(&self) -> &str {
            STANDARD_PIPELINE
        }
    }
    static ALPHA: &[&dyn Agent] = &[&Named("alpha")];
    static BETA: &[&dyn Agent] = &[&Named("beta")];

    /// The agents an unknown `--agent` is told about: what this call registered.
    fn known_agents(main: Main) -> String {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().to_str().unwrap();
        let args = [
            "prompt",
            "lint",
            "--agent",
            "nope",
            "--workspace",
            workspace,
        ];
        main.try_run(args).unwrap_err().to_string()
    }

    #[test]
    fn each_try_run_sees_its_own_registrations_and_leaves_none_behind() {
        let alpha = known_agents(Main::new().agents(ALPHA));
        assert!(alpha.ends_with("expected one of alpha"), "{alpha}");
        let beta = known_agents(Main::new().agents(BETA));
        assert!(beta.ends_with("expected one of beta"), "{beta}");
        let none = known_agents(Main::new());
        assert!(none.contains("this binary registers no agent"), "{none}");
        // Nothing current between calls either.
        assert!(agents().is_empty());
        assert_eq!(default_pipeline(), None);
        assert!(registered_scenarios(STANDARD_PIPELINE).is_none());
    }

    #[test]
    fn a_call_inside_a_call_gives_the_outer_call_its_registrations_back() {
        let _outer = Registered::enter(Main::new().agents(ALPHA).default_pipeline("outer"));
        let inner = known_agents(Main::new().agents(BETA));
        assert!(inner.ends_with("expected one of beta"), "{inner}");
        assert_eq!(agents().len(), 1);
        assert_eq!(agents()[0].name(), "alpha");
        assert_eq!(default_pipeline(), Some("outer"));
    }
}

/// This package's crates.io README, run as a doctest so it cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
