"""What check.py and check_turns.py share: their one-line report, the text
of a captured message, and the pieces of a `prompt render --format json`."""

import json
import sys


def fail(message):
    """Reports a failed check and exits 1."""
    print(f"  FAIL {message}")
    sys.exit(1)


def ok(message):
    """Reports a passed check."""
    print(f"  ok   {message}")


def texts(content):
    """The text of a message's content (a string or a list of blocks)."""
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content if isinstance(b, dict)]


def rendered(path):
    """The stable prefix of the render at `path`, and its context: the
    dynamic part and the reminder, those that are not blank."""
    parts = json.load(open(path, encoding="utf-8"))
    reminder = parts.get("reminder") or ""
    stable = next((p["content"] for p in parts["parts"] if p["cache"]), "")
    dynamic = next((p["content"] for p in parts["parts"] if not p["cache"]), "")
    return stable, [piece for piece in (dynamic, reminder) if piece.strip()]
