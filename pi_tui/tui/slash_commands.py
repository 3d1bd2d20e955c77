"""The editor's slash commands: one table for dispatch, completion, the palette and the help screen."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SlashCommand:
    name: str
    description: str
    action: str
    """The `ChatScreen.action_*` it runs; the text after the name is passed as its one argument."""
    usage: str = ""


SLASH_COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand(
        "compact",
        "Summarise older messages now (--preview: show the cut only)",
        "compact",
        "[--preview] [instructions]",
    ),
    SlashCommand("tree", "Move to any point of the session tree, optionally summarising the branch", "tree"),
    SlashCommand("rewind", "Restore files, conversation or both to before any of your messages", "rewind"),
    SlashCommand("fork", "New session from just before one of your messages", "fork"),
    SlashCommand("clone", "New session with this branch up to here", "clone"),
    SlashCommand("new", "Start a new session", "new_session"),
    SlashCommand("resume", "Open another session of this directory (or any)", "resume"),
    SlashCommand("session", "Session file, id, message counts, tokens and cost", "session_info"),
    SlashCommand(
        "request",
        "The exact request the next turn would send (cache markers, cache key; keys redacted)",
        "show_request",
        "[next message]",
    ),
    SlashCommand(
        "followup",
        "Queue a message for when the agent stops (without text: the editor's); idle, it is sent",
        "follow_up",
        "[message]",
    ),
    SlashCommand("model", "Choose the model", "choose_model"),
    SlashCommand(
        "approval",
        "Which tools ask first: off, edits (bash, write, edit) or all but reading; none: the next "
        "(--keep: keep it for this project in your settings)",
        "approval",
        "[off|edits|all] [--keep]",
    ),
    SlashCommand("settings", "Theme and thinking level", "settings"),
    SlashCommand("copy", "Copy the last answer to the clipboard", "copy_answer"),
    SlashCommand(
        "export",
        "Export this branch: a self-contained HTML page (default) or .jsonl",
        "export_session",
        "[--full-output] [path.html|path.jsonl]",
    ),
    SlashCommand("name", "Name this session (empty: clear the name)", "name_session", "<name>"),
    SlashCommand("hotkeys", "Keys and commands", "hotkeys"),
    SlashCommand("reload", "Re-read settings, AGENTS.md, skills and templates", "reload_resources"),
    SlashCommand("quit", "Quit pi-tui", "quit_app"),
)

BY_NAME = {command.name: command for command in SLASH_COMMANDS}


def parse_slash_command(text: str) -> tuple[SlashCommand, str] | None:
    """`/name args` for a built-in command; anything else (skills, templates, plain text) is None."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, args = stripped[1:].partition(" ")
    command = BY_NAME.get(name)
    return (command, args.strip()) if command is not None else None


def completions(prefix: str, extra: tuple[str, ...] = ()) -> list[str]:
    """Slash completions for what the user typed so far (`/co` → `/compact`, `/copy`), extras included."""
    if not prefix.startswith("/") or " " in prefix:
        return []
    names = [f"/{command.name}" for command in SLASH_COMMANDS] + list(extra)
    return [name for name in names if name.startswith(prefix)]
