"""Globs for the find and grep fallbacks: the rules fd and ripgrep apply, and no pattern the model may
send raises anything but a one-line `GlobPatternError`."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_tui.tools.glob_match import MAX_EXPANDED_PATTERNS, GlobPatternError, glob_matcher

PROPERTIES = settings(max_examples=300, derandomize=True, database=None, deadline=None)


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.ts", "a.ts", True),
        ("*.ts", "dir/a.ts", False),
        ("*.ts", ".hidden.ts", True),  # fd --hidden, rg --hidden
        ("**/*.ts", "a.ts", True),
        ("**/*.ts", "x/y/a.ts", True),
        ("**/*.py", ".venv/lib/x.py", True),
        ("**/src/**/*.spec.ts", "/home/u/p/src/a/b.spec.ts", True),  # find's full-path form
        ("src/**/*.spec.ts", "src/a/b/c.spec.ts", True),
        ("src/**/*.spec.ts", "lib/src/c.spec.ts", False),
        ("a**b", "axyb", True),  # `**` inside a segment is `*`
        ("a**b", "ax/yb", False),
        ("file?.txt", "file1.txt", True),
        ("file?.txt", "file/.txt", False),
        ("*.{js,ts}", "a.js", True),
        ("*.{js,ts}", "a.py", False),
        ("{a,b}.txt", "b.txt", True),
        ("{a,b}.txt", "{a,b}.txt", False),
        ("[ab]*.py", "b1.py", True),
        ("[!ab]*.py", "b1.py", False),
        ("[^ab]*.py", "c1.py", True),
        ("[!a]", "b", True),
        ("[!a]", "a", False),
        ("[]", "[]", True),  # nothing closes the class: literal text
        ("[]", "a", False),
        ("[!]", "[!]", True),
        ("x[]y", "x[]y", True),
        ("[]]", "]", True),  # `]` first in a class is a member
        ("[a-\\]", "[a-]", True),  # `\]` is an escaped `]`, so no class: literal text
        ("\\*.md", "*.md", True),
        ("\\*.md", "a.md", False),
        ("README.MD", "README.md", False),
        ("my file (1).txt", "my file (1).txt", True),
        ("a|b", "a", False),  # no pattern splitting
        ("!x", "!x", True),  # grep strips a leading `!` itself; here it is text
    ],
)
def test_glob(pattern: str, path: str, matches: bool) -> None:
    assert glob_matcher(pattern)(path) is matches


def test_a_brace_explosion_is_refused_in_one_line() -> None:
    pattern = "{a,b}" * 10  # 1,024 alternatives

    with pytest.raises(GlobPatternError) as caught:
        glob_matcher(pattern)

    limit = MAX_EXPANDED_PATTERNS
    assert str(caught.value) == f"glob pattern expands to more than {limit} patterns: {pattern}"


SEGMENT_CHARS = st.sampled_from("ab.-_ ")
SEGMENTS = st.text(SEGMENT_CHARS, min_size=1, max_size=4).filter(lambda s: s not in (".", ".."))
PATHS = st.lists(SEGMENTS, min_size=1, max_size=4).map("/".join)


def _reference(pattern: str) -> re.Pattern[str]:
    """An independent reading of the globs without `**`: `*` and `?` within a segment, `[xy]` a class."""
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "[":
            end = pattern.index("]", index + 1)
            out.append("[" + re.escape(pattern[index + 1 : end]) + "]")
            index = end
        else:
            out.append({"*": "[^/]*", "?": "[^/]"}.get(char, re.escape(char)))
        index += 1
    return re.compile("".join(out) + r"\Z")


SIMPLE_TOKENS = st.one_of(SEGMENT_CHARS, st.sampled_from(["*", "?", "/", "[ab]", "[.-]"]))


SIMPLE_GLOBS = st.lists(SIMPLE_TOKENS, min_size=1, max_size=8).map("".join).filter(lambda p: "**" not in p)


@PROPERTIES
@given(pattern=SIMPLE_GLOBS, path=PATHS)
def test_simple_globs_agree_with_a_reference(pattern: str, path: str) -> None:
    assert glob_matcher(pattern)(path) == bool(_reference(pattern).match(path))


ANY_GLOB = st.text(st.sampled_from("ab/.*?[]!^-{},\\|()@+:"), max_size=16)


@PROPERTIES
@given(pattern=ANY_GLOB, path=PATHS)
def test_any_glob_matches_or_is_refused_cleanly(pattern: str, path: str) -> None:
    try:
        matches = glob_matcher(pattern)
    except GlobPatternError as error:
        assert "\n" not in str(error)
        return
    assert matches(path) in (True, False)


@settings(PROPERTIES, suppress_health_check=[HealthCheck.filter_too_much])
@given(name=st.text(st.characters(blacklist_characters="/\x00"), min_size=1, max_size=12))
def test_an_escaped_name_matches_itself_only(name: str) -> None:
    if name in (".", ".."):
        return
    escaped = "".join("\\" + char if char in "*?[]{}\\!^" else char for char in name)

    assert glob_matcher(escaped)(name)
    assert not glob_matcher(escaped)(name + "x")
