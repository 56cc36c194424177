#!/usr/bin/env python3
"""Checks one captured client request against what `prompt render` rendered.

    check.py claude|codex|gemini CAPTURE_LOG RENDER_JSON USER_PROMPT SYSTEM_OUT

CAPTURE_LOG is capture.py's log, RENDER_JSON the output of `prompt render
--format json` with the same options. Asserts:

1. the stable prefix arrives byte-exact as its own system block (Claude: a
   `system` text block; Codex: the first `developer` input item; Gemini: the
   `systemInstruction`);
2. (with SYSTEM_OUT, compared across runs by run.sh) writes that block's bytes
   to SYSTEM_OUT;
3. the dynamic part (and reminder) arrives in the first user message that
   holds the user's prompt, before it, and in no system block.

Prints one line per check; exits 1 on the first failure.
"""

import json
import sys

from check_common import fail, ok, rendered, texts


def main():
    client, log, render_json, user_prompt, system_out = sys.argv[1:6]
    stable, context = rendered(render_json)
    if not stable:
        fail("the rendered stable prefix is empty: nothing to check")
    requests = [json.loads(line) for line in open(log, encoding="utf-8")]
    suffix = {"claude": "/messages", "codex": "/responses",
              "gemini": "GenerateContent"}[client]
    bodies = [r["body"] for r in requests
              if r["method"] == "POST" and r["path"].split("?")[0].endswith(suffix)
              and isinstance(r["body"], dict)]
    if client == "gemini":
        # Gemini's contents as messages: {"role", "content": [{"text"}]}.
        for body in bodies:
            body["messages"] = [{"role": c.get("role"), "content": c.get("parts", [])}
                                for c in body.get("contents", [])]
    if not bodies:
        fail(f"no POST ...{suffix} was captured ({len(requests)} requests)")

    def holds_prompt(body):
        items = body.get("input") if client == "codex" else body.get("messages")
        return any(user_prompt in t for m in items or [] if m.get("role") == "user"
                   for t in texts(m.get("content", [])))

    body = next((b for b in bodies if holds_prompt(b)), None)
    if body is None:
        fail(f"none of the {len(bodies)} captured requests carries the user's prompt")

    if client == "claude":
        system = [b.get("text", "") for b in body.get("system", [])]
        exact = [i for i, t in enumerate(system) if t == stable]
        if not exact:
            fail(f"no system block is the stable prefix byte-exact ({len(system)} blocks)")
        block = body["system"][exact[0]]
        ok(f"stable prefix ({len(stable.encode())} B) is system block {exact[0]}, "
           f"byte-exact, cache_control={json.dumps(block.get('cache_control'))}")
        messages = body["messages"]
    elif client == "gemini":
        parts = (body.get("systemInstruction") or {}).get("parts", [])
        system = ["".join(p.get("text", "") for p in parts)]
        if system[0] != stable:
            fail(f"the systemInstruction is not the stable prefix byte-exact "
                 f"({len(system[0].encode())} B against {len(stable.encode())} B)")
        exact = [0]
        ok(f"stable prefix ({len(stable.encode())} B) is the systemInstruction "
           f"({len(parts)} part), byte-exact")
        messages = body["messages"]
    else:
        items = body.get("input", [])
        developer = [i for i in items if i.get("role") == "developer"]
        system = [t for i in developer for t in texts(i.get("content", []))]
        system.append(body.get("instructions") or "")
        if not developer or texts(developer[0].get("content", [])) != [stable]:
            fail("the first developer item is not the stable prefix byte-exact")
        ok(f"stable prefix ({len(stable.encode())} B) is the first developer item, byte-exact")
        messages = [i for i in items if i.get("type", "message") == "message"]
    with open(system_out, "w", encoding="utf-8") as out:
        out.write(stable if client == "codex" else system[exact[0]])

    for piece in context:
        if any(piece in t for t in system):
            fail("the dynamic part is in a system block")
    ok("the dynamic part is in no system block" if context else "the prompt has no dynamic part")

    # The message holding the prompt; the context is in it, in the prompt's
    # own text block (Codex) or in a block before it (Claude Code's hook).
    user = [m for m in messages if m.get("role") == "user"]
    carrying = next(texts(m.get("content", [])) for m in user
                    if any(user_prompt in t for t in texts(m.get("content", []))))
    typed_at = next(i for i, t in enumerate(carrying) if user_prompt in t)
    for piece in context:
        holder = next((i for i, t in enumerate(carrying) if piece in t), None)
        if holder is None:
            fail("the dynamic part is not in the user message that holds the prompt")
        if holder > typed_at or (holder == typed_at and
                                 carrying[holder].find(piece) > carrying[holder].find(user_prompt)):
            fail("the dynamic part comes after the user's prompt")
    if context:
        ok(f"the dynamic part ({sum(len(p.encode()) for p in context)} B) is in the "
           f"user message, before the prompt")


if __name__ == "__main__":
    main()
