//! A capture server on 127.0.0.1 for wire tests: it records every request
//! a client sends and answers as Anthropic's Messages API or OpenAI's Chat
//! Completions and Responses would, with usage whose cache reads and writes
//! follow the breakpoints it saw ([`cache`]). Feature `loopback`.
//!
//! Point the client's base URL at [`Loopback::base_url`] (Anthropic's
//! `ANTHROPIC_BASE_URL`, OpenAI's `.../v1`), send through the client's own
//! HTTP code, then read [`Loopback::requests`]: the bytes on the wire.
//!
//! ```
//! use prompt_clients::loopback::Loopback;
//! use std::io::{Read, Write};
//!
//! let server = Loopback::start()?;
//! let body = r#"{"model":"claude-sonnet-4-5","max_tokens":16,
//!     "system":[{"type":"text","text":"You are terse.","cache_control":{"type":"ephemeral"}}],
//!     "messages":[{"role":"user","content":"Hi"}]}"#;
//! let mut stream = std::net::TcpStream::connect(server.addr())?;
//! write!(stream, "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}", body.len())?;
//! let mut reply = String::new();
//! stream.read_to_string(&mut reply)?;
//! assert!(reply.starts_with("HTTP/1.1 200 OK"));
//! assert!(reply.contains(r#""cache_read_input_tokens":0"#));
//! assert_eq!(server.requests()[0].json()?["system"][0]["text"], "You are terse.");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Its cache emulates Anthropic's as documented (the prefix order, the
//! breakpoints and their limit, the 20-block lookback, the model's minimum,
//! TTLs against a [`cache::Clock`]; see [`cache`]); each turn is answered
//! with about 1.5 KB of text ([`cache::reply`]), and
//! [`Loopback::read_share`] says how much of the input that could be read
//! was read.
//!
//! It reads at most [`MAX_HEAD`] bytes of request head and [`MAX_BODY`] of
//! body, answers anything else with an error status, and gives up on a
//! connection silent for 10 seconds; it binds 127.0.0.1 only.

pub mod cache;
mod http;

use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use serde_json::Value;

pub use http::{MAX_BODY, MAX_HEAD};

/// A request as it arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Captured {
    /// `POST`, `GET`, ...
    pub method: String,
    /// The request target, e.g. `/v1/messages`.
    pub path: String,
    /// The headers in order, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body's exact bytes.
    pub body: Vec<u8>,
}

impl Captured {
    /// The body parsed as JSON.
    ///
    /// # Errors
    /// The parser's, for a body that is not JSON.
    pub fn json(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_slice(&self.body)
    }

    /// The body as text (lossy for bytes that are not UTF-8).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The first header called `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the server shares with its connections.
struct Shared {
    stop: AtomicBool,
    requests: Mutex<Vec<Captured>>,
    cache: Mutex<cache::Cache>,
    /// What the cache did with each request it served, in that order.
    served: Mutex<Vec<cache::Served>>,
}

/// How much of the input that could be read from the cache was, over the
/// requests a [`Loopback`] served (OpenAI's before GPT-5.6 count none readable).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadShare {
    /// The requests served.
    pub requests: usize,
    /// All their input tokens.
    pub input: u64,
    /// The tokens read from the cache.
    pub read: u64,
    /// The tokens that could have been read: all but each request's new
    /// part ([`cache::Served::readable`]).
    pub readable: u64,
}

impl ReadShare {
    /// `read / readable`, 1 when nothing was readable.
    pub fn share(&self) -> f64 {
        if self.readable == 0 {
            return 1.0;
        }
        // Token counts are far below 2^52: exact as f64.
        #[allow(clippy::cast_precision_loss)]
        let share = self.read as f64 / self.readable as f64;
        share
    }
}

impl std::fmt::Display for ReadShare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} requests, {} input tokens: read {} of the {} that could be read ({:.1}%)",
            self.requests,
            self.input,
            self.read,
            self.readable,
            self.share() * 100.0
        )
    }
}

/// The capture server. It stops when dropped.
pub struct Loopback {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Loopback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loopback")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Loopback {
    /// A server on a free port of 127.0.0.1, with an empty cache.
    ///
    /// # Errors
    /// Binding the port or starting its thread.
    pub fn start() -> io::Result<Self> {
        Self::with_clock(cache::SystemClock::default())
    }

    /// A server as [`start`](Self::start) makes it, whose cache entries
    /// expire against `clock` (a [`cache::ManualClock`] the test advances).
    ///
    /// # Errors
    /// Binding the port or starting its thread.
    pub fn with_clock(clock: impl cache::Clock + 'static) -> io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            requests: Mutex::new(Vec::new()),
            cache: Mutex::new(cache::Cache::with_clock(clock)),
            served: Mutex::new(Vec::new()),
        });
        let serving = Arc::clone(&shared);
        let accept = std::thread::Builder::new()
            .name("loopback-accept".to_owned())
            .spawn(move || accept_loop(&listener, &serving))?;
        Ok(Self {
            addr,
            shared,
            accept: Some(accept),
        })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:<port>`: the base URL for a client (add `/v1` for
    /// OpenAI's clients, which append only the endpoint).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far, in the order they arrived.
    pub fn requests(&self) -> Vec<Captured> {
        lock(&self.shared.requests).clone()
    }

    /// What the cache did with each request it served (not those refused),
    /// in the order it served them.
    pub fn served(&self) -> Vec<cache::Served> {
        lock(&self.shared.served).clone()
    }

    /// The share of the readable input that was read, over every request
    /// served so far.
    pub fn read_share(&self) -> ReadShare {
        let served = lock(&self.shared.served);
        served.iter().fold(
            ReadShare {
                requests: served.len(),
                ..ReadShare::default()
            },
            |sum, s| ReadShare {
                input: sum.input + s.input(),
                read: sum.read + s.read,
                readable: sum.readable + s.readable,
                ..sum
            },
        )
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop, which then sees the flag.
        drop(TcpStream::connect(self.addr));
        if let Some(accept) = self.accept.take() {
            // A panicked accept thread has nothing left to clean up.
            let _ = accept.join();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let shared = Arc::clone(shared);
        // One thread per connection; a connection that fails is dropped.
        let _ = std::thread::Builder::new()
            .name("loopback-conn".to_owned())
            .spawn(move || serve(stream, &shared));
    }
}

/// Reads one request, records it, answers it and closes the connection.
fn serve(mut stream: TcpStream, shared: &Shared) {
    let request = match http::read_request(&mut stream) {
        Ok(request) => request,
        Err(error) => {
            let _ = http::write_response(&mut stream, error.status(), &error.body());
            return;
        }
    };
    let (status, body) = answer(&request, shared);
    lock(&shared.requests).push(request);
    let _ = http::write_response(&mut stream, status, &body);
}

/// The status and JSON body for `request`, by the endpoint its path names.
fn answer(request: &Captured, shared: &Shared) -> (u16, Value) {
    let Ok(body) = request.json() else {
        return (400, http::error_json("the body is not JSON"));
    };
    let path = request.path.split('?').next().unwrap_or_default();
    let api = if path.ends_with("/messages") {
        cache::Api::Messages
    } else if path.ends_with("/chat/completions") {
        cache::Api::ChatCompletions
    } else if path.ends_with("/responses") {
        cache::Api::Responses
    } else {
        return (
            404,
            http::error_json("no such endpoint: /messages, /chat/completions, /responses"),
        );
    };
    if let Some(refused) = cache::refusal(api, &body) {
        return (400, http::error_json(&refused));
    }
    let mut cache = lock(&shared.cache);
    let seq = lock(&shared.requests).len() + 1;
    let (served, answer) = cache.respond(api, &body, seq);
    lock(&shared.served).push(served);
    (200, answer)
}

#[cfg(test)]
mod tests {
    use super::Loopback;
    use std::io::{Read, Write};

    fn post(server: &Loopback, body: &str) -> String {
        let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
        write!(
            stream,
            "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        reply
    }

    #[test]
    fn a_request_anthropic_refuses_is_a_400_and_touches_no_cache() {
        let server = Loopback::start().unwrap();
        let marked = r#"{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}"#;
        let body = format!(
            r#"{{"model":"claude-sonnet-4-5","max_tokens":8,"system":[{marked},{marked},{marked}],
                "messages":[{{"role":"user","content":[{marked},{marked}]}}]}}"#
        );
        let reply = post(&server, &body);
        assert!(reply.starts_with("HTTP/1.1 400"), "{reply}");
        assert!(
            reply.contains("A maximum of 4 blocks with cache_control may be provided. Found 5.")
        );
        assert_eq!(server.requests().len(), 1, "recorded");
        assert!(server.served().is_empty(), "neither read nor written");
        let fine = body.replacen(r#","cache_control":{"type":"ephemeral"}"#, "", 1);
        let reply = post(&server, &fine);
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
        assert!(
            reply.len() > super::cache::REPLY_BYTES,
            "a turn's worth of text"
        );
        assert_eq!(server.read_share().requests, 1);
    }
}
