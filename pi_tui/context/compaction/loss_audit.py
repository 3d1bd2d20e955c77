"""What a summary may have lost (pi-tui's own; pi has none): facts extracted from the summarised span, each
marked as surviving in the summary text or not.

Deterministic and cheap: regular expressions over the span's messages, no model call. Kinds:

- `path`: `path` arguments of tool calls, and path-like words in user / assistant text (a leading
  `/`, `./`, `../` or `~/`, two or more slashes and not all capitals, or a last segment with a
  common file extension);
- `command`: the bash tool's `command` argument and user `!cmd` runs;
- `error`: lines of tool results (except `read`, whose results are file contents) and `!cmd`
  output with a word ending in `error` / `exception` (`ValueError`) or the word traceback /
  failed / failure / fatal / panic, and the first line of every failed (`isError`) tool result;
- `number`: a number followed by a unit (`%`, sizes `B KB MB GB KiB…`, durations `ms s sec min h
  days`, `tokens`, `lines`, `files`) or a port (`port 8080`, `localhost:8080`).

Noise is left out: an error line without a word of three letters (a test runner's `F.` progress line), a
percentage inside brackets (a progress bar's `[100%]`) and a measured duration with a fraction (`0.63s`,
`12.5 ms`: how long a run took, which no summary needs to keep).

An item survives when it occurs in the summary, not glued to a longer word or number, as it is or
after normalising both (case folded, quotes and backticks dropped, whitespace collapsed, no space
between a number and its unit). Output is bounded: per kind the most frequent items first, ties
broken by the most recent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    CustomMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    user_text,
)
from pi_tui.context.compaction.preparation import SpanMessage

AuditKind: TypeAlias = Literal["path", "command", "error", "number"]
AUDIT_KINDS: tuple[AuditKind, ...] = ("path", "command", "error", "number")
MAX_ITEMS_PER_KIND = 25
MAX_ITEM_CHARS = 240
MAX_SCANNED_CHARS = 1_000_000
"""About 250k tokens, more than any summarised span that fits a model's window: older text of a
larger (imported, never compacted) span is not read, which keeps the audit well under a second."""
BASH_TOOL = "bash"
READ_TOOL = "read"
"""Its results are file contents, not the outcome of running something: no error lines taken from them."""

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_EXTENSIONS = (
    "py|pyi|js|mjs|cjs|ts|tsx|jsx|json|jsonl|md|txt|toml|yaml|yml|cfg|ini|conf|sh|bash|zsh|rs|go|c|h|cc|"
    "cpp|hpp|java|kt|rb|php|cs|swift|lock|log|html|css|scss|sql|csv|xml|env|tcss|ipynb|dockerfile"
)
_NOT_AFTER = r"(?<![\w@:/.~+-])"
_PATH = re.compile(
    # with a slash: `/abs`, `~/x`, `./x`, `a/b`; or a bare file name with a known extension
    _NOT_AFTER + r"(?:(?:~|\.{1,2})?/[\w.+-]+(?:/[\w.+-]+)*|[\w.+-]+(?:/[\w.+-]+)+)/?(?![\w/])"
    r"|" + _NOT_AFTER + r"[\w+-][\w.+-]*\.(?:" + _EXTENSIONS + r")(?![\w/])",
    re.IGNORECASE,
)
_PATH_EXTENSION = re.compile(r"\.(?:" + _EXTENSIONS + r")$", re.IGNORECASE)
_ERROR = re.compile(r"(?:error|exception)\b|\b(?:traceback|failed|failure|fatal|panic)\b", re.IGNORECASE)
_UNITS = (
    r"%|(?:[KMGTP]i?B|[kKMGT]|B|bytes?|ms|us|µs|ns|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|"
    r"tokens?|lines?|files?)\b"
)
# Numbers start with a digit (so the engine can skip ahead fast); the character before is checked
# in Python. Ports are looked for only in texts that mention one of their words.
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?\s?(?:" + _UNITS + r")")
_PORT = re.compile(r"\b(?i:port)\s+\d{2,5}\b|\b(?:localhost|127\.0\.0\.1|0\.0\.0\.0):\d{2,5}\b")
_PORT_HINTS = ("port", "Port", "PORT", "localhost", "127.0.0.1", "0.0.0.0")
_WORD = re.compile(r"[^\W\d_]{3,}")
_MEASURED_DURATION = re.compile(r"\d+[.,]\d+\s?(?:ms|us|µs|ns|s|secs?|seconds?|mins?|minutes?)$")
_PROGRESS = re.compile(r"\[\s*$")
_NORMALISE_DROP = re.compile(r"[`'\"]+")
_WHITESPACE = re.compile(r"\s+")
_NUMBER_GAP = re.compile(r"(?<=\d) (?=[^\W\d_]|%)")


@dataclass(frozen=True)
class AuditItem:
    kind: AuditKind
    text: str
    entry_id: str
    """The most recent entry it was seen in."""
    count: int
    survives: bool

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "text": self.text,
            "entryId": self.entry_id,
            "count": self.count,
            "survives": self.survives,
        }


@dataclass
class LossAudit:
    items: list[AuditItem] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)
    """Distinct items found per kind before the cap."""
    span_messages: int = 0
    scanned_messages: int = 0
    """The newest messages of the span that were read (all of them unless the span is huge)."""

    @property
    def missing(self) -> list[AuditItem]:
        return [item for item in self.items if not item.survives]

    def counts(self) -> dict[str, dict[str, int]]:
        """Per kind: distinct items found, items listed, and listed items missing from the summary."""
        return {
            kind: {
                "found": self.totals.get(kind, 0),
                "listed": sum(1 for item in self.items if item.kind == kind),
                "missing": sum(1 for item in self.items if item.kind == kind and not item.survives),
            }
            for kind in AUDIT_KINDS
        }

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "counts": self.counts(),
            "spanMessages": self.span_messages,
            "scannedMessages": self.scanned_messages,
            "items": [item.to_json_obj() for item in self.items],
        }


def _is_path(word: str) -> bool:
    if "/" not in word:
        return bool(_PATH_EXTENSION.search(word)) and not word.replace(".", "").isdigit()
    if word.startswith(("/", "./", "../", "~/")):
        return len(word.strip("/.~")) > 0
    if word.count("/") >= 2 and not word.isupper():
        return True
    return bool(_PATH_EXTENSION.search(word))


def paths_in(text: str) -> list[str]:
    if "://" in text:
        text = _URL.sub(" ", text)
    words = (word.rstrip(".,:;") for word in _PATH.findall(text))
    return [word for word in words if _is_path(word)]


def _is_noise_number(text: str, start: int, end: int) -> bool:
    number = text[start:end]
    if _MEASURED_DURATION.match(number):
        return True
    in_brackets = number.endswith("%") and text[end : end + 1] == "]"
    return in_brackets and bool(_PROGRESS.search(text[max(0, start - 4) : start]))


def numbers_in(text: str) -> list[str]:
    found = [
        match.group(0)
        for match in _NUMBER.finditer(text)
        if (match.start() == 0 or not (text[match.start() - 1].isalnum() or text[match.start() - 1] in "._"))
        and not _is_noise_number(text, match.start(), match.end())
    ]
    if any(hint in text for hint in _PORT_HINTS):
        found += _PORT.findall(text)
    return found


def is_meaningful_error(line: str) -> bool:
    return bool(_WORD.search(line))


def error_lines(text: str) -> list[str]:
    if not _ERROR.search(text):
        return []
    return [line.strip() for line in text.split("\n") if _ERROR.search(line) and line.strip()]


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_ITEM_CHARS else text[: MAX_ITEM_CHARS - 1] + "…"


class _Tally:
    """Per kind: how often each item was seen and the latest span position it was seen at."""

    def __init__(self) -> None:
        self.count: dict[AuditKind, dict[str, int]] = {kind: {} for kind in AUDIT_KINDS}
        self.last: dict[AuditKind, dict[str, int]] = {kind: {} for kind in AUDIT_KINDS}
        self.chars = 0

    def add(self, kind: AuditKind, items: Iterable[str], position: int, *, clip: bool = False) -> None:
        count, last = self.count[kind], self.last[kind]
        for item in items:
            text = _clip(item) if clip or len(item) > MAX_ITEM_CHARS else item
            if not text:
                continue
            seen = count.get(text)
            if seen is None:  # the span is read newest first: the first sighting is the latest
                count[text] = 1
                last[text] = position
            else:
                count[text] = seen + 1

    def add_text(self, text: str, position: int) -> None:
        """User and assistant prose: paths and numbers."""
        self.chars += len(text)
        self.add("path", paths_in(text), position)
        self.add("number", numbers_in(text), position)

    def add_output(self, text: str, position: int, *, errors: bool = True) -> None:
        """Tool and command output: error lines and numbers."""
        self.chars += len(text)
        if errors:
            self.add("error", error_lines(text), position, clip=True)
        self.add("number", numbers_in(text), position)

    def add_message(self, message: AgentMessage, position: int) -> None:
        if isinstance(message, UserMessage | CustomMessage):
            self.add_text(user_text(message), position)
        elif isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, TextContent):
                    self.add_text(block.text, position)
                elif isinstance(block, ThinkingContent):
                    self.add_text(block.thinking, position)
                elif isinstance(block, ToolCall):
                    path, command = block.arguments.get("path"), block.arguments.get("command")
                    if isinstance(path, str):
                        self.add("path", [path], position)
                    if block.name == BASH_TOOL and isinstance(command, str):
                        self.add("command", [command], position, clip=True)
        elif isinstance(message, ToolResultMessage):
            text = message.text
            first_line = text.strip().split("\n", 1)[0]
            if message.is_error and is_meaningful_error(first_line):
                self.add("error", [first_line], position, clip=True)
            self.add_output(text, position, errors=message.tool_name != READ_TOOL)
        elif isinstance(message, BashExecutionMessage):
            self.add("command", [message.command], position, clip=True)
            self.add_output(message.output, position)


def normalise(text: str) -> str:
    """Case folded, quotes and backticks dropped, whitespace collapsed, `512 MB` → `512mb`."""
    collapsed = _WHITESPACE.sub(" ", _NORMALISE_DROP.sub("", text.casefold())).strip()
    return _NUMBER_GAP.sub("", collapsed)


def _bounded_find(haystack: str, needle: str) -> bool:
    """`needle` in `haystack`, not glued to a letter or digit on a side where it starts/ends with one."""
    start = haystack.find(needle)
    while start >= 0:
        end = start + len(needle)
        left_ok = start == 0 or not (needle[0].isalnum() and haystack[start - 1].isalnum())
        right_ok = end == len(haystack) or not (needle[-1].isalnum() and haystack[end].isalnum())
        if left_ok and right_ok:
            return True
        start = haystack.find(needle, start + 1)
    return False


class _Summary:
    """The summary, prepared once for many survival checks."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.normal = normalise(text)

    def contains(self, item: str) -> bool:
        if item and _bounded_find(self.text, item):
            return True
        wanted = normalise(item)
        return bool(wanted) and _bounded_find(self.normal, wanted)


def audit_span(
    span: Sequence[SpanMessage],
    summary: str,
    *,
    max_per_kind: int = MAX_ITEMS_PER_KIND,
    max_chars: int = MAX_SCANNED_CHARS,
) -> LossAudit:
    """The loss audit of `span` (messages the summary replaced) against `summary`.

    Reads the span newest first and stops after `max_chars` characters of text (see
    `MAX_SCANNED_CHARS`); `scanned_messages` says how much of the span was read.
    """
    tally = _Tally()
    scanned = 0
    for position in range(len(span) - 1, -1, -1):
        if tally.chars >= max_chars:
            break
        tally.add_message(span[position].message, position)
        scanned += 1
    checker = _Summary(summary)
    audit = LossAudit(span_messages=len(span), scanned_messages=scanned)
    for kind in AUDIT_KINDS:
        count, last = tally.count[kind], tally.last[kind]
        audit.totals[kind] = len(count)
        ranked = sorted(count, key=lambda text: (-count[text], -last[text]))
        for text in ranked[:max_per_kind]:
            entry_id = span[last[text]].entry_id
            audit.items.append(AuditItem(kind, text, entry_id, count[text], checker.contains(text)))
    return audit
