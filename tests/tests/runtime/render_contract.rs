//! The `Render` contract: a layer writes through a `LayerWriter` straight
//! into the prompt (the separator only before a layer that writes), reads
//! the contexts of its band, and one `catch_unwind` per call still names the
//! layer that panicked. The compile-time half (a Stable layer reading a turn
//! value, a value in the wrong context) is in `tests/ui/fail`.

use prompt_core::context::SessionContext;
use prompt_core::context::SessionOrTurnValue;
use prompt_core::pipeline::{LayerEntry, LayerRef};
use prompt_core::spec::Channel;
use prompt_core::tokens::{ApproxCounter, TokenCounter};
use prompt_core::{
    AssemblyError, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render, SessionValue,
    Stability, Stable, TurnContext, TurnValue,
};
use prompt_tests::{TEST, spec};

/// A per-call value.
struct Turn(u32);
impl TurnValue for Turn {}

/// A per-session value.
struct Rules(&'static str);
impl SessionValue for Rules {}

/// A value some hosts fix per session and others per call: the escape.
struct Model(&'static str);
impl SessionOrTurnValue for Model {}

/// Writes in pieces: nothing, `write!` with no argument, then the rules.
struct Pieces;

impl Render<Stable> for Pieces {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        out.push_str("");
        let _ = write!(out, "");
        assert!(out.is_empty(), "empty appends are not text");
        if let Some(Rules(rules)) = input.get::<Rules>() {
            out.push_str("Rules: ");
            let _ = write!(out, "{rules}.");
            // The layer sees its own text, never the layers' before it.
            assert_eq!(out.as_str(), format!("Rules: {rules}."));
            assert_eq!(out.len(), out.as_str().len());
        }
    }
}

/// Reads the model as a Stable layer: the session's copy only.
struct StableModel;

impl Render<Stable> for StableModel {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if let Some(Model(model)) = input.get::<Model>() {
            out.push_str(model);
        }
    }
}

/// Writes the turn number, or nothing.
struct TurnLine;

impl Render for TurnLine {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if let Some(Turn(n)) = input.get::<Turn>() {
            let _ = write!(out, "turn {n}");
            out.push('.');
        }
    }
}

/// Panics when the turn number is odd, after writing half a line.
struct OddPanics;

impl Render for OddPanics {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        out.push_str("half a line");
        if input.get::<Turn>().is_some_and(|t| t.0 % 2 == 1) {
            panic!("odd turn");
        }
    }
}

fn pipeline() -> Pipeline {
    Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(spec("pieces", 1, Stability::Stable), Pieces),
            LayerEntry::new(spec("stable_model", 2, Stability::Stable), StableModel),
            LayerEntry::new(spec("turn_a", 10_000, Stability::Dynamic), TurnLine),
            LayerEntry::new(spec("turn_b", 10_001, Stability::Dynamic), TurnLine),
            LayerEntry::new(
                spec("reminder", 10_002, Stability::Dynamic).channel(Channel::Reminder),
                TurnLine,
            ),
        ],
    )
    .unwrap()
}

#[test]
fn a_layer_that_writes_nothing_adds_no_separator_and_is_silent() {
    let pipeline = pipeline();
    let builder = PromptBuilder::new(&pipeline);
    let quiet = builder
        .build_cached(&SessionContext::new(), &TurnContext::new())
        .unwrap();
    assert_eq!(quiet.text(), "");
    assert_eq!(quiet.reminder(), None);
    assert_eq!(
        quiet.trace().silent().collect::<Vec<_>>(),
        ["pieces", "stable_model", "turn_a", "turn_b", "reminder"]
    );

    let session = SessionContext::new().with(Rules("be brief"));
    let turn = TurnContext::new().with(Turn(7));
    let prompt = builder.build_cached(&session, &turn).unwrap();
    assert_eq!(prompt.stable(), "Rules: be brief.");
    assert_eq!(prompt.dynamic(), "turn 7.\n\nturn 7.");
    assert_eq!(prompt.reminder(), Some("turn 7."));
    let bytes: Vec<(&str, usize, bool)> = prompt
        .trace()
        .layers
        .iter()
        .map(|l| (l.name, l.bytes, l.silent))
        .collect();
    assert_eq!(
        bytes,
        [
            ("pieces", 16, false),
            ("stable_model", 0, true),
            ("turn_a", 7, false),
            ("turn_b", 7, false),
            ("reminder", 7, false),
        ]
    );
}

#[test]
fn traces_recorded_as_ranges_read_like_the_traces_built_with_token_counts() {
    let pipeline = pipeline();
    let session = SessionContext::new().with(Rules("be brief"));
    let turn = TurnContext::new().with(Turn(12));
    let lazy = PromptBuilder::new(&pipeline)
        .build_cached(&session, &turn)
        .unwrap();
    let counted = PromptBuilder::new(&pipeline)
        .counter(ApproxCounter)
        .build_cached(&session, &turn)
        .unwrap();
    assert_eq!(lazy.text(), counted.text());
    assert_eq!(lazy.trace().layers.len(), 5);
    for (a, b) in lazy
        .trace()
        .layers
        .iter()
        .zip(counted.trace().layers.iter())
    {
        assert_eq!(
            (
                a.name,
                a.priority,
                a.stability,
                a.bytes,
                a.silent,
                a.channel
            ),
            (
                b.name,
                b.priority,
                b.stability,
                b.bytes,
                b.silent,
                b.channel
            )
        );
        assert_eq!(a.tokens, None);
        assert!(b.tokens.is_some());
    }
    // Each Dynamic layer's token count is of its own text.
    let turn_a = counted.trace().layer("turn_a").unwrap();
    assert_eq!(turn_a.tokens, Some(ApproxCounter.count("turn 12.")));
    assert_eq!(lazy.trace().layers.dynamic().len(), 3);
    assert_eq!(lazy.trace().layers[4].name, "reminder");
}

#[test]
fn a_stable_layer_reads_the_session_copy_of_a_value_that_may_be_in_either() {
    let pipeline = pipeline();
    let builder = PromptBuilder::new(&pipeline);
    let in_session = builder
        .build_cached(
            &SessionContext::new().with(Model("opus")),
            &TurnContext::new().with(Model("haiku")),
        )
        .unwrap();
    assert_eq!(in_session.stable(), "opus");
    assert!(
        in_session
            .trace()
            .layer("stable_model")
            .unwrap()
            .notes
            .is_empty()
    );

    // Only the turn holds one: the Stable layer gets nothing, and the trace says why.
    let turn_only = builder
        .build_cached(
            &SessionContext::new(),
            &TurnContext::new().with(Model("haiku")),
        )
        .unwrap();
    assert_eq!(turn_only.stable(), "");
    assert_eq!(
        turn_only.trace().layer("stable_model").unwrap().notes,
        ["Model is in the turn context; Stable layers read the session context only"]
    );
}

#[test]
fn one_catch_unwind_per_call_still_names_the_layer_that_panicked() {
    let pipeline = Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(spec("first", 10_000, Stability::Dynamic), TurnLine),
            LayerEntry::new(spec("odd", 10_001, Stability::Dynamic), OddPanics),
            LayerEntry::new(spec("last", 10_002, Stability::Dynamic), TurnLine),
        ],
    )
    .unwrap();
    let session = PromptBuilder::new(&pipeline).session(SessionContext::new());
    let error = session
        .build_cached(&TurnContext::new().with(Turn(3)))
        .unwrap_err();
    assert_eq!(
        error,
        AssemblyError::LayerPanicked {
            layer: LayerRef::new("odd", "TestLayer", "prompt-tests: src/lib.rs:10001"),
            message: "odd turn".into(),
        }
    );
    // The half-written line went with the failed call; the next call is whole.
    let prompt = session
        .build_cached(&TurnContext::new().with(Turn(4)))
        .unwrap();
    assert_eq!(prompt.dynamic(), "turn 4.\n\nhalf a line\n\nturn 4.");
}

#[test]
fn a_writer_appends_after_the_separator_only_once_and_only_when_it_writes() {
    let mut prompt = String::from("before");
    {
        let mut out = LayerWriter::new(&mut prompt, " | ");
        out.push_str("");
        assert!(out.is_empty() && out.as_str().is_empty());
    }
    assert_eq!(prompt, "before");
    {
        let mut out = LayerWriter::new(&mut prompt, " | ");
        out.push('a');
        out.push_str("b");
        let _ = write!(out, "{}", 3);
        assert_eq!(out.as_str(), "ab3");
    }
    assert_eq!(prompt, "before | ab3");
    // Into an empty prompt: no separator before the first text.
    let mut empty = String::new();
    LayerWriter::new(&mut empty, " | ").push_str("first");
    assert_eq!(empty, "first");
}
