//! Issue 30: the warm call against its own layers, over several shapes.
//!
//! The held-out shape is the project's own: 32 Stable layers of ~850 B
//! (~27 KB of stable prefix) and 10 Dynamic layers of ~200 B (~2 KB), each
//! Dynamic layer formatting a turn value with `write!` between two
//! `push_str`s. Beside it: 1 and 40 Dynamic layers of the same size, ten tiny
//! ones (~10 B each, after a tiny prefix) and ten of ~800 B (~8 KB out).
//!
//! Per shape, in one criterion group so that the ratios of one run compare:
//! - `warm`: `PromptSession::build_cached`, the caller's turn context built
//!   in the loop (as a caller builds it per call);
//! - `floor`: the same Dynamic bodies writing into one pre-sized `String`,
//!   with the separator between them, and nothing else;
//! - `hand-written`: boxed renderers sorted per call, each into a fresh
//!   `String`, joined (the Stable ones too, as a hand-written prompt does);
//! - `memcpy`: a copy of the whole output into a reused buffer;
//! - `layers` and `layers+turn`: the Dynamic layers through the framework's
//!   own per-layer API and nothing else (a [`LayerWriter`] each, the turn
//!   value read with [`LayerInput::get`], a virtual call), into one
//!   pre-sized `String`; `layers+turn` also builds the turn context per
//!   call. What any assembly built on this API pays before it has a trace,
//!   a result or a session: `warm` minus `layers+turn` is the assembly's own.
//!
//! `cargo bench -p prompt-tests --bench warm` (docs/BENCHMARKS.md, round three).
//!
//! With `WARM_BENCH_PROFILE=<shape>` (`1`, `10`, `40`, `tiny`, `8k`) the
//! binary runs no criterion: it makes [`PROFILE_CALLS`] calls of each variant
//! in functions of their own (`profile_warm`, `profile_floor`,
//! `profile_hand`), for callgrind's inclusive instruction counts, which do
//! not depend on the machine's load:
//!
//! With `WARM_BENCH_INTERLEAVED=<rounds>` it runs no criterion either (and
//! `WARM_BENCH_SHAPE=<shape>` keeps one shape): per shape, it alternates batches of [`BATCH`] calls of each variant and
//! prints, per variant, the fastest batch and the 10th percentile (per
//! call). A batch takes tens of µs, well inside a scheduler slice, so on a loaded
//! machine many batches still run uninterrupted: their low percentiles are
//! an estimate of the idle machine's figures, and the variants, interleaved,
//! see the same load.
//!
//! ```sh
//! WARM_BENCH_PROFILE=10 valgrind --tool=callgrind --callgrind-out-file=cg.out \
//!   target/release/deps/warm-<hash>
//! callgrind_annotate --inclusive=yes cg.out | grep profile_
//! ```

mod workload;

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, Throughput};
use prompt_core::context::SessionContext;
use prompt_core::{
    AssemblyPath, Context, LayerInput, LayerSpec, LayerWriter, Pipeline, PromptBuilder, PromptMode,
    PromptSession, Render, Stability, TurnContext,
};
use workload::{HandLayer, Turn, filler, hand_render};

/// The environment variable that picks a shape to profile.
const ENV: &str = "WARM_BENCH_PROFILE";

/// Calls of each variant in a profiling run.
const PROFILE_CALLS: u64 = 10_000;

/// The environment variable that asks for interleaved batches, and how many rounds.
const INTERLEAVED: &str = "WARM_BENCH_INTERLEAVED";

/// The environment variable that keeps one shape in an interleaved run.
const ONLY: &str = "WARM_BENCH_SHAPE";

/// Calls per batch in an interleaved run (the hand-written way: an eighth).
const BATCH: u64 = 64;

/// A workload: the pipeline's layers and their sizes.
#[derive(Clone, Copy)]
struct Shape {
    /// Its name in the bench ids and for [`ENV`].
    key: &'static str,
    /// What it is, for the report.
    what: &'static str,
    stable: usize,
    /// Bytes of each Stable layer.
    section: usize,
    dynamic: usize,
    /// Bytes of each Dynamic layer's fixed text after the turn value.
    tail: usize,
}

const SHAPES: [Shape; 5] = [
    Shape {
        key: "10",
        what: "10 Dynamic x ~200 B (the held-out shape)",
        stable: 32,
        section: 850,
        dynamic: 10,
        tail: 170,
    },
    Shape {
        key: "1",
        what: "1 Dynamic x ~200 B",
        stable: 32,
        section: 850,
        dynamic: 1,
        tail: 170,
    },
    Shape {
        key: "40",
        what: "40 Dynamic x ~200 B",
        stable: 32,
        section: 850,
        dynamic: 40,
        tail: 170,
    },
    Shape {
        key: "tiny",
        what: "tiny: 2 Stable x 40 B, 10 Dynamic x ~10 B",
        stable: 2,
        section: 40,
        dynamic: 10,
        tail: 1,
    },
    Shape {
        key: "8k",
        what: "8 KB: 10 Dynamic x ~800 B",
        stable: 32,
        section: 850,
        dynamic: 10,
        tail: 780,
    },
];

/// A Dynamic layer: `push_str`, `write!` of the turn value, `push_str`.
struct DynamicText {
    head: String,
    tail: String,
}

impl DynamicText {
    fn new(i: usize, tail: usize) -> Self {
        Self {
            head: format!("Turn facts {i}: "),
            tail: filler(100 + i, tail),
        }
    }
}

impl Render for DynamicText {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if let Some(Turn(turn)) = input.get::<Turn>() {
            out.push_str(&self.head);
            let _ = write!(out, "{turn}");
            out.push_str(&self.tail);
        }
    }
}

/// The same body, into a `String`: what the floor and the hand-written way run.
fn write_dynamic(layer: &DynamicText, out: &mut String, turn: u64) {
    out.push_str(&layer.head);
    let _ = write!(out, "{turn}");
    out.push_str(&layer.tail);
}

/// The Dynamic layers as the `layers` variants run them: boxed renderers.
type Boxed = Vec<Box<dyn Render + Send + Sync>>;

/// Everything one shape's benches run.
struct Workload {
    pipeline: Pipeline,
    dynamic: Vec<DynamicText>,
    hand: Vec<HandLayer>,
    boxed: Boxed,
}

impl Workload {
    fn new(shape: Shape) -> Self {
        let dynamic = || (0..shape.dynamic).map(|i| DynamicText::new(i, shape.tail));
        let pipeline = workload::pipeline(shape.stable, shape.section, dynamic());
        let hand = workload::hand_written(shape.stable, shape.section, dynamic(), write_dynamic);

        Self {
            pipeline,
            dynamic: dynamic().collect(),
            hand,
            boxed: dynamic()
                .map(|layer| Box::new(layer) as Box<dyn Render + Send + Sync>)
                .collect(),
        }
    }
}

/// A session of `pipeline`, its prefix rendered and its dynamic text sized.
fn session(pipeline: &Pipeline) -> PromptSession<'_> {
    let session = PromptBuilder::new(pipeline).session(Context::new());
    // The first call renders the prefix and sizes the dynamic text.
    session
        .build_cached(&Context::new().with(Turn(1)))
        .expect("the bench pipeline assembles");
    session
}

/// One warm call, the turn context built as a caller builds it.
fn warm(session: &PromptSession<'_>, turn: u64) -> prompt_core::AssembledPrompt {
    let turn = Context::new().with(Turn(turn));
    session.build_cached(black_box(&turn)).unwrap()
}

/// The floor: the Dynamic bodies into one pre-sized `String`, separated.
fn floor(dynamic: &[DynamicText], capacity: usize, turn: u64) -> String {
    let mut out = String::with_capacity(capacity);
    for (i, layer) in dynamic.iter().enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        write_dynamic(layer, &mut out, black_box(turn));
    }
    out
}

/// The API floor: the Dynamic layers through `LayerWriter`, `LayerInput` and
/// a virtual call each, into one pre-sized `String`, and nothing else.
fn layers(dynamic: &Boxed, capacity: usize, turn: &TurnContext) -> String {
    let session = SessionContext::new();
    let spec = LayerSpec::new("layers", 10_000, Stability::Dynamic);
    let input = LayerInput::new(
        &spec,
        &session,
        turn,
        AssemblyPath::Cached,
        PromptMode::Full,
    );
    let mut out = String::with_capacity(capacity);
    for layer in dynamic {
        layer.render(&mut LayerWriter::new(&mut out, "\n\n"), &input);
    }
    out
}

/// [`layers`], the turn context built per call as a caller builds it.
fn layers_and_turn(dynamic: &Boxed, capacity: usize, turn: u64) -> String {
    let turn = Context::new().with(Turn(turn));
    layers(dynamic, capacity, black_box(&turn))
}

fn bench_shape(c: &mut Criterion, shape: Shape) {
    let mut work = Workload::new(shape);
    let session = session(&work.pipeline);
    let sample = warm(&session, 1_000_000);
    let whole = sample.text();
    let dynamic_len = sample.dynamic().len();
    // The floor writes the same bytes, into a `String` of the same size.
    assert_eq!(
        floor(&work.dynamic, dynamic_len, 1_000_000),
        sample.dynamic(),
        "the floor and the warm call disagree"
    );
    assert_eq!(
        hand_render(&mut work.hand, 1_000_000),
        whole,
        "the hand-written way and the warm call disagree"
    );
    assert_eq!(
        layers_and_turn(&work.boxed, dynamic_len, 1_000_000),
        sample.dynamic(),
        "the API floor and the warm call disagree"
    );
    let fixed_turn = Context::new().with(Turn(1_000_000));

    let mut group = c.benchmark_group(format!("shape {}", shape.key));
    group.throughput(Throughput::Bytes(dynamic_len as u64));
    // Turn values of the same width every call: the same bytes every time.
    let mut turn_no = 0u64;
    let mut next = move || {
        turn_no = (turn_no + 1) % 1_000_000;
        1_000_000 + turn_no
    };
    group.bench_function("warm", |b| b.iter(|| warm(&session, next())));
    group.bench_function("floor", |b| {
        b.iter(|| floor(&work.dynamic, dynamic_len, next()))
    });
    group.bench_function("hand-written", |b| {
        b.iter(|| hand_render(black_box(&mut work.hand), next()))
    });
    group.bench_function("layers", |b| {
        b.iter(|| layers(&work.boxed, dynamic_len, black_box(&fixed_turn)))
    });
    group.bench_function("layers+turn", |b| {
        b.iter(|| layers_and_turn(&work.boxed, dynamic_len, next()))
    });
    let mut copy = Vec::with_capacity(whole.len());
    group.bench_function("memcpy", |b| {
        b.iter(|| {
            copy.clear();
            copy.extend_from_slice(black_box(whole.as_bytes()));
            black_box(copy.len())
        })
    });
    group.finish();
    eprintln!(
        "shape {}: {} (stable {} B, dynamic {} B)",
        shape.key,
        shape.what,
        sample.stable().len(),
        dynamic_len
    );
}

#[inline(never)]
fn profile_warm(session: &PromptSession<'_>) {
    for turn in 0..PROFILE_CALLS {
        black_box(warm(session, 1_000_000 + turn));
    }
}

#[inline(never)]
fn profile_floor(dynamic: &[DynamicText], capacity: usize) {
    for turn in 0..PROFILE_CALLS {
        black_box(floor(dynamic, capacity, 1_000_000 + turn));
    }
}

#[inline(never)]
fn profile_hand(hand: &mut [HandLayer]) {
    for turn in 0..PROFILE_CALLS {
        black_box(hand_render(hand, 1_000_000 + turn));
    }
}

/// Runs each variant [`PROFILE_CALLS`] times, for callgrind.
fn profile(key: &str) {
    let shape = SHAPES
        .into_iter()
        .find(|s| s.key == key)
        .unwrap_or_else(|| panic!("{ENV}={key}: no such shape (1, 10, 40, tiny, 8k)"));
    let mut work = Workload::new(shape);
    let session = session(&work.pipeline);
    let capacity = warm(&session, 1_000_000).dynamic().len();
    profile_warm(&session);
    profile_floor(&work.dynamic, capacity);
    profile_hand(&mut work.hand);
    println!("{ENV}={key}: {PROFILE_CALLS} calls of each variant");
}

/// Per call, in ns: the `q`th quantile of `times` (sorted in place).
fn quantile(times: &mut [f64], q: f64) -> f64 {
    times.sort_by(f64::total_cmp);
    times[((times.len() - 1) as f64 * q) as usize]
}

/// Times `batch` calls of `f`, per call in ns.
fn batch(calls: u64, mut f: impl FnMut(u64)) -> f64 {
    let start = Instant::now();
    for i in 0..calls {
        f(i);
    }
    start.elapsed().as_nanos() as f64 / calls as f64
}

/// Alternates batches of each variant, `rounds` times per shape, and prints
/// a Markdown table of the fastest batch and the 10th percentile.
fn interleaved(rounds: usize) {
    println!(
        "| shape | warm | floor | hand-written | memcpy | layers | layers+turn | hand / warm | warm / floor | warm / memcpy | warm / layers+turn |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let only = std::env::var(ONLY).ok();
    for shape in SHAPES {
        if only.as_deref().is_some_and(|key| key != shape.key) {
            continue;
        }
        let mut work = Workload::new(shape);
        let session = session(&work.pipeline);
        let sample = warm(&session, 1_000_000);
        let (whole, capacity) = (sample.text(), sample.dynamic().len());
        let mut copy = Vec::with_capacity(whole.len());
        let fixed_turn = Context::new().with(Turn(1_000_000));
        let mut times: [Vec<f64>; 6] = Default::default();
        for round in 0..rounds as u64 {
            let turn = 1_000_000 + (round * BATCH) % 1_000_000;
            times[0].push(batch(BATCH, |i| {
                black_box(warm(&session, turn + i));
            }));
            times[1].push(batch(BATCH, |i| {
                black_box(floor(&work.dynamic, capacity, turn + i));
            }));
            times[2].push(batch(BATCH / 8, |i| {
                black_box(hand_render(black_box(&mut work.hand), turn + i));
            }));
            times[3].push(batch(BATCH, |_| {
                copy.clear();
                copy.extend_from_slice(black_box(whole.as_bytes()));
                black_box(copy.len());
            }));
            times[4].push(batch(BATCH, |_| {
                black_box(layers(&work.boxed, capacity, black_box(&fixed_turn)));
            }));
            times[5].push(batch(BATCH, |i| {
                black_box(layers_and_turn(&work.boxed, capacity, turn + i));
            }));
        }
        for (label, q) in [("fastest", 0.0), ("p10", 0.1)] {
            let [warm, floor, hand, memcpy, layers, turn] =
                times.each_mut().map(|t| quantile(t, q));
            println!(
                "| {} ({label}) | {warm:.0} ns | {floor:.0} ns | {hand:.0} ns | {memcpy:.0} ns | {layers:.0} ns | {turn:.0} ns | {:.2}x | {:.2}x | {:.2}x | {:.2}x |",
                shape.key,
                hand / warm,
                warm / floor,
                warm / memcpy,
                warm / turn
            );
        }
    }
}

fn main() {
    if let Ok(rounds) = std::env::var(INTERLEAVED) {
        interleaved(rounds.parse().expect("WARM_BENCH_INTERLEAVED=<rounds>"));
        return;
    }
    if let Ok(key) = std::env::var(ENV) {
        profile(&key);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    for shape in SHAPES {
        bench_shape(&mut c, shape);
    }
    c.final_summary();
}
