//! What the contract found: failures that must be fixed, and notes.

use std::fmt;

use serde::Serialize;

/// One of the contract's checks.
///
/// `#[non_exhaustive]`: checks are added over time, so a `match` on one needs
/// a `_` arm. A new check is a variant here, its entry in [`Check::ALL`] and
/// [`Check::as_str`], its file in `contract/`, its arm in `Contract::check`,
/// and its row in the module's table (`ARCHITECTURE.md` lists the files).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Check {
    /// Every scenario, path and mode assembles without an error (no layer panics).
    Builds,
    /// Every layer speaks in some scenario, path and mode, unless declared silent.
    Reachable,
    /// The stable prefix is byte-identical across turns and rebuilds.
    PrefixInvariance,
    /// No sentence of 8 words or more is stated by two layers (or extra texts).
    RepeatedSentence,
    /// No declared environment fact is stated by two layers.
    RepeatedFact,
    /// No date, time, UUID, digest or counter in a Stable layer, unless allowed.
    VolatileValue,
    /// Stable and dynamic bytes stay under, and near, their committed ceilings.
    Ratchet,
    /// No Stable layer writes after a narrower-scoped one (a note where the
    /// pipeline relaxes scope order).
    ScopeSharing,
}

impl Check {
    /// Every check, in report order.
    pub const ALL: &'static [Check] = &[
        Check::Builds,
        Check::Reachable,
        Check::PrefixInvariance,
        Check::RepeatedSentence,
        Check::RepeatedFact,
        Check::VolatileValue,
        Check::Ratchet,
        Check::ScopeSharing,
    ];

    /// The kebab-case name, as reports show it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Check::Builds => "builds",
            Check::Reachable => "reachable",
            Check::PrefixInvariance => "prefix-invariance",
            Check::RepeatedSentence => "repeated-sentence",
            Check::RepeatedFact => "repeated-fact",
            Check::VolatileValue => "volatile-value",
            Check::Ratchet => "ratchet",
            Check::ScopeSharing => "scope-sharing",
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing a check found: which layer, what is wrong, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Finding {
    /// The check that found it.
    pub check: Check,
    /// The layer concerned, with its `file:line` when known, e.g. ``layer `facts` (layers/src/x.rs:9)``.
    pub subject: String,
    /// What is wrong, and where it showed (scenario, path, mode).
    pub problem: String,
    /// What to do about it.
    pub fix: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}] {}: {}\n    fix: {}",
            self.check, self.subject, self.problem, self.fix
        )
    }
}

/// The outcome of a contract run.
///
/// `Display` lists every failure, then every note; [`assert_ok`](Self::assert_ok)
/// panics with that text when there is a failure, for use in tests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    pub(crate) pipeline: String,
    pub(crate) scenarios: Vec<String>,
    pub(crate) assemblies: usize,
    pub(crate) failures: Vec<Finding>,
    pub(crate) notes: Vec<Finding>,
}

impl Report {
    /// Whether no check failed (notes do not count).
    pub fn is_ok(&self) -> bool {
        self.failures.is_empty()
    }

    /// What must be fixed, in check order.
    pub fn failures(&self) -> &[Finding] {
        &self.failures
    }

    /// What is worth knowing but does not fail: a declared-silent layer no
    /// scenario woke, a ratchet file that was rewritten.
    pub fn notes(&self) -> &[Finding] {
        &self.notes
    }

    /// The failures of one check.
    pub fn failures_of(&self, check: Check) -> impl Iterator<Item = &Finding> {
        self.failures.iter().filter(move |f| f.check == check)
    }

    /// How many prompts were assembled (scenarios x turns x paths x modes, plus rebuilds).
    pub fn assemblies(&self) -> usize {
        self.assemblies
    }

    /// Panics with the whole report when a check failed.
    ///
    /// # Panics
    /// When [`is_ok`](Self::is_ok) is false: that is the point, in a test.
    #[track_caller]
    pub fn assert_ok(&self) {
        assert!(self.is_ok(), "{self}");
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = match self.failures.len() {
            0 => "ok".to_owned(),
            1 => "1 failure".to_owned(),
            n => format!("{n} failures"),
        };
        writeln!(
            f,
            "contract of pipeline `{}`: {verdict} ({} assemblies over scenario{} {})",
            self.pipeline,
            self.assemblies,
            if self.scenarios.len() == 1 { "" } else { "s" },
            self.scenarios
                .iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
        for failure in &self.failures {
            writeln!(f, "FAIL {failure}")?;
        }
        for note in &self.notes {
            writeln!(f, "note {note}")?;
        }
        Ok(())
    }
}
