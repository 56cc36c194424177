//! `prompt size --html FILE`: one self-contained HTML page a person looks at.
//!
//! Per path and mode, each layer's bytes and tokens as bars, each Stable
//! layer's scope, the cache breakpoint closing the stable prefix and each
//! scope boundary where the Anthropic request may add one (Cached path),
//! which layers were
//! silent and why (the layer's own notes from a render, and what its
//! `silent` key says wakes it), and the `prompt cache` simulation as a chart
//! of cumulative cost with and without caching.
//!
//! The page loads nothing: inline CSS and SVG, no script, and a
//! Content-Security-Policy that forbids scripts and every fetch, so even a
//! text that escaped escaping could not run or call out. Every text from
//! the pipeline or its files (layer names, notes, scenario names) is
//! HTML-escaped, and control characters are written as escapes. Every number
//! is also in a `data-*` attribute, equal to `prompt size --json`'s.
//!
//! The file is written atomically: to a temporary file beside it, synced,
//! then renamed over it, so a reader sees the old page or the new one,
//! never half of one.

use crate::cli::CliError;
use std::fmt::Write as _;
use std::path::Path;

use prompt_checks::contract::{Scenario, Sizes};
use prompt_checks::write::{Access, replace_file_in};
use prompt_core::{AssemblyPath, Pipeline, PromptBuilder};
use prompt_providers::observe::{CacheVerdict, Summary};
use prompt_providers::simulation::CacheReport;

/// Why a layer was silent on one path and mode.
pub(crate) struct Silence {
    /// The layer.
    pub(crate) name: String,
    /// Its notes from the first scenario's render (why it said nothing).
    pub(crate) notes: Vec<String>,
    /// What its `silent` key says wakes it, if declared.
    pub(crate) wakes: Option<&'static str>,
}

/// Everything the page shows.
pub(crate) struct Report<'a> {
    pub(crate) sizes: &'a Sizes,
    /// Per assembly of `sizes` (same order), the silent layers.
    pub(crate) silences: Vec<Vec<Silence>>,
    pub(crate) tokenizer: &'static str,
    pub(crate) cache: Option<&'a CacheReport>,
    /// Why there is no cache chart, when there is none.
    pub(crate) cache_note: Option<String>,
}

/// The silent layers of each assembly of `sizes`: a layer that wrote nothing
/// in any scenario, with its notes from the first scenario's first turn.
pub(crate) fn silences(
    pipeline: &Pipeline,
    scenarios: &[Scenario],
    sizes: &Sizes,
) -> Vec<Vec<Silence>> {
    sizes
        .assemblies
        .iter()
        .map(|assembly| {
            let trace = scenarios.first().and_then(|scenario| {
                let empty = prompt_core::TurnContext::new();
                let turn = scenario.turns().first().unwrap_or(&empty);
                let builder = PromptBuilder::new(pipeline).mode(assembly.mode);
                let built = match assembly.path {
                    AssemblyPath::Cached => builder.build_cached(scenario.session(), turn),
                    AssemblyPath::Basic => builder.build_basic(scenario.session(), turn),
                };
                built.ok()
            });
            assembly
                .layers
                .iter()
                .filter(|l| l.bytes == 0)
                .map(|layer| Silence {
                    name: layer.name.clone(),
                    notes: trace
                        .as_ref()
                        .and_then(|p| p.trace().layers.iter().find(|t| t.name == layer.name))
                        .map(|t| t.notes.iter().map(ToString::to_string).collect())
                        .unwrap_or_default(),
                    wakes: pipeline.layer(&layer.name).and_then(|spec| spec.silent),
                })
                .collect()
        })
        .collect()
}

pub(crate) use super::escape::html;

const STYLE: &str = "
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d2330;background:#fff;max-width:1100px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 6px}
.meta{color:#5b6472;margin:0 0 12px}
table{border-collapse:collapse;width:100%}
td,th{padding:2px 8px;text-align:left;vertical-align:middle;white-space:nowrap}
th{font-weight:600;color:#5b6472;border-bottom:1px solid #d6dbe3}
td.num{text-align:right;font-variant-numeric:tabular-nums}
td.bars{width:55%}
.bar{height:8px;border-radius:2px;margin:1px 0}
.bytes.stable{background:#2f6fde}.bytes.dynamic{background:#e08a1e}
.tokens{background:#9aa4b5;height:4px}
tr.silent td{color:#9aa4b5}
tr.breakpoint td{border-top:2px dashed #c0392b;color:#c0392b;font-size:12px;padding-top:0}
ul.silences{margin:6px 0 0;padding-left:18px;color:#5b6472}
ul.silences li{margin:2px 0}
.key{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 4px 0 12px}
svg text{font:12px system-ui,sans-serif;fill:#5b6472}
";

/// The whole page.
pub(crate) fn render(report: &Report<'_>) -> String {
    let sizes = report.sizes;
    let mut out = String::new();
    let title = format!("Prompt size: pipeline {}", sizes.pipeline);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>{}</title><style>{STYLE}</style></head>\n\
         <body data-pipeline=\"{}\" data-tokenizer=\"{}\">\n<h1>{}</h1>\n\
         <p class=\"meta\">Worst case over scenario{} {}; tokens counted with {}. \
         Blue: Stable layers (the cached prefix); orange: Dynamic. The thin grey bar is tokens.</p>\n",
        html(&title),
        html(&sizes.pipeline),
        report.tokenizer,
        html(&title),
        if sizes.scenarios.len() == 1 { "" } else { "s" },
        sizes
            .scenarios
            .iter()
            .map(|p| html(p))
            .collect::<Vec<_>>()
            .join(", "),
        report.tokenizer,
    );
    match report.cache {
        Some(cache) => cache_chart(&mut out, cache),
        None => {
            let _ = writeln!(
                out,
                "<section class=\"cache\" data-missing=\"true\"><h2>Cache</h2><p>{}</p></section>",
                html(report.cache_note.as_deref().unwrap_or("no simulation"))
            );
        }
    }
    let largest_bytes = sizes
        .assemblies
        .iter()
        .flat_map(|a| &a.layers)
        .map(|l| l.bytes)
        .max()
        .unwrap_or(0)
        .max(1);
    let largest_tokens = sizes
        .assemblies
        .iter()
        .flat_map(|a| &a.layers)
        .filter_map(|l| l.tokens)
        .max()
        .unwrap_or(0)
        .max(1);
    // The Cached path first: its prefix is what the provider caches.
    let mut order: Vec<usize> = (0..sizes.assemblies.len()).collect();
    order.sort_by_key(|&i| sizes.assemblies[i].path != AssemblyPath::Cached);
    for index in order {
        let assembly = &sizes.assemblies[index];
        let _ = write!(
            out,
            "<section class=\"assembly\" data-path=\"{path}\" data-mode=\"{mode}\" \
             data-stable-bytes=\"{sb}\" data-dynamic-bytes=\"{db}\"{tokens_attr}>\n\
             <h2>{path} / {mode}: stable {sb} B + dynamic {db} B = {total} B{tokens_text}</h2>\n\
             <table><thead><tr><th>layer</th><th>priority</th><th>stability</th><th>bytes</th>\
             <th>tokens</th><th>bytes / tokens</th></tr></thead><tbody>\n",
            path = assembly.path,
            mode = assembly.mode,
            sb = assembly.stable_bytes,
            db = assembly.dynamic_bytes,
            total = assembly.stable_bytes + assembly.dynamic_bytes,
            tokens_attr = assembly
                .tokens
                .map_or(String::new(), |t| format!(" data-tokens=\"{t}\"")),
            tokens_text = assembly
                .tokens
                .map_or(String::new(), |t| format!(" ({t} tokens)")),
        );
        let breaks = super::size::breakpoints(assembly);
        for (i, layer) in assembly.layers.iter().enumerate() {
            let stability = layer.stability.as_str();
            let silent = layer.bytes == 0;
            let tokens = layer.tokens.map_or(String::new(), |t| t.to_string());
            let scope = layer.scope.map_or("", |s| s.as_str());
            let shown = if scope.is_empty() {
                stability.to_owned()
            } else {
                format!("{stability} · {scope}")
            };
            let _ = write!(
                out,
                "<tr class=\"layer{}\" data-name=\"{name}\" data-priority=\"{}\" data-stability=\"{stability}\" \
                 data-scope=\"{scope}\" data-bytes=\"{}\" data-tokens=\"{tokens}\" data-silent=\"{silent}\">\
                 <td>{name}</td><td class=\"num\">{}</td><td>{shown}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{tokens}</td><td class=\"bars\">\
                 <div class=\"bar bytes {stability}\" style=\"width:{:.2}%\"></div>",
                if silent { " silent" } else { "" },
                layer.priority,
                layer.bytes,
                layer.priority,
                layer.bytes,
                percent(layer.bytes, largest_bytes),
                name = html(&layer.name),
            );
            if let Some(t) = layer.tokens {
                let _ = write!(
                    out,
                    "<div class=\"bar tokens\" style=\"width:{:.2}%\"></div>",
                    percent(t, largest_tokens)
                );
            }
            out.push_str("</td></tr>\n");
            if let Some(what) = breaks.iter().find(|(at, _)| *at == i).map(|(_, w)| w) {
                let _ = writeln!(
                    out,
                    "<tr class=\"breakpoint\" data-after=\"{}\"><td colspan=\"6\">{}</td></tr>",
                    html(&layer.name),
                    html(what)
                );
            }
        }
        out.push_str("</tbody></table>\n");
        let silences = report.silences.get(index).map_or(&[][..], Vec::as_slice);
        if !silences.is_empty() {
            out.push_str("<ul class=\"silences\">\n");
            for silence in silences {
                let mut why: Vec<String> = silence.notes.iter().map(|n| html(n)).collect();
                if let Some(wakes) = silence.wakes {
                    why.push(format!("speaks when {}", html(wakes)));
                }
                if why.is_empty() {
                    why.push("wrote nothing in every scenario".to_owned());
                }
                let _ = writeln!(
                    out,
                    "<li class=\"silent\" data-name=\"{name}\"><b>{name}</b> was silent: {}</li>",
                    why.join("; "),
                    name = html(&silence.name)
                );
            }
            out.push_str("</ul>\n");
        }
        out.push_str("</section>\n");
    }
    out.push_str("</body></html>\n");
    out
}

fn percent(part: usize, whole: usize) -> f64 {
    part as f64 * 100.0 / whole as f64
}

/// The simulation as an SVG chart of cumulative cost, with and without the
/// cache, and a table of the turns.
fn cache_chart(out: &mut String, cache: &CacheReport) {
    let mut with = Vec::with_capacity(cache.turns.len());
    let mut without = Vec::with_capacity(cache.turns.len());
    let (mut sum_with, mut sum_without) = (0.0f64, 0.0f64);
    for turn in &cache.turns {
        sum_with += turn.cost;
        sum_without += (turn.cache_write + turn.cache_read + turn.uncached) as f64;
        with.push(sum_with);
        without.push(sum_without);
    }
    let top = sum_without.max(sum_with).max(1.0);
    let (width, height, left, bottom, pad) = (640.0, 240.0, 56.0, 24.0, 8.0);
    let turns = cache.turns.len().max(1);
    let x = |i: usize| {
        if turns == 1 {
            left + (width - left - pad) / 2.0
        } else {
            left + (width - left - pad) * i as f64 / (turns - 1) as f64
        }
    };
    let y = |v: f64| pad + (height - bottom - pad) * (1.0 - v / top);
    let points = |series: &[f64]| {
        series
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{:.1},{:.1}", x(i), y(*v)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = write!(
        out,
        "<section class=\"cache\" data-model=\"{model}\" data-ttl=\"{ttl}\" data-turns=\"{turns}\" \
         data-cached=\"{cached}\" data-stable-tokens=\"{stable}\" data-minimum-tokens=\"{minimum}\" \
         data-total-cost=\"{total:.2}\" data-uncached-cost=\"{uncached}\">\n\
         <h2>Cache: {turns} turn{s} on {model}, TTL {ttl}</h2>\n<p class=\"meta\">Cumulative cost in \
         input-token equivalents (tokens x price multiplier). Stable prefix {stable} tokens, minimum \
         cacheable {minimum}{below}. With the cache: {total:.2}; without: {uncached} ({rel:.1}%).\
         <span class=\"key\" style=\"background:#2f6fde\"></span>with cache\
         <span class=\"key\" style=\"background:#c0392b\"></span>without</p>\n\
         <svg class=\"cache-chart\" role=\"img\" aria-label=\"cumulative cost per turn\" \
         width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\">\
         <line x1=\"{left}\" y1=\"{base:.1}\" x2=\"{right:.1}\" y2=\"{base:.1}\" stroke=\"#d6dbe3\"/>\
         <line x1=\"{left}\" y1=\"{pad}\" x2=\"{left}\" y2=\"{base:.1}\" stroke=\"#d6dbe3\"/>\
         <text x=\"{label_x:.1}\" y=\"{top_y:.1}\" text-anchor=\"end\">{top:.0}</text>\
         <text x=\"{label_x:.1}\" y=\"{base:.1}\" text-anchor=\"end\">0</text>\
         <text x=\"{left}\" y=\"{height}\" dy=\"-4\">turn 1</text>\
         <text x=\"{right:.1}\" y=\"{height}\" dy=\"-4\" text-anchor=\"end\">turn {turns}</text>\
         <polyline class=\"series\" data-series=\"without-cache\" data-total=\"{sum_without:.2}\" \
         fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\" points=\"{without_points}\"/>\
         <polyline class=\"series\" data-series=\"with-cache\" data-total=\"{sum_with:.2}\" \
         fill=\"none\" stroke=\"#2f6fde\" stroke-width=\"2\" points=\"{with_points}\"/></svg>\n\
         <details><summary>Each turn</summary>\
         <table><thead><tr><th>turn</th><th>cache write</th><th>cache read</th><th>uncached</th>\
         <th>cost (tok-eq)</th><th>cumulative with cache</th><th>cumulative without</th></tr></thead><tbody>\n",
        model = html(&cache.model),
        ttl = cache.ttl,
        turns = cache.turns.len(),
        s = if cache.turns.len() == 1 { "" } else { "s" },
        cached = cache.cached,
        stable = cache.stable_tokens,
        minimum = cache.minimum_tokens,
        below = if cache.cached {
            ""
        } else {
            ": below it, nothing is cached"
        },
        total = cache.total.cost,
        uncached = cache.uncached_cost,
        rel = cache.relative_cost * 100.0,
        base = height - bottom,
        right = width - pad,
        label_x = left - 6.0,
        top_y = pad + 10.0,
        without_points = points(&without),
        with_points = points(&with),
    );
    for (i, turn) in cache.turns.iter().enumerate() {
        let _ = writeln!(
            out,
            "<tr class=\"turn\" data-turn=\"{}\" data-cost=\"{:.2}\"><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{:.2}</td><td class=\"num\">{:.2}</td><td class=\"num\">{:.0}</td></tr>",
            turn.turn,
            turn.cost,
            turn.turn,
            turn.cache_write,
            turn.cache_read,
            turn.uncached,
            turn.cost,
            with[i],
            without[i]
        );
    }
    out.push_str("</tbody></table></details>\n</section>\n");
}

/// What the `prompt explain --html` page shows.
pub(crate) struct Timeline<'a> {
    /// The log or transcript read, as named.
    pub(crate) source: &'a str,
    pub(crate) verdicts: &'a [CacheVerdict],
    pub(crate) summary: &'a Summary,
    /// What the reader noticed (skipped lines, requests without a response).
    pub(crate) notes: &'a [String],
}

const TIMELINE_STYLE: &str = "
.read{fill:#2f6fde}.written{fill:#e08a1e}.uncached{fill:#9aa4b5}
.miss-mark{fill:#c0392b}
text.cause{font:11px system-ui,sans-serif;fill:#c0392b}
tr.miss td{color:#8a2a1f}
td.verdict{white-space:normal;max-width:520px}
";

/// The `prompt explain --html` page: a timeline of each request's reads,
/// writes and uncached input, each miss marked with its cause; then every
/// request's verdict and the summary. Loads nothing, runs nothing, as
/// [`render`]'s page; every text from the log is HTML-escaped.
pub(crate) fn timeline(page: &Timeline<'_>) -> String {
    let mut out = String::new();
    let summary = page.summary;
    let title = format!("Prompt cache: {}", page.source);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>{}</title><style>{STYLE}{TIMELINE_STYLE}</style></head>\n\
         <body data-requests=\"{}\" data-hits=\"{}\" data-hit-rate=\"{:.4}\">\n<h1>{}</h1>\n\
         <p class=\"meta\">{} request(s), {} hit(s); {:.1}% of input tokens read from the cache. \
         <span class=\"key read-key\" style=\"background:#2f6fde\"></span>read\
         <span class=\"key\" style=\"background:#e08a1e\"></span>written\
         <span class=\"key\" style=\"background:#9aa4b5\"></span>uncached\
         <span class=\"key\" style=\"background:#c0392b\"></span>miss, with its cause</p>\n",
        html(&title),
        summary.requests,
        summary.hits,
        summary.hit_rate(),
        html(&title),
        summary.requests,
        summary.hits,
        summary.hit_rate() * 100.0,
    );
    for note in page.notes {
        let _ = writeln!(out, "<p class=\"meta note\">{}</p>", html(note));
    }
    timeline_chart(&mut out, page.verdicts);
    let _ = write!(
        out,
        "<h2>Requests</h2>\n<table class=\"requests\"><thead><tr><th>#</th><th>sent</th>\
         <th>model</th><th>read</th><th>written</th><th>uncached</th><th>read %</th>\
         <th>verdict</th></tr></thead><tbody>\n"
    );
    for verdict in page.verdicts {
        let who = if verdict.conversation.is_empty() {
            verdict.seq.to_string()
        } else {
            format!("{}#{}", verdict.conversation, verdict.seq)
        };
        let cause = verdict.cause.as_ref().map_or("", |c| c.name());
        let _ = writeln!(
            out,
            "<tr class=\"request{}\" data-seq=\"{}\" data-cause=\"{cause}\"><td>{}</td><td>{:.0}</td>\
             <td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{:.0}%</td><td class=\"verdict\">{}</td></tr>",
            match (&verdict.cause, verdict.prewarm) {
                (Some(_), _) => " miss",
                (None, true) => " prewarm",
                (None, false) => "",
            },
            verdict.seq,
            html(&who),
            verdict.at,
            html(&verdict.model),
            verdict.read,
            verdict.written,
            verdict.uncached,
            verdict.hit_ratio() * 100.0,
            html(&verdict.to_string()),
        );
    }
    out.push_str("</tbody></table>\n");
    if !summary.causes.is_empty() {
        out.push_str(
            "<h2>Lost, by cause</h2>\n<table class=\"causes\"><thead><tr><th>cause</th>\
             <th>misses</th><th>tokens</th><th>USD</th></tr></thead><tbody>\n",
        );
        let mut causes: Vec<_> = summary.causes.iter().collect();
        causes.sort_by(|a, b| b.1.tokens.cmp(&a.1.tokens).then(a.0.cmp(b.0)));
        for (cause, lost) in causes {
            let _ = writeln!(
                out,
                "<tr class=\"cause\" data-cause=\"{cause}\" data-tokens=\"{}\"><td>{cause}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.4}</td></tr>",
                lost.tokens, lost.misses, lost.tokens, lost.usd
            );
        }
        out.push_str("</tbody></table>\n");
    }
    let worst = summary.worst_layers();
    if !worst.is_empty() {
        out.push_str(
            "<h2>Worst layers</h2>\n<table class=\"layers\"><thead><tr><th>layer</th>\
             <th>changes</th><th>tokens</th><th>USD</th></tr></thead><tbody>\n",
        );
        for (layer, lost) in worst {
            let _ = writeln!(
                out,
                "<tr class=\"worst\" data-layer=\"{name}\" data-tokens=\"{}\"><td>{name}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.4}</td></tr>",
                lost.tokens,
                lost.misses,
                lost.tokens,
                lost.usd,
                name = html(layer),
            );
        }
        out.push_str("</tbody></table>\n");
    }
    out.push_str("</body></html>\n");
    out
}

/// One stacked bar per request (read, written, uncached input), each miss
/// marked above its bar with its cause.
fn timeline_chart(out: &mut String, verdicts: &[CacheVerdict]) {
    let (height, bottom, top, left, pad) = (320.0, 24.0, 120.0, 56.0, 8.0);
    // Up to ~1,000 px of bars; a long log gets thin bars, marked without labels.
    let slot = (1000.0 / verdicts.len().max(1) as f64).clamp(3.0, 28.0);
    let labelled = slot >= 12.0;
    let width = (left + pad + slot * verdicts.len().max(1) as f64).max(320.0);
    let largest = verdicts
        .iter()
        .map(CacheVerdict::input_tokens)
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let scale = |tokens: u64| (height - bottom - top) * tokens as f64 / largest;
    let base = height - bottom;
    let _ = write!(
        out,
        "<svg class=\"timeline\" role=\"img\" aria-label=\"cache reads and writes per request\" \
         width=\"{width:.0}\" height=\"{height}\" viewBox=\"0 0 {width:.0} {height}\" \
         xmlns=\"http://www.w3.org/2000/svg\">\
         <line x1=\"{left}\" y1=\"{base}\" x2=\"{right:.0}\" y2=\"{base}\" stroke=\"#d6dbe3\"/>\
         <text x=\"{label:.0}\" y=\"{top}\" text-anchor=\"end\">{largest:.0}</text>\
         <text x=\"{label:.0}\" y=\"{base}\" text-anchor=\"end\">0</text>",
        right = width - pad,
        label = left - 6.0,
    );
    for (i, verdict) in verdicts.iter().enumerate() {
        let x = left + slot * i as f64 + slot / 7.0;
        let bar = slot * 5.0 / 7.0;
        let cause = verdict.cause.as_ref().map_or("", |c| c.name());
        let _ = write!(
            out,
            "<g class=\"request\" data-seq=\"{}\" data-read=\"{}\" data-written=\"{}\" \
             data-uncached=\"{}\" data-cause=\"{cause}\"><title>{}</title>",
            verdict.seq,
            verdict.read,
            verdict.written,
            verdict.uncached,
            html(&format!("#{}: {verdict}", verdict.seq)),
        );
        let mut y = base;
        for (class, tokens) in [
            ("read", verdict.read),
            ("written", verdict.written),
            ("uncached", verdict.uncached),
        ] {
            let h = scale(tokens);
            if h > 0.0 {
                y -= h;
                let _ = write!(
                    out,
                    "<rect class=\"{class}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bar:.1}\" height=\"{h:.1}\"/>"
                );
            }
        }
        if !cause.is_empty() {
            let mid = x + bar / 2.0;
            let tip = y - 4.0;
            let half = (bar / 2.0).min(5.0);
            let _ = write!(
                out,
                "<path class=\"miss-mark\" d=\"M{:.1} {:.1} L{:.1} {:.1} L{mid:.1} {tip:.1} Z\"/>",
                mid - half,
                tip - 8.0,
                mid + half,
                tip - 8.0,
            );
            if labelled {
                let _ = write!(
                    out,
                    "<text class=\"cause\" transform=\"translate({mid:.1} {:.1}) rotate(-60)\">{cause}</text>",
                    tip - 12.0,
                );
            }
        }
        if labelled {
            let _ = write!(
                out,
                "<text x=\"{:.1}\" y=\"{height}\" dy=\"-6\" text-anchor=\"middle\">{}</text>",
                x + bar / 2.0,
                verdict.seq
            );
        }
        out.push_str("</g>");
    }
    out.push_str("</svg>\n");
}

/// Writes `contents` to `path` through [`replace_file_in`]: atomically (a
/// temporary file beside it, synced, renamed over it; on failure `path` is
/// untouched and no temporary is left), never over a target that is not a
/// regular file (a device, a FIFO, a socket, a folder, a link), and, for a
/// path inside `workspace`, never through a folder of it that is a symlink
/// out of it.
pub(crate) fn write_atomically(
    workspace: &Path,
    path: &Path,
    contents: &str,
) -> Result<(), CliError> {
    let shown = super::escape(&path.display().to_string());
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() && !parent.is_dir() => {
            return Err(CliError::failed(format!(
                "cannot write `{shown}`: its folder does not exist; create it first"
            )));
        }
        _ => {}
    }
    replace_file_in(
        workspace,
        "the workspace",
        path,
        contents.as_bytes(),
        Access::Default,
    )
    .map_err(CliError::from_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escapes_markup_quotes_and_controls() {
        assert_eq!(
            html("<img src=x onerror=\"a('b')\"> & \x1b[2J\u{202e}"),
            "&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt; &amp; \\u{1b}[2J\\u{202e}"
        );
    }

    #[test]
    fn a_write_replaces_the_file_whole_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.html");
        std::fs::write(&path, "old").unwrap();
        write_atomically(dir.path(), &path, "new page").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new page");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["report.html"]);
    }

    #[test]
    fn a_write_that_cannot_land_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        // A directory where the file should go: the rename fails.
        let path = dir.path().join("report.html");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("keep"), "x").unwrap();
        let error = write_atomically(dir.path(), &path, "new")
            .unwrap_err()
            .report();
        assert!(
            error.starts_with("cannot write ")
                && error.contains("it is a folder, not a regular file"),
            "{error}"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["report.html"]);
        assert!(path.join("keep").is_file());
        let missing = write_atomically(dir.path(), &dir.path().join("no/such/r.html"), "x")
            .unwrap_err()
            .report();
        assert!(missing.contains("its folder does not exist"), "{missing}");
    }
}
