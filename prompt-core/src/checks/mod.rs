//! The logic and messages of the checks generated code runs at compile time, over `spec` alone.
//!
//! Each check is a `const fn` that returns a [`Msg`]: empty when all is well,
//! else the message the build fails with (generated code panics with it in a
//! `const` item, at the user's span). They read nothing but spec types, so
//! the rules can be unit-tested here and the generated code's seam
//! (`__private_v1`) stays a list of re-exports. The rules the pipeline's
//! run-time validation holds layers to as well (band, order, scope order)
//! are written once, in [`rules`]: what each requires and its words, which
//! both the checks here and the pipeline's `Problem`s fill in.

mod include;
mod included;
mod layer;
mod msg;
pub(crate) mod rules;

pub use include::include_problem;
pub use included::included_clash_problem;
pub(crate) use included::may_clash_in;
pub use layer::{
    band_problem, never_renders_problem, phantom_mode_problem, phantom_path_problem,
    pipeline_alias_problem, relation_problem, scope_relation_problem,
};
pub use msg::Msg;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::__private_v1::error_spec;
    use crate::spec::{
        AssemblyPath, LayerSpec, PipelineSpec, PromptMode, Scope, ScopeOrder, Stability,
    };

    const fn spec(name: &'static str, priority: u32, krate: &'static str) -> LayerSpec {
        LayerSpec::new(name, priority, Stability::Stable).defined_at(krate, "src/lib.rs", 1)
    }

    #[test]
    fn an_order_problem_shows_both_priorities() {
        let problem = relation_problem(
            &spec("memory", 100, "app"),
            &spec("docs", 200, "app"),
            true,
            "Docs",
            &[],
        );
        assert_eq!(
            problem.as_str(),
            "layer `memory` declares `after = [Docs]`, but `docs` has priority 200 and `memory` has 100: \
             move `memory`'s priority above 200, or `docs`'s below 100"
        );
    }

    #[test]
    fn an_order_problem_does_not_suggest_moving_another_crates_layer() {
        let theirs = spec("base_prompt", 1_000, "prompt-layers");
        let problem = relation_problem(
            &spec("persona", 500, "app"),
            &theirs,
            true,
            "BasePromptLayer",
            &[],
        );
        assert_eq!(
            problem.as_str(),
            "layer `persona` declares `after = [BasePromptLayer]`, but `base_prompt` has priority 1000 and `persona` has 500: \
             move `persona`'s priority above 1000 (`base_prompt` is defined in `prompt-layers`)"
        );
    }

    #[test]
    fn a_stub_satisfies_every_relation() {
        let stub = error_spec("persona", "Persona");
        let rules = spec("rules", 50, "app");
        assert!(!relation_problem(&rules, &stub, true, "Persona", &[]).is_some());
        assert!(!relation_problem(&rules, &stub, false, "Persona", &[]).is_some());
        assert!(!relation_problem(&stub, &rules, true, "Rules", &[]).is_some());
        assert!(!band_problem(&stub).is_some());
    }

    #[test]
    fn a_relation_against_scope_order_names_both_layers_and_the_fix() {
        let user = spec("user_notes", 500, "app").scope(Scope::User);
        let project = spec("project_notes", 600, "app").scope(Scope::Project);
        let problem = scope_relation_problem(&project, &user, true, "UserNotes", &[]);
        assert_eq!(
            problem.as_str(),
            "layer `project_notes` declares `after = [UserNotes]`, which puts `project_notes` \
             (Project: shared by everyone on the repository) after `user_notes` (User: one person), \
             but wider scopes come first in the Stable band (Global, Project, User, Session): \
             drop the relation and move `project_notes`'s priority below 500, give one of them \
             another `scope`, or set `scope_order = Relaxed` on the pipeline"
        );
        // The same pair the other way round, and a relaxed pipeline, are fine.
        assert!(!scope_relation_problem(&user, &project, true, "ProjectNotes", &[]).is_some());
        assert!(
            !scope_relation_problem(&project, &user, true, "UserNotes", &[ScopeOrder::Relaxed])
                .is_some()
        );
        assert!(
            scope_relation_problem(
                &user,
                &project,
                false,
                "ProjectNotes",
                &[ScopeOrder::Relaxed, ScopeOrder::Strict]
            )
            .is_some()
        );
        // Equal scopes, or a Dynamic layer, impose nothing.
        assert!(!scope_relation_problem(&user, &user, false, "UserNotes", &[]).is_some());
        let dynamic = LayerSpec::new("clock", 10_000, Stability::Dynamic);
        assert!(!scope_relation_problem(&dynamic, &project, true, "ProjectNotes", &[]).is_some());
    }

    #[test]
    fn numbers_are_written_as_rust_literals() {
        assert_eq!(Msg::NONE.n(0).as_str(), "0");
        assert_eq!(Msg::NONE.n(9_999).as_str(), "9999");
        assert_eq!(Msg::NONE.n(10_000).as_str(), "10_000");
        assert_eq!(Msg::NONE.n(u32::MAX).as_str(), "4_294_967_295");
    }

    #[test]
    fn a_path_one_pipeline_serves_is_no_problem_and_a_phantom_one_is() {
        const BASIC: PipelineSpec = PipelineSpec::new("sub_agent").paths(&[AssemblyPath::Basic]);
        const MAIN: PipelineSpec = PipelineSpec::new("main");
        let both = &[AssemblyPath::Basic, AssemblyPath::Cached];
        // Shared by a Basic-only sub-agent and a main agent: renders in each.
        assert!(
            !never_renders_problem("docs", &BASIC, "SubAgent", both, PromptMode::ALL, &[&BASIC])
                .is_some()
        );
        assert!(
            !phantom_path_problem(
                "docs",
                &[&BASIC, &MAIN],
                &["SubAgent", "Main"],
                AssemblyPath::Cached,
                both
            )
            .is_some()
        );
        let phantom =
            phantom_path_problem("docs", &[&BASIC], &["SubAgent"], AssemblyPath::Cached, both);
        assert!(
            phantom
                .as_str()
                .contains("none of its pipelines (`SubAgent`) serves it"),
            "{}",
            phantom.as_str()
        );
        // Renders in `Main` but never in `SubAgent`: that pipeline's problem.
        let never = never_renders_problem(
            "docs",
            &BASIC,
            "SubAgent",
            &[AssemblyPath::Cached],
            PromptMode::ALL,
            &[&BASIC, &MAIN],
        );
        assert!(
            never
                .as_str()
                .contains("serves only [Basic], but the layer lists paths [Cached]"),
            "{}",
            never.as_str()
        );
    }

    /// `paths = [Cached]` on a layer of a Basic-only pipeline is one mistake:
    /// one error, at the path, that never suggests an empty `paths`.
    #[test]
    fn a_layer_that_renders_in_none_of_its_pipelines_gets_one_error() {
        const BASIC: PipelineSpec = PipelineSpec::new("sub_agent").paths(&[AssemblyPath::Basic]);
        let cached = &[AssemblyPath::Cached];
        assert!(
            !never_renders_problem(
                "docs",
                &BASIC,
                "SubAgent",
                cached,
                PromptMode::ALL,
                &[&BASIC]
            )
            .is_some()
        );
        let one = phantom_path_problem(
            "docs",
            &[&BASIC],
            &["SubAgent"],
            AssemblyPath::Cached,
            cached,
        );
        assert_eq!(
            one.as_str(),
            "layer `docs` lists paths [Cached], but its pipelines (`SubAgent`) serve only [Basic], \
             so the layer would render nowhere: write `paths = [Basic]`, or add it to a pipeline's \
             `#[prompt_pipeline(paths = [..])]`"
        );
        // Two modes none of them serves: one error, at the first.
        const FULL: PipelineSpec = PipelineSpec::new("sub_agent").modes(&[PromptMode::Full]);
        let listed = &[PromptMode::Compact, PromptMode::Minimal];
        assert!(
            phantom_mode_problem("docs", &[&FULL], &["SubAgent"], PromptMode::Compact, listed)
                .is_some()
        );
        assert!(
            !phantom_mode_problem("docs", &[&FULL], &["SubAgent"], PromptMode::Minimal, listed)
                .is_some()
        );
    }
}
