//! Tools declared beside the layers: canonical bytes, the lockstep of a
//! conditional tool and the layer that documents it, and the contract reading
//! tool descriptions with the layers.

use prompt_checks::contract::{Check, Contract, Scenario};
use prompt_core::pipeline::{LayerEntry, Problem};
use prompt_core::spec::PipelineSpec;
use prompt_core::tools::{RequestTools, Tool, ToolError, ToolSet, ToolSlot, ToolTier};
use prompt_core::{
    Context, LayerInput, LayerSpec, LayerWriter, Pipeline, PromptBuilder, Render, Stability, Stable,
};
use prompt_layers::{CoordinatorLayer, DELEGATE_TOOL, SubAgent, SubAgents};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// A Stable layer that speaks when the session holds `Speak(true)`.
struct Conditional(&'static str);

#[derive(Debug, Clone, Copy)]
struct Speak(bool);
impl prompt_core::SessionValue for Speak {}

impl Render<Stable> for Conditional {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if input.get::<Speak>().is_some_and(|s| s.0) {
            out.push_str(self.0);
        }
    }
}

const WORKER_SENTENCE: &str = "Start a worker on a self-contained task and return its report.";

fn pipeline(coordinator_text: &'static str) -> Pipeline {
    Pipeline::from_layers(
        PipelineSpec::new("default"),
        [
            LayerEntry::new(
                LayerSpec::new("base", 10, Stability::Stable),
                Conditional("You are a coding agent."),
            ),
            LayerEntry::new(
                LayerSpec::new("coordinator", 20, Stability::Stable),
                Conditional(coordinator_text),
            ),
        ],
    )
    .unwrap()
}

fn agent_tool() -> Tool {
    Tool::new(
        "agent",
        WORKER_SENTENCE,
        json!({"type": "object", "properties": {"task": {"type": "string"}}, "required": ["task"]}),
    )
}

fn grep_tool() -> Tool {
    Tool::new(
        "grep",
        "Search the workspace for a pattern.",
        json!({"type": "object", "properties": {"pattern": {"type": "string"}}}),
    )
}

/// The tools sent with `pipeline`'s prompt for `session`, the session
/// supplying `supplied`.
fn tools_with(
    pipeline: &Pipeline,
    session: &Context,
    supplied: &[Tool],
) -> Result<RequestTools, ToolError> {
    let prompt = PromptBuilder::new(pipeline)
        .build_cached(session, &Context::new())
        .unwrap();
    pipeline.tools().for_prompt(&prompt, supplied, &[])
}

fn tools_of(pipeline: &Pipeline, session: &Context) -> Result<RequestTools, ToolError> {
    tools_with(pipeline, session, &[])
}

#[test]
fn a_documented_tool_is_sent_exactly_when_its_layer_speaks() {
    // recursive's lockstep: the coordinator section and the `agent` tool.
    let pipeline = pipeline("## Coordinator workflow\n\nDelegate with the `agent` tool.")
        .with_tools(
            ToolSet::new()
                .tool(grep_tool())
                .tool(agent_tool().documented_by("coordinator")),
        )
        .unwrap();
    let on = tools_of(&pipeline, &Context::new().with(Speak(true))).unwrap();
    assert_eq!(on.names().collect::<Vec<_>>(), ["agent", "grep"]);
    let off = tools_of(&pipeline, &Context::new().with(Speak(false))).unwrap();
    assert_eq!(off.names().collect::<Vec<_>>(), ["grep"]);
}

#[test]
fn a_tool_documented_by_a_layer_the_pipeline_lacks_is_a_pipeline_error_with_its_line() {
    let (tool, line) = (Tool::new("agent", "Start a worker.", json!({})), line!());
    let error = pipeline("x")
        .with_tools(ToolSet::new().tool(tool.documented_by("coordinater")))
        .unwrap_err();
    let [
        Problem::ToolLayerMissing {
            tool,
            layer,
            location,
            known,
        },
    ] = error.problems.as_slice()
    else {
        panic!("{error}");
    };
    assert_eq!((tool.as_str(), layer.as_str()), ("agent", "coordinater"));
    assert!(
        location.ends_with(&format!("declared_tools.rs:{line}")),
        "{location}"
    );
    assert_eq!(known, &["base", "coordinator"]);
    // Removing the layer a tool names is the same error.
    let with = pipeline("x")
        .with_tools(ToolSet::new().tool(agent_tool().documented_by("coordinator")))
        .unwrap();
    let error = with.without(&["coordinator"]).unwrap_err();
    assert!(
        matches!(error.problems[0], Problem::ToolLayerMissing { .. }),
        "{error}"
    );
}

#[test]
fn two_tools_of_one_name_are_a_pipeline_error() {
    let error = pipeline("x")
        .with_tools(
            ToolSet::new()
                .tool(grep_tool())
                .slot(ToolSlot::turn("grep")),
        )
        .unwrap_err();
    assert!(
        matches!(&error.problems[..], [Problem::DuplicateTool { name, .. }] if name == "grep"),
        "{error}"
    );
}

#[test]
fn a_layer_that_speaks_of_a_session_tool_the_session_lacks_is_an_error() {
    let pipeline = pipeline("Delegate with the `agent` tool.")
        .with_tools(ToolSet::new().slot(ToolSlot::session("agent").documented_by("coordinator")))
        .unwrap();
    let error = tools_of(&pipeline, &Context::new().with(Speak(true))).unwrap_err();
    assert!(
        matches!(&error, ToolError::Missing { tool, layer, .. } if tool == "agent" && layer == "coordinator"),
        "{error}"
    );
    // Supplied: sent, in the session tier.
    let on = Context::new().with(Speak(true));
    let tools = tools_with(&pipeline, &on, &[agent_tool()]).unwrap();
    assert_eq!(tools.tools()[0].tier(), ToolTier::Session);
    // The layer silent: the supplied tool stays home too.
    let off = Context::new().with(Speak(false));
    assert!(
        tools_with(&pipeline, &off, &[agent_tool()])
            .unwrap()
            .is_empty()
    );
    // A tool the pipeline never declared is refused, not sent.
    assert!(matches!(
        tools_with(&pipeline, &off, &[grep_tool()]),
        Err(ToolError::Undeclared { .. })
    ));
}

#[test]
fn turn_tools_come_after_session_tools_after_stable_ones() {
    let pipeline = pipeline("x")
        .with_tools(
            ToolSet::new()
                .tool(grep_tool())
                .slot(ToolSlot::session("agent"))
                .slot(ToolSlot::turn("ask")),
        )
        .unwrap();
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let ask = Tool::new("ask", "Ask the user.", json!({}));
    let tools = pipeline
        .tools()
        .for_prompt(&prompt, &[agent_tool()], &[ask])
        .unwrap();
    assert_eq!(tools.names().collect::<Vec<_>>(), ["grep", "agent", "ask"]);
    assert_eq!(
        [ToolTier::Stable, ToolTier::Session, ToolTier::Turn].map(|t| tools.tier_end(t)),
        [1, 2, 3]
    );
}

#[test]
fn the_standard_coordinator_and_its_delegate_tool_speak_together() {
    let layers = [LayerEntry::of::<CoordinatorLayer>().pipelines(&["default"])];
    let pipeline = Pipeline::from_layers(PipelineSpec::new("default"), layers)
        .unwrap()
        .with_tools(ToolSet::new().slot(SubAgents::tool_slot()))
        .unwrap();
    let agents = SubAgents(vec![SubAgent::new("tester", "Runs the test suite.")]);
    let session = Context::new().with(agents.clone());
    assert_eq!(
        tools_with(&pipeline, &session, &agents.session_tools())
            .unwrap()
            .names()
            .collect::<Vec<_>>(),
        [DELEGATE_TOOL]
    );
    assert!(tools_of(&pipeline, &Context::new()).unwrap().is_empty());
    // The layer speaks, the session forgot the tool: an error, never a
    // prompt that advertises a tool the request lacks.
    assert!(matches!(
        tools_of(&pipeline, &Context::new().with(agents)),
        Err(ToolError::Missing { .. })
    ));
}

#[test]
fn a_sentence_in_both_a_tool_description_and_a_layer_is_found() {
    let text: &'static str =
        "## Coordinator workflow\n\nStart a worker on a self-contained task and return its report.";
    let declared = pipeline(text)
        .with_tools(ToolSet::new().tool(agent_tool().documented_by("coordinator")))
        .unwrap();
    let scenarios = [Scenario::new("on", Context::new().with(Speak(true)))];
    let report = Contract::new(&declared, &scenarios)
        .only(&[Check::RepeatedSentence])
        .run();
    let shown = report.to_string();
    assert!(!report.is_ok(), "{shown}");
    assert!(shown.contains("coordinator"), "{shown}");
    assert!(shown.contains("tool `agent`"), "{shown}");
    assert!(shown.contains("belongs in its description"), "{shown}");
    // A tool supplied by the session is read when named.
    let plain = pipeline(text);
    let report = Contract::new(&plain, &scenarios)
        .only(&[Check::RepeatedSentence])
        .tool(&agent_tool())
        .run();
    assert!(!report.is_ok());
}

/// `value` with each object's keys inserted in the order `seed` picks.
fn shuffled(value: &Value, seed: &mut u64) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            for i in (1..keys.len()).rev() {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                keys.swap(i, (*seed >> 33) as usize % (i + 1));
            }
            let mut out = Map::new();
            for key in keys {
                out.insert(key.clone(), shuffled(&map[key], seed));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| shuffled(v, seed)).collect()),
        other => other.clone(),
    }
}

fn tools() -> Vec<Tool> {
    vec![
        grep_tool(),
        agent_tool(),
        Tool::new(
            "read",
            "Read a file.",
            json!({"type": "object", "properties": {"path": {"type": "string", "description": "Relative.", "minLength": 1}}, "required": ["path"], "additionalProperties": false}),
        ),
        Tool::new(
            "ask",
            "Ask the user.",
            json!({"b": 1, "a": [{"z": 1, "y": 2}]}),
        )
        .tier_of(ToolTier::Turn),
        Tool::new("todo", "Keep a list.", json!({"type": "object"})).tier_of(ToolTier::Session),
    ]
}

proptest! {
    #[test]
    fn any_order_of_tools_and_of_schema_keys_gives_the_same_bytes(
        order in Just((0..5).collect::<Vec<usize>>()).prop_shuffle(),
        mut seed in any::<u64>(),
    ) {
        let reference = RequestTools::new(tools()).unwrap();
        let base = tools();
        let permuted: Vec<Tool> = order
            .iter()
            .map(|&i| {
                let t = &base[i];
                Tool::new(t.name().to_owned(), t.description().to_owned(), shuffled(t.input_schema(), &mut seed))
                    .tier_of(t.tier())
            })
            .collect();
        let again = RequestTools::new(permuted).unwrap();
        prop_assert_eq!(again.to_json_string(), reference.to_json_string());
        prop_assert_eq!(again.fingerprints(), reference.fingerprints());
        prop_assert_eq!(
            reference.names().collect::<Vec<_>>(),
            ["agent", "grep", "read", "todo", "ask"]
        );
    }
}

#[test]
fn the_canonical_bytes_are_pinned() {
    insta::assert_snapshot!(RequestTools::new(tools()).unwrap().to_json_string());
}

/// The declared tools in an Anthropic body: canonical bytes, a breakpoint
/// after them, and the body the official SDK types accept
/// (tests/sdk/validate.py reads this snapshot).
#[test]
fn anthropic_request_with_declared_tools() {
    use prompt_providers::Message;
    use prompt_providers::anthropic::{CacheTtl, MessagesRequest};

    let pipeline = pipeline("Delegate with the `agent` tool.")
        .with_tools(
            ToolSet::new()
                .tool(grep_tool())
                .tool(agent_tool().documented_by("coordinator"))
                .slot(ToolSlot::turn("ask")),
        )
        .unwrap();
    let session = Context::new().with(Speak(true));
    let ask = Tool::new(
        "ask",
        "Ask the user a question and wait for the answer.",
        json!({"required": ["question"], "type": "object", "properties": {"question": {"type": "string"}}}),
    );
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&session, &Context::new())
        .unwrap();
    let tools = pipeline.tools().for_prompt(&prompt, &[], &[ask]).unwrap();
    let mut request = MessagesRequest::new(&prompt, "claude-sonnet-4-5", 1024)
        .declared_tools(&tools)
        .message(Message::user("Find the failing test."));
    request.cache_tools(CacheTtl::OneHour).unwrap();
    // The opaque setter given the same values builds the same body.
    let opaque = MessagesRequest::new(&prompt, "claude-sonnet-4-5", 1024).tools(tools.to_json());
    assert_eq!(opaque.tools, tools.to_json());
    insta::assert_snapshot!(serde_json::to_string_pretty(&request).unwrap());
}

/// A Stable layer of fixed text.
struct Text(String);

impl Render<Stable> for Text {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_, Stable>) {
        out.push_str(&self.0);
    }
}

/// The ledger, told the declared tools, names the tool that broke the cache
/// and how; told opaque JSON, it still says only that the tools changed.
#[test]
fn the_ledger_names_the_tool_that_changed() {
    use prompt_providers::observe::{
        CacheLedger, CacheUsage, MissCause, Provider, Sent, Timestamp, ToolChange,
    };

    let pipeline = Pipeline::from_layers(
        PipelineSpec::new("default"),
        [LayerEntry::new(
            LayerSpec::new("base", 10, Stability::Stable),
            Text("Read the code before you change it. ".repeat(600)),
        )],
    )
    .unwrap();
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let usage = |read: u64, write: u64| {
        CacheUsage::from_response(
            Provider::Anthropic,
            &json!({"id": "msg_x", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [], "stop_reason": "end_turn", "stop_sequence": null,
                "usage": {"input_tokens": 20, "cache_read_input_tokens": read,
                    "cache_creation_input_tokens": write,
                    "cache_creation": {"ephemeral_5m_input_tokens": write, "ephemeral_1h_input_tokens": 0},
                    "output_tokens": 12, "service_tier": "standard"}}),
        )
        .unwrap()
    };
    let at = |s: i64| Timestamp::from_second(1_800_000_000 + s).unwrap();
    let sent = |s: i64| Sent::new(Provider::Anthropic, "claude-sonnet-4-5", at(s));
    let before = RequestTools::new([grep_tool(), agent_tool()]).unwrap();
    let reworded = RequestTools::new([
        grep_tool(),
        Tool::new(
            "agent",
            "Start a worker.",
            agent_tool().input_schema().clone(),
        ),
    ])
    .unwrap();
    let mut ledger = CacheLedger::new();
    let id = ledger.sent(&prompt, sent(0).declared_tools(&before));
    ledger.received(id, &usage(0, 4300)).unwrap();
    let id = ledger.sent(&prompt, sent(30).declared_tools(&before));
    assert!(ledger.received(id, &usage(4300, 0)).unwrap().is_hit());
    let id = ledger.sent(&prompt, sent(60).declared_tools(&reworded));
    let verdict = ledger.received(id, &usage(0, 4300)).unwrap();
    let Some(MissCause::ToolsChanged {
        change: Some(change),
        ..
    }) = &verdict.cause
    else {
        panic!("{verdict}");
    };
    assert_eq!(
        change,
        &ToolChange::Description {
            tool: "agent".into()
        }
    );
    assert!(
        verdict
            .to_string()
            .contains("tool `agent`'s description changed"),
        "{verdict}"
    );
    // The wire form keeps the old `{"cause": "tools_changed"}` and adds the change.
    let wire = serde_json::to_value(verdict.cause.as_ref().unwrap()).unwrap();
    assert_eq!(wire["cause"], "tools_changed");
    assert_eq!(
        wire["change"],
        json!({"change": "description", "tool": "agent"})
    );
    let old: MissCause = serde_json::from_value(json!({"cause": "tools_changed"})).unwrap();
    assert!(matches!(old, MissCause::ToolsChanged { change: None, .. }));
}

/// The same declared tools in OpenAI's two bodies, each in its API's shape
/// and canonical key order (tests/sdk/validate.py reads both snapshots).
#[test]
fn openai_requests_with_declared_tools() {
    use prompt_providers::Message;
    use prompt_providers::openai::{ChatRequest, ResponsesRequest};

    let pipeline = pipeline("Delegate with the `agent` tool.");
    let session = Context::new().with(Speak(true));
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&session, &Context::new())
        .unwrap();
    let tools = RequestTools::new([agent_tool(), grep_tool()]).unwrap();
    let responses = ResponsesRequest::new(&prompt, "gpt-5")
        .declared_tools(&tools)
        .message(Message::user("Find the failing test."));
    assert_eq!(responses.tools()[0]["name"], "agent");
    insta::assert_snapshot!(
        "openai_responses_request_with_declared_tools",
        serde_json::to_string_pretty(&responses).unwrap()
    );
    let chat = ChatRequest::new(&prompt, "gpt-5")
        .declared_tools(&tools)
        .message(Message::user("Find the failing test."));
    insta::assert_snapshot!(
        "openai_chat_request_with_declared_tools",
        serde_json::to_string_pretty(&chat).unwrap()
    );
}
