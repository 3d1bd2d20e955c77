"""What a summary may have lost (pi-tui's own; pi has none): facts extracted from the summarised span, each
marked as surviving in the summary text or not.

Deterministic and cheap: regular expressions over the span's messages, no model call. Kinds:

- `path`: `path` arguments of tool calls, and path-like words in user / assistant text (a leading
  `/`, `./`, `../` or `~/`, two or more slashes and not all capitals, or a last segment with a
  common file extension);
- `command`: the bash tool's `command` argument and user `!cmd` runs;
- `error`: lines of tool results (except `read`, whose results are file contents) and `!cmd`
  output that look like an error (`is_error_line`): a `Traceback` header, an exception name ending
  the line or followed by a colon (`ValueError: bad`), a label such as `error:`, `fatal:`, `[ERROR]`,
  `npm ERR!`, a line starting with `FAILED` / `ERROR` / `FATAL` / `PANIC`, make's
  `*** ... Error 2`, a count of failures (`1 failed`), `failed to ...`, a line ending in `failed`,
  `timed out`, a tool's `name: ...` complaint (`ls: cannot access 'x': No such file or directory`) and
  a non-zero exit code (`Command exited with code 2`, `exit status 1`); also the first line of a
  failed (`isError`) result of a tool other than bash, which is the tool's own error message (a
  failed bash result is the command's output and a status line, classified line by line);
- `number`: a number followed by a unit (`%`, sizes `B KB MB GB KiB…`, durations `ms s sec min h
  days`, `tokens`, `lines`, `files`) or a port (`port 8080`, `localhost:8080`).

Noise is left out: an error line without a word of three letters (a test runner's `F.` progress line), a
percentage inside brackets (a progress bar's `[100%]`) and a measured duration with a fraction (`0.63s`,
`12.5 ms`: how long a run took, which no summary needs to keep). Bulk output does not flood the audit: of
one tool result or `!cmd` output, lines differing only in their non-zero numbers give one error line
(the last: a retry loop's `attempt 3: connection refused`) and, when `REPEATED_LINE` or more of them
(`tick 1`, `tick 2`, a progress log, the lines of `seq`), no numbers; numbers are not taken from error
lines (the error carries them); at most `MAX_ITEMS_PER_OUTPUT` items are taken (of them at most
`MAX_NUMBERS_PER_OUTPUT` numbers), errors first and the last ones first (the final error and the exit
code come last).

An item's text is one line: control characters (newlines, tabs, terminal escapes) become single spaces
and it is cut to `MAX_ITEM_CHARS` with an ellipsis, so the tables listing items stay aligned; whether it
survives is checked on its whole text.

An item survives when it occurs in the summary, not glued to a longer word or number, as it is or
after normalising both (case folded, quotes and backticks dropped, whitespace collapsed, no space
between a number and its unit); an exit code survives when the summary names the same code as an exit
code (`exit code 2`, `exited with code 2`, `exit status 2`). Output is bounded: per kind the most
frequent items first, ties broken by the most recent.
"""

from __future__ import annotations

import re
from collections import Counter
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
MAX_ITEM_CHARS = 120
"""An item's text is cut to this (an ellipsis marking the cut), so a table row stays one screen line wide."""
MAX_ITEMS_PER_OUTPUT = 4
"""Items taken from one tool result or `!cmd` output: a few facts, not the bulk of a listing or a log."""
MAX_NUMBERS_PER_OUTPUT = 2
"""Of those, numbers: a listing's sizes are many and rarely matter, a full disk's `100%` does."""
REPEATED_LINE = 3
"""A line whose shape (non-zero numbers aside) occurs this often in one output is a template, not a fact."""
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
# A cheap pre-filter (a text holding none of these, lower-cased, has no error line; substring tests
# are far faster than one case-blind regular expression over a megabyte), then the line tests.
_ERROR_HINTS = (
    "error", "exception", "traceback", "fail", "fatal", "panic", "critical", "err!", "interrupt", "exit",
    "timed out", "segmentation fault", "dumped", "cannot", "can't", "could not", "couldn't", "unable",
    "no such", "not found", "denied", "directory", "refused", "invalid", "unrecognized", "unknown", "missing",
)  # fmt: skip
_ERROR_LINE = re.compile(
    r"^Traceback \(most recent call last\)"
    r"|\b[A-Za-z_][\w.]*(?:Error|Exception)(?::|$)"  # ValueError: bad, java.lang.NullPointerException
    r"|^(?:FAILED|FAIL|ERROR|FATAL|PANIC)\b"  # pytest's FAILED tests/x.py::test, ERROR collecting
    r"|\*\*\*.*\bError\b"  # make: *** [deploy] Error 2
    r"|^KeyboardInterrupt$|^error\[E\d+\]"  # rustc's error[E0308]: mismatched types
    r"|(?i:(?:^|[\s:\[(])(?:error|fatal|panic|failed|failure|exception|critical)(?:\]|:|!)"  # a.c:3: error:
    r"|\berr!"  # npm ERR!
    r"|\b[1-9]\d* (?:failed|errors?|failures?)\b"  # 1 failed, 1 passed
    r"|\b(?<!\b0 )failed(?: to\b|\W*$)"  # failed to open, build failed
    r"|\btimed out\b|\bpanicked at\b|\bsegmentation fault\b|\bcore dumped\b"
    r"|\bexit(?:ed)?(?: with)?(?: code| status)\W*[1-9]\d*\b|\bnon-zero exit\b"
    r"|^[\w.+/-]+: (?:.*\W)?(?:cannot|can't|could not|couldn't|unable to|no such|not found|permission denied"
    r"|is a directory|not a directory|refused|invalid|unrecognized|unknown|missing)\b)",
)
_EXIT_CODE = re.compile(r"\bexit(?:ed|s)?(?: with)?(?: code| status)\W*(\d+)\b", re.IGNORECASE)
BASH_STATUS_PREFIXES = ("Command exited with code", "Command aborted", "Command timed out")
"""The last line of a failed bash result (see pi_tui/tools/bash.py): the rest is the command's output."""
_LINE_SHAPE = re.compile(r"[1-9]\d*")
_UNITS = (
    r"%|(?:[KMGTP]i?B|[kKMGT]|B|bytes?|ms|us|µs|ns|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|"
    r"tokens?|lines?|files?)\b"
)
# Numbers start with a digit (so the engine can skip ahead fast) that follows none (so a run of digits
# is tried once, not from each of its digits); the character before is checked in Python. Ports are
# looked for only in texts that mention one of their words.
_NUMBER = re.compile(r"(?<!\d)\d+(?:[.,]\d+)? ?(?:" + _UNITS + r")")
_NUMBER_HINT = re.compile(r"[0-9][ %A-Za-zµ]")
"""What every number with a unit holds: a digit followed by a space, `%` or a letter (a cheaper test)."""
_PORT = re.compile(r"\b(?i:port)\s+\d{2,5}\b|\b(?:localhost|127\.0\.0\.1|0\.0\.0\.0):\d{2,5}\b")
_PORT_HINTS = ("port", "Port", "PORT", "localhost", "127.0.0.1", "0.0.0.0")
_WORD = re.compile(r"[^\W\d_]{3,}")
_MEASURED_DURATION = re.compile(r"\d+[.,]\d+\s?(?:ms|us|µs|ns|s|secs?|seconds?|mins?|minutes?)$")
_PROGRESS = re.compile(r"\[\s*$")
_NORMALISE_DROP = re.compile(r"[`'\"]+")
_WHITESPACE = re.compile(r"\s+")
_NUMBER_GAP = re.compile(r"(?<=\d) (?=[^\W\d_]|%)")
_TERMINAL_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]")
# Whitespace, C0/C1 controls, line and paragraph separators and the invisible format characters
# (zero-width, bidirectional overrides, byte order mark) that shift or reorder a table's columns.
_NOT_ONE_LINE = re.compile(r"[\s\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]+")


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


def is_error_line(line: str) -> bool:
    """Whether one (stripped) line of output looks like an error; see the module docstring."""
    return bool(_ERROR_LINE.search(line)) and is_meaningful_error(line)


def _may_hold_errors(text: str) -> bool:
    lowered = text.lower()
    return any(hint in lowered for hint in _ERROR_HINTS)


def error_lines(text: str) -> list[str]:
    if not _may_hold_errors(text):
        return []
    return [line for line in (raw.strip() for raw in text.splitlines()) if line and is_error_line(line)]


def _last_distinct(items: Sequence[str], limit: int) -> list[str]:
    """The last `limit` distinct items, in output order."""
    kept: list[str] = []
    for item in reversed(items):
        if len(kept) == limit:
            break
        if item not in kept:
            kept.append(item)
    return kept[::-1]


def output_items(text: str, *, errors: bool = True) -> tuple[list[str], list[str]]:
    """The error lines and numbers of one tool result or command output worth auditing, at most
    `MAX_ITEMS_PER_OUTPUT` together; see the module docstring for what bulk output leaves out."""
    if "\x1b" in text:  # colour codes would hide an `error:` label
        text = _TERMINAL_ESCAPE.sub("", text)
    has_errors = errors and _may_hold_errors(text)
    if not has_errors and not _NUMBER_HINT.search(text) and not any(hint in text for hint in _PORT_HINTS):
        return [], []
    lines: list[tuple[str, str]] = []  # (line, shape)
    shapes: Counter[str] = Counter()
    erring: dict[str, bool] = {}  # per shape: lines differing only in non-zero numbers class alike
    for raw in text.splitlines():
        line = raw.strip()
        if line:
            shape = _LINE_SHAPE.sub("#", line)
            lines.append((line, shape))
            shapes[shape] += 1
            if has_errors and shape not in erring:
                erring[shape] = is_error_line(line)
    error_at = {shape: index for index, (_, shape) in enumerate(lines) if erring.get(shape)}
    # a repeated error (a retry loop's `error: connection refused`) is one fact: its last sighting
    error_found = [line for index, (line, shape) in enumerate(lines) if error_at.get(shape, -1) == index]
    kept_errors = _last_distinct(error_found, MAX_ITEMS_PER_OUTPUT)
    room = min(MAX_NUMBERS_PER_OUTPUT, MAX_ITEMS_PER_OUTPUT - len(kept_errors))
    numbers: list[str] = []  # newest first until there is no room left
    for line, shape in reversed(lines):
        if len(numbers) >= room:
            break
        if shapes[shape] < REPEATED_LINE and not erring.get(shape):
            numbers += [number for number in reversed(numbers_in(line)) if number not in numbers]
    return kept_errors, numbers[:room][::-1]


def one_line(text: str) -> str:
    """`text` as one table cell: terminal escapes dropped, control characters and runs of whitespace
    as one space, cut to `MAX_ITEM_CHARS` with an ellipsis."""
    if len(text) <= MAX_ITEM_CHARS and text.isprintable() and "  " not in text:  # the usual word or path
        return text.strip()
    if "\x1b" in text:
        text = _TERMINAL_ESCAPE.sub("", text)
    line = _NOT_ONE_LINE.sub(" ", text).strip()
    return line if len(line) <= MAX_ITEM_CHARS else line[: MAX_ITEM_CHARS - 1].rstrip() + "…"


class _Tally:
    """Per kind: how often each item was seen, the latest span position it was seen at and the whole
    text its one-line form stands for (what survival is checked on)."""

    def __init__(self) -> None:
        self.count: dict[AuditKind, dict[str, int]] = {kind: {} for kind in AUDIT_KINDS}
        self.last: dict[AuditKind, dict[str, int]] = {kind: {} for kind in AUDIT_KINDS}
        self.whole: dict[AuditKind, dict[str, str]] = {kind: {} for kind in AUDIT_KINDS}
        self.chars = 0

    def add(self, kind: AuditKind, items: Iterable[str], position: int) -> None:
        count, last, whole = self.count[kind], self.last[kind], self.whole[kind]
        for item in items:
            text = one_line(item)
            if not text:
                continue
            seen = count.get(text)
            if seen is None:  # the span is read newest first: the first sighting is the latest
                count[text] = 1
                last[text] = position
                whole[text] = item
            else:
                count[text] = seen + 1

    def add_text(self, text: str, position: int) -> None:
        """User and assistant prose: paths and numbers."""
        self.chars += len(text)
        self.add("path", paths_in(text), position)
        self.add("number", numbers_in(text), position)

    def add_output(self, text: str, position: int, *, errors: bool = True) -> None:
        """Tool and command output: a few error lines and numbers."""
        self.chars += len(text)
        error_found, numbers = output_items(text, errors=errors)
        self.add("error", error_found, position)
        self.add("number", numbers, position)

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
                        self.add("command", [command], position)
        elif isinstance(message, ToolResultMessage):
            text = message.text
            if message.is_error and not _is_command_outcome(message.tool_name, text):
                first_line = text.strip().split("\n", 1)[0].strip()
                if is_meaningful_error(first_line):
                    self.add("error", [first_line], position)
            self.add_output(text, position, errors=message.tool_name != READ_TOOL)
        elif isinstance(message, BashExecutionMessage):
            self.add("command", [message.command], position)
            self.add_output(message.output, position)
            if message.exit_code and not message.cancelled:
                self.add("error", [f"exit code {message.exit_code}"], position)


def _is_command_outcome(tool_name: str, text: str) -> bool:
    """A failed bash result holding the command's output and a status line (not the tool's own
    message, such as a missing working directory): its first line is output, not the error."""
    return tool_name == BASH_TOOL and text.rstrip().rsplit("\n", 1)[-1].startswith(BASH_STATUS_PREFIXES)


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
        self.exit_codes = {match.group(1) for match in _EXIT_CODE.finditer(text)}

    def contains(self, item: str) -> bool:
        if item and _bounded_find(self.text, item):
            return True
        wanted = normalise(item)
        if wanted and _bounded_find(self.normal, wanted):
            return True
        code = _EXIT_CODE.search(item)
        return code is not None and code.group(1) in self.exit_codes


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
        count, last, whole = tally.count[kind], tally.last[kind], tally.whole[kind]
        audit.totals[kind] = len(count)
        ranked = sorted(count, key=lambda text: (-count[text], -last[text]))
        for text in ranked[:max_per_kind]:
            entry_id = span[last[text]].entry_id
            audit.items.append(AuditItem(kind, text, entry_id, count[text], checker.contains(whole[text])))
    return audit
