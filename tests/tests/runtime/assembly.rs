//! Assembly: what each layer sees, how outputs are joined, parts, sessions and traces.

use std::sync::atomic::{AtomicUsize, Ordering};

use prompt_core::fingerprint::Fingerprint;
use prompt_core::pipeline::LayerEntry;
use prompt_core::spec::Channel;
use prompt_core::{
    AssemblyPath, Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render, Stability,
    SystemPromptPart,
};
use prompt_tests::{Fixed, TEST, fixed, spec};

/// A per-turn fact.
#[derive(Debug, PartialEq)]
struct Clock(&'static str);

impl prompt_core::context::SessionOrTurnValue for Clock {}
/// A per-session fact.
#[derive(Debug, PartialEq)]
struct Project(&'static str);

impl prompt_core::context::SessionOrTurnValue for Project {}

/// Writes what it can see of `Clock` and `Project`.
struct Probe;

impl Render for Probe {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        let clock = input.get::<Clock>().map_or("-", |c| c.0);
        let project = input.get::<Project>().map_or("-", |p| p.0);
        out.push_str(&format!("clock={clock} project={project}"));
    }
}

fn probe_pipeline() -> Pipeline {
    Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(spec("stable_probe", 1, Stability::Stable), Probe),
            LayerEntry::new(spec("dynamic_probe", 10_001, Stability::Dynamic), Probe),
        ],
    )
    .unwrap()
}

#[test]
fn stable_layers_see_only_the_session_context() {
    let pipeline = probe_pipeline();
    let session = Context::new().with(Project("acme"));
    // The clock is only in the turn context: the stable layer must not see it.
    let turn = Context::new().with(Clock("12:00"));
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&session, &turn)
        .unwrap();
    assert_eq!(prompt.stable(), "clock=- project=acme");
    assert_eq!(prompt.dynamic(), "clock=12:00 project=acme");
}

#[test]
fn a_stable_layer_does_not_see_a_value_even_when_only_the_turn_has_it() {
    let pipeline = probe_pipeline();
    let turn = Context::new()
        .with(Clock("12:00"))
        .with(Project("from-turn"));
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &turn)
        .unwrap();
    assert_eq!(prompt.stable(), "clock=- project=-");
    assert_eq!(prompt.dynamic(), "clock=12:00 project=from-turn");
}

#[test]
fn for_a_dynamic_layer_the_turn_context_wins() {
    let pipeline = probe_pipeline();
    let session = Context::new()
        .with(Project("session"))
        .with(Clock("session-clock"));
    let turn = Context::new().with(Project("turn"));
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&session, &turn)
        .unwrap();
    assert_eq!(prompt.dynamic(), "clock=session-clock project=turn");
    assert_eq!(prompt.stable(), "clock=session-clock project=session");
}

#[test]
fn context_stores_one_value_per_type() {
    let mut ctx = prompt_core::context::SessionContext::new().with(Project("a"));
    assert_eq!(ctx.insert(Project("b")), Some(Project("a")));
    assert_eq!(ctx.get::<Project>(), Some(&Project("b")));
    assert!(ctx.contains::<Project>() && !ctx.contains::<Clock>());
    assert_eq!(ctx.len(), 1);
    assert_eq!(ctx.remove::<Project>(), Some(Project("b")));
    assert!(ctx.is_empty());
    assert_eq!(ctx.get::<Project>(), None);
}

#[test]
fn empty_outputs_are_skipped_and_recorded_as_silent() {
    let pipeline = fixed(&[
        ("a", 1, Stability::Stable, "A"),
        ("b", 2, Stability::Stable, ""),
        ("c", 3, Stability::Stable, "C"),
        ("d", 10_000, Stability::Dynamic, ""),
        ("e", 10_001, Stability::Dynamic, "E"),
        ("f", 10_002, Stability::Dynamic, ""),
    ]);
    let (s, t) = (Context::new(), Context::new());
    let cached = PromptBuilder::new(&pipeline).build_cached(&s, &t).unwrap();
    assert_eq!(cached.stable(), "A\n\nC");
    assert_eq!(cached.dynamic(), "E");
    assert_eq!(cached.text(), "A\n\nC\n\nE");
    assert_eq!(cached.trace().silent().collect::<Vec<_>>(), ["b", "d", "f"]);
    let b = cached.trace().layer("b").unwrap();
    assert!(b.silent && b.bytes == 0);
    assert_eq!(cached.trace().layer("c").unwrap().bytes, 1);
}

#[test]
fn cached_text_equals_basic_text() {
    let pipeline = fixed(&[
        ("persona", 1, Stability::Stable, "You are careful."),
        ("silent", 2, Stability::Stable, ""),
        (
            "docs",
            3,
            Stability::Stable,
            "# Project context\nRead AGENTS.md.",
        ),
        ("clock", 10_000, Stability::Dynamic, "It is noon."),
    ]);
    let (s, t) = (Context::new(), Context::new());
    for separator in ["\n\n", "\n---\n", ""] {
        let builder = PromptBuilder::new(&pipeline).separator(separator);
        let cached = builder.build_cached(&s, &t).unwrap();
        let basic = builder.build_basic(&s, &t).unwrap();
        assert_eq!(cached.text(), basic.text(), "separator {separator:?}");
        assert_eq!(basic.parts().len(), 1);
        assert_eq!(basic.dynamic(), basic.text());
        assert_eq!(basic.stable(), "");
    }
}

#[test]
fn cached_prompts_have_a_cached_stable_part_then_an_uncached_dynamic_part() {
    let pipeline = fixed(&[
        ("persona", 1, Stability::Stable, "P"),
        ("clock", 10_000, Stability::Dynamic, "T"),
    ]);
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(
        prompt.parts(),
        [
            SystemPromptPart::new("P", true),
            SystemPromptPart::new("T", false),
        ]
    );
    assert_eq!(prompt.trace().stable_fingerprint(), Fingerprint::of("P"));
    assert_eq!(
        (prompt.trace().stable_bytes, prompt.trace().dynamic_bytes),
        (1, 1)
    );
    // With only dynamic text there is nothing to cache, and the text has no leading separator.
    let only_dynamic = fixed(&[("clock", 10_000, Stability::Dynamic, "T")]);
    let prompt = PromptBuilder::new(&only_dynamic)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(prompt.stable(), "");
    assert_eq!(prompt.text(), "T");
}

/// Counts its renders.
struct Counting(&'static AtomicUsize, &'static str);

impl Render for Counting {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_>) {
        self.0.fetch_add(1, Ordering::SeqCst);
        out.push_str(self.1);
    }
}

#[test]
fn a_session_renders_stable_layers_once_and_dynamic_layers_every_turn() {
    static STABLE: AtomicUsize = AtomicUsize::new(0);
    static DYNAMIC: AtomicUsize = AtomicUsize::new(0);
    let pipeline = Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(
                spec("rules", 1, Stability::Stable),
                Counting(&STABLE, "rules"),
            ),
            LayerEntry::new(
                spec("turn", 10_000, Stability::Dynamic),
                Counting(&DYNAMIC, "turn"),
            ),
        ],
    )
    .unwrap();
    let session = PromptBuilder::new(&pipeline).session(Context::new());
    let prompts: Vec<_> = (0..3)
        .map(|_| session.build_cached(&Context::new()).unwrap())
        .collect();
    assert_eq!(STABLE.load(Ordering::SeqCst), 1);
    assert_eq!(DYNAMIC.load(Ordering::SeqCst), 3);
    assert!(prompts.iter().all(|p| p.text() == "rules\n\nturn"));
    // The basic path renders its own copy once, too.
    session.build_basic(&Context::new()).unwrap();
    session.build_basic(&Context::new()).unwrap();
    assert_eq!(STABLE.load(Ordering::SeqCst), 2);
    // Same bytes as a one-off build.
    let one_off = PromptBuilder::new(&pipeline)
        .build_cached(session.context(), &Context::new())
        .unwrap();
    assert_eq!(one_off, prompts[0]);
}

#[test]
fn the_trace_serializes_for_tools() {
    let pipeline = fixed(&[("persona", 1, Stability::Stable, "P")]);
    let prompt = PromptBuilder::new(&pipeline)
        .build_basic(&Context::new(), &Context::new())
        .unwrap();
    let json = serde_json::to_value(prompt.trace()).unwrap();
    assert_eq!(json["path"], "basic");
    assert_eq!(json["mode"], "full");
    assert_eq!(json["layers"][0]["stability"], "stable");
    assert_eq!(json["stable_fingerprint"], Fingerprint::of("P").to_string());
    assert_eq!(prompt.path(), AssemblyPath::Basic);
}

/// Writes a line and notes why.
struct Noting;

impl Render for Noting {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        input.note("read 3 files");
        if input.get::<Project>().is_none() {
            input.note("no project: silent");
            return;
        }
        out.push_str("project layer");
    }
}

#[test]
fn notes_go_to_the_trace_and_never_into_the_prompt() {
    let pipeline = Pipeline::from_layers(
        TEST,
        [LayerEntry::new(
            spec("noting", 1, Stability::Stable),
            Noting,
        )],
    )
    .unwrap();
    let builder = PromptBuilder::new(&pipeline);
    let silent = builder
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(silent.text(), "");
    assert_eq!(
        silent.trace().layers[0].notes,
        ["read 3 files", "no project: silent"]
    );
    let speaking = builder
        .build_cached(&Context::new().with(Project("acme")), &Context::new())
        .unwrap();
    assert_eq!(speaking.text(), "project layer");
    assert_eq!(speaking.trace().layers[0].notes, ["read 3 files"]);
    // Outside an assembly (no notes collector) a note is dropped, not a panic.
    let spec = spec("direct", 2, Stability::Stable);
    let (s, t) = (Context::new(), Context::new());
    let input = LayerInput::new(
        &spec,
        &s,
        &t,
        AssemblyPath::Basic,
        prompt_core::PromptMode::Full,
    );
    let mut out = String::new();
    Noting.render(&mut LayerWriter::new(&mut out, "\n\n"), &input);
    assert_eq!(out, "");
}

/// The rule "a Stable layer reads the session context only" must be exercised,
/// not assumed: Stable layers are rendered with the real turn context, and
/// here it holds a value of every type they ask for.
#[test]
fn a_stable_layer_rendered_with_a_full_turn_context_still_sees_only_the_session() {
    let pipeline = probe_pipeline();
    let turn = Context::new()
        .with(Clock("turn-clock"))
        .with(Project("turn-project"));
    let session = Context::new().with(Project("session-project"));

    let one_off = PromptBuilder::new(&pipeline)
        .build_cached(&session, &turn)
        .unwrap();
    assert_eq!(one_off.stable(), "clock=- project=session-project");

    // A session renders its prefix on the first turn: that turn must not leak in either.
    let prompts = PromptBuilder::new(&pipeline).session(session);
    let first = prompts.build_cached(&turn).unwrap();
    assert_eq!(first.stable(), "clock=- project=session-project");
    assert_eq!(first.dynamic(), "clock=turn-clock project=turn-project");
    let basic = prompts.build_basic(&turn).unwrap();
    assert!(basic.text().starts_with("clock=- project=session-project"));
}

#[test]
fn a_stable_layer_asking_for_a_turn_only_value_gets_a_note_saying_why() {
    let pipeline = probe_pipeline();
    let turn = Context::new().with(Clock("12:00"));
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new().with(Project("p")), &turn)
        .unwrap();
    assert_eq!(
        prompt.trace().layer("stable_probe").unwrap().notes,
        ["Clock is in the turn context; Stable layers read the session context only"]
    );
    // A Dynamic layer reads the turn: nothing to note.
    assert!(
        prompt
            .trace()
            .layer("dynamic_probe")
            .unwrap()
            .notes
            .is_empty()
    );
    // Absent from both contexts: no note either, the layer is simply silent about it.
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert!(
        prompt
            .trace()
            .layer("stable_probe")
            .unwrap()
            .notes
            .is_empty()
    );
}

/// On the Basic path the separator goes only *between* a non-empty prefix and
/// a non-empty suffix: neither half alone gains a leading or trailing one.
#[test]
fn the_basic_path_joins_the_halves_only_when_both_speak() {
    let build = |layers: &[(&'static str, u32, Stability, &str)]| {
        PromptBuilder::new(&prompt_tests::fixed(layers))
            .build_basic(&Context::new(), &Context::new())
            .unwrap()
            .text()
    };
    assert_eq!(build(&[("persona", 1, Stability::Stable, "S")]), "S");
    assert_eq!(build(&[("clock", 10_000, Stability::Dynamic, "D")]), "D");
    assert_eq!(
        build(&[
            ("persona", 1, Stability::Stable, "S"),
            ("clock", 10_000, Stability::Dynamic, "D"),
        ]),
        "S\n\nD"
    );
    assert_eq!(
        build(&[
            ("persona", 1, Stability::Stable, ""),
            ("clock", 10_000, Stability::Dynamic, ""),
        ]),
        ""
    );
}

/// No Reminder layer, or only silent ones: no reminder at all, not an empty one.
#[test]
fn a_prompt_without_reminder_text_has_no_reminder() {
    let pipeline = Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(spec("persona", 1, Stability::Stable), Fixed("S".to_owned())),
            LayerEntry::new(
                spec("todo", 10_000, Stability::Dynamic).channel(Channel::Reminder),
                Fixed(String::new()),
            ),
        ],
    )
    .unwrap();
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(prompt.reminder(), None);
    assert_eq!(prompt.trace().reminder_bytes, 0);
}

/// A session hands back the context it was given, so code holding only the
/// session (a tool, a sub-agent) reads the same session facts the layers saw.
#[test]
fn a_session_hands_back_its_context() {
    struct Branch(&'static str);

    impl prompt_core::SessionValue for Branch {}
    let pipeline = fixed(&[("persona", 1, Stability::Stable, "S")]);
    let session = PromptBuilder::new(&pipeline).session(Context::new().with(Branch("main")));
    assert_eq!(session.context().get::<Branch>().map(|b| b.0), Some("main"));
}
