"""Incremental clean-up of terminal output into the text the model sees.

Chunks arrive with arbitrary boundaries, so an escape sequence, a `\\r\\n` pair or a run of blank lines
may be split across them; the sanitizer carries the unfinished part over to the next chunk. Work is
done with precompiled regexes on whole chunks, never per character.

What it removes or rewrites:
- ANSI escape sequences: CSI (colours, cursor moves), OSC (titles, hyperlinks), DCS/SOS/PM/APC
  strings and two-byte escapes, also the 8-bit CSI introducer U+009B;
- other control characters (C0 except tab/newline, DEL, C1, U+FFF9-U+FFFB);
- `\\r` progress lines: text before the last `\\r` of a line is overwritten (`\\r\\n` is a newline);
- runs of blank lines, squeezed to one blank line (like `cat -s`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Escape sequences and control characters go in one pass.
_GARBAGE_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC, ended by BEL or ST
    r"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]"  # two-byte and nF escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    # Other controls (tab, LF, CR kept). ESC and CSI stay out of the run so that a control just before
    # a sequence cannot swallow its introducer and leave `[31m` behind; alone they go one at a time.
    r"|[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9a\x9c-\x9f\ufff9-\ufffb]+"
    r"|[\x1b\x9b]"
)
# An escape sequence that has begun but not ended at the end of a chunk.
_UNFINISHED_ESCAPE_RE = re.compile(
    r"(?:\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[PX^_][^\x1b]*\x1b?|[ -/]+)?|\x9b[0-?]*[ -/]*)\Z"
)
# Longest unfinished sequence carried over; a longer one is treated as garbage and dropped by the
# control-character pass (its introducer goes, its payload stays visible).
MAX_CARRIED_ESCAPE = 4096
_CR_NEWLINE_RE = re.compile(r"\r+\n")
_OVERWRITTEN_RE = re.compile(r"^[^\n]*\r", re.MULTILINE)
_BLANK_RUN_RE = re.compile(r"\n{3,}")

# Raw bytes that make a chunk need the full clean-up: C0 controls except tab and newline, and DEL.
CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])


@dataclass(frozen=True)
class CleanChunk:
    """Sanitised text to append. `rewind` first erases the open (unterminated) last line."""

    rewind: bool
    text: str


class StreamSanitizer:
    """Turns decoded chunks into model text; state carries across chunk boundaries."""

    def __init__(self) -> None:
        self._carry = ""
        # Newlines at the end of the text emitted so far; 1 at the start so leading blank lines squeeze.
        self._trailing_newlines = 1
        # Newlines just before the open line began, restored when a `\r` erases that line.
        self._newlines_before_open = 1

    def feed(self, text: str, *, may_have_controls: bool = True) -> CleanChunk:
        """Clean one decoded chunk. `may_have_controls=False` (the caller checked the raw bytes) skips
        the escape, control and `\\r` passes."""
        if self._carry:
            text = self._carry + text
            self._carry = ""
            may_have_controls = True
        rewind = False
        if may_have_controls:
            text = _GARBAGE_RE.sub("", self._carry_unfinished_escape(text))
            if "\r" in text:
                rewind, text = self._collapse_carriage_returns(text)
        return CleanChunk(rewind, self._squeeze(text, rewind))

    def finish(self) -> CleanChunk:
        """End of stream: an unfinished escape or a trailing lone `\\r` is dropped."""
        self._carry = ""
        return CleanChunk(False, "")

    def _carry_unfinished_escape(self, text: str) -> str:
        window_start = max(0, len(text) - MAX_CARRIED_ESCAPE)
        if text.rfind("\x1b", window_start) >= 0 or text.rfind("\x9b", window_start) >= 0:
            match = _UNFINISHED_ESCAPE_RE.search(text, window_start)
            if match is not None:
                self._carry = match.group(0)
                return text[: match.start()]
        return text

    def _collapse_carriage_returns(self, text: str) -> tuple[bool, str]:
        text = _CR_NEWLINE_RE.sub("\n", text)
        kept = text.rstrip("\r")
        if len(kept) != len(text):
            # Maybe the first half of a `\r\n`; decide when the next chunk arrives.
            self._carry = "\r" + self._carry
            text = kept
        if "\r" not in text:
            return False, text
        first_newline = text.find("\n")
        head_end = first_newline if first_newline >= 0 else len(text)
        rewind = text.rfind("\r", 0, head_end) >= 0
        return rewind, _OVERWRITTEN_RE.sub("", text)

    def _squeeze(self, text: str, rewind: bool) -> str:
        if rewind and self._trailing_newlines == 0:
            self._trailing_newlines = self._newlines_before_open
        if not text:
            return text
        body = text.lstrip("\n")
        leading = len(text) - len(body)
        if leading:
            allowed = max(0, 2 - self._trailing_newlines)
            if leading > allowed:
                text = text[leading - allowed :]
                leading = allowed
        if "\n\n\n" in text:
            text = _BLANK_RUN_RE.sub("\n\n", text)
        if not body:  # only newlines
            self._trailing_newlines += len(text)
            return text
        stripped = text.rstrip("\n")
        trailing = len(text) - len(stripped)
        if trailing:
            self._trailing_newlines = trailing
            return text
        last_newline = text.rfind("\n")
        if last_newline < 0:
            if self._trailing_newlines > 0:
                self._newlines_before_open = self._trailing_newlines
        else:
            run_start = last_newline
            while run_start >= 0 and text[run_start] == "\n":
                run_start -= 1
            run = last_newline - run_start
            if run_start < 0:
                run += self._trailing_newlines
            self._newlines_before_open = run
        self._trailing_newlines = 0
        return text


def sanitize_text(text: str) -> str:
    """One-shot clean-up of a complete text (same rules as the stream)."""
    sanitizer = StreamSanitizer()
    chunk = sanitizer.feed(text)
    return chunk.text
