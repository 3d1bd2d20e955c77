"""One model's configuration: pi's models.json entry, resolved with its provider's endpoint."""

from __future__ import annotations

from typing import Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from pi_tui.config.compat import Compat, CompatOverrides, resolve_compat

InputKind: TypeAlias = Literal["text", "image"]
Api: TypeAlias = Literal["openai-completions", "openai-responses", "anthropic-messages"]
SUPPORTED_APIS: tuple[Api, ...] = ("openai-completions", "openai-responses", "anthropic-messages")

DEFAULT_CONTEXT_WINDOW = 128_000
WINDOW_ASSUMED = "assumed: pi-tui's default for an unlisted model"
DEFAULT_MAX_TOKENS = 32_000


class Prices(BaseModel):
    """$ per million tokens."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0


class PromptCacheLifetimes(BaseModel):
    """pi 1.6's models.json `promptCache`: how long the provider keeps a cached prefix, in seconds,
    for the short and the long retention tier (unset: not known)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    short: int | None = Field(default=None, gt=0, strict=True)
    long: int | None = Field(default=None, gt=0, strict=True)


class ModelConfig(BaseModel):
    """Everything needed to call one model. `api_key` is resolved at call time and never persisted."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    id: str
    name: str = ""
    provider: str = "openai"
    api: Api = "openai-completions"
    base_url: str = "https://api.openai.com/v1"
    context_window: int = DEFAULT_CONTEXT_WINDOW
    max_tokens: int = DEFAULT_MAX_TOKENS
    reasoning: bool = False
    input: list[InputKind] = Field(default_factory=lambda: list[InputKind](["text"]))
    cost: Prices = Field(default_factory=Prices)
    headers: dict[str, str] = Field(default_factory=dict)
    window_source: str | None = None
    """Where `context_window` came from when not from models.json (`WINDOW_ASSUMED`, or the server)."""
    compat: CompatOverrides = Field(default_factory=CompatOverrides)
    """The dialect switches set in models.json; `dialect()` fills in the detected rest."""
    thinking_level_map: dict[str, str | None] | None = None
    """pi's thinking levels to the words this provider uses (a None value: the level is not sent)."""
    prompt_cache: PromptCacheLifetimes | None = None
    """pi 1.6's cache lifetimes of this model (read and shown; cache warming uses them)."""

    def dialect(self) -> Compat:
        """The switches for this model at its current base URL (`--base-url` may have moved it)."""
        return resolve_compat(self.compat, self.provider, self.base_url, self.id)

    @property
    def ref(self) -> str:
        """`provider/id`, the form `--model` and `fallbackModels` accept."""
        return f"{self.provider}/{self.id}"

    def same_model(self, provider: str, model_id: str) -> bool:
        return self.provider == provider and self.id == model_id
