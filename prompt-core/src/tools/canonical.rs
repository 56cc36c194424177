//! What one request sends: its tools in canonical order, as canonical bytes.

use serde::Serialize;
use serde_json::{Map, Value};

use super::{Tool, ToolError, ToolTier};
use crate::fingerprint::Fingerprint;

/// `value` with every object's keys in sorted order, at every depth: the one
/// key order, whatever order the schema was written or parsed in.
///
/// ```
/// let a: serde_json::Value = serde_json::from_str(r#"{"b":1,"a":{"d":2,"c":3}}"#).unwrap();
/// let text = serde_json::to_string(&prompt_core::tools::canonical_json(&a)).unwrap();
/// assert_eq!(text, r#"{"a":{"c":3,"d":2},"b":1}"#);
/// ```
pub fn canonical_json(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for key in keys {
                out.insert(key.clone(), canonical_json(&map[key]));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical_json).collect()),
        other => other.clone(),
    }
}

/// The tools of one request, in canonical order: stable tools first, then the
/// session's, then the turn's, each tier sorted by name; names are unique.
///
/// Build it from a pipeline's declared tools
/// ([`ToolSet::for_prompt`](super::ToolSet::for_prompt)) or from tools at hand
/// ([`RequestTools::new`]); the provider builders take it
/// (`anthropic::MessagesRequest::declared_tools`, ...) and the ledger reads
/// its [`fingerprints`](Self::fingerprints).
///
/// ```
/// use prompt_core::tools::{RequestTools, Tool, ToolTier};
/// use serde_json::json;
///
/// let a = Tool::new("write", "Write a file.", json!({"type": "object", "required": ["path"]}));
/// let b = Tool::new("read", "Read a file.", json!({"required": ["path"], "type": "object"}));
/// let c = Tool::new("ask", "Ask the user.", json!({})).tier_of(ToolTier::Turn);
/// let one = RequestTools::new([a.clone(), b.clone(), c.clone()])?;
/// let two = RequestTools::new([c, b, a])?;
/// assert_eq!(one.names().collect::<Vec<_>>(), ["read", "write", "ask"]);
/// assert_eq!(one.to_json_string(), two.to_json_string());
/// # Ok::<(), prompt_core::tools::ToolError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestTools {
    tools: Vec<Tool>,
}

impl RequestTools {
    /// `tools` in canonical order.
    ///
    /// # Errors
    /// [`ToolError::Duplicate`] when two tools share a name.
    pub fn new(tools: impl IntoIterator<Item = Tool>) -> Result<Self, ToolError> {
        let mut tools: Vec<Tool> = tools.into_iter().collect();
        tools.sort_by(|a, b| (a.tier, &a.name).cmp(&(b.tier, &b.name)));
        let mut sorted_names: Vec<&str> = tools.iter().map(Tool::name).collect();
        sorted_names.sort_unstable();
        if let Some(pair) = sorted_names.windows(2).find(|w| w[0] == w[1]) {
            let name = pair[0].to_owned();
            let mut sites = tools.iter().filter(|t| t.name == name).map(Tool::location);
            return Err(ToolError::Duplicate {
                first: sites.next().unwrap_or_default(),
                second: sites.next().unwrap_or_default(),
                name,
            });
        }
        Ok(Self { tools })
    }

    /// The tools, in canonical order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Their names, in canonical order.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.tools.iter().map(Tool::name)
    }

    /// How many tools are of tier `tier` or a more stable one: the index
    /// after which a breakpoint covers exactly those tiers (e.g.
    /// `tier_end(ToolTier::Stable)` for the tools every session shares).
    pub fn tier_end(&self, tier: ToolTier) -> usize {
        self.tools.iter().filter(|t| t.tier <= tier).count()
    }

    /// How many tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools as Anthropic's Messages API takes them (`name`,
    /// `description`, `input_schema`), keys sorted at every depth: the
    /// canonical form.
    pub fn to_json(&self) -> Vec<Value> {
        self.tools
            .iter()
            .map(|tool| {
                canonical_json(&serde_json::json!({
                    "name": tool.name(),
                    "description": tool.description(),
                    "input_schema": tool.input_schema(),
                }))
            })
            .collect()
    }

    /// The canonical bytes: [`to_json`](Self::to_json) as one compact JSON
    /// array. The same tools give the same bytes in every process.
    pub fn to_json_string(&self) -> String {
        Value::Array(self.to_json()).to_string()
    }

    /// Fingerprint of [`to_json_string`](Self::to_json_string).
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(&self.to_json_string())
    }

    /// One [`ToolFingerprint`] per tool, in canonical order: names and
    /// hashes, never the text.
    pub fn fingerprints(&self) -> Vec<ToolFingerprint> {
        self.tools.iter().map(ToolFingerprint::of).collect()
    }
}

/// A tool as the ledger keeps it: its name, tier and the hashes of its
/// description and canonical schema (never their text).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct ToolFingerprint {
    /// The tool's name.
    pub name: String,
    /// Its tier.
    pub tier: ToolTier,
    /// Fingerprint of its description.
    pub description: Fingerprint,
    /// Fingerprint of its canonical input schema.
    pub schema: Fingerprint,
}

impl ToolFingerprint {
    /// A tool's fingerprint from its parts, as a ledger that kept them
    /// elsewhere (a shared store) reads them back.
    ///
    /// ```
    /// use prompt_core::fingerprint::Fingerprint;
    /// use prompt_core::tools::{Tool, ToolFingerprint, ToolTier};
    ///
    /// let tool = Tool::new("read", "Read a file.", serde_json::json!({"type": "object"}));
    /// let kept = ToolFingerprint::of(&tool);
    /// let again = ToolFingerprint::new("read", ToolTier::Stable, kept.description, kept.schema);
    /// assert_eq!(again, kept);
    /// ```
    pub fn new(
        name: impl Into<String>,
        tier: ToolTier,
        description: Fingerprint,
        schema: Fingerprint,
    ) -> Self {
        Self {
            name: name.into(),
            tier,
            description,
            schema,
        }
    }

    /// The fingerprint of `tool`.
    pub fn of(tool: &Tool) -> Self {
        Self {
            name: tool.name().to_owned(),
            tier: tool.tier(),
            description: Fingerprint::of(tool.description()),
            schema: Fingerprint::of(&canonical_json(tool.input_schema()).to_string()),
        }
    }
}
