#!/usr/bin/env python3
"""A loopback server that records what an LLM client sends and answers just
enough for it to finish one turn.

    capture.py PORT_FILE LOG_FILE [SECONDS]

Binds 127.0.0.1 only (port chosen by the OS, written to PORT_FILE), appends
one JSON line per request to LOG_FILE ({"path", "body"}), and exits after
SECONDS (default 300) whatever happens. Answers:

- POST .../messages (Anthropic): a one-sentence message, as SSE when the
  request asks to stream, else as JSON;
- POST .../responses (OpenAI Responses, Codex): the Responses SSE events of
  one assistant message;
- POST ...:streamGenerateContent / ...:generateContent (Gemini): one
  candidate of one sentence, as SSE / JSON; ...:countTokens: a count;
- anything else: 404 with a JSON error.

A body over 16 MiB is refused (413) unread; a connection idle for 30 s is
dropped. Standard library only.
"""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 16 * 1024 * 1024
ANSWER = "Captured."


def sse(events):
    out = []
    for name, data in events:
        out.append(f"event: {name}\ndata: {json.dumps(data)}\n\n")
    return "".join(out).encode()


def anthropic_events(model):
    message = {
        "id": "msg_capture", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    return sse([
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": ANSWER}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                           "usage": {"output_tokens": 1}}),
        ("message_stop", {"type": "message_stop"}),
    ])


def anthropic_json(model):
    return json.dumps({
        "id": "msg_capture", "type": "message", "role": "assistant", "model": model,
        "content": [{"type": "text", "text": ANSWER}], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
    }).encode()


def responses_events(model):
    item = {"type": "message", "role": "assistant", "id": "msg_capture", "status": "completed",
            "content": [{"type": "output_text", "text": ANSWER, "annotations": []}]}
    response = {"id": "resp_capture", "object": "response", "model": model,
                "status": "in_progress", "output": []}
    done = dict(response, status="completed", output=[item],
                usage={"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0},
                       "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0},
                       "total_tokens": 2})
    return sse([
        ("response.created", {"type": "response.created", "response": response}),
        ("response.output_item.added", {"type": "response.output_item.added",
                                        "output_index": 0, "item": dict(item, content=[])}),
        ("response.output_text.delta", {"type": "response.output_text.delta",
                                        "item_id": "msg_capture", "output_index": 0,
                                        "content_index": 0, "delta": ANSWER}),
        ("response.output_item.done", {"type": "response.output_item.done",
                                       "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "response": done}),
    ])


def gemini_chunk():
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": ANSWER}]},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1,
                          "totalTokenCount": 2},
        "modelVersion": "capture",
    }


class Handler(BaseHTTPRequestHandler):
    timeout = 30
    log_file = None
    lock = threading.Lock()

    def log_message(self, *args):
        pass

    def reply(self, code, body, content_type):
        self.send_response(code)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.record(None)
        self.reply(404, b'{"error": {"type": "not_found", "message": "capture server"}}',
                   "application/json")

    do_HEAD = do_GET

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY:
            self.reply(413, b'{"error": "too large"}', "application/json")
            return
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = {"unparsed": raw[:4096].decode("utf-8", "replace")}
        self.record(body)
        model = body.get("model", "capture") if isinstance(body, dict) else "capture"
        path = self.path.split("?")[0]
        if path.endswith("/messages"):
            if isinstance(body, dict) and body.get("stream"):
                self.reply(200, anthropic_events(model), "text/event-stream")
            else:
                self.reply(200, anthropic_json(model), "application/json")
        elif path.endswith("/responses"):
            self.reply(200, responses_events(model), "text/event-stream")
        elif path.endswith(":streamGenerateContent"):
            self.reply(200, f"data: {json.dumps(gemini_chunk())}\r\n\r\n".encode(),
                       "text/event-stream")
        elif path.endswith(":generateContent"):
            self.reply(200, json.dumps(gemini_chunk()).encode(), "application/json")
        elif path.endswith(":countTokens"):
            self.reply(200, b'{"totalTokens": 1}', "application/json")
        else:
            self.reply(404, b'{"error": {"type": "not_found", "message": "capture server"}}',
                       "application/json")

    def record(self, body):
        line = json.dumps({"method": self.command, "path": self.path, "body": body})
        with self.lock, open(self.log_file, "a", encoding="utf-8") as out:
            out.write(line + "\n")


def main():
    port_file, log_file = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 300.0
    Handler.log_file = log_file
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with open(port_file + ".tmp", "w") as out:
        out.write(str(server.server_address[1]))
    import os
    os.replace(port_file + ".tmp", port_file)
    time.sleep(seconds)
    server.shutdown()


if __name__ == "__main__":
    main()
