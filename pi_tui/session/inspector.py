"""The context inspector's data for one session leaf: usage, budget geometry, forecast, request records
and drift events, assembled from a `SessionStore`.

`InspectorCache` makes repeated builds cheap: it keeps a `BranchLedger` for the last leaf (one appended
entry is O(that entry)), and the request records already parsed (new `pi-tui.request` entries are read
once). A session without request records (pi's own files) still gets everything the transcript gives;
`source` is then `"estimate"` and the static prefix is unknown unless the caller measured it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pi_tui.ai import tokens
from pi_tui.ai.stream import ToolSpec
from pi_tui.config.compaction_budget import resolved_compaction
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings, Settings
from pi_tui.context.accounting.boundary import BoundaryFinder
from pi_tui.context.accounting.calibration import LOOKBACK, calibrate
from pi_tui.context.accounting.drift import DriftEvent, OnBranch, compare_records
from pi_tui.context.accounting.forecast import Forecast, forecast
from pi_tui.context.accounting.geometry import BoundaryFn, BudgetGeometry, budget_geometry
from pi_tui.context.accounting.ledger import BranchLedger, ContextUsage
from pi_tui.context.accounting.measure import MeasureCache, Segment, system_segments, tool_segments
from pi_tui.context.accounting.record import DEFAULT_CACHE, REQUEST_CUSTOM_TYPE, RequestRecord
from pi_tui.context.accounting.record_log import RecordLog
from pi_tui.context.compaction.blocker import CompactionBlock, blocked_at
from pi_tui.context.system_prompt import SystemPrompt
from pi_tui.session_file.entries import CustomEntry, SessionEntry
from pi_tui.session_file.store import SessionStore

DEFAULT_RECORDS = 10
MAX_APPEND_WALK = 64
"""How many new entries an update follows from the cached leaf before it rebuilds the branch instead."""


@dataclass(frozen=True)
class PrefixMeasure:
    """The static prefix (system prompt parts and tool schemas), measured or taken from a record."""

    segments: tuple[Segment, ...]
    source: Literal["given", "record"]

    @property
    def tokens(self) -> int:
        return sum(segment.tokens for segment in self.segments)


def measure_prefix(
    system_prompt: SystemPrompt | str, tools: Sequence[ToolSpec], cache: MeasureCache | None = None
) -> PrefixMeasure:
    """What the session would send as its prefix now (for a leaf with no request records yet)."""
    measure = cache or DEFAULT_CACHE
    segments = (*system_segments(system_prompt, measure), *tool_segments(tools, measure))
    return PrefixMeasure(segments, "given")


def _record_prefix(record: RequestRecord) -> PrefixMeasure:
    system = [
        Segment("system", key, count, value)
        for key, count, value in zip(
            record.system.keys, record.system.tokens, record.system.fingerprints, strict=True
        )
    ]
    tool_list = [
        Segment("tool", key, count, value)
        for key, count, value in zip(
            record.tools.keys, record.tools.tokens, record.tools.fingerprints, strict=True
        )
    ]
    return PrefixMeasure((*system, *tool_list), "record")


@dataclass
class InspectorCache:
    """State reused between builds for the same store (pass the same instance every time)."""

    store: SessionStore | None = None
    ledger: BranchLedger = field(default_factory=BranchLedger)
    records: RecordLog = field(default_factory=RecordLog)
    scanned: int = 0
    boundary: BoundaryFinder = field(default_factory=BoundaryFinder)
    drift: dict[str, DriftEvent | None] = field(default_factory=dict)
    """Drift per record entry id: a record, its predecessor and its ancestors never change."""

    def sync(self, store: SessionStore, leaf_id: str | None) -> None:
        """Catch up with `store` (another store than last time starts from scratch)."""
        if self.store is not store:
            self.store = store
            self.ledger = BranchLedger()
            self.records = RecordLog()
            self.boundary = BoundaryFinder()
            self.drift = {}
            self.scanned = 0
        entries = store.entries
        for entry in entries[self.scanned :]:
            if isinstance(entry, CustomEntry) and entry.custom_type == REQUEST_CUSTOM_TYPE:
                self.records.add(entry.id, entry.data)
        self.scanned = len(entries)
        self._follow_leaf(store, leaf_id)

    def _follow_leaf(self, store: SessionStore, leaf_id: str | None) -> None:
        if leaf_id == self.ledger.leaf_id:
            return
        new: list[SessionEntry] = []
        cursor = store.get_entry(leaf_id) if leaf_id is not None else None
        while cursor is not None and len(new) < MAX_APPEND_WALK:
            new.append(cursor)
            if cursor.parent_id == self.ledger.leaf_id and self.ledger.leaf_id is not None:
                for entry in reversed(new):
                    self.ledger.append(entry)
                return
            cursor = store.get_entry(cursor.parent_id) if cursor.parent_id is not None else None
        self.ledger.reset(store.get_branch(leaf_id) if leaf_id is not None else [])


@dataclass(frozen=True)
class RecordView:
    """One request record on the branch and its drift against the previous request of its kind."""

    entry_id: str
    record: RequestRecord
    drift: DriftEvent | None


@dataclass(frozen=True)
class InspectorData:
    session_id: str
    leaf_id: str | None
    model: ModelConfig | None
    source: Literal["records", "estimate"]
    """"records" when the branch holds a turn record (its prefix measured what was sent); "estimate"
    when only the transcript was used (pi's own files, or before the first recorded request)."""
    usage: ContextUsage | None
    geometry: BudgetGeometry
    forecast: Forecast
    prefix: PrefixMeasure | None
    message_count: int
    context_tokens: int
    records: tuple[RecordView, ...]
    blocked: CompactionBlock | None = None
    """Over the threshold and automatic compaction cannot run: why, and what to change (`blocked_at`)."""


def build_inspector_data(
    store: SessionStore,
    settings: Settings,
    model: ModelConfig | None,
    *,
    leaf_id: str | None = None,
    record_limit: int = DEFAULT_RECORDS,
    pending_text: str = "",
    prefix: PrefixMeasure | None = None,
    boundary_fn: BoundaryFn | None = None,
    with_boundary: bool = True,
    cache: InspectorCache | None = None,
    current_prefix: Callable[[], PrefixMeasure] | None = None,
) -> InspectorData:
    """Everything the inspector shows for `leaf_id` (default: the store's leaf). `model` gives the
    window (None: usage unknown, window 0). `prefix` defaults to the latest turn record's prefix, then,
    before any reply reported usage, to `current_prefix()`: the prompt and tools the session would send,
    known before anything is sent. A branch with reports but no records (pi's files) keeps the prefix
    its reports imply: what was sent then, which today's prompt may not be."""
    state = cache if cache is not None else InspectorCache()
    leaf = leaf_id if leaf_id is not None else store.leaf_id
    state.sync(store, leaf)
    ledger = state.ledger
    views = _record_views(state, record_limit)
    turns = state.records.newest_turns(lambda entry_id: ledger.position(entry_id) is not None, LOOKBACK + 1)
    latest_turn = turns[-1] if turns else None
    window = model.context_window if model is not None else 0
    usage = ledger.context_usage(window)
    if prefix is None and latest_turn is not None:
        prefix = _record_prefix(latest_turn)
    elif prefix is None and current_prefix is not None and (usage is None or usage.source != "usage"):
        prefix = current_prefix()
    if boundary_fn is None and with_boundary:
        boundary_fn = _ledger_boundary(ledger, state.boundary)
    geometry = budget_geometry(
        ledger,
        context_window=window,
        settings=resolved_compaction(settings.compaction, model),
        prefix_tokens=prefix.tokens if prefix is not None else None,
        usage=usage,
        boundary_fn=boundary_fn,
        calibration=calibrate(turns),
    )
    calibration = geometry.calibration
    outlook = forecast(
        used_tokens=geometry.used_tokens,
        threshold=geometry.threshold,
        turn_sizes=[calibration.messages(size) for size in ledger.turn_sizes],
        pending_tokens=calibration.messages(tokens.count(pending_text)),
    )
    return InspectorData(
        session_id=store.session_id,
        leaf_id=ledger.leaf_id,
        model=model,
        source="records" if latest_turn is not None else "estimate",
        usage=usage,
        geometry=geometry,
        forecast=outlook,
        prefix=prefix,
        message_count=len(ledger.keys),
        context_tokens=ledger.context_tokens,
        records=tuple(views),
        blocked=blocked_at(geometry.used_tokens, ledger.entries, settings.compaction, model),
    )


def _ledger_boundary(ledger: BranchLedger, finder: BoundaryFinder) -> BoundaryFn:
    """The compaction algorithm's cut for the ledger's branch (see `accounting.boundary`)."""
    compaction = ledger.compaction
    index = ledger.position(compaction.id) if compaction is not None else None

    def boundary(items: Sequence[SessionEntry], settings: CompactionSettings) -> str | None:
        return finder.keep_boundary(items, settings, index if index is not None else -1, ledger.position)

    return boundary


def _record_views(state: InspectorCache, limit: int) -> list[RecordView]:
    """The last `limit` readable records on the ledger's branch, each with its drift event."""
    ledger, log = state.ledger, state.records
    chosen: list[tuple[int, RequestRecord]] = []
    for index in range(len(log) - 1, -1, -1):
        if len(chosen) >= limit:
            break
        if ledger.position(log.entry_ids[index]) is not None:
            record = log.full(log.entry_ids[index])
            if record is not None:
                chosen.append((index, record))
    views: list[RecordView] = []
    for index, record in reversed(chosen):
        entry_id = log.entry_ids[index]
        if entry_id not in state.drift:
            previous_index = log.previous_of_same_kind(index)
            previous = log.full(log.entry_ids[previous_index]) if previous_index is not None else None
            state.drift[entry_id] = (
                compare_records(previous, record, _on_branch(ledger, entry_id))
                if previous is not None
                else None
            )
        views.append(RecordView(entry_id, record, state.drift[entry_id]))
    return views


def _on_branch(ledger: BranchLedger, record_entry_id: str) -> OnBranch:
    limit = ledger.position(record_entry_id)

    def check(entry_id: str) -> bool:
        position = ledger.position(entry_id)
        return position is not None and limit is not None and position < limit

    return check
