"""The tool protocol: a pydantic parameter model, an async execute, streamed partial results."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import ImageContent, TextContent
from pi_tui.ai.stream import ToolSpec

Params = TypeVar("Params", bound=BaseModel)

OPERATION_ABORTED = "Operation aborted"
"""What every tool but bash answers when the run is aborted (pi's text)."""
STRICT_WHERE_SUPPORTED: dict[str, Any] = {"type": "json_schema", "strict": "prefer"}
"""pi's `constrainedSampling` of its file and shell tools: a strict schema where the model takes one."""


@dataclass
class ToolResult:
    """What a tool returns. `details` is for the UI and logs only; it never reaches the model."""

    content: list[TextContent | ImageContent] = field(default_factory=list)
    details: Any = None
    is_error: bool = False
    terminate: bool = False

    @classmethod
    def text(cls, text: str, *, details: Any = None, is_error: bool = False) -> ToolResult:
        return cls(content=[TextContent(text=text)], details=details, is_error=is_error)

    @classmethod
    def error(cls, text: str) -> ToolResult:
        """pi's immediate error result: the text, empty details, `isError`."""
        return cls.text(text, details={}, is_error=True)

    @property
    def text_content(self) -> str:
        return "".join(block.text for block in self.content if isinstance(block, TextContent))


UpdateCallback = Callable[[ToolResult], Awaitable[None] | None]


class AgentTool(ABC, Generic[Params]):
    """A tool the model can call. Subclasses set the class attributes and implement `execute`.

    Errors are values: return `ToolResult(is_error=True)` for an expected failure. Anything raised is
    turned into an error result by the loop, so a tool can never kill a run.
    """

    name: ClassVar[str]
    label: ClassVar[str] = ""
    description: ClassVar[str]
    parameters: ClassVar[type[BaseModel]]
    prompt_snippet: ClassVar[str | None] = None
    prompt_guidelines: ClassVar[tuple[str, ...]] = ()
    execution_mode: ClassVar[Literal["parallel", "sequential"] | None] = None
    constrained_sampling: ClassVar[dict[str, Any] | None] = None
    """pi's `constrainedSampling`: `STRICT_WHERE_SUPPORTED` on the tools pi marks so (read, bash, edit,
    write)."""

    def prepare_arguments(self, raw: dict[str, Any]) -> dict[str, Any]:
        """Compatibility shim run before validation (e.g. legacy argument shapes)."""
        return raw

    @abstractmethod
    async def execute(
        self,
        tool_call_id: str,
        params: Params,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult: ...

    def spec(self) -> ToolSpec:
        return ToolSpec(
            self.name,
            self.description,
            self.parameters.model_json_schema(),
            dict(self.constrained_sampling) if self.constrained_sampling is not None else None,
        )
