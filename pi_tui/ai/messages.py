"""Message, content and usage types, exactly as pi writes them (docs/pi-compatibility.md).

Field names are snake_case in Python and camelCase on disk. Optional fields that are unset are
omitted when dumping (JavaScript drops `undefined` keys), and unknown keys are kept, so a message
loaded from a pi file dumps back to the same JSON object.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, Self, TypeAlias

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator
from pydantic.alias_generators import to_camel

from pi_tui.ai.thinking_levels import THINKING_LEVELS, ThinkingLevel

StopReason: TypeAlias = Literal["stop", "length", "toolUse", "error", "aborted", "deferred"]
"""`deferred`: pi 1.6's reply whose tool calls wait for the user; replayed like `toolUse`."""
__all__ = ["THINKING_LEVELS", "ThinkingLevel"]  # defined apart (light for the CLI), imported from here


def _is_none(value: object) -> bool:
    return value is None


def omitted() -> Any:
    """An optional field that is left out of the JSON when it is None (JavaScript's `undefined`)."""
    return Field(default=None, exclude_if=_is_none)


class _SharedFieldNames(set[str]):
    """A `__pydantic_fields_set__` shared by every model validated with the same keys.

    pydantic gives each instance its own set of the field names it was given: about 730 bytes once it
    holds five names, more than the rest of a typical model, and over half the memory of a loaded
    session. Models that were given the same names share one set instead; `PiModel.__setattr__`
    gives an instance its own copy before pydantic records a newly set field in it.
    """


class _NoExtraKeys(dict[str, Any]):
    """The `__pydantic_extra__` of every model without unknown keys (64 bytes saved per model).

    Read-only so that code changing `model_extra` in place fails loudly instead of changing every model;
    `PiModel.__setattr__` gives an instance its own dict before pydantic stores an unknown key in it.
    """

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("shared empty extras are read-only")

    def __copy__(self) -> dict[str, Any]:
        return {}  # `model_copy` stores updated unknown keys in the copy

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {}

    def __reduce__(self) -> tuple[type[dict[str, Any]], tuple[()]]:
        return dict, ()

    __setitem__ = __delitem__ = update = setdefault = pop = popitem = clear = __ior__ = _refuse  # type: ignore[assignment]


_NO_EXTRA_KEYS = _NoExtraKeys()
_SHARED_FIELD_NAMES: dict[frozenset[str], _SharedFieldNames] = {}
_MAX_SHARED_SHAPES = 4096
"""Unknown keys are recorded too, so shapes are unbounded in theory: past this, sets stay private."""


class PiModel(BaseModel):
    """Base for every on-disk type: camelCase aliases, unknown keys preserved."""

    model_config = ConfigDict(
        # Validators are built on first use: a start builds none of those it does not need (docs/startup.md).
        defer_build=True,
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        extra="allow",
    )

    @model_validator(mode="after")
    def _share_field_names(self) -> Self:
        names = frozenset(self.__pydantic_fields_set__)
        shared = _SHARED_FIELD_NAMES.get(names)
        if shared is None and len(_SHARED_FIELD_NAMES) < _MAX_SHARED_SHAPES:
            shared = _SHARED_FIELD_NAMES.setdefault(names, _SharedFieldNames(names))
        if shared is not None:
            object.__setattr__(self, "__pydantic_fields_set__", shared)
        if self.__pydantic_extra__ == {}:
            object.__setattr__(self, "__pydantic_extra__", _NO_EXTRA_KEYS)
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        if type(self.__pydantic_fields_set__) is _SharedFieldNames:
            object.__setattr__(self, "__pydantic_fields_set__", set(self.__pydantic_fields_set__))
        if type(self.__pydantic_extra__) is _NoExtraKeys:
            object.__setattr__(self, "__pydantic_extra__", {})
        super().__setattr__(name, value)

    def to_json_obj(self) -> dict[str, Any]:
        """The JSON object pi would write for this value."""
        return self.model_dump(mode="json", by_alias=True)


# --- content blocks -------------------------------------------------------------------------------


class TextContent(PiModel):
    type: Literal["text"] = "text"
    text: str
    text_signature: str | None = omitted()


class ThinkingContent(PiModel):
    type: Literal["thinking"] = "thinking"
    thinking: str
    thinking_signature: str | None = omitted()
    redacted: bool | None = omitted()


class ImageContent(PiModel):
    type: Literal["image"] = "image"
    data: str
    mime_type: str


class ToolCall(PiModel):
    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    thought_signature: str | None = omitted()


UserBlock: TypeAlias = Annotated[TextContent | ImageContent, Field(discriminator="type")]
AssistantBlock: TypeAlias = Annotated[TextContent | ThinkingContent | ToolCall, Field(discriminator="type")]
AnyBlock: TypeAlias = Annotated[
    TextContent | ImageContent | ThinkingContent | ToolCall, Field(discriminator="type")
]


# --- usage ----------------------------------------------------------------------------------------


class Cost(PiModel):
    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0
    total: float = 0


class Usage(PiModel):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int | None = omitted()
    """pi 1.6: the part of `output` spent thinking (already counted in `output`)."""
    total_tokens: int = 0
    cost: Cost = Field(default_factory=Cost)
    cache_write_1h: int | None = Field(default=None, alias="cacheWrite1h", exclude_if=_is_none)
    """Anthropic: the part of `cache_write` written for an hour (priced at twice the input price)."""

    def context_tokens(self) -> int:
        """Tokens the request occupied, as pi's `calculateContextTokens`."""
        return self.total_tokens or (self.input + self.output + self.cache_read + self.cache_write)


def usage_sum(usages: Sequence[Usage]) -> Usage | None:
    """One usage for several calls (a compaction that summarised in two calls, as pi 1.6 stores a
    compaction's `usage`); None for none. A single usage is returned as it is, every field kept."""
    if not usages:
        return None
    if len(usages) == 1:
        return usages[0]
    reasoning = [usage.reasoning for usage in usages if usage.reasoning is not None]
    long_writes = [usage.cache_write_1h for usage in usages if usage.cache_write_1h is not None]
    return Usage(
        input=sum(usage.input for usage in usages),
        output=sum(usage.output for usage in usages),
        cache_read=sum(usage.cache_read for usage in usages),
        cache_write=sum(usage.cache_write for usage in usages),
        reasoning=sum(reasoning) if reasoning else None,
        total_tokens=sum(usage.total_tokens for usage in usages),
        cost=Cost(
            input=sum(usage.cost.input for usage in usages),
            output=sum(usage.cost.output for usage in usages),
            cache_read=sum(usage.cost.cache_read for usage in usages),
            cache_write=sum(usage.cost.cache_write for usage in usages),
            total=sum(usage.cost.total for usage in usages),
        ),
        cacheWrite1h=sum(long_writes) if long_writes else None,
    )


class ModelPrices(PiModel):
    """$ per million tokens, as in models.json."""

    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0


def compute_cost(usage: Usage, prices: ModelPrices) -> Cost:
    """pi's `calculateCost`: price per million tokens times each of the four counts; a write kept for an
    hour (`cache_write_1h`) costs twice the input price (pi 1.6 multiplies before it divides there)."""
    long_write = usage.cache_write_1h or 0
    short_write = usage.cache_write - long_write
    cost = Cost(
        input=prices.input / 1_000_000 * usage.input,
        output=prices.output / 1_000_000 * usage.output,
        cache_read=prices.cache_read / 1_000_000 * usage.cache_read,
        cache_write=(prices.cache_write * short_write + prices.input * 2 * long_write) / 1_000_000,
    )
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    return cost


# --- messages -------------------------------------------------------------------------------------


class UserMessage(PiModel):
    role: Literal["user"] = "user"
    content: str | list[UserBlock]
    timestamp: int


class AssistantMessage(PiModel):
    role: Literal["assistant"] = "assistant"
    content: list[AssistantBlock] = Field(default_factory=list)
    api: str = "openai-completions"
    provider: str = ""
    model: str = ""
    usage: Usage = Field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    timestamp: int = 0
    response_id: str | None = omitted()
    response_model: str | None = omitted()
    diagnostics: list[dict[str, Any]] | None = omitted()
    raw_stop_reason: str | None = omitted()
    """The provider's own stop reason (Anthropic's `end_turn`, `tool_use`, `refusal`…), as pi 1.6 keeps it."""
    error_message: str | None = omitted()
    duration_ms: int | None = omitted()
    """From the request to the reply's end (pi 1.6's `durationMs`, a monotonic clock)."""
    thinking_level: str | None = omitted()
    """The thinking level the request asked for (`off` without thinking), as pi 1.6 records it; a str,
    since pi's levels go beyond pi-tui's (`max`)."""

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [block for block in self.content if isinstance(block, ToolCall)]

    @property
    def text(self) -> str:
        """Concatenated text blocks (thinking and tool calls excluded)."""
        return "".join(block.text for block in self.content if isinstance(block, TextContent))

    @property
    def failed(self) -> bool:
        """Error and aborted replies stay in the file but are never replayed or used for usage."""
        return self.stop_reason in ("error", "aborted")


class ToolResultMessage(PiModel):
    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[UserBlock] = Field(default_factory=list)
    details: Any = omitted()
    is_error: bool = False
    duration_ms: int | None = omitted()
    timestamp: int = 0

    @property
    def text(self) -> str:
        return "".join(block.text for block in self.content if isinstance(block, TextContent))


class BashExecutionMessage(PiModel):
    """A user `!cmd` / `!!cmd` run from the editor."""

    role: Literal["bashExecution"] = "bashExecution"
    command: str
    output: str = ""
    exit_code: int | None = omitted()
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = omitted()
    timestamp: int = 0
    exclude_from_context: bool | None = omitted()


class CustomMessage(PiModel):
    role: Literal["custom"] = "custom"
    custom_type: str
    content: str | list[UserBlock]
    display: bool = True
    details: Any = omitted()
    timestamp: int = 0


class BranchSummaryMessage(PiModel):
    role: Literal["branchSummary"] = "branchSummary"
    summary: str
    from_id: str
    timestamp: int = 0


class CompactionSummaryMessage(PiModel):
    role: Literal["compactionSummary"] = "compactionSummary"
    summary: str
    tokens_before: int
    timestamp: int = 0


class SystemMessage(PiModel):
    """pi 1.6's checkpoint of the prompt and tools (docs/pi-compatibility.md): `sections` patches the
    prompt by name (a null value removes one), `toolsAdded` / `toolsRemoved` change the tool set.

    Only `role` and `content` are fields: pi writes the other keys in different orders (a message
    entry puts `timestamp` before the tools, a compaction's `systemMessage` after them), so they stay
    the message's own keys, in the order they came, and `pi_tui.ai.system_messages` reads them.
    """

    role: Literal["system"] = "system"
    content: str | list[TextContent] = ""


class UnknownMessage(PiModel):
    """A role this version does not know: kept verbatim, never sent to a model."""

    role: str


KNOWN_ROLES = frozenset(
    {
        "system",
        "user",
        "assistant",
        "toolResult",
        "bashExecution",
        "custom",
        "branchSummary",
        "compactionSummary",
    }
)


def _role_tag(value: Any) -> str:
    role = value.get("role") if isinstance(value, dict) else getattr(value, "role", None)
    # A non-string role (a list from a corrupt line) is unhashable: test the type first.
    return role if isinstance(role, str) and role in KNOWN_ROLES else "unknown"


AgentMessage: TypeAlias = Annotated[
    Annotated[SystemMessage, Tag("system")]
    | Annotated[UserMessage, Tag("user")]
    | Annotated[AssistantMessage, Tag("assistant")]
    | Annotated[ToolResultMessage, Tag("toolResult")]
    | Annotated[BashExecutionMessage, Tag("bashExecution")]
    | Annotated[CustomMessage, Tag("custom")]
    | Annotated[BranchSummaryMessage, Tag("branchSummary")]
    | Annotated[CompactionSummaryMessage, Tag("compactionSummary")]
    | Annotated[UnknownMessage, Tag("unknown")],
    Discriminator(_role_tag),
]
"""Everything the agent keeps in its transcript; only user/assistant/toolResult reach a model as-is."""


def user_text(message: UserMessage | CustomMessage) -> str:
    """The text of a user-like message, blocks joined with no separator."""
    if isinstance(message.content, str):
        return message.content
    return "".join(block.text for block in message.content if isinstance(block, TextContent))
