//! `prompt`: the CLI of `prompt_layers::cli` over every pipeline linked into
//! this binary (the standard library's and the three reference agents'),
//! with the reference agents registered for `--agent recursive|aleph|kitsoki`.
//! `prompt --help` lists the subcommands.

use prompt_examples::agents::Agent;

fn main() -> std::process::ExitCode {
    prompt_layers::cli::main_with(&[&Agent::Recursive, &Agent::Aleph, &Agent::Kitsoki])
}
