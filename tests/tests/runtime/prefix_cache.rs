//! Sessions share what is identical: a `PrefixCache` keeps one copy of each
//! distinct stable prefix, whatever the number of sessions, so a host with
//! one session per conversation holds a prefix per workspace, not per chat.

use prompt_core::assembly::PrefixCache;
use prompt_core::fingerprint::Fingerprint;
use prompt_core::pipeline::LayerEntry;
use prompt_core::{
    AssemblyError, Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render, SessionValue,
    Stability, Stable, TurnContext,
};
use prompt_tests::workspaces::{Turn, pipeline, session_context, workspace};
use prompt_tests::{TEST, spec};

fn turn() -> TurnContext {
    TurnContext::new().with(Turn(1))
}

/// Two sessions over one workspace hand out prompts whose stable text is one
/// allocation; a session over another workspace has its own. The shared
/// prefix reads the same as an unshared one, fingerprint included.
#[test]
fn sessions_over_one_workspace_share_one_allocation() {
    let pipeline = pipeline(4, 2);
    let (w0, w1) = (workspace(0, 4, 300), workspace(1, 4, 300));
    let cache = PrefixCache::new();
    let builder = PromptBuilder::new(&pipeline).prefix_cache(&cache);
    let a = builder.clone().session(session_context(&w0));
    let b = builder.clone().session(session_context(&w0));
    let c = builder.clone().session(session_context(&w1));
    let (pa, pb, pc) = (
        a.build_cached(&turn()).unwrap(),
        b.build_cached(&turn()).unwrap(),
        c.build_cached(&turn()).unwrap(),
    );
    assert!(pa.stable().len() > 1_000);
    assert_eq!(pa.stable().as_ptr(), pb.stable().as_ptr());
    assert_ne!(pa.stable().as_ptr(), pc.stable().as_ptr());
    assert_ne!(pa.stable(), pc.stable());
    assert_eq!(cache.len(), 2);

    // Later turns keep the shared copy.
    let again = b.build_cached(&TurnContext::new().with(Turn(2))).unwrap();
    assert_eq!(again.stable().as_ptr(), pa.stable().as_ptr());

    // What a caller reads is what an unshared session gives.
    let alone = PromptBuilder::new(&pipeline).session(session_context(&w0));
    let pl = alone.build_cached(&turn()).unwrap();
    assert_ne!(pl.stable().as_ptr(), pa.stable().as_ptr());
    assert_eq!(pl, pb);
    assert_eq!(pl.text(), pb.text());
    assert_eq!(
        pb.trace().stable_fingerprint(),
        Fingerprint::of(pl.stable())
    );
    assert_eq!(
        pb.trace().layers.stable()[1].fingerprint(),
        pl.trace().layers.stable()[1].fingerprint()
    );
}

/// Without a cache (the default), sessions keep a prefix each.
#[test]
fn without_a_cache_sessions_keep_their_own() {
    let pipeline = pipeline(2, 1);
    let w0 = workspace(0, 2, 100);
    let builder = PromptBuilder::new(&pipeline);
    let a = builder.clone().session(session_context(&w0));
    let b = builder.session(session_context(&w0));
    let (pa, pb) = (
        a.build_cached(&turn()).unwrap(),
        b.build_cached(&turn()).unwrap(),
    );
    assert_eq!(pa.stable(), pb.stable());
    assert_ne!(pa.stable().as_ptr(), pb.stable().as_ptr());
}

/// The last session of a prefix takes the cache's entry with it, while its
/// prompts keep their text; a new session renders and enters it again.
#[test]
fn dropping_every_session_empties_the_cache() {
    let pipeline = pipeline(3, 1);
    let workspaces: Vec<_> = (0..3).map(|w| workspace(w, 3, 200)).collect();
    let cache = PrefixCache::new();
    let builder = PromptBuilder::new(&pipeline).prefix_cache(&cache);
    let sessions: Vec<_> = (0..30)
        .map(|i| builder.clone().session(session_context(&workspaces[i % 3])))
        .collect();
    // A session holds nothing until its first call renders the prefix.
    assert!(cache.is_empty());
    let prompts: Vec<_> = sessions
        .iter()
        .map(|s| s.build_cached(&turn()).unwrap())
        .collect();
    assert_eq!(cache.len(), 3);
    drop(sessions);
    assert_eq!(cache.len(), 0);
    assert!(cache.is_empty());
    assert!(prompts[0].stable().starts_with("## Workspace 0, section 0"));

    let again = builder.session(session_context(&workspaces[0]));
    let prompt = again.build_cached(&turn()).unwrap();
    assert_eq!(cache.len(), 1);
    assert_eq!(prompt.stable(), prompts[0].stable());
    assert_ne!(prompt.stable().as_ptr(), prompts[0].stable().as_ptr());
}

/// Ten thousand sessions over three workspaces hold three prefixes: every
/// prompt of a workspace points to one text.
#[test]
fn ten_thousand_sessions_over_three_workspaces_hold_three_prefixes() {
    let pipeline = pipeline(4, 1);
    let workspaces: Vec<_> = (0..3).map(|w| workspace(w, 4, 64)).collect();
    let cache = PrefixCache::new();
    let builder = PromptBuilder::new(&pipeline).prefix_cache(&cache);
    let sessions: Vec<_> = (0..10_000)
        .map(|i| builder.clone().session(session_context(&workspaces[i % 3])))
        .collect();
    let mut first: [Option<*const u8>; 3] = [None; 3];
    for (i, session) in sessions.iter().enumerate() {
        let prompt = session.build_cached(&turn()).unwrap();
        let ptr = prompt.stable().as_ptr();
        assert_eq!(*first[i % 3].get_or_insert(ptr), ptr, "session {i}");
    }
    assert_eq!(cache.len(), 3);
    let [a, b, c] = first.map(Option::unwrap);
    assert!(a != b && b != c && a != c);
    drop(sessions);
    assert!(cache.is_empty());
}

/// Sessions started on several threads at once over one cache share one
/// prefix per workspace.
#[test]
fn sessions_on_many_threads_share_one_prefix_per_workspace() {
    let pipeline = pipeline(4, 1);
    let workspaces: Vec<_> = (0..3).map(|w| workspace(w, 4, 128)).collect();
    let cache = PrefixCache::new();
    let builder = PromptBuilder::new(&pipeline).prefix_cache(&cache);
    let pointers: Vec<Vec<(usize, usize)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let (builder, workspaces) = (&builder, &workspaces);
                scope.spawn(move || {
                    let sessions: Vec<_> = (0..60)
                        .map(|i| {
                            let w = (i + t) % 3;
                            (w, builder.clone().session(session_context(&workspaces[w])))
                        })
                        .collect();
                    let seen = sessions
                        .iter()
                        .map(|(w, s)| {
                            (
                                *w,
                                s.build_cached(&turn()).unwrap().stable().as_ptr() as usize,
                            )
                        })
                        .collect();
                    // Keep the sessions until every thread has built.
                    (seen, sessions)
                })
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(cache.len(), 3);
        results.into_iter().map(|(seen, _sessions)| seen).collect()
    });
    let mut by_workspace = [None; 3];
    for (w, ptr) in pointers.into_iter().flatten() {
        assert_eq!(*by_workspace[w].get_or_insert(ptr), ptr, "workspace {w}");
    }
    assert!(cache.is_empty());
}

/// A layer that writes the same text whatever the workspace, but notes which
/// workspace it read.
struct NotesWorkspace;

/// The session context's workspace name.
struct Named(&'static str);

impl SessionValue for Named {}

impl Render<Stable> for NotesWorkspace {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        out.push_str("Same text everywhere.");
        if let Some(Named(name)) = input.get::<Named>() {
            input.note(format!("read workspace {name}"));
        }
    }
}

/// Equal bytes are not enough: the traces shared with a prefix are part of
/// what is compared, so two sessions whose layers noted different things
/// keep their own (and each trace says what its own layer noted).
#[test]
fn equal_text_with_different_traces_is_not_shared() {
    let pipeline = Pipeline::from_layers(
        TEST,
        [LayerEntry::new(
            spec("notes_workspace", 10, Stability::Stable),
            NotesWorkspace,
        )],
    )
    .unwrap();
    let cache = PrefixCache::new();
    let builder = PromptBuilder::new(&pipeline).prefix_cache(&cache);
    let a = builder.clone().session(Context::new().with(Named("a")));
    let b = builder.clone().session(Context::new().with(Named("b")));
    let a2 = builder.session(Context::new().with(Named("a")));
    let (pa, pb, pa2) = (
        a.build_cached(&turn()).unwrap(),
        b.build_cached(&turn()).unwrap(),
        a2.build_cached(&turn()).unwrap(),
    );
    assert_eq!(pa.stable(), pb.stable());
    assert_ne!(pa.stable().as_ptr(), pb.stable().as_ptr());
    assert_eq!(pa.stable().as_ptr(), pa2.stable().as_ptr());
    assert_eq!(pa.trace().layers[0].notes, ["read workspace a"]);
    assert_eq!(pb.trace().layers[0].notes, ["read workspace b"]);
    assert_eq!(cache.len(), 2);
}

/// A layer that panics for one workspace.
struct PanicsOn(&'static str);

impl Render<Stable> for PanicsOn {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if let Some(Named(name)) = input.get::<Named>() {
            assert_ne!(*name, self.0, "bad workspace");
            out.push_str(name);
        }
    }
}

/// A prefix that failed to render enters nothing; the session's next call
/// renders again, and the good sessions are unaffected.
#[test]
fn a_failed_prefix_enters_nothing() {
    let pipeline = Pipeline::from_layers(
        TEST,
        [LayerEntry::new(
            spec("panics_on", 10, Stability::Stable),
            PanicsOn("bad"),
        )],
    )
    .unwrap();
    let cache = PrefixCache::new();
    let builder = PromptBuilder::new(&pipeline).prefix_cache(&cache);
    let bad = builder.clone().session(Context::new().with(Named("bad")));
    let good = builder.session(Context::new().with(Named("good")));
    let error = bad.build_cached(&turn()).unwrap_err();
    assert!(matches!(
        error,
        AssemblyError::LayerPanicked { ref layer, .. } if layer.name == "panics_on"
    ));
    assert!(cache.is_empty());
    assert_eq!(good.build_cached(&turn()).unwrap().stable(), "good");
    assert_eq!(cache.len(), 1);
}

/// The same `Fixed` pipeline on both paths: the Basic and the Cached prefix
/// of one content are one entry, and a Basic prompt still carries it whole.
#[test]
fn basic_and_cached_prefixes_of_one_content_are_one_entry() {
    let pipeline = prompt_tests::fixed(&[
        ("rules", 10, Stability::Stable, "Rules."),
        ("cwd", 10_000, Stability::Dynamic, ""),
    ]);
    let cache = PrefixCache::new();
    let session = PromptBuilder::new(&pipeline)
        .prefix_cache(&cache)
        .session(Context::new());
    assert_eq!(session.build_basic(&turn()).unwrap().text(), "Rules.");
    assert_eq!(session.build_cached(&turn()).unwrap().stable(), "Rules.");
    assert_eq!(cache.len(), 1);
    let other = cache.clone();
    assert!(other.same_cache(&cache));
    assert!(!PrefixCache::new().same_cache(&cache));
    drop(session);
    assert!(other.is_empty());
}
