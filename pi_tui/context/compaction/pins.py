"""Pinned items: texts the user wants carried verbatim into every later summary (pi-tui's own; pi has none).

A pin is recorded as a `pi-tui.pin` custom entry whose data is
`{"action": "pin"|"unpin", "kind": ..., "text": ..., "entryId": ...}`. `kind` is `message` for a
pinned message (keyed by its entry id) or an audit kind (`path`, `command`, `error`, `number`,
keyed by its text). Records are resolved in file order, latest wins. The model is asked to keep
pins in a `## Pinned` section; `ensure_pinned` then adds any it dropped, so a pin survives a
careless summariser.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pi_tui.context.compaction.prompts import PINNED_SECTION_HEADING

PIN_CUSTOM_TYPE = "pi-tui.pin"
MESSAGE_PIN_KIND = "message"


@dataclass(frozen=True)
class Pin:
    kind: str
    text: str
    entry_id: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        """What a later record of the same pin matches: the entry for a message, else the text."""
        if self.kind == MESSAGE_PIN_KIND and self.entry_id:
            return (MESSAGE_PIN_KIND, self.entry_id)
        return ("text", self.text)

    def record(self, action: str) -> dict[str, Any]:
        """The custom entry's `data`."""
        data: dict[str, Any] = {"action": action, "kind": self.kind, "text": self.text}
        if self.entry_id is not None:
            data["entryId"] = self.entry_id
        return data


def pin_from_record(data: Any) -> tuple[str, Pin] | None:
    """(action, pin) of a record, or None for data that is not a valid pin record."""
    if not isinstance(data, dict):
        return None
    action, kind, text = data.get("action"), data.get("kind"), data.get("text")
    entry_id = data.get("entryId")
    if action not in ("pin", "unpin") or not isinstance(kind, str) or not isinstance(text, str):
        return None
    return action, Pin(kind, text, entry_id if isinstance(entry_id, str) else None)


def resolve_pins(records: Iterable[Any]) -> list[Pin]:
    """The pins in force after `records` (file order), in the order they were first pinned."""
    active: dict[tuple[str, str], Pin] = {}
    for data in records:
        parsed = pin_from_record(data)
        if parsed is None:
            continue
        action, pin = parsed
        if action == "pin" and pin.text:
            active[pin.key] = pin
        else:
            active.pop(pin.key, None)
    return list(active.values())


def _section_bounds(lines: list[str]) -> tuple[int, int] | None:
    """(heading line, end line exclusive) of the `## Pinned` section, if the summary has one."""
    for index, line in enumerate(lines):
        if line.strip() == PINNED_SECTION_HEADING:
            end = next(
                (later for later in range(index + 1, len(lines)) if lines[later].startswith("## ")),
                len(lines),
            )
            return index, end
    return None


def missing_pins(summary: str, pins: Sequence[str]) -> list[str]:
    return [pin for pin in pins if pin and pin not in summary]


def ensure_pinned(summary: str, pins: Sequence[str]) -> str:
    """`summary` with every pin present verbatim: missing ones go into its `## Pinned` section
    (created at the end when absent). A summary already holding every pin is returned unchanged."""
    missing = missing_pins(summary, pins)
    if not missing:
        return summary
    added = [f"- {pin}" for pin in missing]
    lines = summary.split("\n")
    bounds = _section_bounds(lines)
    if bounds is None:
        body = summary.rstrip("\n")
        separator = "\n\n" if body else ""
        return body + separator + PINNED_SECTION_HEADING + "\n" + "\n".join(added)
    _, end = bounds
    insert_at = end
    while insert_at > bounds[0] + 1 and not lines[insert_at - 1].strip():
        insert_at -= 1
    lines[insert_at:insert_at] = added
    return "\n".join(lines)
