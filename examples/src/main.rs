//! `prompt`: render the standard pipeline for a workspace, or print its manifest.
//!
//! ```text
//! prompt render [--workspace DIR] [--cwd DIR] [--app NAME] [--path cached|basic]
//!               [--mode full|compact|minimal] [--format text|json] [--trace]
//!               [--check-secrets [--redact]] ...
//! prompt manifest [--pipeline NAME]
//! ```
//!
//! `RUST_LOG=prompt_core=debug` prints each assembly's trace to stderr.
//!
//! Everything printed about files (trace notes, warnings, errors) has its
//! control characters escaped: a file name or note cannot drive the terminal.

mod facts;

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use prompt_core::secrets::{redact, scan, scan_prompt};
use prompt_core::{AssemblyTrace, Context, Pipeline, PromptBuilder, PromptMode};
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
    },
}

#[derive(clap::Args)]
struct RenderArgs {
    /// The workspace the agent works in (default: the current directory).
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
    /// How much the prompt says.
    #[arg(long, default_value = "full")]
    mode: PromptMode,
    /// `text`: the prompt as sent; `json`: its parts and the assembly trace.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// The date to state, instead of today's (for reproducible output).
    #[arg(long)]
    date: Option<String>,
    /// The model name to state.
    #[arg(long)]
    model: Option<String>,
    /// Scan the prompt for credential-shaped strings (API keys, private keys,
    /// secret assignments); if any, name each (layer, byte range) on stderr and
    /// exit 1 without printing the prompt.
    #[arg(long)]
    check_secrets: bool,
    /// With `--check-secrets`: print the prompt with each finding replaced by
    /// `[REDACTED <kind>]` instead of failing.
    #[arg(long, requires = "check_secrets")]
    redact: bool,
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
            eprintln!("prompt: {}", escape(&message));
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Manifest { pipeline } => {
            let pipeline = Pipeline::named(&pipeline).map_err(|e| e.to_string())?;
            print(&pipeline.manifest())
        }
        Command::Render(args) => render(args),
    }
}

fn render(args: RenderArgs) -> Result<(), String> {
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
    let mut session = load_session(&config).map_err(|e| e.to_string())?;
    if !args.sub_agents.is_empty() {
        session.insert(SubAgents(args.sub_agents));
    }

    let (facts, warning) = facts::gather(&config, args.date, args.model);
    if let Some(warning) = warning {
        warn(&warning);
    }
    let mut turn = Context::new().with(facts);
    match config.load_scratchpad() {
        Ok(scratchpad) => {
            turn.insert(scratchpad);
        }
        Err(error) => warn(&format!("{error}; rendering without the scratchpad")),
    }

    let builder = PromptBuilder::new(&pipeline).mode(args.mode);
    let prompt = match args.path {
        PathArg::Cached => builder.build_cached(&session, &turn),
        PathArg::Basic => builder.build_basic(&session, &turn),
    };
    if args.trace {
        eprint!("{}", trace_summary(prompt.trace()));
    }
    let mut text = prompt.text();
    if args.check_secrets {
        let findings = scan_prompt(&prompt);
        for found in &findings {
            eprintln!(
                "prompt: {}: {} at bytes {}..{} of the prompt",
                if args.redact { "redacted" } else { "secret" },
                found.finding.kind,
                found.finding.range.start,
                found.finding.range.end,
            );
            eprintln!(
                "          in layer {}",
                found.layer.unwrap_or("(between layers)")
            );
        }
        if !findings.is_empty() && !args.redact {
            return Err(format!(
                "the prompt holds {} credential-shaped string(s); remove them from the files named by `--trace`, or pass --redact",
                findings.len()
            ));
        }
        text = redact(&text, &scan(&text));
    }
    match args.format {
        Format::Text => print(&(text + "\n")),
        Format::Json => {
            let json = serde_json::to_string_pretty(&prompt).map_err(|e| e.to_string())?;
            print(&(json + "\n"))
        }
    }
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
            out.push_str(&format!("          - {}\n", escape(note)));
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

/// A warning on stderr, control characters escaped.
fn warn(message: &str) {
    eprintln!("prompt: warning: {}", escape(message));
}

/// `text` with every control character written as an escape (`\u{1b}`), so
/// nothing printed about a file can drive the terminal (OSC 52, title, clear).
fn escape(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
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
