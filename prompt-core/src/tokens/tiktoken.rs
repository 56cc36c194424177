//! Exact counters for OpenAI's encodings, through `tiktoken-rs`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use tiktoken_rs::CoreBPE;

use super::{ApproxCounter, TokenCounter};

/// Exact token counts in OpenAI's `o200k_base` encoding (GPT-4o, GPT-4.1,
/// o-series, GPT-5).
///
/// The encoder is built once per process, on first use, and shared; each
/// count then only encodes. Special-token text such as `<|endoftext|>` counts
/// as ordinary text, as it does when a file contains it.
///
/// Exact for text without a run of more than 256 bytes of non-whitespace
/// (or of whitespace): prose, code, Markdown. A longer run (a key, base64
/// data, a planted 16 KiB word) is counted from its first 256 bytes, scaled
/// to its length, so its cost stays bounded whatever its length; for runs
/// of one shape the estimate is within 5%, or one token per 128 bytes of
/// the run (a run of spaces is overestimated).
///
/// ```
/// use prompt_core::tokens::{O200kBase, TokenCounter};
///
/// assert_eq!(O200kBase.count("hello world"), 2);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct O200kBase;

/// Exact token counts in OpenAI's `cl100k_base` encoding (GPT-4, GPT-3.5
/// Turbo, `text-embedding-3`).
///
/// Built once per process, like [`O200kBase`].
///
/// ```
/// use prompt_core::tokens::{Cl100kBase, TokenCounter};
///
/// assert_eq!(Cl100kBase.count("hello world"), 2);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cl100kBase;

impl TokenCounter for O200kBase {
    fn count(&self, text: &str) -> usize {
        exact(tiktoken_rs::o200k_base_singleton(), text, self.name())
    }

    fn name(&self) -> &'static str {
        "o200k_base"
    }

    /// Line starts: each offset just after a `\n` whose next character is
    /// neither whitespace nor `/`. No piece the encoder splits text into
    /// crosses one, so the counts on both sides add up to the whole's.
    fn cuts(&self, text: &str, cuts: &mut Vec<usize>) {
        line_cuts(text, cuts);
    }
}

impl TokenCounter for Cl100kBase {
    fn count(&self, text: &str) -> usize {
        exact(tiktoken_rs::cl100k_base_singleton(), text, self.name())
    }

    fn name(&self) -> &'static str {
        "cl100k_base"
    }

    /// Line starts: each offset just after a `\n` whose next character is
    /// neither whitespace nor `/`. No piece the encoder splits text into
    /// crosses one, so the counts on both sides add up to the whole's.
    fn cuts(&self, text: &str, cuts: &mut Vec<usize>) {
        line_cuts(text, cuts);
    }
}

/// The line starts of `text` where both encodings' counts add up: each
/// offset just after a `\n` whose next character is neither whitespace nor
/// `/`.
///
/// The encoder first splits text into pieces with a pattern, then encodes
/// each piece alone. No piece of either pattern holds a line break followed
/// by such a character: letters take no line break before them, a run of
/// whitespace ends at its last line break when a non-space follows, and
/// `o200k_base`'s punctuation piece may end in line breaks and slashes
/// (hence the `/`). So the pieces on each side of the cut are the pieces of
/// the whole, and so are their tokens; the long runs [`bounded_count`] sets
/// apart never cross such a cut either. The tests check the sums against
/// the encoder on real files and on random text of the characters that
/// matter.
fn line_cuts(text: &str, cuts: &mut Vec<usize>) {
    cuts.extend(
        text.match_indices('\n')
            .map(|(at, _)| at + 1)
            .filter(|&at| {
                text[at..]
                    .chars()
                    .next()
                    .is_some_and(|c| !c.is_whitespace() && c != '/')
            }),
    );
}

/// The longest run of non-whitespace (or of whitespace) characters, in
/// bytes, that is encoded whole; a longer run is counted from its first
/// `MAX_RUN` bytes (see [`exact`]).
///
/// Prose is cheap to encode because most of its words are whole tokens of
/// the table; a run of letters, digits or symbols that is not (a key, a
/// hash, base64, or a 16 KiB word planted in AGENTS.md) goes through
/// byte-pair merging byte by byte, several times slower per byte. Text whose
/// runs are all at most this long (prose, code, Markdown, anything a
/// person writes) is counted exactly.
pub(crate) const MAX_RUN: usize = 256;

/// One part of a text to count.
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    /// Text whose runs are all at most [`MAX_RUN`] bytes: encoded whole.
    Text(&'a str),
    /// One run (of non-whitespace, or of whitespace) longer than [`MAX_RUN`].
    Run(&'a str),
}

/// `text` as [`Piece`]s: each run longer than [`MAX_RUN`] bytes on its own,
/// the text between them whole (all of `text` when no run is that long).
fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut runs = Vec::new();
    let mut run_start = 0;
    let mut run_space = None;
    for (at, c) in text.char_indices() {
        let space = c.is_whitespace();
        if run_space != Some(space) {
            runs.push(run_start..at);
            run_space = Some(space);
            run_start = at;
        }
    }
    runs.push(run_start..text.len());
    let mut out = Vec::new();
    let mut start = 0;
    for run in runs.into_iter().filter(|run| run.len() > MAX_RUN) {
        if start < run.start {
            out.push(Piece::Text(&text[start..run.start]));
        }
        start = run.end;
        out.push(Piece::Run(&text[run]));
    }
    if start < text.len() {
        out.push(Piece::Text(&text[start..]));
    }
    out
}

/// The tokens of `text`: each [`Piece::Text`] encoded exactly; each
/// [`Piece::Run`] counted from its first [`MAX_RUN`] bytes, scaled to its
/// length and rounded up. A run's cost is then bounded whatever its length;
/// its count is an estimate (for a run of one shape, as keys, hashes and
/// base64 are, within a few percent: the tests bound it).
fn bounded_count(bpe: &CoreBPE, text: &str) -> usize {
    pieces(text)
        .into_iter()
        .map(|piece| match piece {
            Piece::Text(text) => bpe.encode_ordinary(text).len(),
            Piece::Run(run) => {
                let mut head = MAX_RUN;
                while !run.is_char_boundary(head) {
                    head -= 1;
                }
                let sampled = bpe.encode_ordinary(&run[..head]).len();
                (sampled * run.len()).div_ceil(head)
            }
        })
        .sum()
}

/// Counts `text` with [`bounded_count`]; falls back to the approximate count
/// if the encoder panics.
///
/// `tiktoken-rs` unwraps its pre-tokenizer regex's result, which fails on a
/// backtracking limit for some adversarial inputs. Prompt text comes from
/// files the user did not write, so a count must not take the process down.
fn exact(bpe: &'static CoreBPE, text: &str, name: &'static str) -> usize {
    if text.is_empty() {
        return 0;
    }
    match catch_unwind(AssertUnwindSafe(|| bounded_count(bpe, text))) {
        Ok(count) => count,
        Err(_) => {
            let approx = ApproxCounter.count(text);
            tracing::warn!(
                target: "prompt_core::tokens",
                encoding = name,
                bytes = text.len(),
                approx,
                "the {name} encoder failed on this text; counted it approximately instead",
            );
            approx
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text without a run over `MAX_RUN` bytes is one piece, counted
    /// exactly; each longer run is a piece of its own, and the pieces are
    /// the text.
    #[test]
    fn only_long_runs_are_set_apart() {
        let prose = "The agent reads AGENTS.md and runs the tests.\n".repeat(500);
        assert_eq!(pieces(&prose), [Piece::Text(&prose)]);
        let word = "\u{e9}".repeat(300);
        let text = format!("start {word} end{}", " ".repeat(400));
        let spaces = " ".repeat(400);
        assert_eq!(
            pieces(&text),
            [
                Piece::Text("start "),
                Piece::Run(&word),
                Piece::Text(" end"),
                Piece::Run(&spaces),
            ]
        );
        assert_eq!(pieces(""), []);
        let exactly = "a".repeat(MAX_RUN);
        assert_eq!(pieces(&exactly), [Piece::Text(&exactly)]);
    }

    /// Ordinary text (the vendored real AGENTS.md, CLAUDE.md and SKILL.md
    /// files, and generated prose and code) is counted exactly: the bounded
    /// count equals the encoder's.
    #[test]
    fn ordinary_text_is_counted_exactly() {
        let bpe = tiktoken_rs::o200k_base_singleton();
        let real = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/real");
        let mut texts = vec![
            "fn main() {\n    println!(\"hello\");\n}\n".repeat(200),
            "- Run `cargo test` before pushing; keep functions short.\n".repeat(200),
        ];
        let mut stack = vec![real];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if let Ok(text) = std::fs::read_to_string(&path) {
                    texts.push(text);
                }
            }
        }
        assert!(texts.len() > 5, "the real fixtures are there");
        for text in &texts {
            let whole = bpe.encode_ordinary(text).len();
            assert_eq!(bounded_count(bpe, text), whole);
            assert_eq!(by_line_cuts(bpe, text), whole);
        }
    }

    /// The count of `text` as the sum of its pieces between [`line_cuts`].
    fn by_line_cuts(bpe: &CoreBPE, text: &str) -> usize {
        let mut cuts = Vec::new();
        line_cuts(text, &mut cuts);
        let mut start = 0;
        let mut sum = 0;
        for cut in cuts.into_iter().chain([text.len()]) {
            sum += bounded_count(bpe, &text[start..cut]);
            start = cut;
        }
        sum
    }

    proptest::proptest! {
        /// Counting the pieces between line cuts apart gives the encoder's
        /// count of the whole, in both encodings, for text of the characters
        /// the encoders' patterns treat apart: letters of each case and
        /// script, a combining mark, digits, apostrophes, slashes,
        /// punctuation, emoji, and every kind of space and line break.
        #[test]
        fn counts_add_up_at_line_cuts(
            chars in proptest::collection::vec(proptest::sample::select(vec![
                'a', 's', 'Z', '\u{e9}', '\u{301}', '\u{6771}', '\u{30d5}', '\u{d55c}',
                '\u{1f389}', '\u{fe0f}', '1', '7', '\'', '/', '.', ';', '#', '-', '"',
                ' ', '\t', '\n', '\r', '\u{a0}', '\u{3000}',
            ]), 0..160)
        ) {
            let text: String = chars.into_iter().collect();
            for bpe in [tiktoken_rs::o200k_base_singleton(), tiktoken_rs::cl100k_base_singleton()] {
                proptest::prop_assert_eq!(by_line_cuts(bpe, &text), bpe.encode_ordinary(&text).len());
            }
        }
    }

    /// Cuts fall after a line break, before a character that is neither
    /// whitespace nor a slash, and only there.
    #[test]
    fn line_cuts_fall_at_line_starts_only() {
        let mut cuts = Vec::new();
        line_cuts("a\nb\n\nc\n d\n/e\n\u{6771}\n", &mut cuts);
        assert_eq!(cuts, [2, 5, 13]);
    }

    /// A long run is estimated from its head: for runs of one shape (a
    /// letter repeated, hex, base64, mixed-case letters, symbols, spaces),
    /// 4 KiB each inside prose, the estimate is within 5% of the exact
    /// count of the whole text, or one token per 128 bytes of the run.
    #[test]
    fn a_long_run_is_estimated_within_a_stated_bound() {
        let bpe = tiktoken_rs::o200k_base_singleton();
        let stream = |alphabet: &[u8]| -> String {
            let mut x: u64 = 0x2545_f491_4f6c_dd1d;
            (0..4096)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    alphabet[(x % alphabet.len() as u64) as usize] as char
                })
                .collect()
        };
        for run in [
            "a".repeat(4096),
            stream(b"0123456789abcdef"),
            stream(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"),
            stream(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
            stream(b"!#$%&*+-./:;<=>?@^_|~"),
            " ".repeat(4096),
        ] {
            let text = format!("Use this key:\n{run}\nand keep it safe.");
            let exact = bpe.encode_ordinary(&text).len();
            let bounded = bounded_count(bpe, &text);
            // 5% of the count, or one token per 128 bytes of the run
            // (a run of spaces: tiktoken has tokens for long ones, so the
            // head's rate overestimates, the safe side for a budget).
            let bound = (exact * 5 / 100).max(run.len() / 128);
            assert!(
                bounded.abs_diff(exact) <= bound,
                "{bounded} against {exact} for {:?}...",
                &run[..16]
            );
        }
    }
}
