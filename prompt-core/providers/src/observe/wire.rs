//! How the ledger's values are written in its JSON lines.

/// A [`Duration`](std::time::Duration) as whole seconds.
pub(crate) mod seconds {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_secs())
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_secs)
    }
}

/// An `Arc<str>` as a string.
pub(crate) mod shared {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(text: &Arc<str>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(text)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<str>, D::Error> {
        <std::borrow::Cow<'de, str>>::deserialize(d).map(|t| Arc::from(&*t))
    }
}

/// An `Option<Arc<str>>` as a string or nothing.
pub(crate) mod shared_opt {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(
        text: &Option<Arc<str>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match text {
            Some(text) => s.serialize_some(&**text),
            None => s.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Arc<str>>, D::Error> {
        <Option<std::borrow::Cow<'de, str>>>::deserialize(d).map(|t| t.map(|t| Arc::from(&*t)))
    }
}

/// `n` with a comma every three digits: `4,210`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A duration for people: `42s`, `7m 32s`, `1h 05m`, `3d 4h`.
pub(crate) fn human(d: std::time::Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        3600..86_400 => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
        _ => format!("{}d {}h", s / 86_400, s % 86_400 / 3600),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{human, thousands};

    #[test]
    fn numbers_and_durations_read_as_people_write_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(4210), "4,210");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(human(Duration::from_secs(42)), "42s");
        assert_eq!(human(Duration::from_secs(452)), "7m 32s");
        assert_eq!(human(Duration::from_secs(3900)), "1h 05m");
        assert_eq!(human(Duration::from_secs(3 * 86_400 + 4 * 3600)), "3d 4h");
    }
}
