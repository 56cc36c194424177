//! Which bytes of an assembled prompt each layer wrote.

use crate::assembly::{AssembledPrompt, LayerTrace};
use crate::spec::{AssemblyPath, Channel, Stability};

/// One layer's text inside an [`AssembledPrompt`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment<'a> {
    /// The layer's trace (name, priority, stability, bytes, ...).
    pub layer: &'a LayerTrace,
    /// Exactly the bytes the layer wrote (empty when it was silent).
    pub text: &'a str,
}

/// The trace of a prompt does not tile its text: the prompt was edited after
/// assembly, or read from a JSON file that was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "cannot split the {part} text into layers: {problem}; was the prompt (or its JSON) edited after assembly? Assemble it again"
)]
pub struct SegmentError {
    part: &'static str,
    problem: String,
}

/// Every layer of `prompt` with the text it wrote, in render order (silent
/// layers included, with empty text).
///
/// The trace records each layer's bytes and the layers are joined with one
/// separator, so the boundaries are exact: joining the non-empty segments of
/// a part with the separator gives the part back.
///
/// ```standalone_crate
/// use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder};
/// use prompt_core::pipeline::LayerEntry;
/// use prompt_checks::testing::segments;
///
/// /// The pipeline of this example.
/// #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
/// struct Doc;
/// #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "Be brief.", pipeline = Doc)]
/// struct Brief;
/// #[prompt_layer(priority = 2, stability = Stable, paths = [Cached], text = "Cite files.", pipeline = Doc)]
/// struct Cite;
///
/// let pipeline = Pipeline::of::<Doc>().unwrap();
/// let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new()).unwrap();
/// let texts: Vec<(&str, &str)> = segments(&prompt).unwrap().iter().map(|s| (s.layer.name, s.text)).collect();
/// assert_eq!(texts, [("brief", "Be brief."), ("cite", "Cite files.")]);
/// ```
pub fn segments(prompt: &AssembledPrompt) -> Result<Vec<Segment<'_>>, SegmentError> {
    let trace = prompt.trace();
    let layers = &trace.layers;
    let mut out = Vec::with_capacity(layers.len());
    let (system, reminder): (Vec<&LayerTrace>, Vec<&LayerTrace>) =
        layers.iter().partition(|l| l.channel == Channel::System);
    // A budget's notice closes the system text; it belongs to no layer.
    let notice = trace
        .budget
        .as_ref()
        .and_then(|b| b.notice.as_deref())
        .unwrap_or("");
    match prompt.path() {
        AssemblyPath::Basic => {
            let text = strip_notice(prompt.dynamic(), notice, prompt.separator(), "prompt")?;
            push_split(&mut out, "prompt", text, &system)?;
        }
        AssemblyPath::Cached => {
            let (stable, dynamic): (Vec<&LayerTrace>, Vec<&LayerTrace>) = system
                .into_iter()
                .partition(|l| l.stability == Stability::Stable);
            push_split(&mut out, "stable", prompt.stable(), &stable)?;
            let text = strip_notice(prompt.dynamic(), notice, prompt.separator(), "dynamic")?;
            push_split(&mut out, "dynamic", text, &dynamic)?;
        }
    }
    push_split(
        &mut out,
        "reminder",
        prompt.reminder().unwrap_or(""),
        &reminder,
    )?;
    // Back into render order: reminder layers sit among the Dynamic ones.
    out.sort_by_key(|segment| {
        layers
            .iter()
            .position(|l| std::ptr::eq(l, segment.layer))
            .unwrap_or(usize::MAX)
    });
    Ok(out)
}

/// `text` without the budget's `notice` (and the separator before it) at its end.
fn strip_notice<'a>(
    text: &'a str,
    notice: &str,
    separator: &str,
    part: &'static str,
) -> Result<&'a str, SegmentError> {
    if notice.is_empty() {
        return Ok(text);
    }
    let Some(body) = text.strip_suffix(notice) else {
        return Err(SegmentError {
            part,
            problem: "the trace records a budget notice the text does not end with".to_owned(),
        });
    };
    Ok(body.strip_suffix(separator).unwrap_or(body))
}

fn push_split<'a>(
    out: &mut Vec<Segment<'a>>,
    part: &'static str,
    text: &'a str,
    layers: &[&'a LayerTrace],
) -> Result<(), SegmentError> {
    let sizes: Vec<usize> = layers.iter().map(|l| l.bytes).collect();
    let texts = split(text, &sizes).map_err(|problem| SegmentError { part, problem })?;
    out.extend(
        layers
            .iter()
            .zip(texts)
            .map(|(layer, text)| Segment { layer, text }),
    );
    Ok(())
}

/// Splits `text` into pieces of `sizes` bytes (0: an empty piece that takes
/// no separator), with one and the same separator between non-empty pieces.
pub(crate) fn split<'a>(text: &'a str, sizes: &[usize]) -> Result<Vec<&'a str>, String> {
    let spoken = sizes.iter().filter(|&&b| b > 0).count();
    let written: usize = sizes.iter().sum();
    let gaps = text.len().checked_sub(written).ok_or_else(|| {
        format!(
            "the layers wrote {written} bytes but the text has only {}",
            text.len()
        )
    })?;
    let separator_len = match spoken {
        0 | 1 if gaps == 0 => 0,
        0 | 1 => {
            return Err(format!("{gaps} bytes are not accounted for by any layer"));
        }
        n if gaps % (n - 1) == 0 => gaps / (n - 1),
        n => {
            return Err(format!(
                "{gaps} bytes between {n} layers cannot be one repeated separator"
            ));
        }
    };
    let mut separator: Option<&str> = None;
    let mut pos = 0;
    let mut pieces = Vec::with_capacity(sizes.len());
    let mut left = spoken;
    for &size in sizes {
        if size == 0 {
            pieces.push("");
            continue;
        }
        let piece = slice(text, pos, size)?;
        pieces.push(piece);
        pos += size;
        left -= 1;
        if left > 0 {
            let gap = slice(text, pos, separator_len)?;
            if *separator.get_or_insert(gap) != gap {
                return Err(format!(
                    "the separator at byte {pos} is {gap:?}, not {:?} as before",
                    separator.unwrap_or_default()
                ));
            }
            pos += separator_len;
        }
    }
    Ok(pieces)
}

fn slice(text: &str, start: usize, len: usize) -> Result<&str, String> {
    text.get(start..start + len).ok_or_else(|| {
        format!(
            "bytes {start}..{} are not a character-aligned range of the {}-byte text",
            start + len,
            text.len()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn splits_on_one_separator_and_keeps_empty_pieces() {
        assert_eq!(
            split("ab--c--def", &[2, 0, 1, 3]),
            Ok(vec!["ab", "", "c", "def"])
        );
        assert_eq!(split("", &[0, 0]), Ok(vec!["", ""]));
        assert_eq!(split("abc", &[0, 3]), Ok(vec!["", "abc"]));
    }

    #[test]
    fn rejects_a_text_the_sizes_do_not_tile() {
        assert!(split("ab", &[3]).is_err());
        assert!(split("abc", &[2]).is_err());
        assert!(split("a-b--c", &[1, 1, 1]).is_err());
        assert!(
            split("a-b+c", &[1, 1, 1])
                .unwrap_err()
                .contains("separator")
        );
        // A multi-byte character is never cut.
        assert!(
            split("éa", &[1, 1])
                .unwrap_err()
                .contains("character-aligned")
        );
    }
}
