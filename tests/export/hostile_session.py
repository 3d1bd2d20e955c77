"""A real session file full of markup that must come out inert, with two compactions, a side branch,
a label, an image and a truncated tool output whose full text sits in the session's spill folder."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from pi_tui.ai.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_tui.session.session_setup import spill_dir_for
from pi_tui.session_file.store import SessionStore

SCRIPT = "<script>alert(1)</script>"
IMG = '<img src=x onerror="alert(2)">'
EVIL = f'{SCRIPT} {IMG} <a href="https://evil.example/a" onclick="alert(3)">a</a>'
MARKDOWN_EVIL = (
    f"{EVIL}\n\n[click](https://evil.example/b) ![pixel](http://evil.example/p.png) "
    "<https://evil.example/c> [js](javascript:alert(4))\n\n"
    "<style>body { background: url(https://evil.example/d) }</style>\n\n"
    "<iframe src=//evil.example/e></iframe>"
)
FULL_OUTPUT = "".join(f"full line {n}\n" for n in range(1, 2001))
# One transparent pixel.
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()


@dataclass
class Hostile:
    store: SessionStore
    spill: Path
    outside: Path
    side_entry: str
    compactions: tuple[str, str]


def _assistant(*blocks: TextContent | ThinkingContent | ToolCall, stop: str = "stop") -> AssistantMessage:
    return AssistantMessage(
        content=list(blocks),
        provider="prov",
        model="m1",
        usage=Usage(input=100, output=20, total_tokens=120),
        stop_reason="toolUse" if stop == "toolUse" else "stop",
        timestamp=1795993475900,
    )


def hostile_session(tmp_path: Path) -> Hostile:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    store = SessionStore.create(str(project), tmp_path / "sessions")
    store.append_model_change("prov", "m1")
    first = store.append_message(
        UserMessage(
            content=[
                TextContent(text=MARKDOWN_EVIL),
                ImageContent(data=PNG, mime_type="image/png"),
                ImageContent(data=PNG, mime_type="image/svg+xml"),
            ],
            timestamp=1795993475800,
        )
    )
    store.append_message(
        _assistant(
            ThinkingContent(thinking=EVIL),
            TextContent(text=MARKDOWN_EVIL),
            ToolCall(id="call_1", name="bash", arguments={"command": EVIL}),
            ToolCall(id="call_2", name="bash", arguments={"command": "cat secret"}),
            stop="toolUse",
        )
    )
    assert store.path is not None
    spill_dir = spill_dir_for(store)
    assert spill_dir is not None
    spill_dir.mkdir(parents=True)
    spill = spill_dir / "pi-bash-0123abcd.log"
    spill.write_text(FULL_OUTPUT)
    outside = tmp_path / "pi-bash-feedbeef.log"
    outside.write_text("OUTSIDE-SECRET-TEXT\n")
    notice = f"\n\n[Showing lines 1991-2000 of 2000. Full output: {spill}]"
    store.append_message(
        ToolResultMessage(
            tool_call_id="call_1",
            tool_name="bash",
            content=[TextContent(text=f"{EVIL}\nfull line 2000\n{notice}")],
            details={"fullOutputPath": str(spill), "truncation": {"truncated": True, "totalLines": 2000}},
            timestamp=1795993476000,
        )
    )
    store.append_message(
        ToolResultMessage(
            tool_call_id="call_2",
            tool_name="bash",
            content=[TextContent(text=f"tail\n\n[Showing lines 1-1 of 9. Full output: {outside}]")],
            details={"fullOutputPath": str(outside), "truncation": {"truncated": True}},
            timestamp=1795993476100,
        )
    )
    kept = store.append_message(_assistant(TextContent(text="Ran **both**.")))
    one = store.append_compaction(
        f"## Goal\nDo the thing {SCRIPT}\n\n## Progress\n- step one", kept.id, 5000, {"reason": "threshold"}
    )
    store.append_message(UserMessage(content="and next?", timestamp=1795993477000))
    reply = store.append_message(_assistant(TextContent(text="Next is `two`.")))
    two = store.append_compaction(
        "## Goal\nDo the thing\n\n## Progress\n- step one\n- step two",
        reply.id,
        6000,
        {"reason": "manual", "requestTokensBefore": 6200, "requestTokensAfter": 400},
    )
    store.append_label(first.id, f"start {SCRIPT}")
    main_leaf = store.leaf_id
    assert main_leaf is not None
    store.branch(first.id)
    side = store.append_message(_assistant(TextContent(text="a reply on the side branch")))
    store.branch(main_leaf)
    return Hostile(store, spill, outside, side.id, (one.id, two.id))


class Page(HTMLParser):
    """Every start tag with its attributes, the text, and the contents of `<style>` elements."""

    def __init__(self, document: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []
        self.styles: list[str] = []
        self._in_style = False
        self.feed(document)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        self._in_style = tag == "style"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        (self.styles if self._in_style else self.text).append(data)

    def attr_values(self, name: str) -> list[str]:
        return [value or "" for _, attrs in self.tags for key, value in attrs if key == name]

    def ids(self) -> set[str]:
        return set(self.attr_values("id"))

    @property
    def all_text(self) -> str:
        return "".join(self.text)
