from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.tools.edit import EditParams, EditTool

GREET = (
    "def greet(name):\n    return 'Hello ' + name\n\n\n"
    "if __name__ == '__main__':\n    print(greet('world'))\n"
)


async def edit(tmp_path: Path, args: dict[str, Any]) -> ToolResult:
    tool = EditTool(str(tmp_path))
    params = EditParams.model_validate(tool.prepare_arguments(args))
    return await tool.execute("c", params, AbortSignal())


def pair(old: str, new: str) -> dict[str, str]:
    return {"oldText": old, "newText": new}


async def test_two_edits_match_pi_fixture(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/greet.py").write_text(GREET)
    edits = [
        pair("return 'Hello ' + name", "return f'Hello, {name}!'"),
        pair("print(greet('world'))", "print(greet('pi'))"),
    ]
    result = await edit(tmp_path, {"path": "src/greet.py", "edits": edits})
    assert result.text_content == "Successfully replaced 2 block(s) in src/greet.py."
    assert result.details == {
        "diff": " 1 def greet(name):\n-2     return 'Hello ' + name\n+2     return f'Hello, {name}!'\n"
        " 3 \n 4 \n 5 if __name__ == '__main__':\n-6     print(greet('world'))\n+6     print(greet('pi'))",
        "firstChangedLine": 2,
    }
    assert "print(greet('pi'))" in (tmp_path / "src/greet.py").read_text()


async def test_not_found_text_matches_pi_fixture(tmp_path: Path) -> None:
    (tmp_path / "g.py").write_text(GREET)
    result = await edit(tmp_path, {"path": "g.py", "edits": [pair("return 'Hello, ' + x", "y")]})
    assert result.is_error
    assert result.text_content == (
        "Could not find the exact text in g.py. "
        "The old text must match exactly including all whitespace and newlines."
    )
    multi = await edit(tmp_path, {"path": "g.py", "edits": [pair("def greet", "def g"), pair("nope", "x")]})
    assert multi.text_content.startswith("Could not find edits[1] in g.py.")


async def test_ambiguous_overlap_empty_and_no_change(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a = 1\na = 1\nb = 2\n")
    ambiguous = await edit(tmp_path, {"path": "f.txt", "edits": [pair("a = 1", "a = 3")]})
    assert ambiguous.text_content == (
        "Found 2 occurrences of the text in f.txt. The text must be unique. "
        "Please provide more context to make it unique."
    )
    overlap = await edit(tmp_path, {"path": "f.txt", "edits": [pair("a = 1\nb", "x"), pair("b = 2", "y")]})
    assert overlap.text_content == (
        "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions."
    )
    empty = await edit(tmp_path, {"path": "f.txt", "edits": [pair("", "x")]})
    assert empty.text_content == "oldText must not be empty in f.txt."
    same = await edit(tmp_path, {"path": "f.txt", "edits": [pair("b = 2", "b = 2")]})
    assert same.text_content.startswith(
        "No changes made to f.txt. The replacement produced identical content."
    )
    none = await edit(tmp_path, {"path": "f.txt", "edits": []})
    assert none.text_content == "Edit tool input is invalid. edits must contain at least one replacement."
    assert (tmp_path / "f.txt").read_text() == "a = 1\na = 1\nb = 2\n"


async def test_crlf_and_bom_preserved(tmp_path: Path) -> None:
    path = tmp_path / "win.txt"
    path.write_bytes("\ufeffone\r\ntwo\r\nthree\r\n".encode())
    result = await edit(tmp_path, {"path": "win.txt", "edits": [pair("two\nthree", "2\n3")]})
    assert not result.is_error
    assert path.read_bytes() == "\ufeffone\r\n2\r\n3\r\n".encode()


async def test_fuzzy_match_smart_quotes_and_trailing_spaces(tmp_path: Path) -> None:
    path = tmp_path / "q.py"
    path.write_text("msg = \u201chello\u201d   \nx = 1\n")
    result = await edit(tmp_path, {"path": "q.py", "edits": [pair('msg = "hello"', 'msg = "bye"')]})
    assert not result.is_error
    assert path.read_text() == 'msg = "bye"\nx = 1\n'


async def test_legacy_arguments_and_json_string_edits(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("alpha beta")
    legacy = await edit(tmp_path, {"path": "f", "oldText": "alpha", "newText": "ALPHA"})
    assert legacy.text_content == "Successfully replaced 1 block(s) in f."
    as_json = await edit(tmp_path, {"path": "f", "edits": '[{"oldText": "beta", "newText": "BETA"}]'})
    assert not as_json.is_error and (tmp_path / "f").read_text() == "ALPHA BETA"


async def test_missing_file(tmp_path: Path) -> None:
    result = await edit(tmp_path, {"path": "missing.txt", "edits": [pair("a", "b")]})
    assert result.text_content == "Could not edit file: missing.txt. Error code: ENOENT."


async def test_concurrent_edits_of_one_file_serialise(tmp_path: Path) -> None:
    path = tmp_path / "shared.txt"
    path.write_text("".join(f"item{i}\n" for i in range(20)))
    results = await asyncio.gather(
        *(
            edit(tmp_path, {"path": "shared.txt", "edits": [pair(f"item{i}\n", f"done{i}\n")]})
            for i in range(20)
        )
    )
    assert not any(result.is_error for result in results)
    assert path.read_text() == "".join(f"done{i}\n" for i in range(20))


async def test_bytes_that_are_not_utf8_are_kept_untouched(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes(b"caf\xe9\nold line\nna\xefve \xff\n")
    result = await edit(tmp_path, {"path": "latin.txt", "edits": [pair("old line", "new line")]})
    assert not result.is_error
    assert path.read_bytes() == b"caf\xe9\nnew line\nna\xefve \xff\n"
    assert result.details is not None and "+2 new line" in result.details["diff"]
    result.details["diff"].encode("utf-8")  # the diff the model reads is valid text


async def test_a_binary_file_is_refused_as_read_refuses_it(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 20 + b"text"
    (tmp_path / "pic.png").write_bytes(png)
    (tmp_path / "blob").write_bytes(b"abc\x00def")
    for name in ("pic.png", "blob"):
        result = await edit(
            tmp_path, {"path": name, "edits": [pair("text" if name == "pic.png" else "abc", "x")]}
        )
        assert result.is_error and result.text_content.startswith(f"Cannot edit {name}: binary file.")
    assert (tmp_path / "pic.png").read_bytes() == png


async def test_a_lone_carriage_return_stays_one(tmp_path: Path) -> None:
    path = tmp_path / "cr.txt"
    path.write_bytes(b"one\r\nprogress 10%\rprogress 20%\r\nlast\r\n")
    await edit(tmp_path, {"path": "cr.txt", "edits": [pair("last", "final")]})
    assert path.read_bytes() == b"one\r\nprogress 10%\rprogress 20%\r\nfinal\r\n"


async def test_mixed_line_endings_are_kept_per_line(tmp_path: Path) -> None:
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"a\r\nb\nc\r\nd\ne\n")
    await edit(tmp_path, {"path": "mixed.txt", "edits": [pair("c\nd", "C\nD\nD2")]})
    assert path.read_bytes() == b"a\r\nb\nC\r\nD\r\nD2\r\ne\n"
