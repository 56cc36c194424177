//! The one test every crate that declares layers or pipelines gets for free: collect every pipeline the binary holds and check it.

use std::fmt;

use crate::pipeline::{Pipeline, PipelineError, Problem, pipeline_names};

/// Every pipeline of a binary that failed [`check_pipelines`], each with
/// all its problems (both layers' `file:line` for a clash).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub struct PipelinesError {
    /// One error per invalid pipeline, in name order.
    pub pipelines: Vec<PipelineError>,
}

impl fmt::Display for PipelinesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.pipelines.len();
        writeln!(
            f,
            "{n} pipeline{} of this binary {} invalid:",
            if n == 1 { "" } else { "s" },
            if n == 1 { "is" } else { "are" }
        )?;
        for error in &self.pipelines {
            writeln!(f, "{error}")?;
        }
        Ok(())
    }
}

/// Collects every pipeline linked into this binary, and the default one
/// when it has layers, and checks each as [`Pipeline::named`] does: what
/// only the link knows (two crates' layers at one priority or with one name,
/// a layer of one crate out of scope order with another's, a crate a
/// pipeline lists in `require_crates = [..]` that nothing links), named with both
/// `file:line`s. Then checks that each of `crates` (`-` or `_`) has a layer
/// in some pipeline: name the layer crates of an agent whose layers join the
/// default pipeline, so a forgotten `use my_layers as _;` fails here.
///
/// Under `cargo test` it also asks Cargo, without `crates`: a package of the
/// test's own workspace that the test's package depends on, that declares
/// layers, and none of whose layers is linked, fails with the `use` line
/// that links it ([`forgotten_crates`](super::forgotten_crates) says how
/// those packages are found, and when it says nothing).
///
/// One `#[test]` per crate that builds an agent:
///
/// ```standalone_crate
/// use prompt_checks::testing;
/// use prompt_core::prompt_layer;
///
/// #[prompt_layer(priority = 1, stability = Stable, paths = [Basic], text = "Hi.")]
/// struct Hello;
///
/// // #[test]
/// fn every_pipeline_is_valid() {
///     testing::check_pipelines(&[]).unwrap();
/// }
/// # every_pipeline_is_valid();
/// // A crate that is not linked fails with the `use` line that links it.
/// let error = testing::check_pipelines(&["my_layers"]).unwrap_err();
/// assert!(error.to_string().contains("add `use my_layers as _;`"), "{error}");
/// ```
///
/// # Errors
/// Every invalid pipeline, each with all its problems.
pub fn check_pipelines(crates: &[&str]) -> Result<(), PipelinesError> {
    let mut errors = Vec::new();
    let mut valid = Vec::new();
    for name in pipeline_names() {
        match Pipeline::named(name) {
            Ok(pipeline) => valid.push(pipeline),
            // The default pipeline need not have layers: a binary may use
            // declared pipelines only.
            Err(error)
                if name == crate::spec::DEFAULT_PIPELINE
                    && matches!(error.problems.as_slice(), [Problem::Empty { .. }]) => {}
            Err(error) => errors.push(error),
        }
    }
    let mut missing =
        crate::pipeline::missing_crates(crates, valid.iter().flat_map(Pipeline::specs));
    // The workspace's layer crates the test's package needs and nothing
    // here links, found without `crates` (once per process).
    let forgotten: Vec<Problem> = super::forgotten_crates()
        .into_iter()
        .filter(|forgotten| {
            !missing.iter().any(|listed| match (listed, forgotten) {
                (Problem::MissingCrate { name, .. }, Problem::ForgottenCrate { package, .. }) => {
                    name.replace('-', "_") == package.replace('-', "_")
                }
                _ => false,
            })
        })
        .collect();
    missing.extend(forgotten);
    if !missing.is_empty() {
        errors.push(PipelineError::new("every pipeline", missing));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(PipelinesError { pipelines: errors })
    }
}
