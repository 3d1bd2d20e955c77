"""The project documents itself: every path the docs name exists, and nothing cites documents outside
the repository.

docs/architecture.md is a map a newcomer follows module by module, so a renamed or moved module must
fail here rather than leave the map pointing nowhere. Comments state the fact or point into docs/;
section numbers of documents that are not in the repository (a spec, notes about pi) help nobody
who only has the clone.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
REPO_PATH = re.compile(r"(?<![\w./-])((?:pi_tui|tests|bench|docs|skills|themes)/[\w.*/-]*[\w/])")
MARKDOWN_LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")

SCANNED_FOLDERS = ("pi_tui", "tests", "bench")
SCANNED_SUFFIXES = {".py", ".md", ".tcss", ".toml", ".txt", ".sh", ".cfg", ".ini"}
NOT_SCANNED = (
    "tests/fixtures/",  # pi's own files and their README, kept byte-identical
    "tests/test_docs_links.py",  # names the patterns it looks for
)
OUTSIDE_CITATION = re.compile(
    "|".join(
        [
            "pi" + "-behaviour",
            "pi" + "-providers",
            "textual" + "-notes",
            "SPEC" + r"\s*R",
            "SPEC" + r"\.md",
            "HOUSE" + r"(\.md| rule)",
            r"\.\./" + "shared",
            "\u00a7",  # a section sign: a section of some document
            r"(?<![\w.])R\d{1,2}(?:\.\d+)*(?![\w.])",  # a requirement id of the spec (R10.5, R8)
        ]
    )
)

TEMPORARY_CITATION_ALLOW_LIST: tuple[str, ...] = ()


def named_paths(text: str) -> set[str]:
    """Repository paths a document names in its text, without globs (`themes/*.toml`)."""
    return {match.rstrip("/") for match in REPO_PATH.findall(text) if "*" not in match}


def linked_paths(document: Path, text: str) -> set[Path]:
    """Files a document links to with Markdown links, resolved from the document's folder."""
    links = set()
    for target in MARKDOWN_LINK.findall(text):
        if "://" in target or target.startswith("mailto:"):
            continue
        links.add((document.parent / target).resolve())
    return links


def test_every_path_the_docs_name_exists() -> None:
    missing = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        relative = document.relative_to(ROOT)
        missing += [f"{relative}: {path}" for path in sorted(named_paths(text)) if not (ROOT / path).exists()]
        missing += [
            f"{relative}: link {link.relative_to(ROOT) if link.is_relative_to(ROOT) else link}"
            for link in sorted(linked_paths(document, text))
            if not link.exists()
        ]
    assert missing == []


def test_the_readme_links_the_architecture_and_compatibility_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/architecture.md)" in readme
    assert "(docs/pi-compatibility.md)" in readme


def test_path_check_sees_missing_modules_and_links(tmp_path: Path) -> None:
    text = "See `pi_tui/session/no_such_module.py` and [x](no-such-page.md), not https://example.com/a."
    assert named_paths(text) == {"pi_tui/session/no_such_module.py"}
    assert linked_paths(tmp_path / "doc.md", text) == {tmp_path / "no-such-page.md"}


def scanned_files() -> list[Path]:
    files = []
    for folder in SCANNED_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            relative = path.relative_to(ROOT).as_posix()
            if path.is_file() and path.suffix in SCANNED_SUFFIXES and not relative.startswith(NOT_SCANNED):
                files.append(path)
    return [*files, ROOT / "Makefile", ROOT / "pyproject.toml", *DOCUMENTS]


def citations(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return [
        f"{index}: {line.strip()}" for index, line in enumerate(lines, 1) if OUTSIDE_CITATION.search(line)
    ]


def test_nothing_cites_documents_outside_the_repository() -> None:
    found = []
    for path in scanned_files():
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith(TEMPORARY_CITATION_ALLOW_LIST):
            continue
        found += [f"{relative}:{line}" for line in citations(path)]
    assert found == []


def test_citation_check_sees_each_kind_of_outside_citation() -> None:
    cited = [
        "as pi " + "\u00a7" + "4.1",
        "(R" + "10.5)",
        "blame (R" + "8) can",
        "SPEC" + " R9",
        "see pi" + "-providers",
        "textual" + "-notes",
        "HOUSE" + " rule 11",
        "../" + "shared/x",
    ]
    assert [text for text in cited if not OUTSIDE_CITATION.search(text)] == []
    assert not OUTSIDE_CITATION.search("cache reads R3.3k, 11.7%/32k, retry 2 of 3")
