//! `prompt size`: how many bytes each layer adds, per path and mode.

use crate::cli::CliError;
use std::fmt::Write as _;
use std::process::ExitCode;

use prompt_checks::contract::{AssemblySize, Sizes, measure, measure_tokens};
use prompt_core::{AssemblyPath, Stability};

use std::path::PathBuf;

use super::cache::simulate;
use super::formats::Tokenizer;
use super::report;

use super::outcome::Outcome;
use super::print;
use super::workspace::WorkspaceArgs;

/// Arguments of `prompt size`.
#[derive(clap::Args)]
pub(crate) struct SizeArgs {
    #[command(flatten)]
    workspace: WorkspaceArgs,
    /// Print the sizes as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Also count tokens, with this tokenizer (bytes only without it; the
    /// HTML report counts with approx by default).
    #[arg(long, value_parser = Tokenizer::parser())]
    tokenizer: Option<Tokenizer>,
    /// Also write a self-contained HTML report to FILE: per path and mode
    /// each layer's bytes and tokens as bars, its scope, every cache
    /// breakpoint the Anthropic request carries, the
    /// silent layers and why, and the `prompt cache` simulation as a chart.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// With --html: how many calls the cache chart simulates (as `prompt cache --turns`).
    #[arg(long, value_name = "N", default_value_t = 10, requires = "html",
          value_parser = clap::value_parser!(u16).range(1..=10_000))]
    turns: u16,
}

/// The widest bar, in characters.
const BAR: usize = 40;

pub(crate) fn run(args: SizeArgs) -> Outcome {
    let (pipeline, scenarios) = args.workspace.scenarios()?;
    let tokenizer = match (args.tokenizer, &args.html) {
        (Some(tokenizer), _) => Some(tokenizer),
        (None, Some(_)) => Some(Tokenizer::Approx),
        (None, None) => None,
    };
    let sizes = match tokenizer {
        Some(tokenizer) => measure_tokens(&pipeline, &scenarios, &*tokenizer.counter()),
        None => measure(&pipeline, &scenarios),
    };
    if let Some(file) = &args.html {
        let counter = tokenizer.unwrap_or(Tokenizer::Approx).counter();
        let simulated = simulate(
            &args.workspace,
            usize::from(args.turns),
            None,
            None,
            &*counter,
        );
        let (cache, cache_note) = match &simulated {
            Ok(simulated) => (Some(&simulated.report), None),
            Err(failure) => (None, Some(failure.report())),
        };
        let page = report::render(&report::Report {
            sizes: &sizes,
            silences: report::silences(&pipeline, &scenarios, &sizes),
            tokenizer: counter.name(),
            cache,
            cache_note,
        });
        report::write_atomically(&args.workspace.workspace_dir()?, file, &page)?;
    }
    let text = if args.json {
        super::escape::json(&sizes).map_err(CliError::from_error)?
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
        "pipeline `{}`, worst case over scenario{} {} ({})",
        sizes.pipeline,
        if sizes.scenarios.len() == 1 { "" } else { "s" },
        sizes
            .scenarios
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
        let breaks = breakpoints(assembly);
        for (i, layer) in assembly.layers.iter().enumerate() {
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
            if let Some(what) = breaks.iter().find(|(at, _)| *at == i).map(|(_, w)| w) {
                let _ = writeln!(out, "  ── {what} ──");
            }
        }
    }
    out
}

/// Where the Anthropic request built from this assembly may carry a
/// `cache_control` breakpoint: always at the end of the stable prefix, and at
/// a scope boundary (after the last speaking Stable layer of a run of one
/// scope) when the prefix up to it reaches the model's cache minimum (one
/// such, the end of the Project part first: `providers::anthropic::scope_cuts`,
/// which `render --format anthropic` applies for its `--model`). Each is the
/// layer's index and what the marker says. None on the Basic path, which
/// caches nothing.
pub(crate) fn breakpoints(assembly: &AssemblySize) -> Vec<(usize, String)> {
    if assembly.path != AssemblyPath::Cached {
        return Vec::new();
    }
    let speaking: Vec<usize> = (0..assembly.layers.len())
        .filter(|&i| {
            let layer = &assembly.layers[i];
            layer.stability == Stability::Stable && layer.bytes > 0
        })
        .collect();
    let mut out = Vec::new();
    for (k, &i) in speaking.iter().enumerate() {
        let scope = assembly.layers[i].scope;
        match speaking.get(k + 1) {
            Some(&next) if assembly.layers[next].scope == scope => {}
            Some(_) => out.push((
                i,
                format!(
                    "scope boundary: the {} part ends here (a cache breakpoint once the prefix so far reaches the model's minimum)",
                    scope.map_or("unscoped", |s| s.as_str())
                ),
            )),
            None => out.push((
                i,
                format!(
                    "cache breakpoint: the stable prefix ends here ({} B)",
                    assembly.stable_bytes
                ),
            )),
        }
    }
    out
}
