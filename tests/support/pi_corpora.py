"""The two corpora of session files the real pi wrote: pi 0.73.1's and pi 1.6.0's (the reference).

Every test of a pi file runs on both (`CORPUS_FILES` as pytest parameters): the 0.73.1 files must keep
working exactly as before, the 1.6.0 files are what pi users write today.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@dataclass(frozen=True)
class PiCorpus:
    version: str
    sessions: Path
    contexts: Path
    names: tuple[str, ...]

    def session(self, name: str) -> Path:
        return self.sessions / f"{name}.jsonl"

    def context(self, name: str) -> Path:
        return self.contexts / f"{name}.context.json"


PI_0_73 = PiCorpus(
    "0.73.1",
    FIXTURES / "pi-sessions",
    FIXTURES / "pi-contexts",
    ("a-plain", "b-tools", "c-auto-compaction", "f-tree"),
)
PI_1_6 = PiCorpus(
    "1.6.0",
    FIXTURES / "pi16" / "sessions",
    FIXTURES / "pi16" / "contexts",
    (
        "a-plain",
        "b-tools",
        "c-auto-compaction",
        "f-tree",
        "g-overflow-retry",
        "u-cache-warm-usage",
        "y-context-edit-tools",
    ),
)
CORPORA = (PI_0_73, PI_1_6)


@dataclass(frozen=True)
class PiFile:
    corpus: PiCorpus
    name: str

    @property
    def path(self) -> Path:
        return self.corpus.session(self.name)

    @property
    def context_path(self) -> Path:
        return self.corpus.context(self.name)

    def __str__(self) -> str:
        return f"{self.corpus.version}/{self.name}"


CORPUS_FILES = [
    pytest.param(PiFile(corpus, name), id=f"{corpus.version}-{name}")
    for corpus in CORPORA
    for name in corpus.names
]
"""Every pi file of both corpora, as pytest parameters named `<pi version>-<file>`."""
