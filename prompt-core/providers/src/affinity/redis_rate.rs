//! [`RedisRateTracker`]: one count per key and minute in a Redis every
//! replica shares.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use jiff::Timestamp;
use redis::{Script, Value};

use super::shard::{RATE_WINDOWS, RateError, RateTracker, RecentRate, minute_of};

/// Counts the key of `KEYS[1]` (the minute in progress) and reads back
/// every window's count, newest first: one round trip. The window expires
/// `ARGV[1]` seconds after its first request (set again should it ever
/// have lost its expiry), so a quiet key leaves nothing behind.
const RECORD: &str = r"
redis.call('INCR', KEYS[1])
if redis.call('TTL', KEYS[1]) < 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return redis.call('MGET', unpack(KEYS))
";

/// How long each window's counter lives: the [`RATE_WINDOWS`] minutes it is
/// read in, and one more for replicas whose clocks differ a little.
const WINDOW_EXPIRY_SECONDS: u64 = (RATE_WINDOWS as u64 + 1) * 60;

/// Idle connections kept for the next calls (more are opened while calls
/// overlap, and closed after).
const IDLE_CONNECTIONS: usize = 8;

/// How long a [`RedisRateTracker`] waits on each call unless told: to
/// connect, then for the reply. A loopback Redis answers in well under a
/// millisecond.
pub const DEFAULT_RATE_TIMEOUT: Duration = Duration::from_millis(50);

/// A [`RateTracker`] on Redis (or a server that speaks its protocol):
/// replicas that share one count one key's rate together, so they shard a
/// key at the same request and give each conversation the same shard.
///
/// Each request is one Lua script, one round trip: `INCR` on
/// `<prefix><key>:<minute>` (minutes since the Unix epoch), an `EXPIRE` of
/// [`RATE_WINDOWS`]` + 1` minutes on a new window, and an `MGET` of the
/// last [`RATE_WINDOWS`] windows.
///
/// # Blocking, and why
///
/// [`RateTracker::record`] is synchronous, called once per request on the
/// sending path, so this tracker talks to Redis over redis-rs's synchronous
/// connections with a connect, read and write timeout of
/// [`timeout`](Self::timeout) (50 ms by default): a call blocks the thread
/// it runs on for at most about twice that (connecting, then the round
/// trip), never longer, and a store that does not answer in time is a
/// [`RateError`], after which the [`Sharder`](super::Sharder) shards by the
/// replica's own count. In an async server that is a short blocking call on
/// a runtime thread; call [`Sharder::key`](super::Sharder::key) inside
/// `tokio::task::block_in_place` or `spawn_blocking` where even that is too
/// much. Connections are pooled (calls that overlap each take one) and a
/// connection that failed is dropped, so the next call connects again.
///
/// ```no_run
/// use prompt_providers::affinity::{KeyedProvider, RedisRateTracker, ShardPolicy, Sharder};
/// use std::time::Duration;
///
/// let tracker = RedisRateTracker::open("redis://127.0.0.1:6379/")?
///     .timeout(Duration::from_millis(20));
/// let sharder = Sharder::shared(ShardPolicy::for_provider(KeyedProvider::OpenAi), tracker);
/// # let _ = sharder;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[non_exhaustive]
pub struct RedisRateTracker {
    client: redis::Client,
    idle: Mutex<Vec<redis::Connection>>,
    prefix: String,
    timeout: Duration,
    script: Script,
}

impl std::fmt::Debug for RedisRateTracker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        f.debug_struct("RedisRateTracker")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .field("idle_connections", &idle)
            .finish_non_exhaustive()
    }
}

impl RedisRateTracker {
    /// A tracker at `url` (`redis://host:port/db`), keys under
    /// `prompt:rate:`. Nothing is sent until the first call.
    ///
    /// # Errors
    /// [`RateError::Address`] when `url` is not a Redis address.
    pub fn open(url: &str) -> Result<Self, RateError> {
        let client = redis::Client::open(url).map_err(|e| RateError::Address {
            url: url.to_owned(),
            reason: e.to_string(),
        })?;
        Ok(Self {
            client,
            idle: Mutex::new(Vec::new()),
            prefix: "prompt:rate:".to_owned(),
            timeout: DEFAULT_RATE_TIMEOUT,
            script: Script::new(RECORD),
        })
    }

    /// The prefix of its keys (default `prompt:rate:`).
    pub fn prefix(mut self, prefix: &str) -> Self {
        self.prefix = prefix.to_owned();
        self
    }

    /// How long each call may wait to connect, and then for its reply
    /// (default [`DEFAULT_RATE_TIMEOUT`]; at least 1 ms).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// An idle connection, or a new one with the timeouts set.
    fn connection(&self) -> redis::RedisResult<redis::Connection> {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        if let Some(connection) = idle {
            return Ok(connection);
        }
        let connection = self.client.get_connection_with_timeout(self.timeout)?;
        connection.set_read_timeout(Some(self.timeout))?;
        connection.set_write_timeout(Some(self.timeout))?;
        Ok(connection)
    }

    /// Puts a connection that answered back for the next call.
    fn keep(&self, connection: redis::Connection) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < IDLE_CONNECTIONS {
            idle.push(connection);
        }
    }
}

/// A window's count as stored: nil is none; a number past `u32::MAX`
/// counts as `u32::MAX`; anything else (a negative number, text) is refused.
fn count(value: &Value) -> Result<u32, String> {
    let text = match value {
        Value::Nil => return Ok(0),
        Value::Int(n) if *n < 0 => return Err(format!("a window holds {n}, not a count")),
        Value::Int(n) => return Ok(u32::try_from(*n).unwrap_or(u32::MAX)),
        Value::BulkString(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Value::SimpleString(text) => text.clone(),
        other => return Err(format!("a reply of another kind: {other:?}")),
    };
    let n: u64 = text
        .parse()
        .map_err(|_| format!("a window holds `{text}`, not a count"))?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

impl RateTracker for RedisRateTracker {
    fn record(&self, key: &str, now: Timestamp) -> Result<RecentRate, RateError> {
        let minute = minute_of(now);
        let unavailable = |reason: String| RateError::unavailable(key, reason);
        let mut invocation = self.script.prepare_invoke();
        for back in 0..RATE_WINDOWS as i64 {
            invocation.key(format!(
                "{}{key}:{}",
                self.prefix,
                minute.saturating_sub(back)
            ));
        }
        invocation.arg(WINDOW_EXPIRY_SECONDS);
        let mut connection = self.connection().map_err(|e| unavailable(e.to_string()))?;
        let reply: Vec<Value> = invocation
            .invoke(&mut connection)
            .map_err(|e| unavailable(e.to_string()))?;
        self.keep(connection);
        if reply.len() != RATE_WINDOWS {
            return Err(unavailable(format!(
                "{} windows read back, not {RATE_WINDOWS}",
                reply.len()
            )));
        }
        let mut counts = [0; RATE_WINDOWS];
        for (slot, value) in counts.iter_mut().zip(&reply) {
            *slot = count(value).map_err(unavailable)?;
        }
        Ok(RecentRate::new(minute, counts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_count_is_read_checked() {
        assert_eq!(count(&Value::Nil), Ok(0));
        assert_eq!(count(&Value::BulkString(b"17".to_vec())), Ok(17));
        assert_eq!(
            count(&Value::BulkString(b"99999999999".to_vec())),
            Ok(u32::MAX)
        );
        assert!(count(&Value::Int(-3)).is_err());
        assert_eq!(count(&Value::Int(5)), Ok(5));
        assert!(count(&Value::BulkString(b"many".to_vec())).is_err());
    }

    #[test]
    fn a_bad_address_is_refused_naming_it() {
        let error = RedisRateTracker::open("http://nowhere").unwrap_err();
        assert!(error.to_string().contains("http://nowhere"), "{error}");
    }

    #[test]
    fn a_store_that_does_not_answer_is_an_error_not_a_wait() {
        // Port 1 on loopback refuses at once; the call returns an error.
        let tracker = RedisRateTracker::open("redis://127.0.0.1:1/").unwrap();
        let error = tracker
            .record("k", Timestamp::from_second(1_800_000_000).unwrap())
            .unwrap_err();
        assert!(error.to_string().contains("key `k`"), "{error}");
    }
}
