//! A conversation's last request as a shared store keeps it: fingerprints,
//! byte ranges, offsets and counts, never prompt text; JSON with a version
//! field, read back strictly (another version, or bytes that are not one,
//! are refused, never a panic).
//!
//! Version 1 holds, per conversation: the request's time, provider, model,
//! the table's minimum, the tools' fingerprint and each declared tool's
//! (name, tier, hashes), the stable prefix's fingerprint and length, each
//! Stable layer's name, scope, byte range and fingerprint, the breakpoints'
//! offsets, the messages' digest, the held estimate, who wrote it (a
//! replica's id and its own number for the request) and the count of
//! responses that never cached. The usage that came back is a second,
//! smaller entry ([`StoredUsage`]), written when the response is received.
//! A field added later is read with a default by this version; a change of
//! meaning is a new version.
//!
//! Added to version 1 for keep-alive across replicas (a record without them,
//! written before, reads as "keep-alive state unknown": no replica pings
//! from it): the conversation's last 16 gaps between turns in whole seconds
//! (`g`), the last turn's TTL in milliseconds (`tl`) and its prices (`pr`).
//! A third entry ([`StoredPing`]) counts the pings sent since that turn and
//! the last one's time, written by the replica that sent it.
// Read and written by the shared ledger (feature `redis`); its tests run
// without it.
#![cfg_attr(not(feature = "redis"), allow(dead_code))]

use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;
use prompt_core::fingerprint::Fingerprint;
use prompt_core::spec::Scope;
use prompt_core::tools::{ToolFingerprint, ToolTier};
use serde::{Deserialize, Serialize};

use super::prefix::{Prefix, Remote, RemoteLayer};
use super::{Breakpoints, Received, Record};
use crate::observe::gaps::GAPS_KEPT;
use crate::observe::history::{MessageDigest, MessagesDigest};
use crate::observe::{MAX_REQUEST_TOKENS, Pricing, Provider, TurnGaps};

/// The version this build writes and reads.
pub(crate) const VERSION: u32 = 1;

/// The most bytes of a stored record this build reads: past it the record
/// is not read (the store is asked for its length first), and the previous
/// request is unknown. A record holds about 100 bytes per Stable layer and
/// the messages' digest (about one byte per 32 of the messages); a record
/// that would be larger is written without the digest.
pub(crate) const MAX_RECORD_BYTES: usize = 256 * 1024;

/// The most layers, declared tools, breakpoints and messages a record read
/// back may hold.
const MAX_LAYERS: usize = 4096;
const MAX_TOOLS: usize = 4096;
const MAX_BREAKPOINTS: usize = 64;
/// The longest name (model, layer, tool) read back, in bytes.
const MAX_NAME: usize = 1024;

/// What was stored of a request.
#[derive(Serialize, Deserialize)]
struct V1 {
    v: u32,
    /// Who wrote it: the replica's id, and the request's number there.
    w: u64,
    ws: u64,
    at: Timestamp,
    p: Provider,
    m: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tm: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    t: Option<Fingerprint>,
    /// Declared tools: name, tier, description's and schema's fingerprints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tp: Option<Vec<(String, String, Fingerprint, Fingerprint)>>,
    /// The stable prefix: fingerprint, length, layers.
    f: Fingerprint,
    n: usize,
    l: Vec<(String, Option<Scope>, usize, usize, Fingerprint)>,
    b: Vec<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    md: Option<Digest>,
    h: u64,
    nc: u32,
    /// Keep-alive: the gaps between turns, in seconds, oldest first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    g: Option<Vec<u32>>,
    /// Keep-alive: the last turn's TTL, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tl: Option<u64>,
    /// Keep-alive: the last turn's prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pr: Option<Pricing>,
}

/// The longest TTL a record read back may hold: 31 days (the longest any
/// provider offers is 24 hours).
const MAX_TTL: Duration = Duration::from_secs(31 * 24 * 3600);

/// What keep-alive reads of a conversation beyond its last request, as
/// stored with it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StoredKeep {
    pub(crate) gaps: TurnGaps,
    pub(crate) ttl: Duration,
    pub(crate) pricing: Option<Pricing>,
}

/// The pings sent since the last turn, as stored: how many, the last one's
/// time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoredPing {
    #[serde(rename = "n")]
    pub(crate) pings: u32,
    pub(crate) at: Timestamp,
}

/// A [`MessagesDigest`], as stored.
#[derive(Serialize, Deserialize)]
struct Digest {
    c: usize,
    r: Vec<u64>,
    /// Per message: role, length, checkpoints.
    m: Vec<(Option<String>, usize, Vec<u32>)>,
    t: u64,
}

/// The usage of a request, as stored once its response came back.
#[derive(Serialize, Deserialize)]
struct U1 {
    v: u32,
    r: u64,
    w: u64,
    i: u64,
    nc: u32,
}

/// A stored record read back: the request, who wrote it, and the count
/// of responses that never cached as of its sending.
pub(crate) struct Decoded {
    pub(crate) record: Record,
    pub(crate) writer: u64,
    pub(crate) writer_seq: u64,
    pub(crate) never_cached: u32,
    /// `None` for a record written without it.
    pub(crate) keep: Option<StoredKeep>,
}

/// A request's usage read back, and the never-cached count after it.
#[derive(Clone, Copy)]
pub(crate) struct StoredUsage {
    pub(crate) received: Received,
    pub(crate) never_cached: u32,
}

fn tier_name(tier: ToolTier) -> &'static str {
    match tier {
        ToolTier::Stable => "stable",
        ToolTier::Session => "session",
        ToolTier::Turn => "turn",
    }
}

fn tier_of(name: &str) -> Option<ToolTier> {
    match name {
        "stable" => Some(ToolTier::Stable),
        "session" => Some(ToolTier::Session),
        "turn" => Some(ToolTier::Turn),
        _ => None,
    }
}

/// `record` as stored, written by `writer`, with the never-cached count it
/// was sent with. Never longer than [`MAX_RECORD_BYTES`] unless its layers
/// alone are (the messages' digest is left out first).
pub(crate) fn encode(
    record: &Record,
    writer: u64,
    never_cached: u32,
    keep: Option<&StoredKeep>,
) -> Vec<u8> {
    let digest = record.messages.as_ref().map(|d| Digest {
        c: d.count,
        r: d.running.clone(),
        m: d.messages
            .iter()
            .map(|m| {
                (
                    m.role.as_deref().map(str::to_owned),
                    m.len,
                    m.checkpoints.clone(),
                )
            })
            .collect(),
        t: d.total,
    });
    let mut stored = V1 {
        v: VERSION,
        w: writer,
        ws: record.seq,
        at: record.at,
        p: record.provider,
        m: record.model.to_string(),
        tm: record.table_minimum,
        t: record.tools,
        tp: record.tool_prints.as_ref().map(|tools| {
            tools
                .iter()
                .map(|t| {
                    (
                        t.name.clone(),
                        tier_name(t.tier).to_owned(),
                        t.description,
                        t.schema,
                    )
                })
                .collect()
        }),
        f: record.prefix.fingerprint(),
        n: record.prefix.len(),
        l: record
            .prefix
            .layer_prints()
            .into_iter()
            .map(|l| (l.name, l.scope, l.range.start, l.range.end, l.fingerprint))
            .collect(),
        b: record.breakpoints.to_vec(),
        md: digest,
        h: record.held_estimate,
        nc: never_cached,
        g: keep.map(|k| {
            k.gaps
                .iter()
                .map(|g| u32::try_from(g.as_secs()).unwrap_or(u32::MAX))
                .collect()
        }),
        tl: keep.map(|k| u64::try_from(k.ttl.as_millis()).unwrap_or(u64::MAX)),
        pr: keep.and_then(|k| k.pricing),
    };
    // Serializing plain data into a Vec does not fail.
    let mut bytes = serde_json::to_vec(&stored).unwrap_or_default();
    if bytes.len() > MAX_RECORD_BYTES && stored.md.is_some() {
        stored.md = None;
        bytes = serde_json::to_vec(&stored).unwrap_or_default();
    }
    bytes
}

/// Why a stored record was not read: the previous request is then unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unreadable(pub(crate) String);

/// A stored record read back, checked: within [`MAX_RECORD_BYTES`], this
/// version, names and counts within bounds, ranges within the prefix.
pub(crate) fn decode(bytes: &[u8]) -> Result<Decoded, Unreadable> {
    if bytes.len() > MAX_RECORD_BYTES {
        return Err(Unreadable(format!(
            "{} bytes, more than the {MAX_RECORD_BYTES} a record holds",
            bytes.len()
        )));
    }
    let version: Versioned =
        serde_json::from_slice(bytes).map_err(|e| Unreadable(format!("not a record: {e}")))?;
    if version.v != VERSION {
        return Err(Unreadable(format!(
            "version {}, this build reads {VERSION}",
            version.v
        )));
    }
    let s: V1 =
        serde_json::from_slice(bytes).map_err(|e| Unreadable(format!("not a record: {e}")))?;
    let too_long = |name: &str| name.len() > MAX_NAME;
    if too_long(&s.m)
        || s.l.len() > MAX_LAYERS
        || s.b.len() > MAX_BREAKPOINTS
        || s.tp.as_ref().is_some_and(|t| t.len() > MAX_TOOLS)
        || s.l.iter().any(|l| too_long(&l.0))
        || s.tp.iter().flatten().any(|t| too_long(&t.0))
    {
        return Err(Unreadable(
            "more names or offsets than a record holds".into(),
        ));
    }
    if s.h > MAX_REQUEST_TOKENS || s.tm.is_some_and(|m| m > MAX_REQUEST_TOKENS) {
        return Err(Unreadable("a token count past one request's".into()));
    }
    if s.l.iter().any(|l| l.2 > l.3 || l.3 > s.n) || s.b.iter().any(|&b| b > s.n) {
        return Err(Unreadable("a range or offset outside the prefix".into()));
    }
    if s.g.as_ref().is_some_and(|g| g.len() > GAPS_KEPT) {
        return Err(Unreadable(format!(
            "more than the {GAPS_KEPT} gaps a record holds"
        )));
    }
    let ttl = s.tl.map(Duration::from_millis);
    if ttl.is_some_and(|t| t.is_zero() || t > MAX_TTL) {
        return Err(Unreadable("a TTL of none or past 31 days".into()));
    }
    let pricing = match s.pr {
        Some(p) => Some(
            Pricing::new(p.usd_per_mtok, p.read, p.write)
                .map_err(|e| Unreadable(format!("prices: {e}")))?,
        ),
        None => None,
    };
    let keep = match (s.g, ttl) {
        (Some(gaps), Some(ttl)) => Some(StoredKeep {
            gaps: gaps
                .into_iter()
                .map(|g| Duration::from_secs(u64::from(g)))
                .collect(),
            ttl,
            pricing,
        }),
        _ => None,
    };
    let tool_prints = match s.tp {
        None => None,
        Some(tools) => Some(
            tools
                .into_iter()
                .map(|(name, tier, description, schema)| {
                    tier_of(&tier)
                        .map(|tier| ToolFingerprint::new(name, tier, description, schema))
                        .ok_or_else(|| Unreadable(format!("tool tier `{tier}`")))
                })
                .collect::<Result<Vec<_>, _>>()?
                .into_boxed_slice(),
        ),
    };
    let messages = s.md.map(|d| {
        let messages: Vec<MessageDigest> =
            d.m.into_iter()
                .map(|(role, len, checkpoints)| MessageDigest {
                    role: role.map(String::into_boxed_str),
                    len,
                    checkpoints,
                })
                .collect();
        MessagesDigest {
            count: d.c,
            running: d.r,
            messages,
            total: d.t,
        }
    });
    if let Some(d) = &messages
        && (d.running.len() > MessagesDigest::TRACKED
            || d.messages.len() > MessagesDigest::TRACKED
            || d.running.len() != d.messages.len()
            || d.count < d.messages.len())
    {
        return Err(Unreadable(
            "a messages digest this build does not make".into(),
        ));
    }
    let layers =
        s.l.into_iter()
            .map(|(name, scope, start, end, fingerprint)| RemoteLayer {
                name,
                scope,
                range: Range { start, end },
                fingerprint,
            })
            .collect();
    let prefix = if s.n == 0 && s.f == Fingerprint::of("") {
        Prefix::Empty
    } else {
        Prefix::Remote(Arc::new(Remote {
            fingerprint: s.f,
            len: s.n,
            layers,
        }))
    };
    let breakpoints: Breakpoints = s.b.into_iter().collect();
    Ok(Decoded {
        record: Record {
            // Not this ledger's number: never matches a local response.
            seq: 0,
            at: s.at,
            provider: s.p,
            model: Arc::from(s.m),
            table_minimum: s.tm,
            tools: s.t,
            tool_prints,
            prefix,
            breakpoints,
            messages,
            prompt: None,
            held_estimate: s.h,
        },
        writer: s.w,
        writer_seq: s.ws,
        never_cached: s.nc,
        keep,
    })
}

/// The version field alone: read first, so another version's layout is
/// refused by its number, not by whichever field it lacks.
#[derive(Deserialize)]
struct Versioned {
    v: u32,
}

/// A response's usage as stored.
pub(crate) fn encode_usage(usage: &StoredUsage) -> Vec<u8> {
    serde_json::to_vec(&U1 {
        v: VERSION,
        r: usage.received.read(),
        w: usage.received.written(),
        i: usage.received.input(),
        nc: usage.never_cached,
    })
    .unwrap_or_default()
}

/// A stored usage read back, its counts within one request's.
pub(crate) fn decode_usage(bytes: &[u8]) -> Result<StoredUsage, Unreadable> {
    if bytes.len() > 1024 {
        return Err(Unreadable("a usage entry of more than 1 KiB".into()));
    }
    let version: Versioned =
        serde_json::from_slice(bytes).map_err(|e| Unreadable(format!("not a usage: {e}")))?;
    if version.v != VERSION {
        return Err(Unreadable(format!("usage version {}", version.v)));
    }
    let u: U1 =
        serde_json::from_slice(bytes).map_err(|e| Unreadable(format!("not a usage: {e}")))?;
    if [u.r, u.w, u.i].iter().any(|&n| n > MAX_REQUEST_TOKENS) {
        return Err(Unreadable("a usage count past one request's".into()));
    }
    Ok(StoredUsage {
        received: Received::new(0, u.r, u.w, u.i),
        never_cached: u.nc,
    })
}

/// The pings since the last turn, as stored.
pub(crate) fn encode_ping(ping: &StoredPing) -> Vec<u8> {
    serde_json::to_vec(ping).unwrap_or_default()
}

/// A stored ping count read back (at most 1 KiB).
pub(crate) fn decode_ping(bytes: &[u8]) -> Result<StoredPing, Unreadable> {
    if bytes.len() > 1024 {
        return Err(Unreadable("a ping entry of more than 1 KiB".into()));
    }
    serde_json::from_slice(bytes).map_err(|e| Unreadable(format!("not a ping entry: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_bytes_are_unreadable_never_a_panic() {
        for bytes in [
            &b""[..],
            b"\xff\xfe garbage",
            b"{\"v\":2}",
            b"{\"v\":1}",
            b"[1,2,3]",
            b"{\"v\":1,\"w\":1,\"ws\":1,\"at\":\"2027-01-01T00:00:00Z\",\"p\":\"anthropic\",\"m\":\"x\",\
               \"f\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"n\":3,\
               \"l\":[[\"a\",null,0,9,\"0000000000000000000000000000000000000000000000000000000000000000\"]],\
               \"b\":[],\"h\":0,\"nc\":0}",
        ] {
            assert!(decode(bytes).is_err(), "{}", String::from_utf8_lossy(bytes));
        }
        let huge = vec![b' '; MAX_RECORD_BYTES + 1];
        assert!(decode(&huge).is_err_and(|e| e.0.contains("more than")));
        assert!(decode_usage(b"{\"v\":1,\"r\":1,\"w\":1,\"i\":1e30,\"nc\":0}").is_err());
        assert!(decode_usage(b"{\"v\":1,\"r\":99999999999,\"w\":0,\"i\":0,\"nc\":0}").is_err());
    }
}
