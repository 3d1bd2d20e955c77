"""The settings model: pi's key names and defaults, unknown keys kept.

`Settings` is the effective, typed view. Files are read and written by `settings_files`; this module only
knows what a valid settings document looks like. Every field has pi's camelCase name on disk and a default
here, so a missing key always means "the default" and a caller never has to handle `None` for a value that
has one in pi. Unknown keys (another tool's, or a newer pi's) are accepted and survive a save.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from pi_tui.config.approval_mode import ApprovalMode, ApprovalSetting

DEFAULT_RESERVE_TOKENS = 16384
DEFAULT_KEEP_RECENT_TOKENS = 20000
DEFAULT_MAX_RETRIES = 3
DEFAULT_BASE_DELAY_MS = 2000
DEFAULT_MAX_DELAY_MS = 60000
DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 51200

# Bounds of the integer settings (README lists them): a value beyond one is clamped to it with a
# diagnostic (`bounds.clamp_integers`). Token counts stop at the largest windows served today.
MAX_TOKEN_SETTING = 2_000_000
MAX_RETRIES = 100
MAX_BASE_DELAY_MS = 600_000
MAX_DELAY_MS = 3_600_000
MAX_TIMEOUT_MS = 3_600_000
MAX_TOOL_LINES = 100_000
MAX_TOOL_BYTES = 1 << 20
"""A tool result of 1 MiB is about 250,000 tokens, more than most windows hold; 100000000000 here
kept a bash run's whole 100 MB output and sent it: 5.2 GB peak, a 100 MB request."""
DEFAULT_CHECKPOINT_STORE_MB = 200
MAX_CHECKPOINT_STORE_MB = 1 << 20

QueueMode = Literal["one-at-a-time", "all"]
ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh"]
DoubleEscapeAction = Literal["fork", "tree"]
CompactionStrategySetting = Literal["auto", "inline", "serialize"]
TreeFilterMode = Literal["default", "no-tools", "user-only", "labeled-only", "all"]
CacheWarmingMode = Literal["off", "streaming", "idle"]


class _Section(BaseModel):
    """camelCase on disk, strict JSON types (a string is not a number), unknown keys kept."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", strict=True, validate_assignment=True
    )


class CompactionModelOverride(_Section):
    """pi 1.6's `compaction.modelOverrides["provider/model"]`: budgets for one model; an omitted value falls
    back to the ordinary setting, then to the default."""

    reserve_tokens: int | None = Field(default=None, ge=0, le=MAX_TOKEN_SETTING)
    keep_recent_tokens: int | None = Field(default=None, ge=0, le=MAX_TOKEN_SETTING)


class CompactionSettings(_Section):
    enabled: bool = True
    """False disables automatic compaction only; `/compact` still works."""
    reserve_tokens: int = Field(default=DEFAULT_RESERVE_TOKENS, ge=0, le=MAX_TOKEN_SETTING)
    """Kept free for the reply; where the budget is computed, at most half the model's window."""
    keep_recent_tokens: int = Field(default=DEFAULT_KEEP_RECENT_TOKENS, ge=0, le=MAX_TOKEN_SETTING)
    confirm: bool = False
    """Ask before an automatic compaction (beyond pi)."""
    strategy: CompactionStrategySetting = "auto"
    """How the summary is asked for (beyond pi): inside the cached conversation, or serialised as pi does."""
    model_overrides: dict[str, CompactionModelOverride] = Field(default_factory=dict)
    """pi 1.6: per-model `reserveTokens` / `keepRecentTokens`, keyed by the exact `provider/modelId`."""


class ProviderRetrySettings(_Section):
    """pi's `retry.provider`: how the HTTP client itself behaves."""

    timeout_ms: int | None = Field(default=None, gt=0, le=MAX_TIMEOUT_MS)
    """Longest wait for the server (connect, or the next bytes of a stream) before the request fails as
    timed out, which is retryable; unset means the SDK's 10 minutes."""


class RetrySettings(_Section):
    enabled: bool = True
    max_retries: int = Field(default=DEFAULT_MAX_RETRIES, ge=0, le=MAX_RETRIES)
    base_delay_ms: int = Field(default=DEFAULT_BASE_DELAY_MS, ge=0, le=MAX_BASE_DELAY_MS)
    max_delay_ms: int = Field(default=DEFAULT_MAX_DELAY_MS, ge=0, le=MAX_DELAY_MS)
    provider: ProviderRetrySettings = Field(default_factory=ProviderRetrySettings)


class ToolsSettings(_Section):
    max_lines: int = Field(default=DEFAULT_MAX_LINES, gt=0, le=MAX_TOOL_LINES)
    max_bytes: int = Field(default=DEFAULT_MAX_BYTES, gt=0, le=MAX_TOOL_BYTES)


class BranchSummarySettings(_Section):
    reserve_tokens: int = Field(default=DEFAULT_RESERVE_TOKENS, ge=0, le=MAX_TOKEN_SETTING)
    skip_prompt: bool = False


class CheckpointSettings(_Section):
    max_store_mb: int = Field(default=DEFAULT_CHECKPOINT_STORE_MB, gt=0, le=MAX_CHECKPOINT_STORE_MB)
    """Per session: above it the oldest file checkpoints are dropped first (beyond pi; docs/rewind.md)."""


class Settings(_Section):
    """The effective settings. Construct with `Settings()` for pure defaults."""

    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    fallback_models: list[str] = Field(default_factory=list)
    """`provider/id` references tried in order after retries on the model are exhausted (beyond pi)."""
    default_model: str | None = None
    default_provider: str | None = None
    default_thinking_level: ThinkingLevel | None = None
    tools: ToolsSettings = Field(default_factory=ToolsSettings)
    theme: str | None = None
    shell_path: str | None = None
    shell_command_prefix: str | None = None
    approval: ApprovalSetting = False
    """Which tool calls ask first (`config.approval_mode`): true is `edits`; a project can only raise it."""
    approval_by_project: dict[str, ApprovalMode] = Field(default_factory=dict)
    """The mode the user kept for a project (`/approval MODE --keep`), by resolved path; read from the
    user's own file only."""
    steering_mode: QueueMode = "one-at-a-time"
    follow_up_mode: QueueMode = "one-at-a-time"
    branch_summary: BranchSummarySettings = Field(default_factory=BranchSummarySettings)
    enable_skill_commands: bool = True
    skills: list[str] = Field(default_factory=list)
    """Extra skill files or folders (absolute, `~/…`, or relative to the cwd)."""
    double_escape_action: DoubleEscapeAction = "tree"
    tree_filter_mode: TreeFilterMode = "default"
    checkpoints: CheckpointSettings = Field(default_factory=CheckpointSettings)
    default_tools: list[str] | None = None
    """pi 1.6: the tools a new session starts with; plain names replace read, bash, edit, write, and
    `+name` / `-name` change the selection, in order (`tools.registry.default_tool_names`)."""
    cache_warming: CacheWarmingMode = "idle"
    """pi 1.6: keep the provider's prompt cache warm during runs (`streaming`) and between them
    (`idle`). Shown in `/session` and `pi-tui context`; the session's `CacheWarmer` sends the refreshes."""
    show_cache_miss_notices: bool = False
    """pi 1.6: a line in the conversation for a costly cache miss and for each cache refresh
    (`pi_tui/context/cache_misses.py`); pi-tui's drift blame names every miss either way."""

    def to_json_obj(self) -> dict[str, Any]:
        """The full document with pi's key names, defaults included, unknown keys as they were read."""
        return self.model_dump(by_alias=True, mode="json")
