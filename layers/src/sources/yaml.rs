//! YAML read from a repository, in bounded time and memory whatever its shape.
//!
//! A YAML text is small on disk and may still be huge in memory: an alias
//! (`*a`) repeats everything its anchor (`&a`) names, so three lines of 600
//! aliases each turn 12 KB into a billion values; a `%TAG` directive makes
//! every tagged value carry a copy of its prefix; and the parser's cost grows
//! with the square of how deeply `[` / `{` nest. [`parse_bounded`] refuses
//! each of these with an error naming the line, before it costs more than
//! [`YamlLimits`] allow:
//!
//! - the text is at most [`YamlLimits::max_bytes`];
//! - `[` and `{` nest at most [`YamlLimits::max_depth`] deep, counted on the
//!   raw text before parsing (inside quotes too: over-counting refuses, it
//!   never slows the parse); block collections nest at most as deep;
//! - no `%` directive line (`%TAG`, `%YAML`);
//! - the parsed value has at most [`YamlLimits::max_nodes`] values and
//!   [`YamlLimits::max_text`] bytes of text (scalars, keys and tags), each
//!   alias counting again everything it repeats. The count runs while the
//!   value is built, so an alias bomb stops at the budget instead of
//!   expanding first.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor};
use serde_yaml_ng::value::{Tag, TaggedValue};
use serde_yaml_ng::{Mapping, Value};

use super::capped::Size;

/// What one YAML text may cost. See the [module](self) for what each bounds.
///
/// Start from [`YamlLimits::FRONTMATTER`] or [`YamlLimits::CONFIG_FILE`]
/// (the [`DEFAULT`](YamlLimits::DEFAULT)) and change what you need with the
/// `const` `with_` setters:
///
/// ```
/// use prompt_layers::sources::yaml::{YamlLimit, YamlLimits, parse_bounded};
///
/// const LIMITS: YamlLimits = YamlLimits::FRONTMATTER.max_nodes(4).max_text(1024);
/// assert!(parse_bounded("a: 1\n", &LIMITS).is_ok());
/// let error = parse_bounded("a: &x [1, 2]\nb: *x\n", &LIMITS).unwrap_err();
/// assert_eq!(error.limit, Some(YamlLimit::Nodes));
/// ```
// Grows with every bound: build it with the `with_` setters, so a new limit
// is not a breaking change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct YamlLimits {
    /// The largest text parsed, in bytes.
    pub max_bytes: usize,
    /// How deeply collections may nest below the document's top level
    /// (`[` / `{` counted on the raw text).
    pub max_depth: usize,
    /// The most values (scalars, sequences, mappings, keys included) of the
    /// parsed document, every alias counting all the values it repeats.
    pub max_nodes: usize,
    /// The most bytes of scalar, key and tag text of the parsed document,
    /// every alias counting all the text it repeats.
    pub max_text: usize,
}

impl YamlLimits {
    /// A SKILL.md frontmatter: 16 KiB, 16 deep, 16,384 values, 64 KiB of text.
    /// Nothing a 16 KiB text spells out without aliases (or `%TAG`) is
    /// refused by the last two: only expansion is.
    pub const FRONTMATTER: YamlLimits = YamlLimits {
        max_bytes: 16 * 1024,
        max_depth: 16,
        max_nodes: 16 * 1024,
        max_text: 64 * 1024,
    };

    /// A configuration file such as kitsoki's `app.yaml`: 256 KiB, 32 deep,
    /// 65,536 values, 1 MiB of text.
    pub const CONFIG_FILE: YamlLimits = YamlLimits {
        max_bytes: 256 * 1024,
        max_depth: 32,
        max_nodes: 64 * 1024,
        max_text: 1024 * 1024,
    };

    /// The default: [`YamlLimits::CONFIG_FILE`].
    pub const DEFAULT: YamlLimits = YamlLimits::CONFIG_FILE;

    /// The same limits, parsing at most [`max_bytes`](Self::max_bytes) bytes of text.
    #[must_use]
    pub const fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// The same limits, with collections nesting at most
    /// [`max_depth`](Self::max_depth) deep.
    #[must_use]
    pub const fn max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// The same limits, with at most [`max_nodes`](Self::max_nodes) values.
    #[must_use]
    pub const fn max_nodes(mut self, max_nodes: usize) -> Self {
        self.max_nodes = max_nodes;
        self
    }

    /// The same limits, with at most [`max_text`](Self::max_text) bytes of text.
    #[must_use]
    pub const fn max_text(mut self, max_text: usize) -> Self {
        self.max_text = max_text;
        self
    }
}

impl Default for YamlLimits {
    /// [`YamlLimits::DEFAULT`].
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A YAML text that does not parse or goes over a [`YamlLimits`] bound.
///
/// Its `Display` is `line N: what is wrong; what to do` (the line counted in
/// the text given, see [`YamlError::offset_lines`]), without the parser's
/// column.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct YamlError {
    /// 1-based line of the problem, when known.
    pub line: Option<usize>,
    /// What is wrong and what to do.
    pub message: String,
    /// Which bound was reached; `None` for a syntax or type error.
    pub limit: Option<YamlLimit>,
}

/// The [`YamlLimits`] bound a [`YamlError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum YamlLimit {
    /// [`YamlLimits::max_bytes`].
    Bytes,
    /// [`YamlLimits::max_depth`].
    Depth,
    /// A `%` directive line.
    Directive,
    /// [`YamlLimits::max_nodes`].
    Nodes,
    /// [`YamlLimits::max_text`].
    Text,
}

impl YamlError {
    /// The same error with its line moved down by `lines`: for a YAML text
    /// that starts at line `lines + 1` of its file (a frontmatter after `---`).
    pub fn offset_lines(mut self, lines: usize) -> Self {
        self.line = self.line.map(|line| line + lines);
        self
    }

    fn at(line: usize, message: String, limit: YamlLimit) -> Self {
        Self {
            line: Some(line),
            message,
            limit: Some(limit),
        }
    }
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for YamlError {}

/// Parses one YAML document within `limits` (see the [module](self)).
///
/// ```
/// use prompt_layers::sources::yaml::{YamlLimit, YamlLimits, parse_bounded};
///
/// let value = parse_bounded("name: x\ntags: [a, b]\n", &YamlLimits::FRONTMATTER).unwrap();
/// assert_eq!(value["tags"][1], "b");
///
/// // Three lines that would expand to 4,000 x 600 x 600 values.
/// let bomb = format!(
///     "a: &a [{}]\nb: &b [{}]\nc: [{}]\n",
///     "x,".repeat(4000),
///     "*a,".repeat(600),
///     "*b,".repeat(600),
/// );
/// let error = parse_bounded(&bomb, &YamlLimits::FRONTMATTER).unwrap_err();
/// assert_eq!(error.limit, Some(YamlLimit::Nodes));
/// ```
///
/// # Errors
/// A [`YamlError`] with the line: a syntax error, a key given twice, more
/// than one document, or a bound reached.
pub fn parse_bounded(text: &str, limits: &YamlLimits) -> Result<Value, YamlError> {
    precheck(text, limits)?;
    let spent = Spent::default();
    let seed = Node {
        limits,
        spent: &spent,
        depth: 0,
    };
    seed.deserialize(serde_yaml_ng::Deserializer::from_str(text))
        .map_err(|error| from_parser(&error, &spent))
}

/// Parses `text` as a `T` once [`parse_bounded`] has accepted it, every
/// string of the document cleaned (as the sources clean parsed text, [`parsed::clean_str`](super::parsed::clean_str):
/// one line, except under the keys `lines` names). A typed pass visits at
/// most what the bounded pass did, and its errors keep their line
/// (`line 4: agents.guide.inherit_claude_default: invalid type: ...`).
///
/// ```
/// use prompt_layers::sources::parsed::Multiline;
/// use prompt_layers::sources::yaml::{from_str_bounded, YamlLimits};
///
/// #[derive(serde::Deserialize)]
/// struct Agent { id: String, system_prompt: String }
///
/// let agent: Agent = from_str_bounded(
///     "id: \"a\\e]52;c;eA==\\a\\n# Forged\"\nsystem_prompt: \"Be brief.\\e[2J\\u202e\\nThanks.\"\n",
///     &YamlLimits::CONFIG_FILE,
///     Multiline(&["system_prompt"]),
/// ).unwrap();
/// assert_eq!(agent.id, "a]52;c;eA== # Forged");
/// assert_eq!(agent.system_prompt, "Be brief.[2J\nThanks.");
/// ```
///
/// # Errors
/// As [`parse_bounded`], or a value that does not fit `T`.
pub fn from_str_bounded<T: de::DeserializeOwned>(
    text: &str,
    limits: &YamlLimits,
    lines: super::parsed::Multiline,
) -> Result<T, YamlError> {
    let mut value = parse_bounded(text, limits)?;
    super::parsed::clean_yaml(&mut value, lines);
    serde_yaml_ng::from_value(value).map_err(|error| {
        // A value that does not fit `T`: the typed parse says where, with
        // its line (cleaning only removes characters, so it fails there too).
        let typed = serde_yaml_ng::from_str::<T>(text).err();
        from_parser(typed.as_ref().unwrap_or(&error), &Spent::default())
    })
}

/// The checks made on the raw text, before the parser sees it.
fn precheck(text: &str, limits: &YamlLimits) -> Result<(), YamlError> {
    if text.len() > limits.max_bytes {
        return Err(YamlError {
            line: None,
            message: format!(
                "{} of YAML is over the {} limit; shorten it",
                Size(text.len() as u64),
                Size(limits.max_bytes as u64)
            ),
            limit: Some(YamlLimit::Bytes),
        });
    }
    let mut depth = 0usize;
    let mut line = 1;
    let mut line_start = true;
    for b in text.bytes() {
        if line_start && b == b'%' {
            return Err(YamlError::at(
                line,
                "a `%` directive (`%TAG`, `%YAML`) is not accepted here; remove the line \
                 (or indent it, if it is text)"
                    .to_owned(),
                YamlLimit::Directive,
            ));
        }
        line_start = b == b'\n';
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > limits.max_depth {
                    return Err(YamlError::at(
                        line,
                        format!("`[` / `{{` nest deeper than {}", limits.max_depth),
                        YamlLimit::Depth,
                    ));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' => line += 1,
            _ => {}
        }
    }
    Ok(())
}

/// A parser error as a [`YamlError`]: the file's line, the parser's message
/// without its own position, and the bound the visitor reached, if any.
fn from_parser(error: &serde_yaml_ng::Error, spent: &Spent) -> YamlError {
    let message = error.to_string();
    // `... at line 2 column 1, while parsing a flow sequence`: the position
    // is given apart, and what follows it says nothing the user acts on.
    let message = match message.find(" at line ") {
        Some(at) if error.location().is_some() => message[..at].to_owned(),
        _ => message,
    };
    // Keys in the parser's path come from the file: keep the message one
    // short line whatever they hold.
    let mut message = super::text::one_line(&message);
    if message.chars().count() > 300 {
        message = message.chars().take(299).collect::<String>() + "…";
    }
    YamlError {
        line: error.location().map(|at| at.line()),
        message,
        limit: spent.limit.get(),
    }
}

/// What a parse has spent so far, shared by every [`Node`] of one document.
#[derive(Default)]
struct Spent {
    nodes: Cell<usize>,
    text: Cell<usize>,
    limit: Cell<Option<YamlLimit>>,
}

/// Builds one [`Value`], charging it (and everything under it) to [`Spent`].
#[derive(Clone, Copy)]
struct Node<'a> {
    limits: &'a YamlLimits,
    spent: &'a Spent,
    /// How many collections enclose this value, the top level's not counted.
    depth: usize,
}

impl Node<'_> {
    fn charge<E: de::Error>(&self, text: usize) -> Result<(), E> {
        let nodes = self.spent.nodes.get() + 1;
        let bytes = self.spent.text.get().saturating_add(text);
        self.spent.nodes.set(nodes);
        self.spent.text.set(bytes);
        if nodes > self.limits.max_nodes {
            self.spent.limit.set(Some(YamlLimit::Nodes));
            return Err(E::custom(format!(
                "more than {} values once anchors (`&name`) and aliases (`*name`) are \
                 expanded; write the values out instead of repeating them with aliases, \
                 or shorten the document",
                self.limits.max_nodes
            )));
        }
        if bytes > self.limits.max_text {
            self.spent.limit.set(Some(YamlLimit::Text));
            return Err(E::custom(format!(
                "more than {} of text once anchors (`&name`), aliases (`*name`) and tags \
                 are expanded; write the text out once instead of repeating it with aliases",
                Size(self.limits.max_text as u64)
            )));
        }
        Ok(())
    }

    /// Charges a collection at this depth and gives the seed of what it holds.
    fn enter<E: de::Error>(&self) -> Result<Self, E> {
        self.charge(0)?;
        // The top-level collection is depth 0; one it holds is 1.
        if self.depth > self.limits.max_depth {
            self.spent.limit.set(Some(YamlLimit::Depth));
            return Err(E::custom(format!(
                "collections nest deeper than {}; flatten the document",
                self.limits.max_depth
            )));
        }
        Ok(Node {
            depth: self.depth + 1,
            ..*self
        })
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        self.charge(0)?;
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Value, E> {
        self.charge(0)?;
        Ok(Value::Number(i.into()))
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Value, E> {
        self.charge(0)?;
        Ok(Value::Number(u.into()))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Value, E> {
        self.charge(0)?;
        Ok(Value::Number(f.into()))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        self.charge(s.len())?;
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        self.charge(s.len())?;
        Ok(Value::String(s))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.charge(0)?;
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.charge(0)?;
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.enter()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Sequence(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.enter()?;
        let mut mapping = Mapping::new();
        while let Some(key) = map.next_key_seed(inner)? {
            if mapping.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "duplicate entry with key {}; give each key once",
                    describe_key(&key)
                )));
            }
            let value = map.next_value_seed(inner)?;
            mapping.insert(key, value);
        }
        Ok(Value::Mapping(mapping))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        // A `!tag value`: serde_yaml_ng hands it over as an enum.
        let (tag, contents) = data.variant_seed(TagSeed(self))?;
        let value = contents.newtype_variant_seed(self)?;
        Ok(Value::Tagged(Box::new(TaggedValue { tag, value })))
    }
}

/// A key as the duplicate-key error names it, as serde_yaml_ng does.
fn describe_key(key: &Value) -> String {
    match key {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("`{b}`"),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("{s:?}"),
        Value::Sequence(_) | Value::Mapping(_) | Value::Tagged(_) => "of a collection".to_owned(),
    }
}

/// The tag of a `!tag value`, charged as text.
struct TagSeed<'a>(Node<'a>);

impl<'de> DeserializeSeed<'de> for TagSeed<'_> {
    type Value = Tag;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Tag, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for TagSeed<'_> {
    type Value = Tag;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML tag")
    }

    fn visit_str<E: de::Error>(self, tag: &str) -> Result<Tag, E> {
        if tag.is_empty() {
            return Err(E::custom("empty YAML tag is not allowed"));
        }
        self.0.charge(tag.len())?;
        Ok(Tag::new(tag))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max_nodes: usize, max_text: usize) -> YamlLimits {
        YamlLimits::FRONTMATTER
            .max_nodes(max_nodes)
            .max_text(max_text)
    }

    #[test]
    fn every_value_and_key_is_one_node() {
        // mapping, key a, 1, key b, sequence, x, y: 7 nodes.
        let text = "a: 1\nb: [x, y]\n";
        assert!(parse_bounded(text, &limits(7, 100)).is_ok());
        let error = parse_bounded(text, &limits(6, 100)).unwrap_err();
        assert_eq!(error.limit, Some(YamlLimit::Nodes));
    }

    #[test]
    fn text_counts_keys_and_scalars_and_again_for_each_alias() {
        // keys a, b (2) + "xyz" + alias to "xyz" = 8 bytes.
        let text = "a: &s xyz\nb: *s\n";
        assert!(parse_bounded(text, &limits(100, 8)).is_ok());
        let error = parse_bounded(text, &limits(100, 7)).unwrap_err();
        assert_eq!(error.limit, Some(YamlLimit::Text));
        assert_eq!(error.line, Some(1));
    }

    #[test]
    fn tags_are_kept_and_charged() {
        let text = "a: !tag 1\n";
        let value = parse_bounded(text, &limits(100, 100)).unwrap();
        assert!(matches!(&value["a"], Value::Tagged(t) if t.tag == "tag"));
        // key `a` (1) and tag `tag` (3); the number is no text.
        assert!(parse_bounded(text, &limits(100, 4)).is_ok());
        let error = parse_bounded(text, &limits(100, 3)).unwrap_err();
        assert_eq!(error.limit, Some(YamlLimit::Text));
    }

    #[test]
    fn a_directive_line_is_refused_with_its_line() {
        let error = parse_bounded("%TAG !e! tag:x,\n--- !e!a 1\n", &limits(100, 100));
        let error = error.unwrap_err();
        assert_eq!(error.limit, Some(YamlLimit::Directive));
        assert_eq!(error.line, Some(1));
        // A `%` that is not at a line start is text.
        assert!(parse_bounded("a: 50%\n", &limits(100, 100)).is_ok());
    }

    #[test]
    fn block_nesting_is_bounded_like_flow_nesting() {
        let nested = |n: usize| {
            (0..=n)
                .map(|i| format!("{}k:\n", "  ".repeat(i)))
                .collect::<String>()
        };
        // `k:` at n+1 levels: the top mapping, then n nested below it.
        assert!(parse_bounded(&nested(16), &YamlLimits::FRONTMATTER).is_ok());
        let error = parse_bounded(&nested(17), &YamlLimits::FRONTMATTER).unwrap_err();
        assert_eq!(error.limit, Some(YamlLimit::Depth));
        assert_eq!(error.line, Some(18));
    }

    #[test]
    fn errors_drop_the_parser_position_and_shift_to_the_file_line() {
        let error = parse_bounded("a: [1\n", &YamlLimits::FRONTMATTER).unwrap_err();
        assert!(!error.message.contains(" at line "), "{error}");
        assert_eq!(
            error.clone().offset_lines(1).line,
            error.line.map(|l| l + 1)
        );
        let duplicate = parse_bounded("a: 1\na: 2\n", &YamlLimits::FRONTMATTER).unwrap_err();
        assert_eq!(
            duplicate.to_string(),
            "line 1: duplicate entry with key \"a\"; give each key once"
        );
    }
}
