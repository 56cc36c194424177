#!/usr/bin/env python3
"""A hostile Claude Code transcript for `prompt explain --claude`.

PROMPTS system prompts (two unless told) of SIZE bytes each (one line
each, differing only in their last bytes, so every comparison reads them
whole), and REQUESTS requests going round them in turn, each answered, in the form
examples/tests/cli/explain.rs and layers/src/cli/explain/claude.rs read
(Claude Code 2.1.328: api-request-shape once per shape, api-request,
assistant with requestRef and usage), trimmed to the fields the reader reads.

    python3 tests/explain/transcript.py OUT [SIZE] [REQUESTS] [PROMPTS]

Defaults: SIZE 1048576, REQUESTS 2000, PROMPTS 2 (a 2.8 MB transcript).
Deterministic: the same arguments write the same bytes.
"""

import json
import sys


def main():
    out = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 20
    requests = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    body = ("You are a careful agent. " * (size // 25 + 1))[: size - 8]
    prompts = [body + f"{i:08}" for i in range(count)]
    tools = [{"name": "Read", "description": "Read a file.", "input_schema": {"type": "object"}}]
    own = {"type": "text", "text": "You are a Claude agent, built on Anthropic's Claude Agent SDK."}
    with open(out, "w") as f:
        def put(entry):
            f.write(json.dumps(entry, separators=(",", ":")) + "\n")

        for i, prompt in enumerate(prompts):
            put({"type": "api-request-shape", "sessionId": "s-1", "shapeHash": f"h-{i}",
                 "timestamp": "2026-11-29T09:00:00.000Z", "version": "2.1.328",
                 "shape": {"system": [own, {"type": "text", "text": prompt}], "tools": tools}})
        for r in range(requests):
            second = 9 * 3600 + r
            at = f"2026-11-29T{second // 3600:02}:{second // 60 % 60:02}:{second % 60:02}.000Z"
            put({"type": "api-request", "id": f"r-{r}", "timestamp": at,
                 "shapeHash": f"h-{r % count}", "params": {"model": "claude-sonnet-4-5"},
                 "tail": [f"m{k}" for k in range(r % 5 + 1)]})
            tokens = size // 4
            put({"type": "assistant", "timestamp": at, "requestRef": f"r-{r}",
                 "promptCacheRequested": "5m",
                 "message": {"id": f"msg_{r}", "model": "claude-sonnet-4-5",
                             "usage": {"input_tokens": 3, "cache_creation_input_tokens": tokens,
                                       "cache_read_input_tokens": 0, "output_tokens": 5}}})


if __name__ == "__main__":
    main()
