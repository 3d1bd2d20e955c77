"""Approval mode on a real AgentSession with real tools and the scripted provider: yes / no /
always, which tools ask, abort while asking, and the headless answers (denied with a note, or `--yes`)."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

from pi_tui.ai.messages import TextContent, ToolResultMessage
from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply, ScriptedToolCall
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import Settings
from pi_tui.context.resources import load_resources
from pi_tui.modes.print_mode import run_print_mode
from pi_tui.modes.run_options import RunOptions
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.approval import (
    ApprovalAnswer,
    describe_call,
    headless_denied_text,
    no_approver_text,
    user_denied_text,
)
from pi_tui.session.session_events import ApprovalAnsweredEvent, ApprovalRequestedEvent
from pi_tui.session.store_opening import SessionChoice
from pi_tui.session_file.store import SessionStore

MODEL = ModelConfig(id="scripted-model", provider="scripted", context_window=32_000, reasoning=False)


def call(name: str, **arguments: Any) -> ScriptedToolCall:
    return ScriptedToolCall(name=name, arguments=arguments)


def make_session(
    tmp_path: Path, replies: list[ScriptedReply], *, setting: bool = True, approve: bool = False
) -> tuple[AgentSession, ScriptedProvider]:
    project = tmp_path / "project"
    project.mkdir(parents=True, exist_ok=True)
    provider = ScriptedProvider(replies)
    resources = load_resources(
        project, settings=Settings(approval=setting), home=tmp_path, include_builtin=False
    )
    session = AgentSession(
        SessionConfig(
            store=SessionStore.create(str(project), tmp_path / "sessions"),
            resources=resources,
            model=MODEL,
            stream_fn=provider,
            approve=approve,
        )
    )
    return session, provider


class Answers:
    """An approver answering from a script and remembering every question."""

    def __init__(self, *answers: ApprovalAnswer) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, tool_name: str, args: dict[str, Any]) -> ApprovalAnswer:
        self.asked.append((tool_name, args))
        return self.answers.pop(0)


def results(session: AgentSession) -> list[tuple[str, bool, str]]:
    found = []
    for message in session.agent.state.messages:
        if isinstance(message, ToolResultMessage):
            text = "".join(block.text for block in message.content if isinstance(block, TextContent))
            found.append((message.tool_name, message.is_error, text))
    return found


async def test_yes_runs_no_is_a_tool_error_and_the_turn_goes_on(tmp_path: Path) -> None:
    replies = [
        ScriptedReply(
            tool_calls=[call("write", path="a.txt", content="hello\n"), call("bash", command="touch b.txt")]
        ),
        ScriptedReply(text="done"),
    ]
    session, provider = make_session(tmp_path, replies)
    answers = Answers("yes", "no")
    session.approval.approver = answers
    await session.prompt("go")

    project = tmp_path / "project"
    assert (project / "a.txt").read_text() == "hello\n"
    assert not (project / "b.txt").exists()
    assert [name for name, _ in answers.asked] == ["write", "bash"]
    assert answers.asked[1][1]["command"] == "touch b.txt"
    (_, write_error, _), bash = results(session)
    assert not write_error
    assert bash == ("bash", True, user_denied_text("bash"))
    assert "The user denied this bash call" in bash[2]
    # The model got the denial and answered: the turn went on.
    assert provider.calls == 2 and session.last_assistant_text() == "done"
    persisted = [e for e in session.store.get_branch() if getattr(e, "type", "") == "message"]
    assert any(user_denied_text("bash") in str(entry.to_json_obj()) for entry in persisted)


async def test_always_is_remembered_per_tool_for_the_session(tmp_path: Path) -> None:
    replies = [
        ScriptedReply(tool_calls=[call("bash", command="touch one"), call("bash", command="touch two")]),
        ScriptedReply(tool_calls=[call("edit", path="one", edits=[{"oldText": "x", "newText": "y"}])]),
        ScriptedReply(text="done"),
    ]
    session, _ = make_session(tmp_path, replies)
    answers = Answers("always", "no")
    session.approval.approver = answers
    await session.prompt("go")

    assert (tmp_path / "project" / "one").exists() and (tmp_path / "project" / "two").exists()
    assert [name for name, _ in answers.asked] == ["bash", "edit"]
    assert session.approval.always == {"bash"}
    assert results(session)[-1] == ("edit", True, user_denied_text("edit"))


async def test_only_bash_write_and_edit_ask(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("alpha\n")
    readers = [
        call("read", path="notes.txt"),
        call("ls"),
        call("grep", pattern="alpha"),
        call("find", pattern="*"),
    ]
    session, _ = make_session(tmp_path, [ScriptedReply(tool_calls=readers), ScriptedReply(text="done")])
    session.agent.state.tools = list(session.tools_by_name.values())
    answers = Answers()
    session.approval.approver = answers
    await session.prompt("look")

    assert answers.asked == []
    assert [(name, error) for name, error, _ in results(session)] == [
        ("read", False),
        ("ls", False),
        ("grep", False),
        ("find", False),
    ]


async def test_off_unless_the_setting_or_approve_says_so(tmp_path: Path) -> None:
    bash = [ScriptedReply(tool_calls=[call("bash", command="touch ran")]), ScriptedReply(text="ok")]
    off, _ = make_session(tmp_path / "off", list(bash), setting=False)
    answers = Answers()
    off.approval.approver = answers
    await off.prompt("go")
    assert answers.asked == [] and (tmp_path / "off" / "project" / "ran").exists()

    flag, _ = make_session(tmp_path / "flag", list(bash), setting=False, approve=True)
    flag.approval.approver = Answers("no")
    await flag.prompt("go")
    assert not (tmp_path / "flag" / "project" / "ran").exists()


async def test_nobody_to_ask_means_denied(tmp_path: Path) -> None:
    session, _ = make_session(
        tmp_path, [ScriptedReply(tool_calls=[call("bash", command="touch ran")]), ScriptedReply(text="ok")]
    )
    await session.prompt("go")
    assert not (tmp_path / "project" / "ran").exists()
    assert results(session) == [("bash", True, no_approver_text("bash"))]


async def test_abort_while_asking_cancels_the_question(tmp_path: Path) -> None:
    session, _ = make_session(tmp_path, [ScriptedReply(tool_calls=[call("bash", command="touch ran")])])
    asked = asyncio.Event()
    cancelled = asyncio.Event()

    async def never(tool_name: str, args: dict[str, Any]) -> ApprovalAnswer:
        asked.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "yes"

    session.approval.approver = never
    heard: list[Any] = []
    session.subscribe(heard.append)
    run = asyncio.create_task(session.prompt("go"))
    await asyncio.wait_for(asked.wait(), 10)
    session.abort()
    await asyncio.wait_for(run, 10)
    assert cancelled.is_set()
    assert [e.answer for e in heard if isinstance(e, ApprovalAnsweredEvent)] == ["aborted"]
    assert not (tmp_path / "project" / "ran").exists()
    assert results(session)[0][:2] == ("bash", True)


async def test_each_question_is_announced_and_its_answer_too(tmp_path: Path) -> None:
    replies = [
        ScriptedReply(tool_calls=[call("bash", command="rm -rf build"), call("read", path="x")]),
        ScriptedReply(tool_calls=[call("bash", command="touch again")]),
        ScriptedReply(text="done"),
    ]
    session, _ = make_session(tmp_path, replies)
    heard: list[Any] = []
    session.subscribe(heard.append)

    async def answer(tool_name: str, args: dict[str, Any]) -> ApprovalAnswer:
        # The question is announced before the answer is awaited (a status line can say so).
        assert isinstance(heard[-1], ApprovalRequestedEvent)
        return "no" if args["command"] == "rm -rf build" else "always"

    session.approval.approver = answer
    await session.prompt("go")
    questions = [e for e in heard if isinstance(e, ApprovalRequestedEvent | ApprovalAnsweredEvent)]
    assert [(type(e).__name__, getattr(e, "call", getattr(e, "answer", ""))) for e in questions] == [
        ("ApprovalRequestedEvent", "rm -rf build"),
        ("ApprovalAnsweredEvent", "no"),
        ("ApprovalRequestedEvent", "touch again"),
        ("ApprovalAnsweredEvent", "always"),
    ]
    assert questions[0].tool_call_id == questions[1].tool_call_id != questions[2].tool_call_id
    assert questions[0].to_json() == {
        "type": "approval_requested",
        "toolCallId": questions[0].tool_call_id,
        "toolName": "bash",
        "call": "rm -rf build",
    }


def test_describe_call_names_what_would_happen() -> None:
    assert describe_call("bash", {"command": "rm -rf build\n  && make"}) == "rm -rf build && make"
    assert describe_call("write", {"path": "a.py", "content": "x\ny\n"}) == "a.py (2 lines)"
    edits = [{"oldText": "a", "newText": "b"}, {"oldText": "c", "newText": "d"}]
    assert describe_call("edit", {"path": "a.py", "edits": edits}) == "a.py (2 edits)"
    assert len(describe_call("bash", {"command": "x" * 1000})) == 160


# --- headless ------------------------------------------------------------------------------------


async def headless(tmp_path: Path, *, yes: bool) -> tuple[int, str, str, ScriptedProvider]:
    project = tmp_path / "project"
    project.mkdir()
    provider = ScriptedProvider(
        [
            ScriptedReply(tool_calls=[call("bash", command="touch ran"), call("read", path="none.txt")]),
            ScriptedReply(text="finished"),
        ]
    )
    stdout, stderr = io.StringIO(), io.StringIO()
    options = RunOptions(
        messages=["go"],
        print_mode=True,
        model="m",
        base_url="http://127.0.0.1:9/v1",
        api_key="unused",
        approve=True,
        yes=yes,
        session=SessionChoice(no_session=True),
    )
    code = await run_print_mode(
        options, cwd=str(project), stdin_text=None, stdout=stdout, stderr=stderr, stream_fn=provider
    )
    return code, stdout.getvalue(), stderr.getvalue(), provider


def sent_tool_results(provider: ScriptedProvider) -> list[ToolResultMessage]:
    return [m for m in provider.contexts[-1].messages if isinstance(m, ToolResultMessage)]


async def test_headless_denies_with_a_clear_error_and_a_note(tmp_path: Path) -> None:
    code, out, err, provider = await headless(tmp_path, yes=False)

    assert (code, out) == (0, "finished\n")
    assert not (tmp_path / "project" / "ran").exists()
    denials = [line for line in err.splitlines() if "denied" in line]
    assert denials == ["pi-tui: denied bash (approval mode; --yes approves): touch ran"]
    bash, read = sent_tool_results(provider)
    assert bash.is_error and bash.content == [TextContent(text=headless_denied_text("bash"))]
    assert "--yes" in headless_denied_text("bash")
    assert read.tool_name == "read" and "denied" not in str(read.content)


async def test_headless_yes_approves_everything(tmp_path: Path) -> None:
    code, out, err, provider = await headless(tmp_path, yes=True)

    assert (code, out) == (0, "finished\n") and "denied" not in err
    assert (tmp_path / "project" / "ran").exists()
    assert not sent_tool_results(provider)[0].is_error
