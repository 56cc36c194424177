//! No sentence is stated twice.

use std::collections::{BTreeMap, BTreeSet};

use super::Source;
use super::renders::Renders;
use super::report::{Check, Finding};

/// For each assembly, every sentence of at least `min_words` words, whitespace
/// normalised, that two different sources (layers or extra texts) state.
pub(crate) fn check(
    renders: &Renders<'_>,
    extras: &[(String, String)],
    min_words: usize,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut seen = BTreeSet::new();
    for item in &renders.items {
        let segments = item.segments();
        let mut first_said: BTreeMap<String, Source<'_>> = BTreeMap::new();
        for source in super::sources(&segments, extras) {
            for sentence in sentences(source.text) {
                if sentence.split(' ').count() < min_words {
                    continue;
                }
                match first_said.get(&sentence) {
                    None => {
                        first_said.insert(sentence, source);
                    }
                    Some(first) if first.name == source.name => {}
                    Some(first) => {
                        if !seen.insert((
                            first.name.to_owned(),
                            source.name.to_owned(),
                            sentence.clone(),
                        )) {
                            continue;
                        }
                        findings.push(Finding {
                            check: Check::RepeatedSentence,
                            subject: first.describe(renders),
                            problem: format!(
                                "states {sentence:?}, which {} states too ({})",
                                source.describe(renders),
                                item.at()
                            ),
                            fix: match (first.tool(), source.tool()) {
                                (None, Some(tool)) | (Some(tool), None) => format!(
                                    "a sentence a tool owns belongs in its description only \
                                     (sent only to requests that can call `{tool}`): drop it from `{}`",
                                    if first.tool().is_some() { source.name } else { first.name }
                                ),
                                _ => format!(
                                    "say it once: drop it from `{}` or from `{}`",
                                    first.name, source.name
                                ),
                            },
                        });
                    }
                }
            }
        }
    }
    findings
}

/// The sentences of `text`, whitespace-normalised, without list markers or
/// heading hashes. A blank line, a heading or a list item starts a new
/// sentence; a wrapped line continues one.
pub(crate) fn sentences(text: &str) -> Vec<String> {
    let mut blocks: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        let starts_block = trimmed.is_empty()
            || trimmed.starts_with(['#', '-', '*', '+', '>', '|'])
            || trimmed.starts_with(|c: char| c.is_ascii_digit()) && trimmed.contains(". ");
        if starts_block && !current.is_empty() {
            blocks.push(std::mem::take(&mut current));
        }
        let content = trimmed.trim_start_matches(['#', '-', '*', '+', '>', ' ']);
        if !content.is_empty() {
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(content);
        }
        // A heading is a block of its own.
        if trimmed.starts_with('#') && !current.is_empty() {
            blocks.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        blocks.push(current);
    }
    let mut out = Vec::new();
    for block in blocks {
        let mut sentence = String::new();
        let mut chars = block.chars().peekable();
        while let Some(c) = chars.next() {
            sentence.push(c);
            let ends =
                matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|n| n.is_whitespace());
            if ends {
                push_normalised(&mut out, &sentence);
                sentence.clear();
            }
        }
        push_normalised(&mut out, &sentence);
    }
    out
}

fn push_normalised(out: &mut Vec<String>, sentence: &str) {
    let normal = sentence.split_whitespace().collect::<Vec<_>>().join(" ");
    if !normal.is_empty() {
        out.push(normal);
    }
}

#[cfg(test)]
mod tests {
    use super::sentences;

    #[test]
    fn wrapped_lines_join_and_list_items_and_headings_split() {
        assert_eq!(
            sentences(
                "# Rules\nRun the tests\n  before you commit. Then push!\n- one item\n- two items"
            ),
            [
                "Rules",
                "Run the tests before you commit.",
                "Then push!",
                "one item",
                "two items"
            ]
        );
    }

    #[test]
    fn a_dot_inside_a_word_does_not_end_a_sentence() {
        assert_eq!(
            sentences("Read AGENTS.md first. Ok"),
            ["Read AGENTS.md first.", "Ok"]
        );
    }
}
