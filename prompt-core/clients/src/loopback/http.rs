//! Just enough HTTP/1.1 for one request per connection: a head with
//! `Content-Length` or a chunked body, bounded and timed out.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

use super::Captured;

/// The longest request head read (request line and headers), in bytes.
pub const MAX_HEAD: usize = 64 * 1024;
/// The longest request body read, in bytes.
pub const MAX_BODY: usize = 32 * 1024 * 1024;
/// How long a connection may stay silent.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Why a request was not read.
pub(super) enum BadRequest {
    /// Malformed, with what was wrong.
    Malformed(&'static str),
    /// Over a limit.
    TooLarge(&'static str),
    /// The connection failed or went silent.
    Io,
}

impl BadRequest {
    pub(super) fn status(&self) -> u16 {
        match self {
            Self::Malformed(_) | Self::Io => 400,
            Self::TooLarge(_) => 413,
        }
    }

    pub(super) fn body(&self) -> Value {
        error_json(match self {
            Self::Malformed(what) | Self::TooLarge(what) => what,
            Self::Io => "the connection failed before the request was complete",
        })
    }
}

impl From<io::Error> for BadRequest {
    fn from(_: io::Error) -> Self {
        Self::Io
    }
}

/// An API-shaped error body.
pub(super) fn error_json(message: &str) -> Value {
    json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}})
}

/// One request from `stream`.
pub(super) fn read_request(stream: &mut TcpStream) -> Result<Captured, BadRequest> {
    stream.set_read_timeout(Some(TIMEOUT))?;
    stream.set_write_timeout(Some(TIMEOUT))?;
    let mut reader =
        BufReader::new(stream.take(u64::try_from(MAX_HEAD + MAX_BODY + 64).unwrap_or(u64::MAX)));
    let mut head_bytes = 0;
    let mut line = String::new();
    let mut read_line = |reader: &mut BufReader<_>, line: &mut String| -> Result<(), BadRequest> {
        line.clear();
        let n = reader
            .by_ref()
            .take(u64::try_from(MAX_HEAD - head_bytes.min(MAX_HEAD)).unwrap_or(0))
            .read_line(line)?;
        head_bytes += n;
        if head_bytes >= MAX_HEAD {
            return Err(BadRequest::TooLarge("the request head is over 64 KiB"));
        }
        if n == 0 {
            return Err(BadRequest::Io);
        }
        Ok(())
    };
    read_line(&mut reader, &mut line)?;
    let mut words = line.split_ascii_whitespace();
    let (Some(method), Some(path), Some(_version)) = (words.next(), words.next(), words.next())
    else {
        return Err(BadRequest::Malformed(
            "the request line is not `METHOD PATH HTTP/1.1`",
        ));
    };
    let (method, path) = (method.to_owned(), path.to_owned());
    let mut headers = Vec::new();
    loop {
        read_line(&mut reader, &mut line)?;
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            break;
        }
        let (name, value) = header
            .split_once(':')
            .ok_or(BadRequest::Malformed("a header line has no `:`"))?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let find = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let chunked = find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    let body = if chunked {
        read_chunked(&mut reader)?
    } else {
        let length: usize = match find("content-length") {
            Some(value) => value
                .parse()
                .map_err(|_| BadRequest::Malformed("Content-Length is not a number"))?,
            None => 0,
        };
        if length > MAX_BODY {
            return Err(BadRequest::TooLarge("the body is over 32 MiB"));
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        body
    };
    Ok(Captured {
        method,
        path,
        headers,
        body,
    })
}

/// A chunked body, its chunks joined.
fn read_chunked(reader: &mut impl BufRead) -> Result<Vec<u8>, BadRequest> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.by_ref().take(1024).read_line(&mut line)?;
        let size = line.trim_end().split(';').next().unwrap_or_default();
        let size = usize::from_str_radix(size.trim(), 16)
            .map_err(|_| BadRequest::Malformed("a chunk size is not hexadecimal"))?;
        if size == 0 {
            // The trailer, up to its blank line.
            loop {
                line.clear();
                if reader.by_ref().take(1024).read_line(&mut line)? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        if body.len() + size > MAX_BODY {
            return Err(BadRequest::TooLarge("the body is over 32 MiB"));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        let mut crlf = [0; 2];
        reader.read_exact(&mut crlf)?;
    }
}

/// Writes `body` as the response, then closes the connection.
pub(super) fn write_response(stream: &mut TcpStream, status: u16, body: &Value) -> io::Result<()> {
    let body = body.to_string();
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        413 => "Payload Too Large",
        _ => "Error",
    };
    write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         request-id: req_loopback\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()
}
