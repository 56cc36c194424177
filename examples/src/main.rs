//! `prompt`: render the standard pipeline for a workspace, or print its manifest.
//!
//! ```text
//! prompt render [--workspace DIR] [--path cached|basic] [--mode full|compact|minimal] [--format text|json]
//! prompt manifest [--pipeline NAME]
//! ```
//!
//! `RUST_LOG=prompt_core=debug` prints each assembly's trace to stderr.

mod facts;

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use prompt_core::{AssemblyPath, Context, Pipeline, PromptBuilder, PromptMode};
// The standard layers register themselves; naming the crate links them in.
use prompt_layers as _;

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
    let session = Context::new();
    let turn = Context::new().with(facts::gather(&workspace, args.date, args.model));
    let builder = PromptBuilder::new(&pipeline).mode(args.mode);
    let prompt = match args.path {
        PathArg::Cached => builder.build_cached(&session, &turn),
        PathArg::Basic => builder.build_basic(&session, &turn),
    };
    debug_assert_eq!(
        prompt.path(),
        match args.path {
            PathArg::Cached => AssemblyPath::Cached,
            PathArg::Basic => AssemblyPath::Basic,
        }
    );
    match args.format {
        Format::Text => print(&(prompt.text() + "\n")),
        Format::Json => {
            let json = serde_json::to_string_pretty(&prompt).map_err(|e| e.to_string())?;
            print(&(json + "\n"))
        }
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
