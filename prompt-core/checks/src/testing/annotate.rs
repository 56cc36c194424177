//! The annotated rendering of a prompt, for snapshot review.

use std::fmt::Write as _;

use super::segments::{SegmentError, segments};
use crate::assembly::AssembledPrompt;
use crate::spec::{AssemblyPath, Channel, Stability};

/// The prompt's text with a marker line before each layer (name, stability,
/// priority, bytes), the cache breakpoint between the stable prefix and the
/// dynamic suffix, and the silent layers listed at the end.
///
/// Marker lines start with `@@`, like a diff hunk, so they stand out from the
/// prompt's own Markdown. Between markers is what the layer wrote: in `cargo
/// insta review`, a changed line shows which layer it belongs to. Only marker
/// lines start with `@@`: a line of a layer's text that starts with `@@`
/// (after any backslashes) is shown with one more leading `\`, so text (a
/// file's, say) can never forge a marker or a second cache breakpoint, and
/// removing one `\` from such lines gives the text back.
///
/// ```standalone_crate
/// use prompt_core::{prompt_layer, Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render, Stable};
/// use prompt_core::pipeline::LayerEntry;
/// use prompt_checks::testing::annotate;
///
/// /// The pipeline of this example.
/// #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
/// struct Doc;
/// #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "Be brief.", pipeline = Doc)]
/// struct Brief;
/// #[prompt_layer(priority = 2, stability = Stable, paths = [Cached], pipeline = Doc, silent = "a session with notes")]
/// struct Quiet;
/// impl Render<Stable> for Quiet {
///     fn render(&self, _out: &mut LayerWriter<'_>, _input: &LayerInput<'_, Stable>) {}
/// }
/// #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], text = "Turn 3.", pipeline = Doc)]
/// struct Turn;
///
/// let pipeline = Pipeline::of::<Doc>().unwrap();
/// let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new()).unwrap();
/// assert_eq!(annotate(&prompt).unwrap(), "\
/// @@ pipeline `doc` · cached · full · stable 9 B · dynamic 7 B
/// @@ brief · stable · priority 1 · 9 B
/// Be brief.
/// @@ ======== cache breakpoint: stable prefix above, dynamic suffix below ========
/// @@ turn · dynamic · priority 10000 · 7 B
/// Turn 3.
/// @@ silent: quiet
/// ");
/// ```
pub fn annotate(prompt: &AssembledPrompt) -> Result<String, SegmentError> {
    let trace = prompt.trace();
    let mut out = String::new();
    let _ = match trace.path {
        AssemblyPath::Cached => writeln!(
            out,
            "@@ pipeline `{}` · {} · {} · stable {} B · dynamic {} B",
            trace.pipeline, trace.path, trace.mode, trace.stable_bytes, trace.dynamic_bytes
        ),
        AssemblyPath::Basic => writeln!(
            out,
            "@@ pipeline `{}` · {} · {} · {} B, one part, nothing cached",
            trace.pipeline,
            trace.path,
            trace.mode,
            prompt.dynamic().len()
        ),
    };
    let mut in_stable = trace.path == AssemblyPath::Cached;
    let segments = segments(prompt)?;
    let (system, reminder): (Vec<_>, Vec<_>) = segments
        .into_iter()
        .partition(|s| s.layer.channel == Channel::System);
    for segment in system {
        let layer = segment.layer;
        if in_stable && layer.stability == Stability::Dynamic {
            out.push_str(BREAKPOINT);
            in_stable = false;
        }
        if layer.silent {
            continue;
        }
        let _ = writeln!(
            out,
            "@@ {} · {} · priority {} · {} B",
            layer.name, layer.stability, layer.priority, layer.bytes
        );
        push_text(&mut out, segment.text);
    }
    if in_stable {
        out.push_str(BREAKPOINT);
    }
    if let Some((budget, notice)) = trace
        .budget
        .as_ref()
        .and_then(|b| b.notice.as_ref().map(|n| (b, n)))
    {
        let _ = writeln!(
            out,
            "@@ budget notice · {} → {} of {}",
            budget.before, budget.after, budget.budget
        );
        push_text(&mut out, notice);
    }
    let spoken: Vec<_> = reminder.iter().filter(|s| !s.layer.silent).collect();
    if !spoken.is_empty() {
        out.push_str(
            "@@ ======== reminder: sent in the last user message, not the system prompt ========\n",
        );
        for segment in spoken {
            let layer = segment.layer;
            let _ = writeln!(
                out,
                "@@ {} · {} · priority {} · {} B",
                layer.name, layer.stability, layer.priority, layer.bytes
            );
            push_text(&mut out, segment.text);
        }
    }
    let silent: Vec<&str> = trace.silent().collect();
    if !silent.is_empty() {
        let _ = writeln!(out, "@@ silent: {}", silent.join(", "));
    }
    Ok(out)
}

const BREAKPOINT: &str =
    "@@ ======== cache breakpoint: stable prefix above, dynamic suffix below ========\n";

/// `text` on its own lines, ending in a newline, each line that starts with
/// `@@` after any backslashes given one more `\\` (see [`annotate`]).
fn push_text(out: &mut String, text: &str) {
    for line in text.split_inclusive('\n') {
        if line.trim_start_matches('\\').starts_with("@@") {
            out.push('\\');
        }
        out.push_str(line);
    }
    if !text.ends_with('\n') {
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::push_text;

    #[test]
    fn only_marker_lines_start_with_at_at() {
        let mut out = String::new();
        push_text(
            &mut out,
            "a\n@@ ======== cache breakpoint ========\n\\@@ x\n @@ y\nb@@",
        );
        assert_eq!(
            out,
            "a\n\\@@ ======== cache breakpoint ========\n\\\\@@ x\n @@ y\nb@@\n"
        );
    }
}
