//! `prompt`: render the standard pipeline for a workspace, or print its manifest.
//!
//! ```text
//! prompt render [--workspace DIR] [--cwd DIR] [--app NAME] [--path cached|basic]
//!               [--mode full|compact|minimal] [--format text|json] [--trace] ...
//! prompt render --agent recursive|aleph|kitsoki [--workspace DIR] ...
//! prompt manifest [--pipeline NAME | --agent NAME]
//! ```
//!
//! With `--agent`, `render` builds that reference agent over its built-in
//! fixture workspace, or over `--workspace DIR`.
//!
//! `RUST_LOG=prompt_core=debug` prints each assembly's trace to stderr.

mod facts;

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use prompt_core::{AssemblyPath, AssemblyTrace, Context, Pipeline, PromptBuilder, PromptMode};
use prompt_examples::agents::{Agent, RenderRequest};
use prompt_layers::sources::Scratchpad;
use prompt_layers::{SessionConfig, SubAgent, SubAgents, load_session};

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
    /// Render the system prompt for a workspace.
    Render(RenderArgs),
    /// Print a pipeline's manifest: every layer, in order, as a Markdown table.
    Manifest {
        /// The pipeline to describe.
        #[arg(long, default_value = prompt_core::DEFAULT_PIPELINE)]
        pipeline: String,
        /// Describe a reference agent's pipeline instead.
        #[arg(long, value_parser = parse_agent)]
        agent: Option<Agent>,
    },
}

#[derive(clap::Args)]
struct RenderArgs {
    /// Render a reference agent (recursive, aleph, kitsoki) instead of the standard pipeline.
    #[arg(long, value_parser = parse_agent)]
    agent: Option<Agent>,
    /// The workspace the agent works in (default: the current directory, or
    /// the agent's built-in fixture with `--agent`).
    #[arg(long)]
    workspace: Option<PathBuf>,
    /// The working directory, at or below the workspace (default: the workspace).
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// The app name: memory, skills and overrides live in `.<app>` folders.
    #[arg(long, default_value = "agent")]
    app: String,
    /// Also read AGENTS.md / CLAUDE.md in each directory from the workspace down to `--cwd`.
    #[arg(long)]
    nested_docs: bool,
    /// The folder `{% include "@shared/..." %}` reads from.
    #[arg(long)]
    shared: Option<PathBuf>,
    /// A directory searched for `system-prompt.md` (repeatable, in order).
    #[arg(long = "prompt-path")]
    prompt_path: Vec<PathBuf>,
    /// A sub-agent, as `NAME=DESCRIPTION` (repeatable); enables the coordinator layer.
    #[arg(long = "sub-agent", value_parser = parse_sub_agent)]
    sub_agents: Vec<SubAgent>,
    /// Print the assembly trace (layers, bytes, notes) to stderr.
    #[arg(long)]
    trace: bool,
    /// The pipeline to render.
    #[arg(long, default_value = prompt_core::DEFAULT_PIPELINE)]
    pipeline: String,
    /// `cached`: stable prefix + dynamic suffix; `basic`: one flat prompt.
    #[arg(long, value_enum, default_value_t = PathArg::Cached)]
    path: PathArg,
    /// How much the prompt says (default: full; Aleph: its `aleph.toml`).
    #[arg(long)]
    mode: Option<PromptMode>,
    /// `text`: the prompt as sent; `json`: its parts and the assembly trace.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// The date to state, instead of today's (for reproducible output).
    #[arg(long)]
    date: Option<String>,
    /// The model name to state.
    #[arg(long)]
    model: Option<String>,
}

#[derive(Clone, Copy, ValueEnum)]
enum PathArg {
    Cached,
    Basic,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("prompt: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Manifest { pipeline, agent } => {
            let name = match agent {
                Some(agent) => agent.pipeline_name(),
                None => pipeline.as_str(),
            };
            let pipeline = Pipeline::named(name).map_err(|e| e.to_string())?;
            print(&pipeline.manifest())
        }
        Command::Render(args) => render(args),
    }
}

fn render(args: RenderArgs) -> Result<(), String> {
    if let Some(agent) = args.agent {
        return render_agent(agent, args);
    }
    let workspace = match args.workspace {
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
    let pipeline = Pipeline::named(&args.pipeline).map_err(|e| e.to_string())?;

    let mut config = SessionConfig::new(args.app, &workspace);
    config.cwd = args.cwd.unwrap_or_else(|| workspace.clone());
    config.home = std::env::var_os("HOME").map(PathBuf::from);
    config.shared_dir = args.shared;
    config.prompt_search_path = args.prompt_path;
    config.project_docs.nested = args.nested_docs;
    let mut session = load_session(&config);
    if !args.sub_agents.is_empty() {
        session.insert(SubAgents(args.sub_agents));
    }

    let mut turn = Context::new().with(facts::gather(&config.cwd, args.date, args.model));
    match Scratchpad::load(&config.scratchpad_path()) {
        Ok(scratchpad) => {
            turn.insert(scratchpad);
        }
        Err(error) => eprintln!("prompt: warning: {error}; rendering without the scratchpad"),
    }

    let builder = PromptBuilder::new(&pipeline).mode(args.mode.unwrap_or_default());
    let prompt = match args.path {
        PathArg::Cached => builder.build_cached(&session, &turn),
        PathArg::Basic => builder.build_basic(&session, &turn),
    }
    .map_err(|e| e.to_string())?;
    output(&prompt, prompt.text(), args.trace, args.format)
}

/// `render --agent NAME`: the agent over `--workspace` or its built-in fixture.
fn render_agent(agent: Agent, args: RenderArgs) -> Result<(), String> {
    let workspace = args.workspace.clone().unwrap_or_else(|| agent.fixture());
    if !workspace.is_dir() {
        return Err(format!(
            "workspace `{}` is not a directory{}",
            workspace.display(),
            if args.workspace.is_none() {
                " (the built-in fixture lives in the source checkout; pass --workspace DIR)"
            } else {
                ""
            }
        ));
    }
    let request = RenderRequest {
        workspace,
        path: match args.path {
            PathArg::Cached => AssemblyPath::Cached,
            PathArg::Basic => AssemblyPath::Basic,
        },
        mode: args.mode,
        date: args.date,
        model: args.model,
    };
    let rendered = agent.render(&request).map_err(|e| e.to_string())?;
    output(&rendered.prompt, rendered.text, args.trace, args.format)
}

/// Prints `text` (or the prompt as JSON), and the trace when asked.
fn output(
    prompt: &prompt_core::AssembledPrompt,
    text: String,
    trace: bool,
    format: Format,
) -> Result<(), String> {
    if trace {
        eprint!("{}", trace_summary(prompt.trace()));
    }
    match format {
        Format::Text => print(&(text + "\n")),
        Format::Json => {
            let json = serde_json::to_string_pretty(prompt).map_err(|e| e.to_string())?;
            print(&(json + "\n"))
        }
    }
}

fn parse_agent(arg: &str) -> Result<Agent, String> {
    arg.parse()
        .map_err(|e: prompt_examples::agents::AgentError| e.to_string())
}

/// The trace as lines for a person: one per layer, then its notes.
fn trace_summary(trace: &AssemblyTrace) -> String {
    let mut out = format!(
        "{} {} {}: stable {} B (fingerprint {}), dynamic {} B\n",
        trace.pipeline,
        trace.path,
        trace.mode,
        trace.stable_bytes,
        trace.stable_fingerprint.short(),
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
            layer.priority, layer.name
        ));
        for note in &layer.notes {
            out.push_str(&format!("          - {note}\n"));
        }
    }
    out
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

/// Writes to stdout; a closed pipe (`prompt render | head`) is not an error.
fn print(text: &str) -> Result<(), String> {
    match std::io::stdout().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to stdout: {e}"))
        }
        _ => Ok(()),
    }
}
