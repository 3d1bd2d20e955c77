"""One spelling in pi-tui's own words: British `summarise`, as in the docs and most of the UI.

pi's own words stay as pi writes them: the text a branch summary gets when there is nothing to summarise
(stored in session files), the name of pi's source file, and names in code and JSON fields.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AMERICAN = re.compile(r"summari[z]", re.IGNORECASE)
PI_WORDS = ("No content to summarize", "branch-summarization.ts", "summarize_session_file")
JSON_FIELDS = {"summarized"}
"""`pi-tui compact --preview --json` field names: renaming one would break a reader of the output."""


def prose_strings(path: Path) -> list[tuple[int, str]]:
    """Every string literal (docstrings and messages) and comment of a module, with its line."""
    source = path.read_text()
    found = [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value not in JSON_FIELDS
    ]
    found += [(n, line.split("#", 1)[1]) for n, line in enumerate(source.splitlines(), 1) if "#" in line]
    return found


def american(text: str) -> bool:
    for words in PI_WORDS:
        text = text.replace(words, "")
    return AMERICAN.search(text) is not None


def test_pi_tuis_own_words_spell_summarise_one_way() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "pi_tui").rglob("*.py"))
        for line, text in prose_strings(path)
        if american(text)
    ]
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        offenders += [
            f"{doc.relative_to(ROOT)}:{n}"
            for n, line in enumerate(doc.read_text().splitlines(), 1)
            if american(line)
        ]
    assert offenders == []
