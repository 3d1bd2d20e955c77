"""Hypothesis strategies for the reliability fuzz tests: JSON-ish documents (deep nesting, huge numbers
and strings, wrong types), session files, terminal output with escapes and split UTF-8, Chat Completions
chunks, settings and models documents."""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import strategies as st

# --- JSON-ish documents -------------------------------------------------------------------------------


class Text(str):
    """A generated document whose repr stays short in failure reports (some are megabytes long)."""

    def __repr__(self) -> str:
        if len(self) <= 120:
            return super().__repr__()
        return f"{str.__repr__(self[:60])} ... {str.__repr__(self[-20:])} ({len(self)} chars)"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))


DEEP_ARRAY = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a":' * 50_000 + "1" + "}" * 50_000
HUGE_INT = "9" * 5_000  # beyond Python's int-from-string digit limit
HUGE_STRING = json.dumps("x" * 2_000_000)
NASTY_TEXTS = [
    Text(text)
    for text in [
        DEEP_ARRAY,
        DEEP_OBJECT,
        HUGE_INT,
        HUGE_STRING,
        '"\\ud800"',
        "NaN",
        "-Infinity",
        "1e999",
        "\x00\x01",
        "",
    ]
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["", "user", "assistant", "toolResult", "session", "message", "text", "a1", "\ud800"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=16,
)


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


@st.composite
def mutated(draw: st.DrawFn, template: dict[str, Any]) -> dict[str, Any]:
    """A template with some keys (also nested ones) replaced by random values or removed."""
    document = json.loads(json.dumps(template))
    for _ in range(draw(st.integers(0, 3))):
        target = document
        path = draw(st.lists(st.sampled_from(["message", "content", 0, "arguments", "usage"]), max_size=3))
        for key in path:
            if isinstance(target, dict) and isinstance(key, str) and isinstance(target.get(key), dict | list):
                target = target[key]
            elif isinstance(target, list) and isinstance(key, int) and target:
                target = target[0]
        if isinstance(target, dict) and target:
            key = draw(st.sampled_from(sorted(target)))
            if draw(st.booleans()):
                target[key] = draw(json_values)
            else:
                del target[key]
        elif isinstance(target, list):
            target.append(draw(json_values))
    return document


# --- session files ------------------------------------------------------------------------------------

IDS = ["a1", "b2", "c3", "d4", "e5"]


def entry_templates(entry_id: str, parent: str | None) -> list[dict[str, Any]]:
    base = {"id": entry_id, "parentId": parent, "timestamp": "2026-11-29T23:04:35.814Z"}
    usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2}
    assistant = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "a"}},
        ],
        "api": "openai-completions",
        "provider": "p",
        "model": "m",
        "usage": usage,
        "stopReason": "toolUse",
        "timestamp": 1,
    }
    tool_result = {
        "role": "toolResult",
        "toolCallId": "t1",
        "toolName": "read",
        "content": [{"type": "text", "text": "out"}],
        "isError": False,
        "timestamp": 2,
    }
    user = {"role": "user", "content": [{"type": "text", "text": "hello"}], "timestamp": 0}
    return [
        {"type": "message", **base, "message": user},
        {"type": "message", **base, "message": assistant},
        {"type": "message", **base, "message": tool_result},
        {"type": "compaction", **base, "summary": "s", "firstKeptEntryId": IDS[0], "tokensBefore": 9},
        {"type": "branch_summary", **base, "fromId": IDS[1], "summary": "b"},
        {"type": "model_change", **base, "provider": "p", "modelId": "m"},
        {"type": "thinking_level_change", **base, "thinkingLevel": "high"},
        {"type": "label", **base, "targetId": IDS[2], "label": "x"},
        {"type": "session_info", **base, "name": "n"},
        {"type": "custom", **base, "customType": "pi-tui.request", "data": {"version": 1}},
        {"type": "custom_message", **base, "customType": "c", "content": "text", "display": True},
        {"type": "mystery", **base},
    ]


@st.composite
def session_line(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["entry", "mutated", "torn", "value", "nasty", "bytes"]))
    if kind in ("entry", "mutated", "torn"):
        entry_id = draw(st.sampled_from(IDS))
        parent = draw(st.sampled_from([None, *IDS]))
        template = draw(st.sampled_from(entry_templates(entry_id, parent)))
        document = draw(mutated(template)) if kind == "mutated" else template
        text = dumps(document)
        if kind == "torn":
            text = text[: draw(st.integers(0, len(text) - 1))]
        return text.encode()
    if kind == "value":
        return dumps(draw(json_values)).encode()
    if kind == "nasty":
        return draw(st.sampled_from(NASTY_TEXTS)).encode()
    return draw(st.binary(max_size=40))


@st.composite
def session_files(draw: st.DrawFn) -> bytes:
    header: dict[str, Any] = {"type": "session", "id": "h", "timestamp": "t", "cwd": "/tmp"}
    version = draw(st.sampled_from([3, 2, 1, None, 4, "3", -1]))
    if version is not None:
        header["version"] = version
    first = draw(st.sampled_from(["header", "mutated", "line"]))
    if first == "header":
        lines = [dumps(header).encode()]
    elif first == "mutated":
        lines = [dumps(draw(mutated(header))).encode()]
    else:
        lines = [draw(session_line())]
    lines += draw(st.lists(session_line(), max_size=12))
    return b"\n".join(lines) + draw(st.sampled_from([b"\n", b"", b"\n\n", b"\r\n"]))


OUTPUT_PIECES = [
    b"\x1b[31m",
    b"\x1b[0m",
    b"\x1b[2K",
    b"\x1b]0;title\x07",
    b"\x1b]8;;http://x\x1b\\",
    b"\x1bP1$r\x1b\\",
    b"\x1b(B",
    b"\x1b",
    b"\x1b[",
    b"\x1b]",
    b"\xc2\x9b31m",
    b"\r",
    b"\r\n",
    b"\n",
    b"\n\n\n",
    b"\t",
    b"\x7f",
    b"\x00",
    b"\x08",
    "é".encode(),
    "✓".encode(),
    "😀".encode(),
    b"\xe2\x9c",
    b"\xf0\x9f",
    b"\x80",
    b"\xff",
    b"progress 50%",
    b"line",
]
output_bytes = st.lists(
    st.one_of(st.sampled_from(OUTPUT_PIECES), st.binary(max_size=12), st.text(max_size=8).map(str.encode)),
    max_size=60,
).map(b"".join)


@st.composite
def chunked_output(draw: st.DrawFn) -> tuple[bytes, list[bytes], list[bool]]:
    data = draw(output_bytes)
    cuts = sorted(draw(st.sets(st.integers(0, len(data)), max_size=12)))
    bounds = [0, *cuts, len(data)]
    chunks = [data[start:end] for start, end in itertools.pairwise(bounds)]
    looks = draw(st.lists(st.booleans(), min_size=len(chunks), max_size=len(chunks)))
    return data, chunks, looks


fragments = st.one_of(
    st.sampled_from(
        ['{"path": "a"}', '{"pa', 'th": ', '"x"}', "}", "{", "[1]", '"s"', "", "nul", Text(HUGE_INT)]
    ),
    st.text(max_size=10),
    json_values,
)
tool_call_deltas = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "index": st.one_of(st.integers(0, 3), st.none(), st.text(max_size=2), st.integers(-2, 10**12)),
            "id": st.one_of(st.sampled_from(["c1", "c2", ""]), st.none(), json_values),
            "type": st.just("function"),
            "function": st.one_of(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "name": st.one_of(st.sampled_from(["read", "bash", ""]), json_values),
                        "arguments": fragments,
                    },
                ),
                json_values,
            ),
        },
    ),
    json_values,
)
deltas = st.fixed_dictionaries(
    {},
    optional={
        "content": st.one_of(st.text(max_size=10), json_values),
        "reasoning_content": st.one_of(st.text(max_size=10), json_values),
        "reasoning": st.text(max_size=10),
        "tool_calls": st.one_of(st.lists(tool_call_deltas, max_size=3), json_values),
        "role": st.just("assistant"),
    },
)
choices = st.one_of(
    st.fixed_dictionaries(
        {"index": st.just(0)},
        optional={
            "delta": st.one_of(deltas, json_values),
            "finish_reason": st.one_of(
                st.sampled_from(["stop", "tool_calls", "length", "weird"]), json_values
            ),
        },
    ),
    json_values,
)
usages = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "prompt_tokens": st.one_of(st.integers(-5, 10**6), json_values),
            "completion_tokens": st.one_of(st.integers(0, 10**6), json_values),
            "prompt_tokens_details": st.one_of(
                st.fixed_dictionaries({"cached_tokens": json_values}), json_values
            ),
            "prompt_cache_hit_tokens": json_values,
        },
    ),
    json_values,
)
chunk_dicts = st.fixed_dictionaries(
    {},
    optional={
        "id": st.one_of(st.just("chatcmpl-1"), json_values),
        "object": st.just("chat.completion.chunk"),
        "created": st.just(0),
        "model": st.one_of(st.just("test-model"), json_values),
        "choices": st.one_of(st.lists(choices, max_size=2), json_values),
        "usage": usages,
    },
)


sse_items = st.one_of(
    chunk_dicts,
    st.sampled_from(["data: {broken", "data: [1, 2]", "event: ping", ": comment", "data: null", "data: 12"]),
)


SETTINGS_KEYS = [
    "compaction",
    "retry",
    "fallbackModels",
    "defaultModel",
    "defaultThinkingLevel",
    "tools",
    "theme",
    "shellPath",
    "branchSummary",
    "steeringMode",
]


def documents(keys: list[str], nested: dict[str, list[str]]) -> st.SearchStrategy[str]:
    inner = {
        key: st.dictionaries(st.sampled_from(names), json_values, max_size=4) for key, names in nested.items()
    }
    objects = st.dictionaries(
        st.sampled_from(keys),
        st.one_of(json_values, *(strategy for strategy in inner.values())),
        max_size=6,
    )
    return st.one_of(
        objects.map(dumps),
        json_values.map(dumps),
        st.sampled_from(NASTY_TEXTS),
        objects.map(dumps).flatmap(lambda text: st.integers(0, len(text)).map(lambda cut: text[:cut])),
        st.text(max_size=40),
    )


settings_documents = documents(
    SETTINGS_KEYS,
    {
        "compaction": ["enabled", "reserveTokens", "keepRecentTokens", "confirm"],
        "retry": ["enabled", "maxRetries", "baseDelayMs", "maxDelayMs"],
        "tools": ["maxLines", "maxBytes"],
    },
)


def models_documents() -> st.SearchStrategy[str]:
    model = st.dictionaries(
        st.sampled_from(["id", "name", "api", "contextWindow", "maxTokens", "reasoning", "input", "cost"]),
        json_values,
        max_size=5,
    )
    provider = st.fixed_dictionaries(
        {},
        optional={
            "baseUrl": st.one_of(st.just("http://127.0.0.1:1/v1"), json_values),
            "apiKey": st.one_of(st.sampled_from(["KEY_ENV", "!cmd", "sk-x"]), json_values),
            "api": st.one_of(st.just("openai-completions"), json_values),
            "headers": json_values,
            "models": st.one_of(st.lists(st.one_of(model, json_values), max_size=3), json_values),
        },
    )
    document = st.fixed_dictionaries(
        {},
        optional={
            "providers": st.one_of(st.dictionaries(st.text(max_size=6), provider, max_size=3), json_values)
        },
    )
    return st.one_of(
        document.map(dumps),
        st.sampled_from(NASTY_TEXTS),
        document.map(dumps).flatmap(lambda text: st.integers(0, len(text)).map(lambda cut: text[:cut])),
    )
