//! Vendor formats as rules: a regular expression with ASCII classes, the
//! keywords a text must hold for it to run, and the checks its secret must
//! pass. gitleaks' rules (`gitleaks.rs`) and the crate's own (`formats.rs`)
//! are rules of this one shape and run as one set.

use std::ops::Range;
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use regex::bytes::{Regex, RegexBuilder};

use super::{SecretFinding, SecretKind, formats, gitleaks};

/// Where a rule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    /// `vendor/gitleaks.toml`.
    Gitleaks,
    /// `formats.rs`.
    Own,
}

/// What an allowlist's regular expressions are matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    /// The secret (gitleaks' default).
    Secret,
    /// The whole match of the rule's expression.
    Match,
    /// The lines the match lies on.
    Line,
}

/// Findings a rule's match is not: any regex matching its target, or any
/// stopword (lowercase) inside the secret.
#[derive(Debug)]
pub(super) struct Allowlist {
    pub(super) target: Target,
    pub(super) regexes: Vec<Regex>,
    pub(super) stopwords: Vec<String>,
}

impl Allowlist {
    fn allows(
        &self,
        secret: &[u8],
        matched: &[u8],
        line: impl Fn() -> Range<usize>,
        text: &[u8],
    ) -> bool {
        let target = match self.target {
            Target::Secret => secret,
            Target::Match => matched,
            Target::Line => &text[line()],
        };
        if self.regexes.iter().any(|r| r.is_match(target)) {
            return true;
        }
        if self.stopwords.is_empty() {
            return false;
        }
        let lower = String::from_utf8_lossy(secret).to_lowercase();
        self.stopwords.iter().any(|w| lower.contains(w.as_str()))
    }
}

/// A further check of a rule's secret, given the text and the secret's range.
pub(super) type Check = fn(&[u8], Range<usize>) -> bool;

/// One vendor format.
#[derive(Debug)]
pub(super) struct Rule {
    pub(super) id: String,
    pub(super) kind: SecretKind,
    pub(super) source: Source,
    pub(super) regex: Regex,
    /// Lowercase; the rule runs only on a text holding one (any case).
    /// Empty: it always runs.
    pub(super) keywords: Vec<String>,
    /// The capture group that is the secret; 0: the first group that
    /// matched something, else the whole match (gitleaks' rule).
    pub(super) secret_group: usize,
    /// A secret whose Shannon entropy is at most this is dropped (0: none).
    pub(super) entropy: f64,
    pub(super) allowlists: Vec<Allowlist>,
    pub(super) check: Option<Check>,
}

/// A pattern with Go's RE2 semantics where they differ from the `regex`
/// crate's defaults: `\w`, `\d`, `\s`, `\b` and `(?i)` are ASCII, and the
/// text is read as bytes. A constant pattern that does not compile is a bug
/// the tests catch.
pub(super) fn ascii_regex(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern).unicode(false).build()
}

/// Every rule, and a matcher of every keyword.
pub(super) struct RuleSet {
    rules: Vec<Rule>,
    /// gitleaks' global allowlist: applies to its rules only.
    global: Allowlist,
    keywords: AhoCorasick,
    /// For each keyword of `keywords`, the rules that name it.
    keyword_rules: Vec<Vec<usize>>,
    /// The rules without keywords.
    always: Vec<usize>,
    /// The ids of gitleaks' rules, sorted.
    vendored: Vec<String>,
}

impl RuleSet {
    /// The one set: gitleaks' rules then the crate's own, built at the first
    /// scan.
    pub(super) fn get() -> &'static RuleSet {
        static SET: OnceLock<RuleSet> = OnceLock::new();
        SET.get_or_init(|| {
            let vendored = gitleaks::load();
            let mut rules = vendored.rules;
            rules.extend(formats::rules());
            RuleSet::new(rules, vendored.global)
        })
    }

    fn new(rules: Vec<Rule>, global: Allowlist) -> RuleSet {
        let mut words: Vec<String> = Vec::new();
        let mut keyword_rules: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            if rule.keywords.is_empty() {
                always.push(i);
            }
            for word in &rule.keywords {
                match words.iter().position(|w| w == word) {
                    Some(at) => keyword_rules[at].push(i),
                    None => {
                        words.push(word.clone());
                        keyword_rules.push(vec![i]);
                    }
                }
            }
        }
        let keywords = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&words)
            .unwrap_or_else(|e| panic!("secret keywords: {e}"));
        let mut vendored: Vec<String> = rules
            .iter()
            .filter(|r| r.source == Source::Gitleaks)
            .map(|r| r.id.clone())
            .collect();
        vendored.sort();
        RuleSet {
            rules,
            global,
            keywords,
            keyword_rules,
            always,
            vendored,
        }
    }

    /// The rules, in the order they run.
    pub(super) fn rules(&'static self) -> &'static [Rule] {
        &self.rules
    }

    /// Whether `rule` is one of gitleaks' (the list's name for a format is
    /// preferred to the crate's at the same range).
    pub(super) fn is_vendored(&self, rule: &str) -> bool {
        self.vendored
            .binary_search_by(|id| id.as_str().cmp(rule))
            .is_ok()
    }

    /// Every finding of every rule whose keywords `text` holds.
    pub(super) fn find(&'static self, text: &str, out: &mut Vec<SecretFinding>) {
        let mut run = vec![false; self.rules.len()];
        for &i in &self.always {
            run[i] = true;
        }
        let mut seen = vec![false; self.keyword_rules.len()];
        for found in self.keywords.find_overlapping_iter(text) {
            let word = found.pattern().as_usize();
            if !seen[word] {
                seen[word] = true;
                for &i in &self.keyword_rules[word] {
                    run[i] = true;
                }
            }
        }
        let bytes = text.as_bytes();
        for (rule, _) in self.rules.iter().zip(&run).filter(|(_, run)| **run) {
            self.find_rule(rule, text, bytes, out);
        }
    }

    fn find_rule(
        &self,
        rule: &'static Rule,
        text: &str,
        bytes: &[u8],
        out: &mut Vec<SecretFinding>,
    ) {
        for captures in rule.regex.captures_iter(bytes) {
            let Some(whole) = captures.get(0) else {
                continue;
            };
            let secret = if rule.secret_group > 0 {
                captures.get(rule.secret_group)
            } else {
                (1..captures.len())
                    .filter_map(|g| captures.get(g))
                    .find(|g| !g.is_empty())
            };
            let range = match secret {
                Some(group) => group.range(),
                // gitleaks trims the newlines a match may end with.
                None => trim_newlines(bytes, whole.range()),
            };
            if range.is_empty() {
                continue;
            }
            let value = &bytes[range.clone()];
            if rule.entropy > 0.0 && entropy(value) <= rule.entropy {
                continue;
            }
            let global = (rule.source == Source::Gitleaks).then_some(&self.global);
            let line = || lines_around(bytes, whole.range());
            if global
                .into_iter()
                .chain(&rule.allowlists)
                .any(|a| a.allows(value, whole.as_bytes(), line, bytes))
            {
                continue;
            }
            if rule.check.is_some_and(|check| !check(bytes, range.clone())) {
                continue;
            }
            out.push(SecretFinding {
                kind: rule.kind,
                rule: &rule.id,
                range: char_bounds(text, range),
            });
        }
    }
}

/// `range` without the newlines at either end.
fn trim_newlines(bytes: &[u8], mut range: Range<usize>) -> Range<usize> {
    while range.start < range.end && bytes[range.start] == b'\n' {
        range.start += 1;
    }
    while range.start < range.end && bytes[range.end - 1] == b'\n' {
        range.end -= 1;
    }
    range
}

/// The lines `range` lies on, without their newlines, and at most
/// [`LINE_WINDOW`] bytes on either side of it: a text of one long line with
/// many matches costs linear time.
fn lines_around(bytes: &[u8], range: Range<usize>) -> Range<usize> {
    let floor = range.start.saturating_sub(LINE_WINDOW);
    let ceiling = (range.end + LINE_WINDOW).min(bytes.len());
    let start = bytes[floor..range.start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(floor, |i| floor + i + 1);
    let end = bytes[range.end..ceiling]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(ceiling, |i| range.end + i);
    start..end
}

/// How far [`lines_around`] looks for a line's ends.
const LINE_WINDOW: usize = 1024;

/// `range` widened to the characters it touches: a byte-level match may end
/// inside a multi-byte character.
fn char_bounds(text: &str, range: Range<usize>) -> Range<usize> {
    let mut start = range.start.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = range.end.min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// Shannon entropy in bits per character, as gitleaks computes it.
pub(super) fn entropy(value: &[u8]) -> f64 {
    let mut counts = std::collections::BTreeMap::new();
    let mut total = 0usize;
    for c in String::from_utf8_lossy(value).chars() {
        total += 1;
        *counts.entry(c).or_insert(0usize) += 1;
    }
    counts
        .values()
        .map(|&n| {
            let p = n as f64 / total as f64;
            -p * p.log2()
        })
        .sum()
}
