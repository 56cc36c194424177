//! The production-scale workload of the performance targets, generated here
//! (no fixture files): 32 Stable layers of ~850 B (~27 KB stable in all) and
//! 10 Dynamic layers of ~200 B that each read a per-turn value. The turn
//! context is built inside the timed loop, as a caller builds it per call.
//!
//! `cargo bench -p prompt-tests --bench perf`; docs/BENCHMARKS.md has the figures.

#[path = "../tests/common/mod.rs"]
mod common;
mod workload;

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use prompt_core::pipeline::LayerEntry;
use prompt_core::{Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render, Stability};
use prompt_layers::{RuntimeFacts, load_session};
use prompt_tests::{FixtureWorkspace, TEST, spec};
use workload::{HandLayer, StableText, Turn, filler, hand_render, name};

const STABLE: usize = 32;
const DYNAMIC: usize = 10;

/// A Dynamic layer: ~200 bytes around the turn number.
struct DynamicText {
    head: String,
    tail: String,
}

impl DynamicText {
    fn new(i: usize) -> Self {
        Self::sized(i, 170)
    }

    /// A layer whose fixed text after the turn number is `tail` bytes.
    fn sized(i: usize, tail: usize) -> Self {
        Self {
            head: format!("Turn facts {i}: "),
            tail: filler(100 + i, tail),
        }
    }

    /// Into the prompt (a `LayerWriter`) or a `String` alike.
    fn write(&self, out: &mut impl std::fmt::Write, turn: u64) {
        let _ = out.write_str(&self.head);
        let _ = write!(out, "{turn}");
        let _ = out.write_char(' ');
        let _ = out.write_str(&self.tail);
    }
}

impl Render for DynamicText {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if let Some(Turn(turn)) = input.get::<Turn>() {
            self.write(out, *turn);
        }
    }
}

fn pipeline() -> Pipeline {
    sized_pipeline(STABLE, 170)
}

/// `stable` Stable layers of ~850 B and [`DYNAMIC`] Dynamic layers whose
/// fixed text is `tail` bytes.
fn sized_pipeline(stable: usize, tail: usize) -> Pipeline {
    workload::pipeline(
        stable,
        850,
        (0..DYNAMIC).map(|i| DynamicText::sized(i, tail)),
    )
}

/// The hand-written way of [`pipeline`]'s layers.
fn hand_written() -> Vec<HandLayer> {
    workload::hand_written(
        STABLE,
        850,
        (0..DYNAMIC).map(DynamicText::new),
        |layer, out, turn| layer.write(out, turn),
    )
}

/// One minijinja template holding the same content.
fn template_source() -> String {
    let mut source = String::new();
    for i in 0..STABLE {
        if i > 0 {
            source.push_str("\n\n");
        }
        source.push_str("{% raw %}");
        source.push_str(&filler(i, 850));
        source.push_str("{% endraw %}");
    }
    for i in 0..DYNAMIC {
        let layer = DynamicText::new(i);
        let _ = write!(
            source,
            "\n\n{{% raw %}}{}{{% endraw %}}{{{{ turn }}}} {{% raw %}}{}{{% endraw %}}",
            layer.head, layer.tail
        );
    }
    source
}

fn benches(c: &mut Criterion) {
    let pipeline = pipeline();
    let mut group = c.benchmark_group("workload");

    let session = PromptBuilder::new(&pipeline).session(Context::new());
    let mut turn_no = 0u64;
    group.bench_function("warm PromptSession::build_cached", |b| {
        b.iter(|| {
            turn_no += 1;
            let turn = Context::new().with(Turn(turn_no));
            session.build_cached(black_box(&turn)).unwrap()
        })
    });

    let builder = PromptBuilder::new(&pipeline);
    let empty = Context::new();
    group.bench_function("cold PromptBuilder::build_cached", |b| {
        b.iter(|| {
            turn_no += 1;
            let turn = Context::new().with(Turn(turn_no));
            builder
                .build_cached(black_box(&empty), black_box(&turn))
                .unwrap()
        })
    });

    let mut hand = hand_written();
    group.bench_function("hand-written (sorted boxed renderers, joined)", |b| {
        b.iter(|| {
            turn_no += 1;
            hand_render(black_box(&mut hand), turn_no)
        })
    });

    let dynamic: Vec<DynamicText> = (0..DYNAMIC).map(DynamicText::new).collect();
    group.bench_function("floor: dynamic layers into one pre-sized String", |b| {
        b.iter(|| {
            turn_no += 1;
            let mut out = String::with_capacity(DYNAMIC * 220);
            for (i, layer) in dynamic.iter().enumerate() {
                if i > 0 {
                    out.push_str("\n\n");
                }
                layer.write(&mut out, black_box(turn_no));
            }
            out
        })
    });

    let output = session
        .build_cached(&Context::new().with(Turn(1)))
        .unwrap()
        .text();
    let mut copy = Vec::with_capacity(output.len());
    group.bench_function("memcpy of the whole output", |b| {
        b.iter(|| {
            copy.clear();
            copy.extend_from_slice(black_box(output.as_bytes()));
            black_box(copy.len())
        })
    });

    let mut env = minijinja::Environment::new();
    env.add_template_owned("prompt", template_source())
        .expect("valid template");
    let template = env.get_template("prompt").expect("template");
    group.bench_function("minijinja render of one template", |b| {
        b.iter(|| {
            turn_no += 1;
            template
                .render(minijinja::context! { turn => turn_no })
                .unwrap()
        })
    });

    let entries = || {
        (0..200).map(|i| {
            let stability = if i < 100 {
                Stability::Stable
            } else {
                Stability::Dynamic
            };
            let base = if i < 100 { 100 } else { 10_000 };
            LayerEntry::new(
                spec(
                    name(format!("layer_{i}")),
                    base + (i % 100) as u32 * 10,
                    stability,
                ),
                StableText(String::new()),
            )
        })
    };
    group.bench_function("collect + validate 200 layers", |b| {
        b.iter_batched(
            || entries().collect::<Vec<_>>(),
            |entries| Pipeline::from_layers(TEST, entries).unwrap(),
            criterion::BatchSize::SmallInput,
        )
    });

    // The standard pipeline over the fixture workspace: loading a session's
    // sources, then a warm call.
    let ws = FixtureWorkspace::new();
    let config = common::full_config(&ws);
    group.bench_function("standard: load_session (fixture workspace)", |b| {
        b.iter(|| load_session(black_box(&config)))
    });
    let standard =
        Pipeline::of::<prompt_layers::StandardPipeline>().expect("the standard pipeline is valid");
    let standard_session = PromptBuilder::new(&standard)
        .session(load_session(&config).expect("the fixture session loads"));
    group.bench_function("standard: warm PromptSession::build_cached", |b| {
        b.iter(|| {
            let turn = Context::new().with(
                RuntimeFacts::default()
                    .date("2026-11-29")
                    .model("opus")
                    .cwd("/repo"),
            );
            standard_session.build_cached(black_box(&turn)).unwrap()
        })
    });
    group.finish();

    // The template must produce the same bytes, or the comparison is unfair.
    let rendered = template.render(minijinja::context! { turn => 1 }).unwrap();
    assert_eq!(rendered, output, "template and pipeline disagree");
}

/// A warm call's cost against the size of its dynamic suffix (criterion's
/// throughput: bytes of dynamic text per second, so a flat figure means the
/// cost grows with the dynamic part), and against the size of the stable
/// prefix (the same suffix after a 4x longer prefix: the cost must not move).
fn dynamic_suffix(c: &mut Criterion) {
    let mut group = c.benchmark_group("warm call by dynamic bytes");
    let mut turn_no = 0u64;
    for (stable, tail) in [
        (STABLE, 30),
        (STABLE, 170),
        (STABLE, 800),
        (4 * STABLE, 170),
    ] {
        let pipeline = sized_pipeline(stable, tail);
        let session = PromptBuilder::new(&pipeline).session(Context::new());
        let sample = session
            .build_cached(&Context::new().with(Turn(1_000_000)))
            .unwrap();
        let (prefix, suffix) = (sample.stable().len(), sample.dynamic().len());
        group.throughput(Throughput::Bytes(suffix as u64));
        group.bench_function(
            format!("prefix {} KB, dynamic {suffix} B", prefix / 1024),
            |b| {
                b.iter(|| {
                    turn_no += 1;
                    let turn = Context::new().with(Turn(1_000_000 + turn_no % 1000));
                    session.build_cached(black_box(&turn)).unwrap()
                })
            },
        );
    }
    group.finish();
}

criterion_group!(perf, benches, dynamic_suffix);
criterion_main!(perf);
