"""The request records of one session, in file order, expanded on demand.

Records are kept as stored (a delta is small: only its new messages), and full records are rebuilt when
asked for, following `base` links back to the nearest full or already expanded record. Only the most
recently used full records stay in memory, so a long session with a record per turn costs memory in
proportion to its messages, not to turns × messages.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from pi_tui.context.accounting.record import RequestKind, RequestRecord, expand_record, parse_request_record

EXPANDED_LIMIT = 32


class RecordLog:
    def __init__(self, expanded_limit: int = EXPANDED_LIMIT) -> None:
        self.entry_ids: list[str] = []
        self.kinds: list[RequestKind] = []
        self._stored: dict[str, RequestRecord] = {}
        self._expanded: OrderedDict[str, RequestRecord] = OrderedDict()
        self._limit = expanded_limit

    def __len__(self) -> int:
        return len(self.entry_ids)

    def add(self, entry_id: str, data: Any) -> bool:
        """Take one `pi-tui.request` entry's data; False (and ignored) if it is not a readable record."""
        record = parse_request_record(data)
        if record is None or entry_id in self._stored:
            return False
        self._stored[entry_id] = record
        self.entry_ids.append(entry_id)
        self.kinds.append(record.kind)
        return True

    def full(self, entry_id: str) -> RequestRecord | None:
        """The full record, or None if unknown or its base chain is broken."""
        chain: list[str] = []
        cursor: str | None = entry_id
        base: RequestRecord | None = None
        while cursor is not None:
            cached = self._expanded.get(cursor)
            if cached is not None:
                self._expanded.move_to_end(cursor)
                base = cached
                break
            stored = self._stored.get(cursor)
            if stored is None or cursor in chain:
                return None
            chain.append(cursor)
            cursor = stored.base
        for link in reversed(chain):
            expanded = expand_record(self._stored[link], base)
            if expanded is None:
                return None
            self._remember(link, expanded)
            base = expanded
        return base

    def _remember(self, entry_id: str, record: RequestRecord) -> None:
        self._expanded[entry_id] = record
        self._expanded.move_to_end(entry_id)
        if len(self._expanded) > self._limit:
            self._expanded.popitem(last=False)

    def newest_turns(self, on_branch: Callable[[str], bool], limit: int) -> list[RequestRecord]:
        """The newest `limit` readable turn records whose entry id `on_branch` accepts, oldest first."""
        found: list[RequestRecord] = []
        for index in range(len(self.entry_ids) - 1, -1, -1):
            if len(found) >= limit:
                break
            entry_id = self.entry_ids[index]
            if self.kinds[index] == "turn" and on_branch(entry_id):
                record = self.full(entry_id)
                if record is not None:
                    found.append(record)
        return found[::-1]

    def previous_of_same_kind(self, index: int) -> int | None:
        kind = self.kinds[index]
        return next((i for i in range(index - 1, -1, -1) if self.kinds[i] == kind), None)
