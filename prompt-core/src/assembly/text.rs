//! `PromptText`: a part's text, shared when it is a session's stable prefix.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use serde::{Serialize, Serializer};

/// The text of a [`SystemPromptPart`](crate::SystemPromptPart): reads as a
/// `str` (it derefs to one, compares with `&str` and `String`, displays and
/// serializes as a string).
///
/// A session's stable prefix is rendered once and shared by every prompt of
/// the session, so a warm call copies none of its bytes; other text is owned.
///
/// ```
/// use prompt_core::SystemPromptPart;
///
/// let part = SystemPromptPart::new("You are terse.", true);
/// assert_eq!(part.content, "You are terse.");
/// assert!(part.content.starts_with("You"));
/// assert_eq!(part.content.to_string(), "You are terse.");
/// ```
#[derive(Clone)]
pub struct PromptText(Repr);

#[derive(Clone)]
enum Repr {
    Owned(String),
    Shared(Arc<String>),
}

impl PromptText {
    /// Text shared with its other holders.
    pub(crate) fn shared(text: Arc<String>) -> Self {
        Self(Repr::Shared(text))
    }

    /// The text as a `&str`.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Owned(text) => text,
            Repr::Shared(text) => text,
        }
    }

    /// The text as an owned `String` (copied only when it is shared).
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Owned(text) => text,
            Repr::Shared(text) => Arc::unwrap_or_clone(text),
        }
    }
}

impl Default for PromptText {
    fn default() -> Self {
        Self(Repr::Owned(String::new()))
    }
}

impl Deref for PromptText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for PromptText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for PromptText {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for PromptText {
    fn from(text: String) -> Self {
        Self(Repr::Owned(text))
    }
}

impl From<&str> for PromptText {
    fn from(text: &str) -> Self {
        Self(Repr::Owned(text.to_owned()))
    }
}

impl From<PromptText> for String {
    fn from(text: PromptText) -> Self {
        text.into_string()
    }
}

impl PartialEq for PromptText {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for PromptText {}

impl PartialOrd for PromptText {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for PromptText {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for PromptText {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

macro_rules! eq_str {
    ($($other:ty),*) => {$(
        impl PartialEq<$other> for PromptText {
            fn eq(&self, other: &$other) -> bool {
                self.as_str() == &other[..]
            }
        }
        impl PartialEq<PromptText> for $other {
            fn eq(&self, other: &PromptText) -> bool {
                &self[..] == other.as_str()
            }
        }
    )*};
}

eq_str!(str, &str, String);

impl fmt::Display for PromptText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for PromptText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Serialize for PromptText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::DefaultHasher;

    fn hash(value: &impl Hash) -> u64 {
        let mut hasher = DefaultHasher::new();
        value.hash(&mut hasher);
        hasher.finish()
    }

    /// Shared and owned text behave as the same `str` through every trait a
    /// caller may reach for: a map keyed by `String` finds a `PromptText`
    /// (`Borrow` and `Hash` agree with `str`), sorting is by text, and
    /// converting out keeps every byte.
    #[test]
    fn shared_and_owned_text_read_as_the_same_str() {
        let owned = PromptText::from("beta");
        let shared = PromptText::shared(Arc::new("beta".to_owned()));
        for text in [&owned, &shared] {
            assert_eq!(AsRef::<str>::as_ref(text), "beta");
            assert_eq!(Borrow::<str>::borrow(text), "beta");
            assert_eq!(hash(text), hash(&"beta"), "Hash must agree with str's");
            assert_eq!(format!("{text:?}"), r#""beta""#);
        }
        assert_eq!(owned, shared);
        assert_ne!(owned, PromptText::from("alpha"));
        assert_eq!(
            PromptText::from("alpha").partial_cmp(&owned),
            Some(std::cmp::Ordering::Less)
        );
        assert_eq!(owned.clone().into_string(), "beta");
        assert_eq!(shared.clone().into_string(), "beta");
        assert_eq!(String::from(shared), "beta");

        let set = std::collections::HashSet::from([PromptText::from("beta")]);
        assert!(set.contains("beta"));
    }
}
