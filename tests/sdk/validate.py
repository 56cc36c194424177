#!/usr/bin/env python3
"""Validate every provider request snapshot against the official SDK types.

The insta snapshots under tests/ and examples/ whose names mention a provider
(anthropic, openai, gemini, bedrock) record the request bodies this workspace sends.
This script checks each body against the request parameter types published by
the providers' own Python SDKs, so a body the real API would reject fails CI:

  anthropic  anthropic.types.MessageCreateParamsNonStreaming
  openai     openai.types.responses.ResponseCreateParamsNonStreaming, or
             openai.types.chat.CompletionCreateParamsNonStreaming (names with "chat")
  gemini     google.genai.types (Content, GenerationConfig, Tool, ...) inside a
             thin envelope for the REST body of models.generateContent or
             cachedContents.create, which the SDK has no single type for
  bedrock    botocore's bedrock-runtime service model: the Converse
             operation's input shape, with botocore.validate.ParamValidator,
             over the SDK call's parameters (the body and modelId, a URI
             member)

Stock pydantic validation of those TypedDicts is far too lenient, so the script
hardens it before validating anything (and checks that it did, see self_test):

  * pydantic refuses TypeAdapter(..., config=ConfigDict(extra="forbid")) for a
    TypedDict, and a config there would not reach nested TypedDicts anyway;
    instead every TypedDict reachable from the root gets its own
    __pydantic_config__ = ConfigDict(extra="forbid").
  * The SDKs annotate lists as typing.Iterable / SequenceNotStr, which pydantic
    validates lazily (a ValidatorIterator nobody consumes): a garbage `system`
    or `messages` passes untouched. The SDK modules' Iterable and
    SequenceNotStr are rebound to List before the schemas are built, and any
    lazy iterator left in a validated value is an error.

On top of the types, the Anthropic limits the types cannot express: at most 4
cache_control breakpoints (tools, system, messages, and the top-level automatic
one), ttl "5m" or "1h" with no 1h breakpoint after a 5m one (in the order
tools, system, messages), and no empty text blocks. For OpenAI, what the API
does not refuse but silently ignores: more explicit prompt_cache_breakpoints
than a request writes (4 with prompt_cache_options.mode "explicit", 3 beside
the implicit one otherwise; OpenAI writes the latest, so an earlier one, the
stable prefix's, would be lost), and mode "explicit" with no breakpoint at all
(the request then caches nothing). And what it refuses though the types take
it: `prompt_cache_retention` "in_memory" for gpt-5.5 and later (the SDK's
docstring of the field: those models take only "24h").

The pinned SDKs know every field the builders send: anthropic 2.15.0 and
later have `diagnostics` and the top-level `cache_control` in
MessageCreateParams (the anthropic-beta header cache-diagnosis-2026-04-07 is
a header, not a body field, and no type checks it); openai 3.57.0 has
`prompt_cache_options` (with `comparison_response_id`, `prewarm` and the
`ttl` "12h" in the Responses type only) and `prompt_cache_breakpoint` on input_text and Chat text parts.

botocore's ParamValidator checks types, required and unknown members, tagged
unions (one member set) and minimums, but not enum values nor maximum lengths:
the validator here adds both (a cachePoint of type "ephemeral" or ttl "10m"
fails), and the limits Bedrock enforces for Claude beyond the shapes: at most
4 cache points (tools, system, messages), no "1h" one after a "5m" one (an
absent ttl is 5m), none that opens its list or follows another, no blank text,
no "system" role inside messages, tool names of [a-zA-Z0-9_-]{1,64}.

Every run starts with a self-test: mutated copies of a valid request must be
rejected, or the script fails (a validator that accepts everything is caught).

Usage: python3 tests/sdk/validate.py   (from anywhere; exit 1 on any failure)
"""

from __future__ import annotations

import collections.abc
import copy
import json
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any, Callable, List, Optional

import typing_extensions
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_GLOBS = ("tests/**/snapshots/*.snap", "examples/**/snapshots/*.snap")
PROVIDER_NAME = re.compile(r"anthropic|openai|gemini|bedrock")

# --------------------------------------------------------------------------
# Hardening the SDKs' TypedDicts


def _hardened(tp: Any, seen: dict[int, Any]) -> Any:
    """`tp` with every list eager and every TypedDict closed to unknown keys.

    Rewrites type expressions (the SDKs' TypeAliases are evaluated at import,
    so rebinding names is not enough): Iterable[X] and SequenceNotStr[X]
    become List[X]; a TypedDict gets extra="forbid" and its resolved, rewritten
    annotations back in place; a pydantic response model that a param union
    also accepts (TextBlock beside TextBlockParam) is dropped from the union,
    since those models allow extra keys and would let any block through.
    """
    if id(tp) in seen:
        return seen[id(tp)]
    if typing_extensions.is_typeddict(tp):
        seen[id(tp)] = tp
        tp.__pydantic_config__ = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
        module = sys.modules[tp.__module__]
        hints = typing.get_type_hints(tp, globalns=vars(module), include_extras=True)
        tp.__annotations__ = {name: _hardened(hint, seen) for name, hint in hints.items()}
        return tp
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is None or origin is typing.Literal or not args:
        return tp
    if origin is typing.Annotated:
        return typing.Annotated[(_hardened(args[0], seen), *tp.__metadata__)]
    new_args = tuple(_hardened(arg, seen) for arg in args)
    if origin in (typing.Union, types.UnionType):
        kept = tuple(
            arg for arg in new_args
            if not (isinstance(arg, type) and issubclass(arg, BaseModel))
            and not (typing.get_origin(arg) is typing.Annotated and _all_models(typing.get_args(arg)[0]))
        )
        return typing.Union[kept or new_args]
    if origin is collections.abc.Iterable or getattr(origin, "__name__", "") == "SequenceNotStr":
        return List[new_args[0]]
    if hasattr(tp, "copy_with"):
        return tp.copy_with(new_args)
    return origin[new_args]


def _all_models(tp: Any) -> bool:
    members = typing.get_args(tp) if typing.get_origin(tp) in (typing.Union, types.UnionType) else (tp,)
    return all(isinstance(m, type) and issubclass(m, BaseModel) for m in members)


class Strict:
    """A TypeAdapter over a hardened SDK TypedDict."""

    def __init__(self, tp: Any) -> None:
        self.name = f"{tp.__module__}.{tp.__qualname__}"
        self.adapter = TypeAdapter(_hardened(tp, {}))

    def validate(self, body: Any) -> None:
        value = self.adapter.validate_python(body, strict=True)
        _no_lazy_iterators(value, "$")


def _no_lazy_iterators(value: Any, path: str) -> None:
    if type(value).__name__ == "ValidatorIterator":
        raise AssertionError(f"{path}: pydantic left a lazy, unvalidated iterator")
    if isinstance(value, dict):
        for key, item in value.items():
            _no_lazy_iterators(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _no_lazy_iterators(item, f"{path}[{i}]")


# --------------------------------------------------------------------------
# The validators, one per request kind


def anthropic_validator() -> Callable[[dict], None]:
    import anthropic.types
    import anthropic.types.message_create_params as params

    strict = Strict(params.MessageCreateParamsNonStreaming)

    def validate(body: dict) -> None:
        strict.validate(body)
        anthropic_limits(body)

    validate.sdk = strict.name  # type: ignore[attr-defined]
    return validate


def anthropic_limits(body: dict) -> None:
    """What the API enforces beyond the types."""
    breakpoints: list[tuple[str, Any]] = []

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            if value.get("type") == "text" and isinstance(value.get("text"), str):
                if not value["text"].strip():
                    raise AssertionError(f"{path}: empty text block")
            for key, item in value.items():
                if key == "cache_control" and item is not None:
                    breakpoints.append((f"{path}.cache_control", item))
                elif key != "input_schema":  # a JSON schema, not request blocks
                    walk(item, f"{path}.{key}")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, f"{path}[{i}]")

    # The order the API reads the prefix in: tools, then system, then messages.
    for key in ("tools", "system", "messages"):
        walk(body.get(key), f"$.{key}")
    for i, message in enumerate(body.get("messages", [])):
        if message.get("content") == "":
            raise AssertionError(f"$.messages[{i}].content: empty message")
    if body.get("cache_control") is not None:
        # Top-level automatic caching marks the last cacheable block.
        breakpoints.append(("$.cache_control", body["cache_control"]))

    if len(breakpoints) > 4:
        where = ", ".join(path for path, _ in breakpoints)
        raise AssertionError(f"{len(breakpoints)} cache_control breakpoints (at most 4): {where}")
    seen_5m = None
    for path, cache_control in breakpoints:
        ttl = cache_control.get("ttl", "5m")
        if ttl not in ("5m", "1h"):
            raise AssertionError(f"{path}.ttl: {ttl!r} is neither '5m' nor '1h'")
        if ttl == "5m":
            seen_5m = seen_5m or path
        elif seen_5m:
            raise AssertionError(f"{path}: a 1h breakpoint after the 5m one at {seen_5m}")


OPENAI_MAX_WRITES = 4


def openai_limits(body: dict, messages_key: str) -> None:
    """What OpenAI ignores without an error: breakpoints past the write limit,
    and an explicit mode with nothing to write."""
    breakpoints: list[str] = []
    for i, message in enumerate(body.get(messages_key) or []):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            for j, part in enumerate(content):
                if isinstance(part, dict) and part.get("prompt_cache_breakpoint") is not None:
                    breakpoints.append(f"$.{messages_key}[{i}].content[{j}]")
    mode = (body.get("prompt_cache_options") or {}).get("mode", "implicit")
    writes = OPENAI_MAX_WRITES if mode == "explicit" else OPENAI_MAX_WRITES - 1
    if len(breakpoints) > writes:
        raise AssertionError(
            f"{len(breakpoints)} prompt_cache_breakpoints, and mode {mode!r} writes only the "
            f"latest {writes}: {', '.join(breakpoints)}"
        )
    if mode == "explicit" and not breakpoints:
        raise AssertionError("prompt_cache_options.mode 'explicit' with no prompt_cache_breakpoint caches nothing")
    if body.get("prompt_cache_retention") == "in_memory" and _gpt_version(body.get("model")) >= (5, 5):
        raise AssertionError(
            f"prompt_cache_retention 'in_memory' for {body.get('model')}: gpt-5.5 and later models "
            "take only '24h' (the SDK's docstring of the field)"
        )


def _gpt_version(model: Any) -> tuple[int, int]:
    """(5, 6) for gpt-5.6 or gpt-5.6-mini, (5, 0) for gpt-5; (0, 0) for another model."""
    match = re.search(r"(?:^|[^a-z0-9])gpt-(\d+)(?:\.(\d+))?", str(model or "").lower())
    return (int(match.group(1)), int(match.group(2) or 0)) if match else (0, 0)


def openai_responses_validator() -> Callable[[dict], None]:
    import openai.types.responses
    import openai.types.responses.response_create_params as params

    strict = Strict(params.ResponseCreateParamsNonStreaming)

    def validate(body: dict) -> None:
        strict.validate(body)
        openai_limits(body, "input")

    validate.sdk = strict.name  # type: ignore[attr-defined]
    return validate


def openai_chat_validator() -> Callable[[dict], None]:
    import openai.types.chat
    import openai.types.chat.completion_create_params as params

    strict = Strict(params.CompletionCreateParamsNonStreaming)

    def validate(body: dict) -> None:
        strict.validate(body)
        openai_limits(body, "messages")

    validate.sdk = strict.name  # type: ignore[attr-defined]
    return validate


def _gemini_models() -> tuple[type[BaseModel], type[BaseModel]]:
    """The REST bodies, built from google.genai.types.

    The SDK's own parameter types (_GenerateContentParameters,
    CreateCachedContentConfig) are the SDK's call signature, not the wire
    body: system_instruction and cached_content sit inside `config` there. So
    the envelopes below follow the REST GenerateContentRequest and
    CachedContent resources field by field, and every nested object is the
    SDK's pydantic model (extra="forbid", camelCase aliases).
    """
    from google.genai import types as g
    from pydantic.alias_generators import to_camel

    config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    class GenerateContentRequest(BaseModel):
        model_config = config
        model: Optional[str] = None
        contents: List[g.Content]
        system_instruction: Optional[g.Content] = None
        tools: Optional[List[g.Tool]] = None
        tool_config: Optional[g.ToolConfig] = None
        safety_settings: Optional[List[g.SafetySetting]] = None
        generation_config: Optional[g.GenerationConfig] = None
        cached_content: Optional[str] = None
        labels: Optional[dict[str, str]] = None

    class CreateCachedContentRequest(BaseModel):
        model_config = config
        model: str
        display_name: Optional[str] = None
        contents: Optional[List[g.Content]] = None
        system_instruction: Optional[g.Content] = None
        tools: Optional[List[g.Tool]] = None
        tool_config: Optional[g.ToolConfig] = None
        ttl: Optional[str] = None
        expire_time: Optional[str] = None

    return GenerateContentRequest, CreateCachedContentRequest


def gemini_validators() -> tuple[Callable[[dict], None], Callable[[dict], None]]:
    generate, cache = _gemini_models()

    def validate_generate(body: dict) -> None:
        generate.model_validate(body)

    def validate_cache(body: dict) -> None:
        request = cache.model_validate(body)
        if request.ttl is not None and not re.fullmatch(r"\d+(\.\d{1,9})?s", request.ttl):
            raise AssertionError(f"$.ttl: {request.ttl!r} is not a protobuf Duration like '3600s'")
        if request.ttl is not None and request.expire_time is not None:
            raise AssertionError("$: ttl and expireTime are exclusive")

    validate_generate.sdk = "google.genai.types in a REST GenerateContentRequest"  # type: ignore[attr-defined]
    validate_cache.sdk = "google.genai.types in a REST CachedContent"  # type: ignore[attr-defined]
    return validate_generate, validate_cache


def bedrock_validator() -> Callable[[dict], None]:
    import botocore
    import botocore.session
    from botocore.validate import ParamValidator

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    shape = model.operation_model("Converse").input_shape

    class Strict(ParamValidator):
        """botocore's validator, plus enum values and maximum lengths."""

        def __init__(self) -> None:
            super().__init__()
            self.extra: list[str] = []

        def _validate_string(self, param, shape, errors, name):  # type: ignore[override]
            super()._validate_string(param, shape, errors, name)
            if not isinstance(param, str):
                return
            if shape.enum and param not in shape.enum:
                self.extra.append(f"Invalid enum value for parameter {name.lstrip('.')}: {param!r}, valid values: {shape.enum}")
            maximum = shape.metadata.get("max")
            if maximum is not None and len(param) > maximum:
                self.extra.append(f"Invalid length for parameter {name.lstrip('.')}: {len(param)}, valid max length: {maximum}")

    def validate(params: dict) -> None:
        validator = Strict()
        report = validator.validate(params, shape)
        problems = ([report.generate_report()] if report.has_errors() else []) + validator.extra
        if problems:
            raise AssertionError("\n".join(problems))
        bedrock_limits(params)

    validate.sdk = f"botocore {botocore.__version__} bedrock-runtime Converse input"  # type: ignore[attr-defined]
    return validate


BEDROCK_MAX_CACHE_POINTS = 4


def bedrock_limits(params: dict) -> None:
    """What Bedrock enforces for Claude beyond the service model's shapes."""
    points: list[tuple[str, str]] = []

    def walk_list(items: Any, path: str) -> None:
        previous_point = True  # a cache point first in its list caches nothing of its own
        for i, block in enumerate(items or []):
            where = f"{path}[{i}]"
            if isinstance(block, dict) and "cachePoint" in block:
                if previous_point:
                    raise AssertionError(f"{where}: a cachePoint with no content of its own before it")
                points.append((where, (block["cachePoint"] or {}).get("ttl", "5m")))
                previous_point = True
                continue
            previous_point = False
            if isinstance(block, dict) and isinstance(block.get("text"), str) and not block["text"].strip():
                raise AssertionError(f"{where}.text: blank text")

    tools = (params.get("toolConfig") or {}).get("tools")
    walk_list(tools, "toolConfig.tools")
    for i, tool in enumerate(tools or []):
        name = (tool.get("toolSpec") or {}).get("name") if isinstance(tool, dict) else None
        if name is not None and not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name):
            raise AssertionError(f"toolConfig.tools[{i}].toolSpec.name: {name!r} is not [a-zA-Z0-9_-]{{1,64}}")
    walk_list(params.get("system"), "system")
    for i, message in enumerate(params.get("messages") or []):
        if message.get("role") == "system":
            raise AssertionError(f"messages[{i}].role: Bedrock takes no system message inside messages")
        walk_list(message.get("content"), f"messages[{i}].content")
    if len(points) > BEDROCK_MAX_CACHE_POINTS:
        where = ", ".join(path for path, _ in points)
        raise AssertionError(f"{len(points)} cache points (at most {BEDROCK_MAX_CACHE_POINTS}): {where}")
    seen_5m = None
    for path, ttl in points:
        if ttl == "5m":
            seen_5m = seen_5m or path
        elif seen_5m:
            raise AssertionError(f"{path}: a 1h cache point after the 5m one at {seen_5m}")


# --------------------------------------------------------------------------
# Snapshots


def snapshot_body(path: Path) -> Any:
    """The JSON after an insta snapshot's `---` header."""
    text = path.read_text()
    parts = text.split("---\n", 2)
    if len(parts) != 3 or parts[0] != "":
        raise AssertionError("not an insta snapshot (no --- header)")
    try:
        return json.loads(parts[2])
    except json.JSONDecodeError as e:
        raise AssertionError(f"body is not JSON: {e}") from None


def kind_of(path: Path) -> str:
    name = path.name
    if "bedrock" in name:
        return "bedrock"
    if "anthropic" in name:
        return "anthropic"
    if "openai" in name:
        return "openai_chat" if "chat" in name else "openai_responses"
    if "create_cached_content" in name:
        return "gemini_cache"
    return "gemini"


def is_outline(body: dict) -> bool:
    """A test that elides texts to `<N bytes: ...>` (the shape stays whole)."""
    return any(
        isinstance(block, dict) and re.match(r"<\d+ bytes: ", str(block.get("text", "")))
        for block in body.get("system", []) or []
    )


def explain(e: Exception, limit: int = 6) -> str:
    """The errors that went deepest first: in a union, that is the member that fit best."""
    if not isinstance(e, ValidationError):
        return str(e)
    errors = sorted(e.errors(), key=lambda err: -len(err["loc"]))
    lines = [
        f"{'.'.join(map(_short, err['loc']))}: {err['msg']} (got {str(err['input'])[:60]!r})"
        for err in errors[:limit]
    ]
    if len(errors) > limit:
        lines.append(f"... and {len(errors) - limit} more errors from the other members of the unions")
    return "\n".join(lines)


def _short(segment: Any) -> str:
    """`list[union[TextBlockParam,...30 more]]` reads as `list[...]`."""
    segment = str(segment)
    return re.sub(r"\[.*\]$", "[...]", segment) if len(segment) > 40 else segment


# --------------------------------------------------------------------------
# Self-test: the validator must reject what the API rejects.


def self_test(validators: dict[str, Callable[[dict], None]]) -> list[str]:
    valid = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 16,
        "tools": [
            {
                "name": "read",
                "input_schema": {"type": "object"},
                "cache_control": {"type": "ephemeral", "ttl": "1h"},
            }
        ],
        "system": [
            {"type": "text", "text": "stable", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
            {"type": "text", "text": "dynamic"},
        ],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}
        ],
    }

    def mutate(f: Callable[[dict], None]) -> dict:
        body = copy.deepcopy(valid)
        f(body)
        return body

    # What the builders send with the new cache fields: each must pass.
    # Automatic caching in place of the conversation's breakpoint, and diagnostics.
    valid_anthropic_new = copy.deepcopy(valid)
    valid_anthropic_new["messages"][0]["content"][0].pop("cache_control")
    valid_anthropic_new["cache_control"] = {"type": "ephemeral"}
    valid_anthropic_new["diagnostics"] = {"previous_message_id": "msg_1"}
    breakpoint = {"mode": "explicit"}
    valid_responses = {
        "model": "gpt-5.6",
        "input": [
            {"role": "developer", "content": [
                {"type": "input_text", "text": "stable", "prompt_cache_breakpoint": dict(breakpoint)},
                {"type": "input_text", "text": "dynamic"},
            ]},
            {"role": "user", "content": "hi"},
        ],
        "prompt_cache_key": "default-0123456789abcdef",
        "prompt_cache_options": {"mode": "implicit", "ttl": "30m", "comparison_response_id": "resp_1"},
    }
    valid_chat = {
        "model": "gpt-5.6",
        "messages": [
            {"role": "system", "content": [
                {"type": "text", "text": "stable", "prompt_cache_breakpoint": dict(breakpoint)},
                {"type": "text", "text": "dynamic"},
            ]},
            {"role": "user", "content": "hi"},
        ],
        "prompt_cache_key": "default-0123456789abcdef",
        "prompt_cache_options": {"mode": "explicit", "ttl": "30m"},
    }

    valid_bedrock = {
        "modelId": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "toolConfig": {"tools": [
            {"toolSpec": {"name": "read", "description": "Read a file.",
                          "inputSchema": {"json": {"type": "object"}}}},
            {"cachePoint": {"type": "default", "ttl": "1h"}},
        ]},
        "system": [{"text": "stable"}, {"cachePoint": {"type": "default", "ttl": "1h"}}, {"text": "dynamic"}],
        "messages": [{"role": "user", "content": [{"text": "hi"}, {"cachePoint": {"type": "default"}}]}],
        "inferenceConfig": {"maxTokens": 16},
    }

    def changed(body: dict, f: Callable[[dict], None]) -> dict:
        body = copy.deepcopy(body)
        f(body)
        return body

    def parts(body: dict, key: str) -> list:
        return body[key][0]["content"]

    def marked(n: int, kind: str) -> Callable[[dict], None]:
        def f(b: dict) -> None:
            key = "input" if kind == "input_text" else "messages"
            b[key][0]["content"] = [
                {"type": kind, "text": f"part {i}", "prompt_cache_breakpoint": dict(breakpoint)}
                for i in range(n)
            ]
        return f

    def five_breakpoints(b: dict) -> None:
        b["system"][1]["cache_control"] = {"type": "ephemeral"}
        b["messages"].append({"role": "assistant", "content": [{"type": "text", "text": "ok"}]})
        b["messages"].append(
            {"role": "user", "content": [{"type": "text", "text": "go", "cache_control": {"type": "ephemeral"}}]}
        )

    # (kind, what, body, text the rejection must contain: the right reason)
    cases = [
        ("anthropic", "unknown key in a system text block",
         mutate(lambda b: b["system"][0].__setitem__("scope", "project")), "0.scope: Extra inputs"),
        ("anthropic", "unknown key inside cache_control",
         mutate(lambda b: b["system"][0]["cache_control"].__setitem__("scope", "global")),
         "cache_control.scope: Extra inputs"),
        ("anthropic", "cache_control.type not 'ephemeral'",
         mutate(lambda b: b["system"][0]["cache_control"].__setitem__("type", "persistent")),
         "cache_control.type: Input should be 'ephemeral'"),
        ("anthropic", "cache_control.type not a string",
         mutate(lambda b: b["system"][0]["cache_control"].__setitem__("type", 1)),
         "cache_control.type: Input should be 'ephemeral'"),
        ("anthropic", "5 cache_control breakpoints", mutate(five_breakpoints), "5 cache_control breakpoints"),
        ("anthropic", "ttl '10m'",
         mutate(lambda b: b["system"][0]["cache_control"].__setitem__("ttl", "10m")), "cache_control.ttl"),
        ("anthropic", "1h breakpoint after a 5m one",
         mutate(lambda b: b["tools"][0]["cache_control"].__setitem__("ttl", "5m")), "1h breakpoint after"),
        ("anthropic", "empty system text block",
         mutate(lambda b: b["system"][1].__setitem__("text", "")), "empty text block"),
        ("anthropic", "unknown top-level key", mutate(lambda b: b.__setitem__("cache_scope", "x")),
         "cache_scope: Extra inputs"),
        ("anthropic", "message content block of a wrong type",
         mutate(lambda b: b["messages"][0]["content"].__setitem__(0, {"type": "txet", "text": "hi"})),
         "messages.0"),
        ("anthropic", "diagnostics with an unknown key",
         changed(valid_anthropic_new, lambda b: b["diagnostics"].__setitem__("compare", True)),
         "diagnostics.compare: Extra inputs"),
        ("anthropic", "diagnostics.previous_message_id not a string",
         changed(valid_anthropic_new, lambda b: b["diagnostics"].__setitem__("previous_message_id", 7)),
         "previous_message_id"),
        ("anthropic", "top-level cache_control ttl '30m'",
         changed(valid_anthropic_new, lambda b: b["cache_control"].__setitem__("ttl", "30m")),
         "cache_control.ttl"),
        ("anthropic", "a 1h top-level breakpoint after the 5m system one",
         changed(valid_anthropic_new, lambda b: (
             b["tools"][0].pop("cache_control"), b["system"][0].pop("cache_control"),
             b["system"][1].__setitem__("cache_control", {"type": "ephemeral"}),
             b["cache_control"].__setitem__("ttl", "1h"))),
         "1h breakpoint after"),
        ("openai_responses", "a breakpoint of mode 'implicit'",
         changed(valid_responses, lambda b: parts(b, "input")[0]["prompt_cache_breakpoint"].__setitem__(
             "mode", "implicit")),
         "prompt_cache_breakpoint.mode"),
        ("openai_responses", "prompt_cache_options.mode 'auto'",
         changed(valid_responses, lambda b: b["prompt_cache_options"].__setitem__("mode", "auto")),
         "prompt_cache_options.mode"),
        ("openai_responses", "unknown key in prompt_cache_options",
         changed(valid_responses, lambda b: b["prompt_cache_options"].__setitem__("breakpoints", 1)),
         "prompt_cache_options.breakpoints: Extra inputs"),
        ("openai_responses", "a breakpoint on a string content",
         changed(valid_responses, lambda b: b["input"][1].__setitem__("prompt_cache_breakpoint", dict(breakpoint))),
         "prompt_cache_breakpoint: Extra inputs"),
        ("openai_responses", "4 breakpoints beside the implicit one",
         changed(valid_responses, marked(4, "input_text")), "writes only the latest 3"),
        ("openai_chat", "5 breakpoints in explicit mode",
         changed(valid_chat, marked(5, "text")), "writes only the latest 4"),
        ("openai_chat", "explicit mode with no breakpoint",
         changed(valid_chat, lambda b: parts(b, "messages")[0].pop("prompt_cache_breakpoint")),
         "caches nothing"),
        ("openai_chat", "comparison_response_id (a Responses field)",
         changed(valid_chat, lambda b: b["prompt_cache_options"].__setitem__("comparison_response_id", "resp_1")),
         "comparison_response_id: Extra inputs"),
        ("openai_responses", "prompt_cache_retention 'in_memory' for gpt-5.5",
         {"model": "gpt-5.5", "input": "hi", "prompt_cache_retention": "in_memory"}, "take only '24h'"),
        ("openai_chat", "prompt_cache_retention 'in_memory' for gpt-5.6-mini",
         {"model": "gpt-5.6-mini", "messages": [{"role": "user", "content": "hi"}],
          "prompt_cache_retention": "in_memory"}, "take only '24h'"),
        ("openai_chat", "prompt_cache_options.prewarm (a Responses field)",
         changed(valid_chat, lambda b: b["prompt_cache_options"].__setitem__("prewarm", True)),
         "prewarm: Extra inputs"),
        ("openai_responses", "prompt_cache_options.prewarm not a boolean",
         changed(valid_responses, lambda b: b["prompt_cache_options"].__setitem__("prewarm", "yes")),
         "prompt_cache_options.prewarm"),
        ("openai_chat", "prompt_cache_options.ttl '12h' (Responses only)",
         changed(valid_chat, lambda b: b["prompt_cache_options"].__setitem__("ttl", "12h")),
         "prompt_cache_options.ttl"),
        ("openai_responses", "unknown key in an input message",
         {"model": "gpt-5", "input": [{"role": "user", "content": "hi", "cache": True}]}, "cache: Extra inputs"),
        ("openai_responses", "prompt_cache_retention '1h'",
         {"model": "gpt-5", "input": "hi", "prompt_cache_retention": "1h"}, "prompt_cache_retention"),
        ("openai_chat", "unknown key in a message",
         {"model": "gpt-5", "messages": [{"role": "developer", "content": "x", "cache_control": {}}]},
         "cache_control: Extra inputs"),
        ("openai_chat", "messages not a list", {"model": "gpt-5", "messages": "hi"}, "messages"),
        ("gemini", "unknown key in a part",
         {"contents": [{"role": "user", "parts": [{"text": "hi", "cacheControl": {}}]}]},
         "cacheControl: Extra inputs"),
        ("gemini", "Anthropic-style system blocks",
         {"contents": [], "systemInstruction": [{"type": "text", "text": "x"}]}, "systemInstruction"),
        ("gemini_cache", "ttl as a number", {"model": "models/gemini-2.5-pro", "ttl": 3600}, "ttl"),
        ("bedrock", "a cachePoint of an unknown type",
         changed(valid_bedrock, lambda b: b["system"][1]["cachePoint"].__setitem__("type", "ephemeral")),
         "system[1].cachePoint.type: 'ephemeral'"),
        ("bedrock", "a cachePoint ttl '10m'",
         changed(valid_bedrock, lambda b: b["system"][1]["cachePoint"].__setitem__("ttl", "10m")),
         "system[1].cachePoint.ttl: '10m'"),
        ("bedrock", "an unknown key in a cachePoint",
         changed(valid_bedrock, lambda b: b["system"][1]["cachePoint"].__setitem__("scope", "global")),
         'Unknown parameter in system[1].cachePoint: "scope"'),
        ("bedrock", "text and a cachePoint in one block",
         changed(valid_bedrock, lambda b: b["system"][0].__setitem__("cachePoint", {"type": "default"})),
         "tagged union structure system[0]"),
        ("bedrock", "Anthropic's cache_control on a text block",
         changed(valid_bedrock, lambda b: b["system"][0].__setitem__("cache_control", {"type": "ephemeral"})),
         'Unknown parameter in system[0]: "cache_control"'),
        ("bedrock", "no modelId", changed(valid_bedrock, lambda b: b.pop("modelId")),
         'Missing required parameter in input: "modelId"'),
        ("bedrock", "maxTokens 0",
         changed(valid_bedrock, lambda b: b["inferenceConfig"].__setitem__("maxTokens", 0)),
         "inferenceConfig.maxTokens"),
        ("bedrock", "an empty system text", changed(valid_bedrock, lambda b: b["system"][0].__setitem__("text", "")),
         "system[0].text"),
        ("bedrock", "a blank message text",
         changed(valid_bedrock, lambda b: b["messages"][0]["content"][0].__setitem__("text", " ")),
         "messages[0].content[0].text: blank text"),
        ("bedrock", "a role 'bot'", changed(valid_bedrock, lambda b: b["messages"][0].__setitem__("role", "bot")),
         "messages[0].role: 'bot'"),
        ("bedrock", "a system message inside messages",
         changed(valid_bedrock, lambda b: b["messages"].append({"role": "system", "content": [{"text": "x"}]})),
         "no system message inside messages"),
        ("bedrock", "5 cache points",
         changed(valid_bedrock, lambda b: (
             b["system"].extend([{"text": "b"}, {"cachePoint": {"type": "default"}}]),
             b["messages"].extend([{"role": "assistant", "content": [{"text": "ok"}]}, {"role": "user", "content": [
                 {"text": "go"}, {"cachePoint": {"type": "default"}}]}]))),
         "5 cache points"),
        ("bedrock", "a 1h cache point after a 5m one",
         changed(valid_bedrock, lambda b: b["toolConfig"]["tools"][1]["cachePoint"].pop("ttl")),
         "a 1h cache point after"),
        ("bedrock", "a cachePoint opening system",
         changed(valid_bedrock, lambda b: b["system"].insert(0, {"cachePoint": {"type": "default"}})),
         "system[0]: a cachePoint with no content"),
        ("bedrock", "two cachePoints in a row",
         changed(valid_bedrock, lambda b: b["system"].insert(1, {"cachePoint": {"type": "default"}})),
         "system[2]: a cachePoint with no content"),
        ("bedrock", "a tool name with a space",
         changed(valid_bedrock, lambda b: b["toolConfig"]["tools"][0]["toolSpec"].__setitem__("name", "read file")),
         "toolSpec.name"),
        ("bedrock", "an input schema outside its json member",
         changed(valid_bedrock, lambda b: b["toolConfig"]["tools"][0]["toolSpec"].__setitem__(
             "inputSchema", {"type": "object"})),
         "inputSchema"),
    ]
    results = []
    # The valid bodies must pass, or every rejection below proves nothing.
    validators["bedrock"](copy.deepcopy(valid_bedrock))
    validators["anthropic"](copy.deepcopy(valid))
    validators["anthropic"](copy.deepcopy(valid_anthropic_new))
    validators["openai_responses"](copy.deepcopy(valid_responses))
    validators["openai_chat"](copy.deepcopy(valid_chat))
    # A 12-hour TTL (Responses only) and a prewarm; in_memory for gpt-5.4.
    validators["openai_responses"](changed(valid_responses, lambda b: b["prompt_cache_options"].update(
        ttl="12h", prewarm=True)))
    validators["openai_responses"]({"model": "gpt-5.4", "input": "hi", "prompt_cache_retention": "in_memory"})
    for kind, what, body, expected in cases:
        try:
            validators[kind](body)
        except (ValidationError, AssertionError) as e:
            reason = explain(e)
            if expected not in reason:
                raise SystemExit(
                    f"error: self-test: {kind}: {what}: rejected for another reason than {expected!r}:\n{reason}"
                )
            results.append(f"self-test: {kind}: {what}: rejected ({reason.splitlines()[0]})")
        else:
            raise SystemExit(f"error: self-test: {kind}: {what}: ACCEPTED; the validator is too lenient")
    return results


# --------------------------------------------------------------------------


def main() -> int:
    import anthropic
    import botocore
    import google.genai
    import openai

    print(
        f"SDKs: anthropic {anthropic.__version__}, openai {openai.__version__}, "
        f"google-genai {google.genai.__version__}, botocore {botocore.__version__}"
    )
    gemini, gemini_cache = gemini_validators()
    validators = {
        "anthropic": anthropic_validator(),
        "openai_responses": openai_responses_validator(),
        "openai_chat": openai_chat_validator(),
        "gemini": gemini,
        "gemini_cache": gemini_cache,
        "bedrock": bedrock_validator(),
    }
    for line in self_test(validators):
        print(line)

    files = sorted(
        {p for pattern in SNAPSHOT_GLOBS for p in ROOT.glob(pattern) if PROVIDER_NAME.search(p.name)}
    )
    if not files:
        print(f"error: no provider snapshot matches {SNAPSHOT_GLOBS} under {ROOT}", file=sys.stderr)
        return 1
    failures = 0
    for path in files:
        rel = path.relative_to(ROOT)
        kind = kind_of(path)
        validate = validators[kind]
        try:
            body = snapshot_body(path)
            if not isinstance(body, dict):
                raise AssertionError("body is not a JSON object")
            validate(body)
        except (ValidationError, AssertionError) as e:
            failures += 1
            print(f"FAIL {rel} ({kind}, {validate.sdk}):\n{explain(e)}", file=sys.stderr)
            continue
        note = " (texts elided by the test: shape only)" if is_outline(body) else ""
        print(f"ok   {rel} ({kind}){note}")
    print(f"{len(files) - failures} of {len(files)} provider requests valid against the SDK types")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
