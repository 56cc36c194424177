//! Per-run values never sit in the stable prefix.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

use super::renders::Renders;
use super::report::{Check, Finding};
use crate::spec::Stability;

/// A kind of value that looks like it changes between runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Volatile {
    /// `2026-11-29`, `11/29/2026`, `Nov 29, 2026`.
    Date,
    /// `14:05`, `14:05:09`, `2:05 PM`.
    Time,
    /// `123e4567-e89b-12d3-a456-426614174000`.
    Uuid,
    /// 12 or more hex digits with a digit and a letter: a commit, a hash, a token.
    HexDigest,
    /// A number of 9 or more digits (an epoch timestamp, a sequence id), or
    /// `turn #3`, `request #12`.
    Counter,
}

impl Volatile {
    /// Every kind, in report order.
    pub const ALL: &'static [Volatile] = &[
        Volatile::Date,
        Volatile::Time,
        Volatile::Uuid,
        Volatile::HexDigest,
        Volatile::Counter,
    ];

    /// The kebab-case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Volatile::Date => "date",
            Volatile::Time => "time",
            Volatile::Uuid => "uuid",
            Volatile::HexDigest => "hex-digest",
            Volatile::Counter => "counter",
        }
    }

    /// The first match of this kind in `text`, if any.
    ///
    /// ```
    /// use prompt_checks::contract::Volatile;
    ///
    /// assert_eq!(Volatile::Date.find("Today is 2026-11-29."), Some("2026-11-29"));
    /// assert_eq!(Volatile::Time.find("It is 14:05 now"), Some("14:05"));
    /// assert_eq!(Volatile::HexDigest.find("at commit 9f2c1e7ab34d0c1f"), Some("9f2c1e7ab34d0c1f"));
    /// assert_eq!(Volatile::Counter.find("This is turn #7."), Some("turn #7"));
    /// assert_eq!(Volatile::Counter.find("Keep answers under 200 words."), None);
    /// ```
    pub fn find(self, text: &str) -> Option<&str> {
        self.matches(text).next()
    }

    fn matches(self, text: &str) -> impl Iterator<Item = &str> {
        let hex = self == Volatile::HexDigest;
        regex(self)
            .find_iter(text)
            .map(|m| m.as_str())
            .filter(move |m| {
                // A digest mixes digits and letters; all digits is a counter, all letters a word.
                !hex || (m.bytes().any(|b| b.is_ascii_digit())
                    && m.bytes().any(|b| b.is_ascii_alphabetic()))
            })
    }
}

impl fmt::Display for Volatile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

fn regex(kind: Volatile) -> &'static Regex {
    static REGEXES: OnceLock<Vec<Regex>> = OnceLock::new();
    let all = REGEXES.get_or_init(|| {
        [
            r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{4}\b|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}, \d{4}\b",
            r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp][Mm]\b)?",
            r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            r"\b[0-9a-fA-F]{12,}\b",
            r"\b\d{9,}\b|(?i)\b(?:turn|call|request|attempt|iteration|session|message)\s*#\s*\d+",
        ]
        .into_iter()
        .map(|pattern| Regex::new(pattern).expect("the built-in patterns are valid"))
        .collect()
    });
    &all[kind as usize]
}

/// A Stable layer's permission to state a value of one [`Volatile`] kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowance {
    pub(crate) layer: String,
    pub(crate) kind: Volatile,
    pub(crate) reason: String,
}

/// Failures: each Stable layer stating a volatile-looking value it is not allowed.
pub(crate) fn check(renders: &Renders<'_>, allowances: &[Allowance]) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut seen = BTreeSet::new();
    for allowance in allowances {
        if allowance.reason.trim().is_empty() || renders.pipeline.layer(&allowance.layer).is_none()
        {
            findings.push(Finding {
                check: Check::VolatileValue,
                subject: format!("the allowance of {} for layer `{}`", allowance.kind, allowance.layer),
                problem: if allowance.reason.trim().is_empty() {
                    "has no reason".to_owned()
                } else {
                    format!("names a layer pipeline `{}` does not have", renders.pipeline.name())
                },
                fix: "name a layer of this pipeline and say why the value is the same on every call of a session".to_owned(),
            });
        }
    }
    for item in &renders.items {
        for segment in item.segments() {
            let layer = segment.layer;
            if layer.stability != Stability::Stable || layer.silent {
                continue;
            }
            for &kind in Volatile::ALL {
                if allowances
                    .iter()
                    .any(|a| a.layer == layer.name && a.kind == kind)
                {
                    continue;
                }
                let found: Vec<&str> = kind.matches(segment.text).take(3).collect();
                if found.is_empty() || !seen.insert((layer.name, kind)) {
                    continue;
                }
                findings.push(Finding {
                    check: Check::VolatileValue,
                    subject: renders.layer(layer.name),
                    problem: format!(
                        "states {} ({}) in the stable prefix ({}): a value that changes between runs busts the prompt cache",
                        found.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", "),
                        article(kind),
                        item.at()
                    ),
                    fix: format!(
                        "move the value into a Dynamic layer; if it really is the same on every call of a session, \
                         allow it: `.allow(\"{}\", Volatile::{:?}, \"why it is stable\")`",
                        layer.name, kind
                    ),
                });
            }
        }
    }
    findings
}

fn article(kind: Volatile) -> &'static str {
    match kind {
        Volatile::Date => "a date",
        Volatile::Time => "a time",
        Volatile::Uuid => "a UUID",
        Volatile::HexDigest => "a hex digest",
        Volatile::Counter => "a counter-like number",
    }
}
