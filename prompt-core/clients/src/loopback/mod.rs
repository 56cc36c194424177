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
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            requests: Mutex::new(Vec::new()),
            cache: Mutex::new(cache::Cache::default()),
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
    let mut cache = lock(&shared.cache);
    let seq = lock(&shared.requests).len() + 1;
    (200, cache.answer(api, &body, seq))
}
