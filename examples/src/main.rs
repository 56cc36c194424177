//! `prompt`: the CLI of `prompt_cli` over every pipeline linked into
//! this binary (the standard library's and the three reference agents'),
//! with the reference agents registered for `--agent recursive|aleph|kitsoki`.
//! `prompt --help` lists the subcommands.

use prompt_core::spec::PromptPipeline;
use prompt_examples::agents::Agent;

fn main() -> std::process::ExitCode {
    // The standard pipeline (`prompt_layers::StandardPipeline`, which
    // includes `prompt_layers::Standard`) is this binary's default on
    // purpose: the reference agents' pipelines are chosen with `--agent`.
    prompt_cli::Main::new()
        .agents(&[&Agent::Recursive, &Agent::Aleph, &Agent::Kitsoki])
        .default_pipeline(<prompt_layers::StandardPipeline as PromptPipeline>::SPEC.name)
        .run()
}
