"""The lines of a session file: the header and every entry type of pi's format v3 (docs/pi-compatibility.md).

Field order is the order pi writes (`type, id, parentId, timestamp`, then the type's own fields), so an
entry dumped with `to_json_obj()` and `js_dumps` reproduces pi's line byte for byte. An entry type this
version does not know is kept as an `UnknownEntry` holding the original object, which is written back
unchanged and ignored when the context is rebuilt.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import (
    ConfigDict,
    Discriminator,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    Tag,
    TypeAdapter,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import (
    AgentMessage,
    AnyBlock,
    PiModel,
    SystemMessage,
    ThinkingLevel,
    Usage,
    UserBlock,
    omitted,
)

CURRENT_SESSION_VERSION = 3
REQUEST_TOKENS_BEFORE_KEY = "requestTokensBefore"
REQUEST_TOKENS_AFTER_KEY = "requestTokensAfter"
"""pi-tui's keys in a compaction's `details`: the whole request's size around the cut (docs/compaction.md)."""


class SessionHeader(PiModel):
    """Line 1 of every session file. A header without `version` is a version-1 file."""

    type: Literal["session"] = "session"
    version: int = 1
    id: str
    timestamp: str = ""
    cwd: str = ""
    parent_session: str | None = omitted()


class EntryBase(PiModel):
    """Fields every entry carries; `parentId` is always written, `null` for a root."""

    type: str
    id: str
    parent_id: str | None = None
    timestamp: str = ""


class MessageEntry(EntryBase):
    type: Literal["message"] = "message"
    message: AgentMessage


class ThinkingLevelChangeEntry(EntryBase):
    type: Literal["thinking_level_change"] = "thinking_level_change"
    thinking_level: ThinkingLevel


class ModelChangeEntry(EntryBase):
    type: Literal["model_change"] = "model_change"
    provider: str
    model_id: str


class CompactionEntry(EntryBase):
    type: Literal["compaction"] = "compaction"
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: Any = omitted()
    usage: Usage | None = omitted()
    """pi 1.6: what the summary call cost."""
    from_hook: bool | None = omitted()
    system_message: SystemMessage | None = omitted()
    """pi 1.6: the prompt sections and tools at the cut; it replaces the system messages before it."""

    @property
    def request_tokens_before(self) -> int:
        """The whole request's size before the cut, as pi-tui measures it (`details`); pi's own
        `tokensBefore` counts what its estimate counts, so a file pi-tui did not write falls back to it."""
        details = self.details if isinstance(self.details, dict) else {}
        before = details.get(REQUEST_TOKENS_BEFORE_KEY)
        return before if isinstance(before, int) and not isinstance(before, bool) else self.tokens_before


class BranchSummaryEntry(EntryBase):
    """`from_id`: in pi 1.6 the leaf that was left; in 0.73.1 files, its parent (both only displayed)."""

    type: Literal["branch_summary"] = "branch_summary"
    from_id: str
    summary: str
    details: Any = omitted()
    usage: Usage | None = omitted()
    """pi 1.6: what the summary call cost."""
    from_hook: bool | None = omitted()


class CustomEntry(EntryBase):
    """Extension (and pi-tui, `customType` prefixed `pi-tui.`) state; never part of the model context."""

    type: Literal["custom"] = "custom"
    custom_type: str
    data: Any = omitted()


class CustomMessageEntry(EntryBase):
    """pi writes this one's own fields before `id, parentId, timestamp` (`appendCustomMessageEntry`)."""

    type: Literal["custom_message"] = "custom_message"
    custom_type: str
    content: str | list[UserBlock]
    display: bool = True
    details: Any = omitted()

    @model_serializer(mode="wrap")
    def _in_pis_order(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        placed = {"type": dumped.pop("type")}
        names: tuple[str, ...] = ("id", "parentId", "parent_id", "timestamp")
        tail = {key: dumped.pop(key) for key in names if key in dumped}
        return {**placed, **dumped, **tail}


class LabelEntry(EntryBase):
    """`label` None (key omitted) clears the target's label."""

    type: Literal["label"] = "label"
    target_id: str
    label: str | None = omitted()


class SessionInfoEntry(EntryBase):
    """`name` None or empty clears the session name."""

    type: Literal["session_info"] = "session_info"
    name: str | None = omitted()


class ContextReplacement(PiModel):
    """What a context edit puts in place of its target's content (text, or blocks of the target's kind)."""

    content: str | list[AnyBlock]


class ContextEditEntry(EntryBase):
    """pi 1.6: from here on, on this branch, `target_id` is sent with `replacement`'s content, or left
    out (`replacement` null, always written). The target's own line never changes."""

    type: Literal["context_edit"] = "context_edit"
    target_id: str
    replacement: ContextReplacement | None


class UsageEntry(EntryBase):
    """pi 1.6: a billed model call that is not a conversation turn (`kind` `cache_warm` today; any
    kind is read). Counted in the session's cost, never sent to a model."""

    type: Literal["usage"] = "usage"
    kind: str
    provider: str
    model: str
    usage: Usage
    note: str | None = omitted()
    """pi 1.6: why the call was made against its own rule (`extension override`); omitted otherwise."""


class UnknownEntry(EntryBase):
    """An entry this version cannot interpret: it keeps its place in the tree and is written back verbatim."""

    _raw: dict[str, Any] | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _remember_raw(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> UnknownEntry:
        entry = handler(data)
        assert isinstance(entry, UnknownEntry)
        if isinstance(data, dict):
            entry._raw = dict(data)
        return entry

    @model_serializer(mode="wrap")
    def _dump_raw(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        if self._raw is not None:
            return dict(self._raw)
        dumped: dict[str, Any] = handler(self)
        return dumped


ENTRY_CLASSES: dict[str, type[EntryBase]] = {
    "message": MessageEntry,
    "thinking_level_change": ThinkingLevelChangeEntry,
    "model_change": ModelChangeEntry,
    "compaction": CompactionEntry,
    "branch_summary": BranchSummaryEntry,
    "custom": CustomEntry,
    "custom_message": CustomMessageEntry,
    "label": LabelEntry,
    "session_info": SessionInfoEntry,
    "context_edit": ContextEditEntry,
    "usage": UsageEntry,
}
"""The class of each known `type`; `SessionEntry` below is the same list as a discriminated union."""

KNOWN_ENTRY_TYPES = frozenset(ENTRY_CLASSES)


def _entry_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    # A non-string `type` (a list, an object) is unhashable: test the type before the set lookup.
    if isinstance(kind, str) and kind in KNOWN_ENTRY_TYPES and not isinstance(value, UnknownEntry):
        return str(kind)
    return "unknown"


SessionEntry: TypeAlias = Annotated[
    Annotated[MessageEntry, Tag("message")]
    | Annotated[ThinkingLevelChangeEntry, Tag("thinking_level_change")]
    | Annotated[ModelChangeEntry, Tag("model_change")]
    | Annotated[CompactionEntry, Tag("compaction")]
    | Annotated[BranchSummaryEntry, Tag("branch_summary")]
    | Annotated[CustomEntry, Tag("custom")]
    | Annotated[CustomMessageEntry, Tag("custom_message")]
    | Annotated[LabelEntry, Tag("label")]
    | Annotated[SessionInfoEntry, Tag("session_info")]
    | Annotated[ContextEditEntry, Tag("context_edit")]
    | Annotated[UsageEntry, Tag("usage")]
    | Annotated[UnknownEntry, Tag("unknown")],
    Discriminator(_entry_tag),
]
"""Any non-header line of a session file."""

# Built on the first entry read, not at import (docs/startup.md).
ENTRY_ADAPTER: TypeAdapter[SessionEntry] = TypeAdapter(SessionEntry, config=ConfigDict(defer_build=True))


def parse_entry(obj: dict[str, Any]) -> SessionEntry:
    """Validate one parsed line; raises pydantic's ValidationError (with a location) for bad data."""
    return ENTRY_ADAPTER.validate_python(obj)


def opaque_entry(obj: dict[str, Any]) -> UnknownEntry:
    """Keep an entry that failed validation as an opaque node, so its children stay attached to the tree."""
    parent = obj.get("parentId")
    stamp = obj.get("timestamp")
    entry = UnknownEntry(
        type=str(obj.get("type")),
        id=str(obj["id"]),
        parent_id=parent if isinstance(parent, str) else None,
        timestamp=stamp if isinstance(stamp, str) else "",
    )
    entry._raw = dict(obj)
    return entry


def entry_line(entry: SessionEntry | SessionHeader) -> str:
    """The line (without `\\n`) pi would write for an entry or header; unknown entries: the original."""
    return js_dumps(entry.to_json_obj())


def reparented(entry: SessionEntry, parent_id: str | None) -> SessionEntry:
    """A copy of `entry` under another parent (unknown entries keep every other key verbatim)."""
    copy = entry.model_copy(update={"parent_id": parent_id})
    if isinstance(entry, UnknownEntry) and entry._raw is not None:
        assert isinstance(copy, UnknownEntry)
        copy._raw = {**entry._raw, "parentId": parent_id}
    return copy
