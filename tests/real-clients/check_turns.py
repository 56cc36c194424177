#!/usr/bin/env python3
"""Checks an interactive session of several turns captured by capture.py.

    check_turns.py claude|gemini CAPTURE_LOG RENDER_1 PROMPT_1 [RENDER_2 PROMPT_2 ...]

RENDER_N is `prompt render --format json` with the session's options as the
workspace stood at turn N, PROMPT_N the words typed at turn N. For each
turn, the request whose last user message holds PROMPT_N is checked:

1. its system block is the stable prefix byte-exact (Claude: a `system`
   text block; Gemini: `systemInstruction`), and byte-identical on every turn;
2. the last user message (Gemini: the last `user` content) carries that
   turn's dynamic part (and reminder), before the typed words;
3. no system block holds any turn's dynamic part.

Prints one line per check; exits 1 on the first failure.
"""

import json
import sys

from check_common import fail, ok, rendered, texts


def system_texts(client, body):
    if client == "claude":
        return [b.get("text", "") for b in body.get("system", [])]
    instruction = body.get("systemInstruction") or {}
    return ["".join(p.get("text", "") for p in instruction.get("parts", []))]


def last_user(client, body):
    """The texts of the last user message."""
    if client == "claude":
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        return texts(users[-1].get("content", [])) if users else []
    users = [c for c in body.get("contents", []) if c.get("role") == "user"]
    return [p.get("text", "") for p in users[-1].get("parts", [])] if users else []


def main():
    client, log = sys.argv[1], sys.argv[2]
    turns = list(zip(sys.argv[3::2], sys.argv[4::2]))
    requests = [json.loads(line) for line in open(log, encoding="utf-8")]
    bodies = [r["body"] for r in requests if r["method"] == "POST" and isinstance(r["body"], dict)]
    systems = []
    dynamics = []
    for number, (render, typed) in enumerate(turns, 1):
        stable, context = rendered(render)
        dynamics.extend(context)
        matching = [b for b in bodies if any(typed in t for t in last_user(client, b))]
        # The session's own call, not a side call (a title, a classifier).
        body = next((b for b in matching if stable in system_texts(client, b)),
                    matching[0] if matching else None)
        if body is None:
            fail(f"turn {number}: no captured request ends with the typed words {typed!r}")
        system = system_texts(client, body)
        exact = [i for i, t in enumerate(system) if t == stable]
        if not exact:
            fail(f"turn {number}: no system block is the stable prefix byte-exact "
                 f"({len(system)} blocks)")
        systems.append(system[exact[0]])
        where = f"system[{exact[0]}]" if client == "claude" else "systemInstruction"
        extra = ""
        if client == "claude":
            extra = f", cache_control={json.dumps(body['system'][exact[0]].get('cache_control'))}"
        ok(f"turn {number}: the stable prefix ({len(stable.encode())} B) is {where}, "
           f"byte-exact{extra}")
        user = last_user(client, body)
        typed_at = next(i for i, t in enumerate(user) if typed in t)
        for piece in context:
            holder = next((i for i, t in enumerate(user) if piece in t), None)
            if holder is None:
                fail(f"turn {number}: this turn's dynamic part is not in its user message")
            if holder > typed_at or (holder == typed_at
                                     and user[holder].find(piece) > user[holder].find(typed)):
                fail(f"turn {number}: the dynamic part comes after the typed words")
        if context:
            shown = user[next(i for i, t in enumerate(user) if context[0] in t)]
            ok(f"turn {number}: its dynamic part ({sum(len(p.encode()) for p in context)} B) is "
               f"in its user message, before the typed words: {shown[:60]!r}...")
        for text in system:
            for piece in dynamics:
                if piece in text:
                    fail(f"turn {number}: a system block holds a dynamic part")
    if len(set(systems)) != 1:
        fail("the system block differs between turns")
    ok(f"the system block is byte-identical on all {len(systems)} turns")
    if len(set(dynamics)) < len(dynamics):
        print("  note two turns had the same dynamic part: nothing changed between them")
    else:
        ok("each turn carried its own dynamic part (they differ)")


if __name__ == "__main__":
    main()
