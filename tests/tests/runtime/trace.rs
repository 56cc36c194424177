//! The assembly trace: each Stable layer's fingerprint, `LayerTraces` read
//! like a slice, and the fields the serialized trace carries.

use prompt_core::budget::TokenBudget;
use prompt_core::pipeline::LayerEntry;
use prompt_core::{Context, Pipeline, PromptBuilder, Stability};
use prompt_tests::{Fixed, TEST, spec};

fn persona(text: &str) -> Pipeline {
    Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(
                spec("persona", 100, Stability::Stable),
                Fixed(text.to_owned()),
            ),
            LayerEntry::new(
                spec("notes", 10_000, Stability::Dynamic),
                Fixed("a note".to_owned()),
            ),
        ],
    )
    .unwrap()
}

/// A Stable layer's trace carries the fingerprint of exactly its own text
/// (how `prompt cache` names the layer that busted the cache); a Dynamic
/// layer's carries none, and serializes without the key.
#[test]
fn a_stable_layer_trace_fingerprints_its_own_text_and_a_dynamic_one_none() {
    let prompt = PromptBuilder::new(&persona("You are terse."))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let stable = prompt.trace().layer("persona").unwrap();
    let dynamic = prompt.trace().layer("notes").unwrap();
    assert_eq!(
        stable.fingerprint(),
        Some(prompt_core::fingerprint::Fingerprint::of("You are terse."))
    );
    assert_eq!(dynamic.fingerprint(), None);
    let json = |t| serde_json::to_value(t).unwrap();
    assert_eq!(
        json(stable)["fingerprint"],
        serde_json::json!(prompt_core::fingerprint::Fingerprint::of("You are terse."))
    );
    assert!(
        json(dynamic).get("fingerprint").is_none(),
        "{}",
        json(dynamic)
    );

    // Traces compare by what the layer wrote: another text, another trace.
    let again = PromptBuilder::new(&persona("You are terse."))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let other = PromptBuilder::new(&persona("You are wordy."))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(again.trace().layer("persona"), Some(stable));
    assert_ne!(other.trace().layer("persona"), Some(stable));
}

/// `LayerTraces` reads like the slice it stands for: its Stable and Dynamic
/// halves, a copy, emptiness, and equality with another trace or a slice.
#[test]
fn layer_traces_read_like_a_slice_split_by_stability() {
    let prompt = PromptBuilder::new(&persona("You are terse."))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let layers = &prompt.trace().layers;
    let names = |traces: &[prompt_core::assembly::LayerTrace]| {
        traces.iter().map(|t| t.name).collect::<Vec<_>>()
    };
    assert_eq!(names(layers.stable()), ["persona"]);
    assert_eq!(names(layers.dynamic()), ["notes"]);
    let copy = layers.to_vec();
    assert_eq!(names(&copy), ["persona", "notes"]);
    assert!(!layers.is_empty());
    assert!(*layers == copy[..]);
    assert!(*layers != copy[..1]);
    assert!(*layers == copy);
    assert!(*layers != copy[..1].to_vec());
    assert!(*layers == [copy[0].clone(), copy[1].clone()]);
    assert!(*layers != [copy[0].clone()]);
    assert_eq!(layers.len(), 2);
    let debug = format!("{layers:?}");
    assert!(
        debug.starts_with("[LayerTrace { name: \"persona\"") && debug.contains("name: \"notes\""),
        "{debug}"
    );
    // A Stable layer's fingerprint shows in Debug; a Dynamic layer has none.
    let fingerprint = prompt_core::fingerprint::Fingerprint::of("You are terse.");
    assert!(
        format!("{:?}", layers[0]).contains(&format!("fingerprint: Some({fingerprint:?})")),
        "{:?}",
        layers[0]
    );
    assert!(
        format!("{:?}", layers[1]).contains("fingerprint: None"),
        "{:?}",
        layers[1]
    );

    let other = PromptBuilder::new(&persona("You are wordy."))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert!(*layers == prompt.clone().trace().layers);
    assert!(*layers != other.trace().layers);

    let empty = Pipeline::from_layers(TEST, []).unwrap();
    let prompt = PromptBuilder::new(&empty)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert!(prompt.trace().layers.is_empty());
}

/// The serialized trace carries the token and budget fields when the build
/// had a counter and a budget, and leaves them out (not `null`) otherwise.
#[test]
fn the_serialized_trace_has_token_and_budget_fields_only_when_measured() {
    let pipeline = persona("You are terse.");
    let plain = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let measured = PromptBuilder::new(&pipeline)
        .counter(prompt_core::tokens::ApproxCounter)
        .budget(TokenBudget::tokens(1_000))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let keys = ["tokenizer", "stable_tokens", "dynamic_tokens", "budget"];
    let plain = serde_json::to_value(plain.trace()).unwrap();
    for key in keys {
        assert!(plain.get(key).is_none(), "{key} in {plain}");
    }
    let measured = serde_json::to_value(measured.trace()).unwrap();
    assert_eq!(measured["tokenizer"], "approx");
    for key in keys {
        assert!(!measured[key].is_null(), "{key} missing in {measured}");
    }
}

/// A warm call records only where each Dynamic layer's text ends, and its
/// traces are built from those ends when read: each layer's range must be
/// exactly its own text, whatever the mix of silent and speaking layers,
/// channels and separators, and past the ends held in place (16).
mod dynamic_ranges {
    use prompt_core::pipeline::LayerEntry;
    use prompt_core::spec::Channel;
    use prompt_core::tokens::TokenCounter;
    use prompt_core::{Context, Pipeline, PromptBuilder, Stability};
    use prompt_tests::{Fixed, TEST, spec};
    use proptest::prelude::*;

    const NAMES: [&str; 24] = [
        "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", "d12", "d13",
        "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23",
    ];

    /// A "token count" that is a digest of the text: equal only for equal
    /// texts (in practice), so a trace's count names the bytes it covers.
    struct Digest;

    impl TokenCounter for Digest {
        fn count(&self, text: &str) -> usize {
            text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            }) as usize
        }

        fn name(&self) -> &'static str {
            "digest"
        }
    }

    fn pipeline(layers: &[(bool, String)]) -> Pipeline {
        let stable = LayerEntry::new(spec("s", 1, Stability::Stable), Fixed("S".to_owned()));
        let dynamic = layers.iter().enumerate().map(|(i, (reminder, text))| {
            let mut spec = spec(NAMES[i], 10_000 + i as u32, Stability::Dynamic);
            if *reminder {
                spec = spec.channel(Channel::Reminder);
            }
            LayerEntry::new(spec, Fixed(text.clone()))
        });
        Pipeline::from_layers(TEST, std::iter::once(stable).chain(dynamic)).unwrap()
    }

    proptest! {
        #[test]
        fn each_dynamic_trace_covers_exactly_its_own_text(
            layers in prop::collection::vec(
                (any::<bool>(), prop_oneof![Just(String::new()), "[a-zé語\n]{1,6}"]),
                0..24,
            ),
            separator in prop_oneof![Just(""), Just("\n\n"), Just("---"), Just("é")],
        ) {
            let pipeline = pipeline(&layers);
            let builder = PromptBuilder::new(&pipeline).separator(separator);
            let session = builder.clone().session(Context::new());
            let counted = builder.counter(Digest).session(Context::new());
            // The second call of each session is a warm one.
            for _ in 0..2 {
                let prompt = session.build_cached(&Context::new()).unwrap();
                let with_counts = counted.build_cached(&Context::new()).unwrap();
                let traces = prompt.trace().layers.dynamic();
                let counts = with_counts.trace().layers.dynamic();
                prop_assert_eq!(traces.len(), layers.len());
                for (i, (reminder, text)) in layers.iter().enumerate() {
                    let channel = if *reminder { Channel::Reminder } else { Channel::System };
                    prop_assert_eq!(traces[i].name, NAMES[i]);
                    prop_assert_eq!(traces[i].channel, channel);
                    prop_assert_eq!(traces[i].bytes, text.len());
                    prop_assert_eq!(traces[i].silent, text.is_empty());
                    prop_assert_eq!(counts[i].bytes, text.len());
                    // The range read for the count is the layer's own bytes.
                    prop_assert_eq!(counts[i].tokens, Some(Digest.count(text)));
                }
                let joined = |reminder: bool| {
                    layers
                        .iter()
                        .filter(|(r, t)| *r == reminder && !t.is_empty())
                        .map(|(_, t)| t.as_str())
                        .collect::<Vec<_>>()
                        .join(separator)
                };
                prop_assert_eq!(prompt.dynamic(), joined(false));
                prop_assert_eq!(prompt.reminder().unwrap_or(""), joined(true));
            }
        }
    }
}
