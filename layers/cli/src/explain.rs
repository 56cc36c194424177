//! `prompt explain LOG`: what the provider's cache served, request by
//! request, and why it missed.
//!
//! LOG is what a [`CacheLedger`](prompt_providers::observe::CacheLedger) writes
//! with `log`: one verdict a line. `--claude TRANSCRIPT` explains a
//! Claude Code session instead, from the transcript Claude Code keeps
//! (`~/.claude/projects/<folder>/<session>.jsonl`), whose entries record
//! each request's system blocks, tools, model and message digests, and each
//! response's usage; with `--turn FILE`, the turn file `prompt exec` wrote
//! for the session, the layers' boundaries come from rendering its options
//! again (see [`claude`]).
//!
//! Both files are whatever the user names: opened without blocking, regular
//! files only, read up to [`MAX_LOG_BYTES`], every text printed escaped (and
//! HTML-escaped in the page `--html` writes). `--claude` does work linear
//! in the transcript's size, a repeated system prompt costing nothing after
//! its first sight; its ceiling in a debug build is in [`claude`]'s docs.

pub(crate) mod claude;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use prompt_providers::anthropic::CacheTtl;
use prompt_providers::cost::usd_per_mtok;
use prompt_providers::observe::{CacheVerdict, Pricing, Summary, read_log};

use super::diff::read_capped_as;
use super::outcome::{CliError, Outcome};
use super::{escape, escape_lines, print, report};

/// The most `prompt explain` reads of one file: 256 MiB (a ledger's line is
/// under 2 KB, so over a hundred thousand requests; a long Claude Code
/// transcript is tens of MB).
pub(crate) const MAX_LOG_BYTES: u64 = 256 * 1024 * 1024;

/// Arguments of `prompt explain`.
#[derive(clap::Args)]
pub(crate) struct ExplainArgs {
    /// The cache ledger's log: one JSON verdict a line, as
    /// `CacheLedger::log` writes it.
    #[arg(required_unless_present = "claude", conflicts_with = "claude")]
    log: Option<PathBuf>,
    /// Explain a Claude Code session from its own transcript (a
    /// `~/.claude/projects/*/*.jsonl` file) instead of a ledger's log.
    #[arg(long, value_name = "TRANSCRIPT")]
    claude: Option<PathBuf>,
    /// With --claude: the turn file `prompt exec` wrote for the session
    /// (`$XDG_CACHE_HOME/prompt/claude/turn-*.json`); its options are
    /// rendered again to name the layer where the prompt changed.
    #[arg(long, value_name = "FILE", requires = "claude")]
    turn: Option<PathBuf>,
    /// Also write a self-contained HTML page: a timeline of reads and
    /// writes per request, each miss marked with its cause.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Price Anthropic requests the log did not price at USD N per million
    /// input tokens (reads 0.1x, writes 1.25x, or 2x for a 1-hour TTL).
    #[arg(long, value_name = "USD")]
    usd_per_mtok: Option<f64>,
    /// Print the verdicts and the summary as JSON instead.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: ExplainArgs) -> Outcome {
    // Resolved before anything can move the current folder.
    let html = args
        .html
        .as_ref()
        .map(|p| {
            std::path::absolute(p).map_err(|e| {
                CliError::failed(format!("cannot resolve {}", p.display())).with_source(e)
            })
        })
        .transpose()?;
    let (mut verdicts, source, notes) = match (&args.log, &args.claude) {
        (Some(log), _) => {
            let text = read_capped_as(
                log,
                MAX_LOG_BYTES,
                "prompt explain",
                "pass the log a CacheLedger wrote (`log`)",
            )
            .map_err(CliError::into_usage)?;
            let verdicts = read_log(&text)
                .map_err(|e| CliError::usage(log.display().to_string()).with_source(e))?;
            (verdicts, log.display().to_string(), Vec::new())
        }
        (None, Some(transcript)) => {
            let explained = claude::explain(transcript, args.turn.as_deref())?;
            (
                explained.verdicts,
                transcript.display().to_string(),
                explained.notes,
            )
        }
        (None, None) => return Err(CliError::usage("give a LOG, or --claude TRANSCRIPT")),
    };
    if let Some(usd) = args.usd_per_mtok {
        let usd = usd_per_mtok(usd).map_err(|e| CliError::from_error(e).into_usage())?;
        price(&mut verdicts, usd);
    }
    let summary = Summary::of(&verdicts);
    if args.json {
        let json = serde_json::json!({"verdicts": verdicts, "summary": summary, "notes": notes});
        print(&super::escape::json(&json).map_err(CliError::from_error)?)?;
    } else {
        print(&text(&verdicts, &summary, &notes))?;
    }
    if let Some(file) = html {
        let page = report::timeline(&report::Timeline {
            source: &source,
            verdicts: &verdicts,
            summary: &summary,
            notes: &notes,
        });
        // A path inside the current folder may not leave it through a symlinked folder.
        let here = std::env::current_dir()
            .map_err(|e| CliError::failed("cannot read the current folder").with_source(e))?;
        report::write_atomically(&here, &file, &page)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Prices the Anthropic and Bedrock verdicts that have no price at `usd` per
/// million, at each model's own cache multipliers (`Multipliers::for_model`,
/// which reads a Bedrock id's Claude family).
fn price(verdicts: &mut [CacheVerdict], usd: f64) {
    for verdict in verdicts
        .iter_mut()
        .filter(|v| v.lost_usd.is_none() && v.provider.caches_at_breakpoints())
    {
        let ttl = if verdict.ttl.as_secs() >= 3600 {
            CacheTtl::OneHour
        } else {
            CacheTtl::FiveMinutes
        };
        if let Ok(pricing) = Pricing::for_model(usd, &verdict.model, ttl) {
            let uncached = verdict.lost_tokens - verdict.lost_written.min(verdict.lost_tokens);
            verdict.lost_usd = Some(pricing.lost_usd(verdict.lost_written, uncached));
        }
    }
}

/// One line per request, then the summary.
pub(crate) fn text(verdicts: &[CacheVerdict], summary: &Summary, notes: &[String]) -> String {
    let mut out = String::new();
    for note in notes {
        let _ = writeln!(out, "note: {}", escape(note));
    }
    for verdict in verdicts {
        let who = if verdict.conversation.is_empty() {
            format!("#{}", verdict.seq)
        } else {
            format!("{}#{}", escape(&verdict.conversation), verdict.seq)
        };
        let _ = writeln!(
            out,
            "{who:<6} {:.0} {:<20} {:>3.0}% read  {}",
            verdict.at,
            escape(&verdict.model),
            verdict.hit_ratio() * 100.0,
            escape(&verdict.to_string()),
        );
        if let Some(
            prompt_providers::observe::Agreement::Differs { theirs, note, .. }
            | prompt_providers::observe::Agreement::OutsideLedger { theirs, note },
        ) = verdict.agreement.as_deref()
        {
            let _ = writeln!(
                out,
                "       provider's diagnosis: {}: {}",
                escape(theirs),
                escape(note)
            );
        }
    }
    if !verdicts.is_empty() {
        out.push('\n');
    }
    out.push_str(&escape_lines(&summary.to_string()));
    out
}
