//! Cache scopes: the order check on a pipeline, and what the standard
//! pipeline's scope order buys a team on one repository (measured on
//! sentry's AGENTS.md, two users who differ only in a one-line
//! `~/.agent/memory/user.md`).

use prompt_core::pipeline::LayerEntry;
use prompt_core::pipeline::Problem;
use prompt_core::spec::DefaultPipeline;
use prompt_core::spec::PromptPipeline;
use prompt_core::spec::Scope;
use prompt_core::spec::ScopeOrder;
use prompt_core::{
    AssembledPrompt, Context, LayerInput, LayerSpec, LayerWriter, Pipeline, PromptBuilder,
    PromptLayer, Render, Stability, Stable,
};
use prompt_layers::{
    BasePromptLayer, FactsLayer, ProjectContextLayer, ProjectMemoryLayer, SessionConfig,
    SkillsIndexLayer, UserPreferencesLayer, load_session,
};
use prompt_tests::real_fixture;

fn entry(name: &'static str, priority: u32, scope: Scope, line: u32) -> LayerEntry {
    let spec = LayerSpec::new(name, priority, Stability::Stable)
        .scope(scope)
        .defined_at("app", "src/layers.rs", line);
    LayerEntry::new(spec, Text(name))
}

/// A Stable layer that writes its name.
struct Text(&'static str);

impl Render<Stable> for Text {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_, Stable>) {
        out.push_str(self.0);
    }
}

#[test]
fn a_layer_ahead_of_wider_ones_is_one_problem_naming_them_and_the_priority_to_move() {
    let error = Pipeline::from_layers(
        DefaultPipeline::SPEC,
        [
            entry("persona", 100, Scope::Global, 1),
            entry("user_notes", 200, Scope::User, 2),
            entry("project_docs", 300, Scope::Project, 3),
            entry("project_skills", 400, Scope::Project, 4),
        ],
    )
    .unwrap_err();
    assert_eq!(error.problems.len(), 1, "one mistake, one problem: {error}");
    assert!(matches!(
        &error.problems[0],
        Problem::ScopeOrder { layer, ahead: true, others, .. }
            if layer.name == "user_notes" && others.len() == 2
    ));
    let message = error.problems[0].to_string();
    assert_eq!(
        message,
        "layer `user_notes` (user_notes at app: src/layers.rs:2) (User, priority 200) comes before \
         `project_docs` (project_docs at app: src/layers.rs:3) (Project, priority 300), \
         `project_skills` (project_skills at app: src/layers.rs:4) (Project, priority 400), but wider scopes come \
         first in the Stable band (Global, Project, User, Session): move `user_notes`'s priority above 400, \
         or give it `scope = Project` if its text is the same for everyone on the repository; or set \
         `#[prompt_pipeline(scope_order = Relaxed)]` if the pipeline's order is fixed from outside"
    );
}

/// The mistake: a User-scope layer of the user's crate at 2500, in
/// one pipeline with the standard layers, built by hand (a declared pipeline
/// that includes them gets the same problem at build time). One problem, about the user's layer; it
/// never asks to move the standard layers.
#[test]
fn a_user_layer_ahead_of_the_standard_project_layers_is_one_problem_about_it() {
    let error = Pipeline::from_layers(
        DefaultPipeline::SPEC,
        [
            LayerEntry::of::<BasePromptLayer>().pipelines(&["default"]),
            LayerEntry::of::<ProjectMemoryLayer>().pipelines(&["default"]),
            entry("my_notes", 2_500, Scope::User, 7),
            LayerEntry::of::<ProjectContextLayer>().pipelines(&["default"]),
            LayerEntry::of::<SkillsIndexLayer>().pipelines(&["default"]),
        ],
    )
    .unwrap_err();
    assert_eq!(error.problems.len(), 1, "{error}");
    let message = error.problems[0].to_string();
    assert!(
        message.starts_with("layer `my_notes` (my_notes at app: src/layers.rs:7) (User, priority 2500) comes before `project_context`"),
        "{message}"
    );
    assert!(
        message.contains("move `my_notes`'s priority above 4000"),
        "{message}"
    );
    assert!(
        !message.contains("`project_context`'s"),
        "never moves a layer the user does not own: {message}"
    );
}

/// An unscoped Stable layer is `Session`: its message offers `scope` first.
#[test]
fn an_unscoped_layer_ahead_of_wider_ones_hears_about_scope_first() {
    let error = Pipeline::from_layers(
        DefaultPipeline::SPEC,
        [
            entry("persona", 150, Scope::Session, 1),
            LayerEntry::of::<BasePromptLayer>().pipelines(&["default"]),
            LayerEntry::of::<ProjectContextLayer>().pipelines(&["default"]),
        ],
    )
    .unwrap_err();
    assert_eq!(error.problems.len(), 1, "{error}");
    let message = error.problems[0].to_string();
    assert!(
        message.contains("(Session, the default, priority 150)")
            && message.contains(": give `persona` the scope its text has (`scope = Global` if it is the same for everyone), or move its priority above 3000"),
        "{message}"
    );
}

#[test]
fn a_relaxed_pipeline_keeps_its_order_and_dynamic_layers_have_no_scope() {
    let layers = || {
        [
            entry("persona", 100, Scope::Global, 1),
            entry("user_notes", 200, Scope::User, 2),
            entry("project_docs", 300, Scope::Project, 3),
        ]
    };
    let relaxed = DefaultPipeline::SPEC.scope_order(ScopeOrder::Relaxed);
    let pipeline = Pipeline::from_layers(relaxed, layers()).unwrap();
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let scopes: Vec<_> = prompt
        .trace()
        .scope_groups()
        .iter()
        .map(|g| g.scope)
        .collect();
    assert_eq!(scopes, [Scope::Global, Scope::User, Scope::Project]);
    // Only the leading Global group is shared by a team.
    assert_eq!(
        prompt.trace().shared_prefix(Scope::Project),
        "persona".len()
    );
    assert_eq!(
        prompt.trace().shared_prefix(Scope::Session),
        prompt.stable().len()
    );
}

/// The workspace of the measurement: sentry's AGENTS.md, nothing else.
fn sentry_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        real_fixture("agents/getsentry__sentry__AGENTS.md"),
        dir.path().join("AGENTS.md"),
    )
    .unwrap();
    dir
}

/// A home whose `user.md` is one line.
fn home(line: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let memory = home.path().join(".agent/memory");
    std::fs::create_dir_all(&memory).unwrap();
    std::fs::write(memory.join("user.md"), format!("{line}\n")).unwrap();
    home
}

fn render(
    pipeline: &Pipeline,
    workspace: &std::path::Path,
    home: &std::path::Path,
) -> AssembledPrompt {
    let mut config = SessionConfig::new("agent", workspace);
    config.home = Some(home.to_path_buf());
    let session = load_session(&config).unwrap();
    PromptBuilder::new(pipeline)
        .build_cached(&session, &Context::new())
        .unwrap()
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// The standard pipeline as it was before cache scopes: the user's
/// preferences at 2000, right after the base prompt.
fn old_order() -> Pipeline {
    fn at<L: PromptLayer + Render<Stable> + Send + Sync + 'static>(
        layer: L,
        priority: u32,
    ) -> LayerEntry {
        let mut spec = L::SPEC.pipelines(&["default"]);
        spec.priority = priority;
        LayerEntry::new(spec, layer)
    }
    Pipeline::from_layers(
        DefaultPipeline::SPEC.scope_order(ScopeOrder::Relaxed),
        [
            at(BasePromptLayer, 1_000),
            at(UserPreferencesLayer, 2_000),
            at(ProjectMemoryLayer, 3_000),
            at(ProjectContextLayer, 4_000),
            at(SkillsIndexLayer, 5_000),
            at(FactsLayer, 6_000),
        ],
    )
    .unwrap()
}

#[test]
fn two_users_of_one_repository_share_the_whole_global_and_project_part() {
    let ws = sentry_workspace();
    let (alice, bob) = (home("Answer in English."), home("Answer in German."));
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    assert_eq!(pipeline.spec().name, "standard");
    let a = render(&pipeline, ws.path(), alice.path());
    let b = render(&pipeline, ws.path(), bob.path());

    let groups = a.trace().scope_groups();
    let scopes: Vec<_> = groups.iter().map(|g| g.scope).collect();
    assert_eq!(scopes, [Scope::Global, Scope::Project, Scope::User]);
    let shared = a.trace().shared_prefix(Scope::Project);
    assert_eq!(shared, groups[1].end);
    assert_eq!(shared, b.trace().shared_prefix(Scope::Project));
    assert_eq!(a.stable()[..shared], b.stable()[..shared]);
    // The common prefix is the whole Global + Project part, and then the
    // separator before the user's part: nothing of the user's is shared.
    let common = common_prefix(a.stable(), b.stable());
    assert!(common >= shared, "{common} < {shared}");
    assert!(
        a.stable()[shared..].starts_with("\n\n# User preferences"),
        "{}",
        &a.stable()[shared..]
    );
    // They part inside the user's preferences, the first layer of the User group.
    let prefs = a
        .trace()
        .layer("user_preferences")
        .unwrap()
        .stable_range()
        .unwrap();
    assert_eq!(prefs.start, groups[2].start);
    assert!(prefs.contains(&common), "{common} not in {prefs:?}");

    // Before cache scopes the same two users shared little more than the base prompt.
    let old = old_order();
    let (oa, ob) = (
        render(&old, ws.path(), alice.path()),
        render(&old, ws.path(), bob.path()),
    );
    let old_common = common_prefix(oa.stable(), ob.stable());
    assert!(old_common * 10 < common, "{old_common} vs {common}");
    eprintln!(
        "stable prefixes {} and {} bytes; common prefix before {old_common} ({:.0}%), after {common} ({:.0}%); Global+Project part {shared} bytes",
        a.stable().len(),
        b.stable().len(),
        100.0 * old_common as f64 / a.stable().len() as f64,
        100.0 * common as f64 / a.stable().len() as f64,
    );
    assert_eq!(DefaultPipeline::SPEC.scope_order, ScopeOrder::Strict);
    let _ = <DefaultPipeline as PromptPipeline>::SPEC;
}

/// The request with each system block's text shown by its length and ends,
/// so the snapshot shows the cuts rather than 8 KiB of AGENTS.md.
fn outline(request: &prompt_providers::anthropic::MessagesRequest) -> serde_json::Value {
    let mut body = serde_json::to_value(request).unwrap();
    for block in body["system"].as_array_mut().unwrap() {
        let text = block["text"].as_str().unwrap().to_owned();
        let head: String = text.chars().take(40).collect();
        let tail: String = text
            .chars()
            .rev()
            .take(40)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        block["text"] = serde_json::json!(format!("<{} bytes: {head:?} .. {tail:?}>", text.len()));
    }
    // Sorted whatever serde_json's `preserve_order` (rig-core turns it on).
    body.sort_all_objects();
    body
}

#[test]
fn the_anthropic_request_breaks_at_the_end_of_the_project_part_so_teammates_read_it() {
    use prompt_providers::Message;
    use prompt_providers::anthropic::{CacheTtl, MessagesRequest, SYSTEM_BREAKPOINTS};

    let ws = sentry_workspace();
    let (alice, bob) = (home("Answer in English."), home("Answer in German."));
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let a = render(&pipeline, ws.path(), alice.path());
    let b = render(&pipeline, ws.path(), bob.path());
    let request = |prompt: &AssembledPrompt| {
        let mut request = MessagesRequest::new(prompt, "claude-sonnet-4-5", 1024)
            .tools([serde_json::json!({"name": "read", "input_schema": {"type": "object"}})])
            .message(Message::user("Fix the failing test."));
        // The tools' and the conversation's breakpoints still fit.
        request.cache_tools(CacheTtl::FiveMinutes).unwrap();
        request.cache_last_user_turn(CacheTtl::FiveMinutes).unwrap();
        request.check_breakpoints().unwrap();
        request
    };
    let (ra, rb) = (request(&a), request(&b));
    assert_eq!(ra.system.len(), SYSTEM_BREAKPOINTS);
    assert!(ra.system.iter().all(|b| b.cache_control.is_some()));
    // The blocks joined are the stable prefix, byte for byte; the first is
    // the Global + Project part (and the separator after it), the same for both.
    let joined: String = ra.system.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(joined, a.stable());
    let shared = a.trace().shared_prefix(Scope::Project);
    assert_eq!(ra.system[0].text, format!("{}\n\n", &a.stable()[..shared]));
    assert_eq!(ra.system[0], rb.system[0]);
    assert_ne!(ra.system[1], rb.system[1]);
    assert!(ra.system[1].text.starts_with("# User preferences"));
    insta::assert_snapshot!(serde_json::to_string_pretty(&outline(&ra)).unwrap());

    // A model whose minimum the Global + Project part does not reach gets
    // one breakpoint, at the end, as before.
    let small = MessagesRequest::new(&a, "claude-opus-4-5", 1024);
    assert_eq!(small.system.len(), 1);
}

/// OpenAI's explicit breakpoints (GPT-5.6 and later) fall where the
/// Anthropic request's do: one placement rule for both.
#[test]
fn the_openai_request_breaks_where_the_anthropic_one_does() {
    use prompt_providers::Message;
    use prompt_providers::anthropic::MessagesRequest;
    use prompt_providers::openai::{ChatRequest, MAX_BREAKPOINT_WRITES, ResponsesRequest};

    let ws = sentry_workspace();
    let (alice, bob) = (home("Answer in English."), home("Answer in German."));
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let a = render(&pipeline, ws.path(), alice.path());
    let b = render(&pipeline, ws.path(), bob.path());
    let anthropic = MessagesRequest::new(&a, "claude-sonnet-4-5", 1024);
    let cut = anthropic.system[0].text.len();
    let responses = |prompt: &AssembledPrompt| {
        ResponsesRequest::new(prompt, "gpt-5.6").message(Message::user("Fix the failing test."))
    };
    let (ra, rb) = (responses(&a), responses(&b));
    assert_eq!(ra.breakpoints(), [cut, a.stable().len()]);
    assert_eq!(
        ChatRequest::new(&a, "gpt-5.6").breakpoints(),
        ra.breakpoints()
    );
    // Two explicit writes and OpenAI's implicit one: within the limit.
    assert!(ra.breakpoints().len() < MAX_BREAKPOINT_WRITES);
    let (ja, jb) = (
        serde_json::to_value(&ra).unwrap(),
        serde_json::to_value(&rb).unwrap(),
    );
    let parts = |body: &serde_json::Value| body["input"][0]["content"].as_array().unwrap().clone();
    let (pa, pb) = (parts(&ja), parts(&jb));
    // No turn facts here, so no dynamic suffix: two parts, both marked.
    assert_eq!(a.dynamic(), "");
    assert_eq!(pa.len(), 2);
    assert!(
        pa.iter()
            .all(|p| p["prompt_cache_breakpoint"]["mode"] == "explicit")
    );
    // The Global + Project part is the same for both teammates, byte for byte.
    assert_eq!(pa[0], pb[0]);
    assert_eq!(pa[0]["text"], anthropic.system[0].text);
    assert_ne!(pa[1], pb[1]);
    assert!(
        pa[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("# User preferences")
    );
}

/// The key follows the widest scope's part only (the Global layers): an
/// edit of a narrower scope, such as another repository's AGENTS.md, keeps
/// the routing of the Global part, which that repository reads too.
#[test]
fn teammates_and_other_repositories_share_one_openai_cache_key() {
    use prompt_providers::openai::prompt_cache_key;

    let ws = sentry_workspace();
    let (alice, bob) = (home("Answer in English."), home("Answer in German."));
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let a = render(&pipeline, ws.path(), alice.path());
    let b = render(&pipeline, ws.path(), bob.path());
    assert_ne!(a.stable(), b.stable());
    assert_eq!(prompt_cache_key(&a), prompt_cache_key(&b));
    let shared = a.trace().shared_prefix(Scope::Global);
    assert!(shared > 0 && shared < a.trace().shared_prefix(Scope::Project));
    assert_eq!(
        prompt_cache_key(&a),
        format!(
            "standard-{}",
            prompt_core::fingerprint::Fingerprint::of(&a.stable()[..shared]).short()
        )
    );

    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("AGENTS.md"), "Run the tests.\n").unwrap();
    let c = render(&pipeline, other.path(), alice.path());
    assert_ne!(
        a.stable()[..a.trace().shared_prefix(Scope::Project)],
        c.stable()[..c.trace().shared_prefix(Scope::Project)]
    );
    assert_eq!(prompt_cache_key(&a), prompt_cache_key(&c));
}

#[test]
fn the_team_simulation_reads_what_a_teammate_wrote_and_only_at_a_breakpoint() {
    use prompt_core::tokens::ApproxCounter;
    use prompt_providers::simulation::{SimulationError, TeamPrefix, TeamSimulation};

    let ws = sentry_workspace();
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let homes: Vec<_> = [
        "Answer in English.",
        "Answer in German.",
        "Answer in English.",
    ]
    .into_iter()
    .map(home)
    .collect();
    let prompts: Vec<_> = homes
        .iter()
        .map(|h| render(&pipeline, ws.path(), h.path()))
        .collect();
    let simulation = TeamSimulation::new("claude-sonnet-4-5");
    let team: Vec<TeamPrefix> = prompts
        .iter()
        .enumerate()
        .map(|(i, p)| simulation.prefix(format!("user {i}"), p, &ApproxCounter))
        .collect();
    let report = simulation.run(&team, &ApproxCounter).unwrap();
    let shared = prompts[0].trace().shared_prefix(Scope::Project);
    let [first, second, third] = &report.users[..] else {
        panic!()
    };
    assert_eq!(
        (first.scoped.bytes_read, first.scoped.bytes_written),
        (0, prompts[0].stable().len())
    );
    // The second reads the Global + Project block (and its separator).
    assert_eq!(second.scoped.bytes_read, shared + 2);
    assert_eq!(
        second.scoped.bytes_written,
        prompts[1].stable().len() - shared - 2
    );
    // The third has the first one's whole prefix: it reads all of it, either way.
    assert_eq!(third.scoped.bytes_read, prompts[2].stable().len());
    assert_eq!(third.unscoped.bytes_read, prompts[2].stable().len());
    assert_eq!(second.unscoped.bytes_read, 0);
    assert!(report.usd_saved > 0.0 && report.tokens_saved > 0);

    // A model whose minimum the prefix does not reach caches nothing at all.
    let opus = TeamSimulation::new("claude-opus-4-5");
    let team: Vec<TeamPrefix> = prompts
        .iter()
        .map(|p| opus.prefix("u", p, &ApproxCounter))
        .collect();
    let report = opus.run(&team, &ApproxCounter).unwrap();
    assert_eq!(report.scoped.tokens_written + report.scoped.tokens_read, 0);
    assert_eq!(report.tokens_saved, 0);
    assert_eq!(opus.run(&[], &ApproxCounter), Err(SimulationError::NoUsers));
}

#[test]
fn the_contract_notes_what_a_relaxed_order_costs_and_passes_the_standard_pipeline() {
    use prompt_checks::contract::{self, Check, Scenario};

    let relaxed = DefaultPipeline::SPEC.scope_order(ScopeOrder::Relaxed);
    let pipeline = Pipeline::from_layers(
        relaxed,
        [
            entry("persona", 100, Scope::Global, 1),
            entry("user_notes", 200, Scope::User, 2),
            entry("project_docs", 300, Scope::Project, 3),
        ],
    )
    .unwrap();
    let scenarios = [Scenario::new("bare", Context::new())];
    let report = contract::Contract::new(&pipeline, &scenarios)
        .only(&[Check::ScopeSharing])
        .run();
    assert!(report.is_ok(), "{report}");
    let notes: Vec<_> = report
        .notes()
        .iter()
        .filter(|n| n.check == Check::ScopeSharing)
        .collect();
    assert_eq!(notes.len(), 1, "{report}");
    assert_eq!(
        notes[0].subject,
        "layer `project_docs` (app: src/layers.rs:3)"
    );
    assert!(
        notes[0].problem.contains(
            "`project_docs` (Project) follows `user_notes` (User), so the team shares 7 of 33 stable bytes \
             and each teammate writes 12 bytes of Project text again"
        ),
        "{}",
        notes[0].problem
    );
    assert!(
        notes[0]
            .fix
            .contains("move `project_docs`'s priority below `user_notes`'s")
    );

    let ws = sentry_workspace();
    let alice = home("Answer in English.");
    let mut config = SessionConfig::new("agent", ws.path());
    config.home = Some(alice.path().to_path_buf());
    let scenarios = [Scenario::new("sentry", load_session(&config).unwrap())];
    let standard = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let report = contract::Contract::new(&standard, &scenarios)
        .only(&[Check::ScopeSharing])
        .run();
    assert!(report.is_ok() && report.notes().is_empty(), "{report}");
}

#[test]
fn the_diff_of_two_teammates_says_they_differ_only_below_project() {
    use prompt_checks::diff::{StablePrefix, explain};

    let ws = sentry_workspace();
    let (alice, bob) = (home("Answer in English."), home("Answer in German."));
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let a = StablePrefix::of(&render(&pipeline, ws.path(), alice.path())).unwrap();
    let b = StablePrefix::of(&render(&pipeline, ws.path(), bob.path())).unwrap();
    let diff = explain(&a, &b);
    assert_eq!(diff.same_through, Some(Scope::Project));
    assert!(
        diff.to_string().contains(
            "they differ only below scope Project: every Project layer, and every layer of a wider scope, is the same in both"
        ),
        "{diff}"
    );
    assert_eq!(explain(&a, &a).same_through, None);

    // Another repository's docs differ at Project: only the Global part is the same.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("AGENTS.md"), "Run the tests.\n").unwrap();
    let c = StablePrefix::of(&render(&pipeline, other.path(), alice.path())).unwrap();
    assert_eq!(explain(&a, &c).same_through, Some(Scope::Global));
}

#[test]
fn a_basic_prompt_has_no_scope_groups_and_keeps_its_whole_prefix_key() {
    use prompt_providers::openai::prompt_cache_key;

    let ws = sentry_workspace();
    let alice = home("Answer in English.");
    let mut config = SessionConfig::new("agent", ws.path());
    config.home = Some(alice.path().to_path_buf());
    let session = load_session(&config).unwrap();
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let basic = PromptBuilder::new(&pipeline)
        .build_basic(&session, &Context::new())
        .unwrap();
    assert!(basic.trace().scope_groups().is_empty());
    assert_eq!(basic.trace().shared_prefix(Scope::Project), 0);
    assert_eq!(
        prompt_cache_key(&basic),
        format!("standard-{}", basic.trace().stable_fingerprint().short())
    );
}
