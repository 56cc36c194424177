//! A `redis-server` of a test's own: on a free loopback port, nothing saved
//! to disk, in a temporary folder, killed when dropped. For the shared
//! ledger's tests and benchmark; they need Debian's `redis-server`
//! (`apt-get install redis-server`), found on `PATH`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The line that installs what these tests need.
pub const INSTALL: &str = "apt-get install redis-server";

/// Whether `redis-server` is on `PATH`.
pub fn installed() -> bool {
    Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A running `redis-server`, killed on drop.
pub struct RedisServer {
    port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

/// A port no one listens on now (the OS's pick for a listener, released).
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    listener.local_addr().expect("its address").port()
}

impl RedisServer {
    /// Starts one and waits until it answers `PING` (panics after 30 s: a
    /// test's setup, not its assertion).
    pub fn start() -> Self {
        let mut server = Self {
            port: free_port(),
            dir: tempfile::tempdir().expect("a temporary folder"),
            child: None,
        };
        server.restart();
        server
    }

    /// Its address, `redis://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Kills it (its data is gone: nothing is saved) and waits for it.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port, empty, once stopped.
    pub fn restart(&mut self) {
        self.stop();
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("redis-server does not start ({e}): {INSTALL}"));
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.answers() {
            assert!(
                Instant::now() < deadline,
                "redis-server on port {} did not answer within 30 s",
                self.port
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether it answers `PING` now.
    fn answers(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
        let mut reply = [0u8; 7];
        stream.write_all(b"PING\r\n").is_ok()
            && stream.read_exact(&mut reply).is_ok()
            && &reply == b"+PONG\r\n"
    }

    /// Runs one command through the server's own protocol (inline form) and
    /// returns the raw reply's first line: for tests that write hostile
    /// bytes under a key.
    pub fn command(&self, parts: &[&[u8]]) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("redis answers");
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let mut request = format!("*{}\r\n", parts.len()).into_bytes();
        for part in parts {
            request.extend_from_slice(format!("${}\r\n", part.len()).as_bytes());
            request.extend_from_slice(part);
            request.extend_from_slice(b"\r\n");
        }
        stream.write_all(&request).expect("the command is sent");
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        while stream.read_exact(&mut byte).is_ok() && byte[0] != b'\n' {
            line.push(byte[0]);
        }
        String::from_utf8_lossy(&line).trim_end().to_owned()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}
