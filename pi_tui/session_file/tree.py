"""The entry tree: root→entry paths, resolved labels, and the children view used by `/tree`."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pi_tui.session_file.entries import LabelEntry, SessionEntry


def index_by_id(entries: Iterable[SessionEntry]) -> dict[str, SessionEntry]:
    """id → entry; for a duplicated id the later entry wins, as in pi's `byId` map."""
    return {entry.id: entry for entry in entries}


def branch_path(
    by_id: Mapping[str, SessionEntry], leaf_id: str | None, loop_roots: Collection[str] = ()
) -> list[SessionEntry]:
    """Entries from the root to `leaf_id` (inclusive); empty for None or an unknown id.

    Stops at a missing parent (the entry is then a root), at an entry of `loop_roots` and at any other
    cycle, which pi would loop on.
    """
    path: list[SessionEntry] = []
    seen: set[str] = set()
    current = by_id.get(leaf_id) if leaf_id is not None else None
    while current is not None and current.id not in seen:
        seen.add(current.id)
        path.append(current)
        parent = current.parent_id
        current = by_id.get(parent) if parent is not None and current.id not in loop_roots else None
    path.reverse()
    return path


@dataclass(frozen=True)
class ParentLoop:
    """Parent links that lead back to where they started (a hand-edited or damaged file; pi would follow
    them forever). `members` in link order, from `root`: the member first in the file, taken as a root
    (its parent link ignored) by the tree, the branch path and the context alike."""

    members: tuple[str, ...]

    @property
    def root(self) -> str:
        return self.members[0]

    def describe(self) -> str:
        chain = " → ".join([*self.members, self.root])
        return f"parent links loop ({chain}); entry {self.root} taken as a root"


def parent_loops(entries: Sequence[SessionEntry], by_id: Mapping[str, SessionEntry]) -> list[ParentLoop]:
    """Every loop of parent links, each once, in file order. Linear and iterative: a loop has a member
    whose parent comes later in the file (or is itself), so walks start only at such entries, which a
    healthy file has none of."""
    scanned: set[str] = set()
    forward: list[SessionEntry] = []
    for entry in entries:
        parent = entry.parent_id
        if parent is not None and parent not in scanned and parent in by_id:
            forward.append(entry)
        if by_id.get(entry.id) is entry:  # a duplicated id links to its last entry
            scanned.add(entry.id)
    done: set[str] = set()
    loops: list[list[str]] = []
    for start in forward:
        walk: list[str] = []
        on_walk: set[str] = set()
        current = by_id.get(start.id)
        while current is not None and current.id not in done and current.id not in on_walk:
            walk.append(current.id)
            on_walk.add(current.id)
            current = by_id.get(current.parent_id) if current.parent_id is not None else None
        if current is not None and current.id in on_walk:
            loops.append(walk[walk.index(current.id) :])
        done.update(walk)
    if not loops:
        return []
    position = {entry.id: index for index, entry in enumerate(entries)}  # a duplicated id: its last
    found = []
    for members in loops:
        first = min(range(len(members)), key=lambda index: position[members[index]])
        found.append(ParentLoop(tuple(members[first:] + members[:first])))
    return sorted(found, key=lambda loop: position[loop.root])


@dataclass(frozen=True)
class Labels:
    """Each target's current label and when it was set (latest label entry per target wins)."""

    text: dict[str, str] = field(default_factory=dict)
    timestamp: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_entries(cls, entries: Iterable[SessionEntry]) -> Labels:
        labels = cls()
        for entry in entries:
            if isinstance(entry, LabelEntry):
                labels.apply(entry)
        return labels

    def apply(self, entry: LabelEntry) -> None:
        """An empty or missing label clears the target's label."""
        if entry.label:
            self.text[entry.target_id] = entry.label
            self.timestamp[entry.target_id] = entry.timestamp
        else:
            self.text.pop(entry.target_id, None)
            self.timestamp.pop(entry.target_id, None)


@dataclass
class TreeNode:
    entry: SessionEntry
    children: list[TreeNode] = field(default_factory=list)
    label: str | None = None
    label_timestamp: str | None = None


def build_tree(
    entries: Sequence[SessionEntry], labels: Labels, loop_roots: Collection[str] = ()
) -> list[TreeNode]:
    """Root nodes (null, self or missing parent, or an entry of `loop_roots`) in file order; children
    sorted by timestamp, stable."""
    text, stamps = labels.text, labels.timestamp
    nodes = {e.id: TreeNode(e, label=text.get(e.id), label_timestamp=stamps.get(e.id)) for e in entries}
    roots: list[TreeNode] = []
    for entry in entries:
        node = nodes[entry.id]
        if node.entry is not entry:
            continue  # a duplicated id: the later entry owns the node
        parent = nodes.get(entry.parent_id) if entry.parent_id is not None else None
        if parent is None or entry.parent_id == entry.id or entry.id in loop_roots:
            roots.append(node)
        else:
            parent.children.append(node)
    for node in nodes.values():
        node.children.sort(key=lambda child: child.entry.timestamp)
    return roots
