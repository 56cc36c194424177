//! A process-independent digest of the stable prefix.

use std::fmt;

use serde::{Serialize, Serializer};
use sha2::{Digest, Sha256};

/// SHA-256 of a stable prefix's bytes.
///
/// The same prefix gives the same fingerprint in every process and on every
/// machine, so it can key a provider's prompt cache and show, in a trace,
/// whether a change busted the cache.
///
/// ```
/// use prompt_core::fingerprint::Fingerprint;
///
/// let a = Fingerprint::of("You are a careful coding agent.");
/// assert_eq!(a, Fingerprint::of("You are a careful coding agent."));
/// assert_ne!(a, Fingerprint::of("You are a careless coding agent."));
/// assert_eq!(a.short().len(), 16);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
    /// The fingerprint of `text`.
    pub fn of(text: &str) -> Self {
        Self(Sha256::digest(text.as_bytes()).into())
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
