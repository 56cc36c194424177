//! Where two requests' declared tools first differ, as the cache reads them.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::Sent;
use crate::diff::escape;
use prompt_core::tools::{RequestTools, ToolFingerprint};

/// The first difference between the previous request's declared tools and
/// this one's, in the order the provider reads them (the cache is lost from
/// that tool on). Named from fingerprints: the ledger never keeps a tool's
/// text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolChange {
    /// A tool that was not there, now at position `at`.
    Added {
        /// Its name.
        tool: String,
        /// Its position now.
        at: usize,
    },
    /// A tool that was at position `at` is gone.
    Removed {
        /// Its name.
        tool: String,
        /// Its position before.
        at: usize,
    },
    /// The tool's description changed.
    Description {
        /// Its name.
        tool: String,
    },
    /// The tool's input schema changed (canonical form, so not a key order).
    Schema {
        /// Its name.
        tool: String,
    },
    /// The tool is in both, at another position.
    Moved {
        /// Its name.
        tool: String,
        /// Its position before.
        from: usize,
        /// Its position now.
        to: usize,
    },
}

impl ToolChange {
    /// The first difference from `before` to `now`, or `None` when they are
    /// the same tools in the same order with the same texts.
    pub fn between(before: &[ToolFingerprint], now: &[ToolFingerprint]) -> Option<Self> {
        let same = |a: &ToolFingerprint, b: &ToolFingerprint| {
            a.name == b.name && a.description == b.description && a.schema == b.schema
        };
        let at = before.iter().zip(now).position(|(a, b)| !same(a, b));
        let Some(at) = at else {
            return match now.len().cmp(&before.len()) {
                std::cmp::Ordering::Greater => Some(Self::Added {
                    tool: now[before.len()].name.clone(),
                    at: before.len(),
                }),
                std::cmp::Ordering::Less => Some(Self::Removed {
                    tool: before[now.len()].name.clone(),
                    at: now.len(),
                }),
                std::cmp::Ordering::Equal => None,
            };
        };
        let (was, is) = (&before[at], &now[at]);
        if was.name == is.name {
            return Some(if was.description == is.description {
                Self::Schema {
                    tool: is.name.clone(),
                }
            } else {
                Self::Description {
                    tool: is.name.clone(),
                }
            });
        }
        if !before.iter().any(|t| t.name == is.name) {
            return Some(Self::Added {
                tool: is.name.clone(),
                at,
            });
        }
        match now.iter().position(|t| t.name == was.name) {
            None => Some(Self::Removed {
                tool: was.name.clone(),
                at,
            }),
            Some(to) => Some(Self::Moved {
                tool: was.name.clone(),
                from: at,
                to,
            }),
        }
    }

    /// The tool it names.
    pub fn tool(&self) -> &str {
        match self {
            Self::Added { tool, .. }
            | Self::Removed { tool, .. }
            | Self::Description { tool }
            | Self::Schema { tool }
            | Self::Moved { tool, .. } => tool,
        }
    }
}

impl fmt::Display for ToolChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Added { tool, at } => write!(f, "tool `{}` added at {at}", escape(tool)),
            Self::Removed { tool, at } => {
                write!(f, "tool `{}` removed from {at}", escape(tool))
            }
            Self::Description { tool } => {
                write!(f, "tool `{}`'s description changed", escape(tool))
            }
            Self::Schema { tool } => write!(f, "tool `{}`'s schema changed", escape(tool)),
            Self::Moved { tool, from, to } => {
                write!(f, "tool `{}` moved from {from} to {to}", escape(tool))
            }
        }
    }
}

impl<'a> Sent<'a> {
    /// The tools as the framework declared them ([`RequestTools`]): the
    /// ledger keeps each one's name and fingerprints (never its text), so a
    /// miss from the tools says which tool and how
    /// ([`MissCause::ToolsChanged`](super::MissCause::ToolsChanged)).
    /// Replaces [`tools`](Self::tools).
    ///
    /// ```
    /// use prompt_providers::observe::{Provider, Sent, Timestamp};
    /// use prompt_core::tools::{RequestTools, Tool};
    ///
    /// let tools = RequestTools::new([Tool::new("read", "Read a file.", serde_json::json!({}))]).unwrap();
    /// let _sent = Sent::new(Provider::Anthropic, "claude-sonnet-4-5", Timestamp::UNIX_EPOCH)
    ///     .declared_tools(&tools);
    /// ```
    pub fn declared_tools(mut self, tools: &RequestTools) -> Self {
        self.tools = Some(tools.fingerprint());
        self.tool_prints = Some(tools.fingerprints());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::ToolChange;
    use prompt_core::tools::{RequestTools, Tool, ToolTier};
    use serde_json::json;

    fn prints(
        tools: &[(&'static str, &'static str, serde_json::Value)],
    ) -> Vec<prompt_core::tools::ToolFingerprint> {
        let tools = tools
            .iter()
            .map(|(n, d, s)| Tool::new(*n, *d, s.clone()).tier_of(ToolTier::Stable));
        RequestTools::new(tools).unwrap().fingerprints()
    }

    #[test]
    fn each_difference_names_the_tool_and_where() {
        let a = ("a", "A.", json!({}));
        let b = ("b", "B.", json!({}));
        let c = ("c", "C.", json!({}));
        let base = prints(&[a.clone(), b.clone()]);
        assert_eq!(ToolChange::between(&base, &base), None);
        let added = ToolChange::between(&base, &prints(&[a.clone(), b.clone(), c.clone()]));
        assert_eq!(added.unwrap().to_string(), "tool `c` added at 2");
        let early = ToolChange::between(&prints(&[b.clone(), c.clone()]), &base).unwrap();
        assert_eq!(early.to_string(), "tool `a` added at 0");
        let removed = ToolChange::between(&base, &prints(std::slice::from_ref(&b))).unwrap();
        assert_eq!(removed.to_string(), "tool `a` removed from 0");
        let described = ToolChange::between(&base, &prints(&[("a", "A!", json!({})), b.clone()]));
        assert_eq!(
            described.unwrap().to_string(),
            "tool `a`'s description changed"
        );
        let schema =
            ToolChange::between(&base, &prints(&[("a", "A.", json!({"x": 1})), b.clone()]));
        assert_eq!(schema.unwrap().to_string(), "tool `a`'s schema changed");
        // Canonical order: a tier change moves a tool.
        let moved: Vec<_> = {
            let mut p = prints(&[a, b]);
            p.swap(0, 1);
            p
        };
        assert_eq!(
            ToolChange::between(&base, &moved).unwrap(),
            ToolChange::Moved {
                tool: "a".into(),
                from: 0,
                to: 1
            }
        );
    }
}
