//! A process-independent digest of the stable prefix.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

mod sha256;

/// SHA-256 of a stable prefix's bytes.
///
/// The same prefix gives the same fingerprint in every process and on every
/// machine, so it can key a provider's prompt cache and show, in a trace,
/// whether a change busted the cache. It reads back from its 64 hex digits
/// (`"…".parse::<Fingerprint>()`, and as a JSON string), so a log that
/// recorded one can be compared again.
///
/// ```
/// use prompt_core::fingerprint::Fingerprint;
///
/// let a = Fingerprint::of("You are a careful coding agent.");
/// assert_eq!(a, Fingerprint::of("You are a careful coding agent."));
/// assert_ne!(a, Fingerprint::of("You are a careless coding agent."));
/// assert_eq!(a.short().len(), 16);
/// assert_eq!(a.to_string().parse::<Fingerprint>(), Ok(a));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
    /// The fingerprint of `text`.
    pub fn of(text: &str) -> Self {
        Self(sha256::digest(text.as_bytes()))
    }

    /// The raw digest.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The first 16 hex digits: enough to tell prefixes apart in logs and cache keys.
    pub fn short(&self) -> String {
        let mut hex = self.to_string();
        hex.truncate(16);
        hex
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({})", self.short())
    }
}

impl Serialize for Fingerprint {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Text that is not a fingerprint's 64 hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotAFingerprint;

impl fmt::Display for NotAFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a fingerprint: expected 64 hex digits (a SHA-256 written as Fingerprint displays it)")
    }
}

impl std::error::Error for NotAFingerprint {}

impl FromStr for Fingerprint {
    type Err = NotAFingerprint;

    fn from_str(hex: &str) -> Result<Self, Self::Err> {
        let digits = hex.as_bytes();
        if digits.len() != 64 {
            return Err(NotAFingerprint);
        }
        let mut out = [0u8; 32];
        for (byte, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
            let digit = |c: u8| (c as char).to_digit(16).ok_or(NotAFingerprint);
            *byte = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
        }
        Ok(Self(out))
    }
}

impl<'de> Deserialize<'de> for Fingerprint {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let hex = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        hex.parse().map_err(serde::de::Error::custom)
    }
}
