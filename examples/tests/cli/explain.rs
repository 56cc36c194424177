//! `prompt explain`: a cache ledger's log, and a Claude Code transcript,
//! explained request by request; the `--html` timeline in a real Chromium.

use crate::common::{self, Workspace};
use crate::report_browser::{chromium, dump_dom, get, tags};

use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use prompt_core::pipeline::LayerEntry;
use prompt_core::spec::{PipelineSpec, Scope};
use prompt_core::{
    AssembledPrompt, Context, LayerInput, LayerSpec, LayerWriter, Pipeline, PromptBuilder, Render,
    SessionValue, Stability, Stable,
};
use prompt_providers::anthropic::CacheTtl;
use prompt_providers::observe::{CacheLedger, CacheUsage, Pricing, Provider, Sent, read_log};
use serde_json::json;

/// A layer name a hostile file could give (markup and a terminal escape).
const HOSTILE: &str = "<img src=x onerror=alert(1)>\u{1b}]0;t\u{7}";

/// What the Stable layers render: the project's rules.
#[derive(Clone)]
struct Rules(String);
impl SessionValue for Rules {}

struct Text(&'static str);
impl Render<Stable> for Text {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_, Stable>) {
        out.push_str(self.0);
    }
}

struct RulesLayer;
impl Render<Stable> for RulesLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        input.note("read AGENTS.md");
        out.push_str(input.get::<Rules>().map_or("", |r| r.0.as_str()));
    }
}

fn pipeline() -> Pipeline {
    Pipeline::from_layers(
        PipelineSpec::new("explained"),
        [
            LayerEntry::new(
                LayerSpec::new("persona", 1, Stability::Stable)
                    .pipelines(&["explained"])
                    .scope(Scope::Global),
                Text("You are a careful coding agent. Read the code before you change it."),
            ),
            LayerEntry::new(
                LayerSpec::new("project_context", 2, Stability::Stable)
                    .pipelines(&["explained"])
                    .scope(Scope::Project),
                RulesLayer,
            ),
        ],
    )
    .unwrap()
}

fn build(pipeline: &Pipeline, rules: &str) -> AssembledPrompt {
    PromptBuilder::new(pipeline)
        .build_cached(
            &Context::new().with(Rules(rules.to_owned())),
            &Context::new(),
        )
        .unwrap()
}

fn at(seconds: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000).unwrap() + SignedDuration::from_secs(seconds)
}

/// A shared buffer the ledger logs into.
#[derive(Clone, Default)]
struct Log(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
impl std::io::Write for Log {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One call of [`recorded_log`].
type Call<'a> = (&'a AssembledPrompt, &'a str, i64, (u64, u64, u64));

/// A session's log: cold, hit, AGENTS.md edited, an idle hour, a miss with
/// nothing moved, another model.
pub(crate) fn recorded_log() -> String {
    let pipeline = pipeline();
    let log = Log::default();
    let mut ledger = CacheLedger::new()
        .log(log.clone())
        .pricing(Pricing::anthropic(3.0, CacheTtl::FiveMinutes).unwrap());
    let monday = build(&pipeline, "Run `make check` before every commit.");
    let tuesday = build(&pipeline, "Run `make test` before every commit.");
    // (prompt, model, seconds after the first, (uncached, read, written))
    let calls: [Call<'_>; 6] = [
        (&monday, "claude-sonnet-4-5", 0, (20, 0, 4100)),
        (&monday, "claude-sonnet-4-5", 60, (24, 4100, 0)),
        (&tuesday, "claude-sonnet-4-5", 120, (24, 0, 4100)),
        (&tuesday, "claude-sonnet-4-5", 3720, (24, 0, 4100)),
        (&tuesday, "claude-sonnet-4-5", 3780, (24, 0, 4100)),
        (&tuesday, "claude-opus-4-5", 3800, (24, 0, 4100)),
    ];
    for (prompt, model, seconds, (uncached, read, written)) in calls {
        let id = ledger.sent(prompt, Sent::new(Provider::Anthropic, model, at(seconds)));
        ledger
            .received(id, &CacheUsage::new(uncached, read, written))
            .unwrap();
    }
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    assert_eq!(read_log(&text).unwrap().len(), 6);
    text
}

fn explain(ws: &Workspace, args: &[&str]) -> std::process::Output {
    common::command(&[&["explain"], args].concat(), ws.home.path())
        .current_dir(ws.dir.path())
        .output()
        .unwrap()
}

#[test]
fn explain_prints_each_request_with_its_cause_and_the_summary() {
    let ws = Workspace::empty(&[]);
    ws.write("cache.jsonl", &recorded_log());
    let output = explain(&ws, &["cache.jsonl"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("#1     2027-01-15T08:00:00Z claude-sonnet-4-5      0% read  cold start: 4,100 tokens written"), "{stdout}");
    assert!(
        lines[1].contains(" 99% read  hit: read 4,100 of 4,124 input tokens"),
        "{stdout}"
    );
    let offset =
        "You are a careful coding agent. Read the code before you change it.\n\nRun `make ".len();
    assert!(
        lines[2].contains(&format!(
            "layer `project_context` (Project) changed at byte {offset} (line 1: \"Run `make check` \
             before every commit.\" -> \"Run `make test` before every commit.\"); it noted: read \
             AGENTS.md: 4,100 tokens re-written, USD 0.0141 more than a hit; expected after an edit"
        )),
        "{stdout}"
    );
    assert!(
        lines[3].contains("TTL expired: idle 1h 00m against 5m 00s: 4,100 tokens re-written"),
        "{stdout}"
    );
    assert!(
        lines[4].contains("provider side: nothing of ours moved: 4,100 tokens re-written"),
        "{stdout}"
    );
    assert!(
        lines[5].contains("model changed from `claude-sonnet-4-5` to `claude-opus-4-5`"),
        "{stdout}"
    );
    assert!(
        stdout.contains("6 request(s), 1 hit(s); 16.6% of input tokens read from the cache"),
        "{stdout}"
    );
    assert!(stdout.contains("lost, by cause:"), "{stdout}");
    assert!(
        stdout.contains(
            "worst layers:\n  project_context        1 change(s)        4,100 tokens  USD 0.0141"
        ),
        "{stdout}"
    );

    let json = explain(&ws, &["cache.jsonl", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["verdicts"].as_array().unwrap().len(), 6);
    assert_eq!(json["summary"]["causes"]["ttl_expired"]["tokens"], 4100);
}

#[test]
fn an_unpriced_log_is_priced_on_request() {
    let ws = Workspace::empty(&[]);
    let log: String = recorded_log()
        .lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            v.as_object_mut().unwrap().remove("lost_usd");
            format!("{v}\n")
        })
        .collect();
    ws.write("cache.jsonl", &log);
    let plain = String::from_utf8(explain(&ws, &["cache.jsonl"]).stdout).unwrap();
    assert!(!plain.contains("USD 0.0141"), "{plain}");
    let priced =
        String::from_utf8(explain(&ws, &["cache.jsonl", "--usd-per-mtok", "3"]).stdout).unwrap();
    assert!(
        priced.contains("4,100 tokens re-written, USD 0.0141 more than a hit"),
        "{priced}"
    );
    let bad = explain(&ws, &["cache.jsonl", "--usd-per-mtok", "NaN"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn logs_it_cannot_read_are_refused_with_the_file_and_line() {
    let ws = Workspace::empty(&[]);
    let good = recorded_log();
    ws.write(
        "bad.jsonl",
        &format!(
            "{}{{\"seq\": 2, \"read\": \"lots\"}}\n",
            good.lines().next().unwrap().to_owned() + "\n"
        ),
    );
    let output = explain(&ws, &["bad.jsonl"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad.jsonl: line 2: not a verdict the cache ledger writes"),
        "{stderr}"
    );
    std::fs::create_dir(ws.dir.path().join("folder")).unwrap();
    let output = explain(&ws, &["folder"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("is not a regular file"));
    let output = explain(&ws, &["missing.jsonl"]);
    assert_eq!(output.status.code(), Some(2));
    #[cfg(unix)]
    {
        // A FIFO with no writer: refused, never waited on.
        let fifo = ws.dir.path().join("fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let output = explain(&ws, &["fifo"]);
        assert_eq!(output.status.code(), Some(2));
    }
}

/// A log line whose layer name and model are hostile.
fn hostile_log() -> String {
    let mut lines: Vec<serde_json::Value> = recorded_log()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines[2]["cause"]["layer"] = json!(HOSTILE);
    lines[2]["model"] = json!(format!("m{HOSTILE}"));
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn names_from_the_log_cannot_drive_the_terminal() {
    let ws = Workspace::empty(&[]);
    ws.write("cache.jsonl", &hostile_log());
    let output = explain(&ws, &["cache.jsonl"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success());
    assert!(!stdout.contains(['\u{1b}', '\u{7}']), "{stdout}");
    assert!(
        stdout.contains(r"layer `<img src=x onerror=alert(1)>\u{1b}]0;t\u{7}`"),
        "{stdout}"
    );
}

#[test]
fn the_timeline_renders_each_request_and_marks_each_miss_in_a_real_browser() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but no chromium is installed: .ci/run installs Debian's `chromium`"
        );
        eprintln!(
            "SKIPPED: no chromium on PATH (and CI unset): the timeline was not checked in a browser"
        );
        return;
    };
    let ws = Workspace::empty(&[]);
    let log = hostile_log();
    ws.write("cache.jsonl", &log);
    let output = explain(&ws, &["cache.jsonl", "--html", "timeline.html"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let dom = dump_dom(&browser, &ws.dir.path().join("timeline.html"));
    assert!(dom.contains("<body"), "chromium printed no DOM: {dom}");
    assert!(!dom.contains("<img"), "an element was injected:\n{dom}");

    let verdicts = read_log(&log).unwrap();
    let bars: Vec<_> = tags(&dom, "g")
        .into_iter()
        .filter(|(_, a)| get(a, "class") == "request")
        .collect();
    assert_eq!(bars.len(), verdicts.len());
    for ((_, bar), verdict) in bars.iter().zip(&verdicts) {
        assert_eq!(get(bar, "data-seq"), verdict.seq.to_string());
        assert_eq!(get(bar, "data-read"), verdict.read.to_string());
        assert_eq!(get(bar, "data-written"), verdict.written.to_string());
        assert_eq!(get(bar, "data-uncached"), verdict.uncached.to_string());
        assert_eq!(
            get(bar, "data-cause"),
            verdict.cause.as_ref().map_or("", |c| c.name())
        );
    }
    // One mark per miss, each with its cause beside it.
    let marks = tags(&dom, "path")
        .into_iter()
        .filter(|(_, a)| get(a, "class") == "miss-mark")
        .count();
    assert_eq!(marks, verdicts.iter().filter(|v| !v.is_hit()).count());
    for cause in [
        "cold_start",
        "layer_changed",
        "ttl_expired",
        "provider_side",
        "model_changed",
    ] {
        assert!(
            dom.contains(&format!(">{cause}</text>")),
            "{cause} is not marked:\n{dom}"
        );
    }
    let body = tags(&dom, "body");
    assert_eq!(get(&body[0].1, "data-requests"), "6");
    assert_eq!(get(&body[0].1, "data-hits"), "1");
    // The hostile name is text.
    assert!(
        dom.contains("layer `&lt;img src=x onerror=alert(1)&gt;\\u{1b}]0;t\\u{7}`"),
        "{dom}"
    );

    // The screenshot a person reads (kept in the target folder).
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("explain-timeline.png");
    let profile = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1100,900",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!(
            "file://{}",
            ws.dir.path().join("timeline.html").display()
        ))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success() && shot.is_file());
}

// --- a Claude Code session, from its transcript --------------------------

/// The system blocks of a request as Claude Code 2.1.328 sends them: its own
/// line, then the file `prompt exec` passed with `--system-prompt-file`.
pub(crate) fn shape_entry(hash: &str, prefix: &str, tools: serde_json::Value) -> serde_json::Value {
    json!({"type": "api-request-shape", "sessionId": "s-1", "shapeHash": hash,
           "timestamp": "2026-11-29T09:00:00.000Z", "version": "2.1.328",
           "shape": {"system": [
               {"type": "text", "text": "You are a Claude agent, built on Anthropic's Claude Agent SDK."},
               {"type": "text", "text": prefix}],
               "tools": tools}})
}

pub(crate) fn request_entry(id: &str, at: &str, shape: &str, tail: &[&str]) -> serde_json::Value {
    json!({"type": "api-request", "sessionId": "s-1", "id": id, "timestamp": at,
           "version": "2.1.328", "querySource": "repl_main_thread", "shapeHash": shape,
           "params": {"model": "claude-sonnet-4-5", "max_tokens": 32000},
           "keep": 0, "tail": tail,
           "cacheControl": [{"path": ["system", 1], "value": {"type": "ephemeral"}}]})
}

pub(crate) fn assistant_entry(
    request: &str,
    id: &str,
    at: &str,
    usage: (u64, u64, u64),
) -> serde_json::Value {
    let (input, read, write) = usage;
    json!({"parentUuid": "u-0", "isSidechain": false, "type": "assistant", "uuid": format!("a-{id}"),
           "timestamp": at, "requestRef": request, "requestedModel": "claude-sonnet-4-5",
           "promptCacheRequested": "5m", "apiBlockIndex": 0, "sessionId": "s-1", "version": "2.1.328",
           "message": {"id": id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                       "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn",
                       "stop_sequence": null,
                       "usage": {"input_tokens": input, "cache_creation_input_tokens": write,
                                 "cache_read_input_tokens": read,
                                 "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": write},
                                 "output_tokens": 5, "service_tier": "standard"}}})
}

#[test]
fn a_claude_code_session_is_explained_from_its_transcript_and_the_turn_file() {
    let ws = Workspace::empty(&[]);
    ws.write(
        "AGENTS.md",
        "# Rules\n\nRun `make test` before every commit.\n",
    );
    // The prefix as it is now, and as it was before AGENTS.md was edited.
    let render = common::command(
        &[
            "render",
            "--workspace",
            ".",
            "--date",
            "2026-11-29",
            "--format",
            "json",
        ],
        ws.home.path(),
    )
    .current_dir(ws.dir.path())
    .output()
    .unwrap();
    let render: serde_json::Value = serde_json::from_slice(&render.stdout).unwrap();
    let now = render["parts"][0]["content"].as_str().unwrap().to_owned();
    assert!(now.contains("make test"), "{now}");
    let before = now.replace("make test", "make check");
    let tools = json!([{"name": "Read", "description": "Read a file.", "input_schema": {"type": "object"}}]);
    let entries = [
        json!({"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-11-29T09:00:00.000Z", "sessionId": "s-1"}),
        json!({"type": "user", "message": {"role": "user", "content": "Fix the bug."}, "timestamp": "2026-11-29T09:00:00.010Z"}),
        shape_entry("h-old", &before, tools.clone()),
        request_entry("r-1", "2026-11-29T09:00:00.100Z", "h-old", &["m1"]),
        assistant_entry("r-1", "msg_1", "2026-11-29T09:00:02.000Z", (3, 0, 4200)),
        request_entry(
            "r-2",
            "2026-11-29T09:01:00.000Z",
            "h-old",
            &["m1", "m2", "m3"],
        ),
        assistant_entry("r-2", "msg_2", "2026-11-29T09:01:02.000Z", (3, 4200, 60)),
        shape_entry("h-new", &now, tools),
        request_entry(
            "r-3",
            "2026-11-29T09:02:00.000Z",
            "h-new",
            &["m1", "m2", "m3", "m4", "m5"],
        ),
        assistant_entry("r-3", "msg_3", "2026-11-29T09:02:02.000Z", (3, 0, 4300)),
        // A request whose response never came.
        request_entry("r-4", "2026-11-29T09:03:00.000Z", "h-new", &["m1"]),
        json!("not an entry"),
    ];
    let transcript: String =
        entries.iter().map(|e| format!("{e}\n")).collect::<String>() + "{broken\n";
    ws.write("session.jsonl", &transcript);
    let cwd = ws.dir.path().canonicalize().unwrap();
    ws.write(
        "turn.json",
        // The options as `prompt exec --workspace . --date 2026-11-29` records them.
        &json!({"client": "claude", "cwd": cwd, "options": {
            "workspace": {"workspace": ".", "cwd": null, "app": "agent", "home": null,
                "nested_docs": false, "shared": null, "prompt_path": [], "sub_agents": [],
                "pipeline": "standard", "agent": null, "settings": [], "fixture": false,
                "date": "2026-11-29", "model": null},
            "path": "cached", "mode": null,
            "delivery": {"budget_chars": null, "budget_tokens": null, "tokenizer": null,
                "max_tokens": 1024, "ttl": "5m", "message": "(the user's message goes here)"},
            "trace": false, "check_secrets": false}})
        .to_string(),
    );

    let output = explain(&ws, &["--claude", "session.jsonl", "--turn", "turn.json"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0], "note: 1 line(s) of the transcript are not JSON: skipped",
        "{stdout}"
    );
    assert_eq!(
        lines[1], "note: 1 request(s) have no response in the transcript: left out",
        "{stdout}"
    );
    assert!(
        lines[2].contains("cold start: 4,200 tokens written"),
        "{stdout}"
    );
    assert!(lines[3].contains("hit: read 4,200"), "{stdout}");
    let offset = before.find("make check").unwrap() + "make ".len();
    assert!(
        lines[4].contains(&format!(
            "layer `project_context` (Project) changed at byte {} (line 6: \"Run `make check` before \
             every commit.\" -> \"Run `make test` before every commit.\"): 4,260 tokens re-written",
            thousands(offset)
        )),
        "{stdout}"
    );

    // Without the turn file: the same byte, the layer unknown.
    let output = explain(&ws, &["--claude", "session.jsonl"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("note: no --turn FILE"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "layer `(system prompt)` changed at byte {}",
            thousands(offset)
        )),
        "{stdout}"
    );

    // Not a transcript of this form.
    ws.write("old.jsonl", "{\"type\": \"user\", \"message\": {}}\n");
    let output = explain(&ws, &["--claude", "old.jsonl"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("records no api-request entry"));
}

/// A session going back and forth between two prompts, each shape recorded
/// again and again under new hashes with the same text (as a long session
/// does): every request after the first is the same verdict as the one two
/// before it, and each keeps its differing line, a long one, cut.
#[test]
fn a_session_that_alternates_between_two_prompts_gives_the_same_verdict_each_time() {
    let ws = Workspace::empty(&[]);
    let long = "Rule: ".to_owned() + &"read the code first; ".repeat(40);
    let a = format!("# Rules\n\nRun make check.\n{long}A\nUse tabs.\n");
    let b = format!("# Rules\n\nRun make check.\n{long}B\nUse tabs.\n");
    let tools = json!([{"name": "Read", "description": "Read a file.", "input_schema": {"type": "object"}}]);
    let mut transcript = String::new();
    let requests = 60;
    for r in 0..requests {
        let shape = format!("h-{}-{}", r % 2, r / 10);
        if r % 10 < 2 {
            let text = if r % 2 == 0 { &a } else { &b };
            transcript += &format!("{}\n", shape_entry(&shape, text, tools.clone()));
        }
        let (id, at) = (format!("r-{r}"), format!("2026-11-29T09:{:02}:00.000Z", r));
        transcript += &format!("{}\n", request_entry(&id, &at, &shape, &["m1"]));
        let usage = if r == 0 { (3, 0, 4200) } else { (3, 0, 4300) };
        transcript += &format!(
            "{}\n",
            assistant_entry(&id, &format!("msg_{r}"), &at, usage)
        );
    }
    ws.write("session.jsonl", &transcript);

    let output = explain(&ws, &["--claude", "session.jsonl", "--json"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let verdicts = json["verdicts"].as_array().unwrap();
    assert_eq!(verdicts.len(), requests);
    assert_eq!(verdicts[0]["cause"]["cause"], "cold_start");
    let offset = a.find("A\n").unwrap();
    let cut = |last: char| {
        let line = format!("{long}{last}");
        format!(
            "{}... ({} more characters)",
            &line[..240],
            line.chars().count() - 240
        )
    };
    for (r, verdict) in verdicts.iter().enumerate().skip(1) {
        let cause = &verdict["cause"];
        let (before, after) = if r % 2 == 1 { ('A', 'B') } else { ('B', 'A') };
        assert_eq!(cause["cause"], "layer_changed", "{r}: {verdict}");
        assert_eq!(cause["layer"], "(system prompt)", "{r}");
        assert_eq!(cause["offset"], offset, "{r}");
        assert_eq!(cause["line"]["number"], 4, "{r}");
        assert_eq!(cause["line"]["before"], cut(before), "{r}");
        assert_eq!(cause["line"]["after"], cut(after), "{r}");
        if r >= 4 {
            // The same as two requests before (the second read what the
            // first wrote), but for when and which.
            let strip = |v: &serde_json::Value| {
                let mut v = v.clone();
                for key in ["seq", "at", "response_id"] {
                    v.as_object_mut().unwrap().remove(key);
                }
                v
            };
            assert_eq!(strip(verdict), strip(&verdicts[r - 2]), "{r}");
        }
    }
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A transcript of one shape per system prompt, each request answered with
/// `usages` in turn.
fn transcript_with_usages(usages: &[serde_json::Value]) -> String {
    let mut entries = vec![
        shape_entry("a", "You are terse.", json!([])),
        shape_entry("b", "You are verbose.", json!([])),
    ];
    for (i, usage) in usages.iter().enumerate() {
        let id = format!("r{}", i + 1);
        entries.push(request_entry(
            &id,
            &format!("2026-11-29T09:0{i}:00.000Z"),
            if i == 0 { "a" } else { "b" },
            &["m1"],
        ));
        let mut answer = assistant_entry(
            &id,
            &format!("msg-{id}"),
            "2026-11-29T09:00:01.000Z",
            (0, 0, 0),
        );
        answer["message"]["usage"] = usage.clone();
        entries.push(answer);
    }
    entries.iter().map(|e| format!("{e}\n")).collect()
}

/// The report of hostile round five: cache counts of `u64::MAX`, then a
/// request with another system prompt, overflowed the ledger's sum of what
/// the first read and wrote (`judge.rs`); writes by TTL of `u64::MAX` and
/// 5 without `cache_creation_input_tokens` overflowed their sum
/// (`usage/anthropic.rs`). Each is now refused naming the request and field.
#[test]
fn transcript_counts_past_one_request_are_refused_naming_the_field() {
    let ws = Workspace::empty(&[]);
    let cases = [
        (
            vec![
                json!({"input_tokens": 3, "cache_read_input_tokens": u64::MAX,
                       "cache_creation_input_tokens": u64::MAX, "output_tokens": 1}),
                json!({"input_tokens": 3, "cache_read_input_tokens": 0,
                       "cache_creation_input_tokens": 4100, "output_tokens": 1}),
            ],
            "`usage.cache_read_input_tokens` is 18446744073709551615",
        ),
        (
            vec![
                json!({"input_tokens": 3, "output_tokens": 1, "cache_creation":
                        {"ephemeral_5m_input_tokens": u64::MAX, "ephemeral_1h_input_tokens": 5}}),
            ],
            "`usage.cache_creation.ephemeral_5m_input_tokens` is 18446744073709551615",
        ),
    ];
    for (usages, expected) in cases {
        ws.write("t.jsonl", &transcript_with_usages(&usages));
        let output = explain(&ws, &["--claude", "t.jsonl"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(stderr.contains("the response to request r1"), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
    }
}
