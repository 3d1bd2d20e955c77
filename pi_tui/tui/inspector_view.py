"""The context inspector's view model: plain rows and texts built from `InspectorData` and session values.

Nothing here imports Textual, so every figure the pane shows is testable as data. `segment_texts` is the
expensive part (conversion, JSON, token counts): the screen calls it in a worker and hands the result to
`ContextInspector.show` together with the `InspectorData` it belongs to.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pi_tui.ai import tokens
from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.messages import AgentMessage, CompactionSummaryMessage, SystemMessage
from pi_tui.ai.openai_messages import to_openai_messages, to_openai_tools
from pi_tui.ai.stream import ToolSpec
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.accounting.blame import drift_cause, drift_cost, provider_blame
from pi_tui.context.accounting.drift import DriftEvent
from pi_tui.context.accounting.geometry import used_how
from pi_tui.context.accounting.ledger import BranchLedger, Zone
from pi_tui.context.accounting.measure import keyed_sent_messages, message_key
from pi_tui.context.accounting.record import RecordUsage
from pi_tui.context.compaction.blocker import blocked_line
from pi_tui.context.system_prompt import SystemPrompt
from pi_tui.session.inspector import InspectorData
from pi_tui.session_file.context_rebuild import ProjectedEntry, entry_messages

RowZone: TypeAlias = Literal["prefix", "summary", "kept", "new"]
PREVIEW_CHARS = 48
ROW_SYSTEM = "system:"
ROW_TOOL = "tool:"
ROW_MESSAGE = "message:"


@dataclass(frozen=True)
class MessageText:
    """One context message: what the model is sent for it (as converted for the wire) and its size."""

    key: str
    """Entry id, or the synthetic key of a message without an entry (`compaction-summary`)."""
    role: str
    zone: Zone
    tokens: int
    preview: str
    text: str
    """The wire messages it became, as readable text (empty text: nothing was sent for it)."""


@dataclass(frozen=True)
class SegmentTexts:
    """The exact text of every selectable inspector row, computed off the UI thread."""

    system: Mapping[str, str]
    """System prompt part text by segment name."""
    tools: Mapping[str, str]
    """Tool schema JSON (indented) by tool name."""
    messages: tuple[MessageText, ...]
    """Context messages in request order."""

    def text_for(self, row_key: str) -> str | None:
        """The text behind a table row key (`system:<name>`, `tool:<name>`, `message:<key>`)."""
        if row_key.startswith(ROW_SYSTEM):
            return self.system.get(row_key.removeprefix(ROW_SYSTEM))
        if row_key.startswith(ROW_TOOL):
            return self.tools.get(row_key.removeprefix(ROW_TOOL))
        wanted = row_key.removeprefix(ROW_MESSAGE)
        return next((m.text for m in self.messages if m.key == wanted), None)


EMPTY_TEXTS = SegmentTexts({}, {}, ())


def ledger_zones(ledger: BranchLedger) -> dict[str, Zone]:
    """The zone of each context message key, as the inspector's ledger placed it."""
    return dict(zip(ledger.keys, ledger.zones, strict=True))


def _wire_text(wire: Mapping[str, Any]) -> str:
    """One wire message as readable text: a role line, then the content verbatim."""
    head = f"[{wire['role']}]"
    if wire.get("tool_call_id"):
        head += f" tool_call_id={wire['tool_call_id']}"
    lines = [head]
    content = wire.get("content")
    if isinstance(content, str):
        lines.append(content)
    elif isinstance(content, list):
        for part in content:
            if part.get("type") == "text":
                lines.append(part["text"])
            else:
                url = part.get("image_url", {}).get("url", "")
                lines.append(f"[image: {len(url):,} characters of data URL]")
    for call in wire.get("tool_calls", ()):
        function = call["function"]
        lines.append(f"→ {function['name']} {function['arguments']}  (id {call['id']})")
    return "\n".join(lines)


def _preview(text: str) -> str:
    body = text.split("\n", 1)[1] if "\n" in text else ""
    flat = " ".join(body.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


def _zone_of(key: str, message: AgentMessage, zones: Mapping[str, Zone] | None) -> Zone:
    if isinstance(message, CompactionSummaryMessage):
        return "summary"
    return zones.get(key, "new") if zones is not None else "new"


def segment_texts(
    system_prompt: SystemPrompt | str,
    tools: Sequence[ToolSpec],
    messages: Sequence[AgentMessage],
    entry_ids: Sequence[str | None],
    *,
    model: ModelConfig | None = None,
    zones: Mapping[str, Zone] | None = None,
    projection: Sequence[ProjectedEntry] = (),
) -> SegmentTexts:
    """What the model sees for each part of the request.

    Args:
        system_prompt: the session's prompt (segments by name) or a plain text (one `system` part).
        tools: the active tools' specs, in request order.
        messages: the context messages (`SessionStore.build_context()`), with `entry_ids` alongside.
        model: the target model; its transform applies (images stripped, failed replies dropped).
        zones: message key → zone (see `ledger_zones`); without it, every message but the summary is new.
        projection: the context's entries with their edits (`SessionContext.projection`): an entry a
            context edit replaced is marked edited, one it left out gets a row of its own, never sent
            (no tokens), holding what it was.

    Returns:
        Texts keyed as the rows are: a message that sends nothing has an empty text.
    """
    if isinstance(system_prompt, str):
        system = {"system": system_prompt} if system_prompt else {}
    else:
        system = {segment.name: segment.text for segment in system_prompt.segments}
    tool_texts = {
        tool.name: json.dumps(wire, indent=2, ensure_ascii=False)
        for tool, wire in zip(tools, to_openai_tools(tools), strict=True)
    }
    sent: dict[str, list[str]] = {}
    for key, llm in keyed_sent_messages(messages, entry_ids, model):
        sent.setdefault(key, []).extend(_wire_text(wire) for wire in to_openai_messages("", [llm]))
    edited = {projected.entry.id for projected in projection if projected.edit is not None}
    left_out: dict[int, list[ProjectedEntry]] = {}
    for position, projected in _left_out_positions(projection):
        if projected.edited_out:
            left_out.setdefault(position, []).append(projected)
    rows: list[MessageText] = []
    for index, (message, entry_id) in enumerate(zip(messages, entry_ids, strict=True)):
        rows.extend(_left_out_row(projected, zones) for projected in left_out.pop(index, ()))
        if isinstance(message, SystemMessage):
            continue  # pi 1.6's prompt checkpoint: pi-tui sends its own prompt (the system rows)
        key = message_key(message, entry_id)
        text = "\n\n".join(sent.get(key, ()))
        preview = _preview(text) if text else "(not sent)"
        rows.append(
            MessageText(
                key=key,
                role=message.role,
                zone=_zone_of(key, message, zones),
                tokens=tokens.count_message(message),
                preview=f"(edited) {preview}" if key in edited else preview,
                text=text,
            )
        )
    rows.extend(_left_out_row(projected, zones) for later in left_out.values() for projected in later)
    return SegmentTexts(system, tool_texts, tuple(rows))


def _left_out_positions(projection: Sequence[ProjectedEntry]) -> list[tuple[int, ProjectedEntry]]:
    """Each projected entry with the index of the first context message after it."""
    positions: list[tuple[int, ProjectedEntry]] = []
    index = 0
    for projected in projection:
        positions.append((index, projected))
        index += len(projected.messages)
    return positions


def _left_out_row(projected: ProjectedEntry, zones: Mapping[str, Zone] | None) -> MessageText:
    """An entry a context edit left out: shown with what it was, counted as nothing (it is not sent)."""
    original = [
        _wire_text(wire)
        for message in _unedited(projected)
        for wire in to_openai_messages("", convert_to_llm([message]))
    ]
    was = "\n\n".join(original)
    edit_id = projected.edit.id if projected.edit is not None else "?"
    return MessageText(
        key=projected.entry.id,
        role=next((message.role for message in _unedited(projected)), projected.entry.type),
        zone=zones.get(projected.entry.id, projected.zone) if zones is not None else projected.zone,
        tokens=0,
        preview=f"(edited out) {_preview(was)}" if was else "(edited out)",
        text=f"Left out of every request by context edit {edit_id}. It was:\n\n{was}",
    )


def _unedited(projected: ProjectedEntry) -> tuple[AgentMessage, ...]:
    return entry_messages(projected.entry)


@dataclass(frozen=True)
class TableRow:
    key: str
    zone: RowZone
    name: str
    """Segment name, tool name, or the message's role."""
    preview: str
    tokens: int


def table_rows(data: InspectorData, texts: SegmentTexts, *, largest_first: bool = False) -> list[TableRow]:
    """Prefix segments (sizes from the data), then context messages in order (or all by size)."""
    rows: list[TableRow] = []
    for segment in data.prefix.segments if data.prefix is not None else ():
        prefix = ROW_SYSTEM if segment.section == "system" else ROW_TOOL
        kind = "system" if segment.section == "system" else "tool"
        rows.append(TableRow(prefix + segment.key, "prefix", segment.key, kind, segment.tokens))
    for message in texts.messages:
        rows.append(
            TableRow(ROW_MESSAGE + message.key, message.zone, message.role, message.preview, message.tokens)
        )
    if largest_first:
        rows.sort(key=lambda row: row.tokens, reverse=True)
    return rows


def _n(value: int) -> str:
    return f"{value:,}"


def usage_line(data: InspectorData) -> str:
    """`used / window (percent)`: the budget's one used figure, marked when no reply reported usage."""
    geometry = data.geometry
    window = geometry.context_window
    if window <= 0:
        return "Context ? / ? (no context window known)"
    return f"Context {_n(geometry.used_tokens)} / {_n(window)} ({used_how(geometry)})"


def latest_usage(data: InspectorData) -> RecordUsage | None:
    """Provider usage of the newest request record that has one."""
    return next((v.record.usage for v in reversed(data.records) if v.record.usage is not None), None)


def headline_lines(data: InspectorData) -> list[str]:
    """Usage, room before auto-compaction, the last request's cache split and the forecast."""
    geometry = data.geometry
    lines = [usage_line(data)]
    if not geometry.auto_compaction:
        lines.append(f"Auto-compaction off (compaction.enabled; threshold {_n(geometry.threshold)})")
    elif geometry.context_window > 0:
        lines.append(f"{_n(geometry.tokens_left)} left before auto-compaction at {_n(geometry.threshold)}")
    if data.blocked is not None:
        lines.append(blocked_line(data.blocked))
    if geometry.reserve_note is not None:
        lines.append(geometry.reserve_note)
    usage = latest_usage(data)
    if usage is not None:
        lines.append(f"Last request: {_n(usage.cache_read)} cached · {_n(usage.input)} uncached")
    else:
        lines.append("Last request: no usage recorded")
    outlook = data.forecast
    turns = f" · ~{outlook.turns_left} turns left" if outlook.turns_left is not None else ""
    lines.append(f"Next request ≈ {_n(outlook.next_request_tokens)}{turns}")
    if data.source == "estimate":
        lines.append("Estimate: no request records on this branch")
    return lines


@dataclass(frozen=True)
class DriftAlert:
    text: str
    drifted: bool


def drift_event_text(event: DriftEvent, *, requests_ago: int = 0) -> str:
    provider = provider_blame(event)
    beside = f" · {provider}" if provider is not None else ""
    if not event.drifted:
        return f"No drift: the last request only appended{beside}"
    when = f" {requests_ago} request{'s' if requests_ago != 1 else ''} ago" if requests_ago else ""
    return f"Drift{when}: {drift_cause(event)}: {drift_cost(event)}{beside}"


def drift_alerts(data: InspectorData, limit: int = 2) -> list[DriftAlert]:
    """The newest drift events first: up to `limit` drifted ones, or the latest clean one."""
    events = [view.drift for view in reversed(data.records) if view.drift is not None]
    if not events:
        return [DriftAlert("No drift data yet (needs two requests)", False)]
    drifted = [(ago, event) for ago, event in enumerate(events) if event.drifted][:limit]
    if not events[0].drifted:
        alerts = [DriftAlert(drift_event_text(events[0]), False)]
        return alerts + [DriftAlert(drift_event_text(e, requests_ago=ago), True) for ago, e in drifted[:1]]
    return [DriftAlert(drift_event_text(event, requests_ago=ago), True) for ago, event in drifted]


def cap_text(text: str, limit: int) -> tuple[str, str | None]:
    """The text to display and a note when it was cut to `limit` characters."""
    if len(text) <= limit:
        return text, None
    return text[:limit], f"Showing the first {_n(limit)} of {_n(len(text))} characters."
