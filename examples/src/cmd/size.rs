//! `prompt size`: how many bytes each layer adds, per path and mode.

use std::fmt::Write as _;
use std::process::ExitCode;

use prompt_core::contract::{Sizes, measure, measure_tokens};

use super::formats::Tokenizer;

use super::Outcome;
use crate::print;
use crate::workspace::WorkspaceArgs;

/// Arguments of `prompt size`.
#[derive(clap::Args)]
pub(crate) struct SizeArgs {
    #[command(flatten)]
    workspace: WorkspaceArgs,
    /// Print the sizes as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Also count tokens, with this tokenizer (bytes only without it).
    #[arg(long, value_enum)]
    tokenizer: Option<Tokenizer>,
}

/// The widest bar, in characters.
const BAR: usize = 40;

pub(crate) fn run(args: SizeArgs) -> Outcome {
    let (pipeline, paradigms) = args.workspace.paradigms()?;
    let sizes = match args.tokenizer {
        Some(tokenizer) => measure_tokens(&pipeline, &paradigms, &*tokenizer.counter()),
        None => measure(&pipeline, &paradigms),
    };
    let text = if args.json {
        serde_json::to_string_pretty(&sizes).map_err(|e| e.to_string())? + "\n"
    } else {
        table(&sizes)
    };
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// Whether the sizes carry token counts.
fn counted(sizes: &Sizes) -> bool {
    sizes.assemblies.iter().any(|a| a.tokens.is_some())
}

/// One block per path and mode: each layer's worst bytes with a bar scaled to
/// the largest layer, then the totals.
pub(crate) fn table(sizes: &Sizes) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "pipeline `{}`, worst case over paradigm{} {} ({})",
        sizes.pipeline,
        if sizes.paradigms.len() == 1 { "" } else { "s" },
        sizes
            .paradigms
            .iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", "),
        if counted(sizes) {
            "bytes and tokens"
        } else {
            "bytes; --tokenizer adds tokens"
        }
    );
    let largest = sizes
        .assemblies
        .iter()
        .flat_map(|a| &a.layers)
        .map(|l| l.bytes)
        .max()
        .unwrap_or(0)
        .max(1);
    let name_width = sizes
        .assemblies
        .iter()
        .flat_map(|a| &a.layers)
        .map(|l| l.name.len())
        .max()
        .unwrap_or(0);
    for assembly in &sizes.assemblies {
        let _ = write!(
            out,
            "\n{}/{}: stable {} B + dynamic {} B = {} B",
            assembly.path,
            assembly.mode,
            assembly.stable_bytes,
            assembly.dynamic_bytes,
            assembly.stable_bytes + assembly.dynamic_bytes
        );
        match assembly.tokens {
            Some(tokens) => {
                let _ = writeln!(out, " ({tokens} tokens)");
            }
            None => out.push('\n'),
        }
        for layer in &assembly.layers {
            let bar = "█".repeat((layer.bytes * BAR).div_ceil(largest));
            let tokens = layer
                .tokens
                .map_or(String::new(), |t| format!("  {t:>5} tok"));
            let line = format!(
                "  {:<name_width$}  {:<7}  {:<7}  {:>6} B{tokens}  {bar}",
                layer.name,
                layer.stability.as_str(),
                layer.scope.map_or("", |s| s.as_str()),
                layer.bytes,
            );
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    out
}
