"""The `edit` tool: one or more exact (or fuzzy) replacements in one file."""

from __future__ import annotations

import json
import os
from typing import Any, ClassVar

from pydantic import ConfigDict, Field

from pi_tui.agent.tool import OPERATION_ABORTED, STRICT_WHERE_SUPPORTED, AgentTool, ToolResult, UpdateCallback
from pi_tui.ai.abort import AbortSignal
from pi_tui.config.regular_files import FileTooLarge, NotRegularFile, open_regular, read_bounded
from pi_tui.tools.edit_diff import (
    Edit,
    EditError,
    apply_edits,
    detect_line_ending,
    generate_diff,
    line_endings,
    normalize_to_lf,
    restore_each_line_ending,
    restore_line_endings,
    strip_bom,
)
from pi_tui.tools.file_locks import file_mutation_lock
from pi_tui.tools.file_work import FileWorkAborted, run_file_work
from pi_tui.tools.image_sniff import sniff_image_mime
from pi_tui.tools.params import ToolParams
from pi_tui.tools.path_resolution import error_code, resolve_to_cwd


class EditItem(ToolParams):
    model_config = ConfigDict(extra="forbid")

    oldText: str = Field(
        description=(
            "Exact text for one targeted replacement. It must be unique in the original file and must not "
            "overlap with any other edits[].oldText in the same call."
        )
    )
    newText: str = Field(description="Replacement text for this targeted edit.")


class EditParams(ToolParams):
    path: str = Field(description="Path to the file to edit (relative or absolute)")
    edits: list[EditItem] = Field(
        description=(
            "One or more targeted replacements. Each edit is matched against the original file, not "
            "incrementally. Do not include overlapping or nested edits. If two changes touch the same "
            "block or nearby lines, merge them into one edit instead."
        )
    )


EMPTY_EDITS = "Edit tool input is invalid. edits must contain at least one replacement."
MAX_EDIT_FILE_BYTES = 128 * 1024 * 1024
BINARY_SNIFF_BYTES = 8192


class _Refused(Exception):
    """The file is not one `edit` changes (binary, too large, not a regular file); the text says why."""


def _cannot_edit(path: str, error: OSError) -> str:
    return f"Could not edit file: {path}. Error code: {error_code(error)}."


class EditTool(AgentTool[EditParams]):
    name: ClassVar[str] = "edit"
    label: ClassVar[str] = "edit"
    description: ClassVar[str] = (
        "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, "
        "non-overlapping region of the original file. If two changes affect the same block or nearby lines, "
        "merge them into one edit instead of emitting overlapping edits. Do not include large unchanged "
        "regions just to connect distant changes."
    )
    parameters: ClassVar[type[ToolParams]] = EditParams
    constrained_sampling: ClassVar[dict[str, Any] | None] = STRICT_WHERE_SUPPORTED
    prompt_snippet: ClassVar[str | None] = (
        "Make precise file edits with exact text replacement, including multiple disjoint edits in one call"
    )
    prompt_guidelines: ClassVar[tuple[str, ...]] = (
        "Use edit for precise changes (edits[].oldText must match exactly)",
        "When changing multiple separate locations in one file, use one edit call with multiple entries in "
        "edits[] instead of multiple edit calls",
        "Each edits[].oldText is matched against the original file, not after earlier edits are applied. Do "
        "not emit overlapping or nested edits. Merge nearby changes into one edit.",
        "Keep edits[].oldText as small as possible while still being unique in the file. Do not pad with "
        "large unchanged regions.",
    )

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd

    def prepare_arguments(self, raw: dict[str, Any]) -> dict[str, Any]:
        """Legacy top-level oldText/newText become an edit; `edits` sent as a JSON string is parsed."""
        args = dict(raw)
        edits = args.get("edits")
        if isinstance(edits, str):
            try:
                parsed = json.loads(edits)
            except ValueError:
                parsed = None
            if isinstance(parsed, list):
                args["edits"] = parsed
            elif _is_single_edit(parsed):
                args["edits"] = [parsed]
        elif _is_single_edit(edits):
            args["edits"] = [edits]
        old_text, new_text = args.get("oldText"), args.get("newText")
        if isinstance(old_text, str) and isinstance(new_text, str):
            current = args.get("edits")
            merged = list(current) if isinstance(current, list) else []
            merged.append({"oldText": old_text, "newText": new_text})
            args.pop("oldText")
            args.pop("newText")
            args["edits"] = merged
        return args

    async def execute(
        self,
        tool_call_id: str,
        params: EditParams,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        if not params.edits:
            return ToolResult.error(EMPTY_EDITS)
        absolute = resolve_to_cwd(params.path, self.cwd)
        edits = [Edit(item.oldText, item.newText) for item in params.edits]
        async with file_mutation_lock(absolute):
            if signal.aborted:
                return ToolResult.error(OPERATION_ABORTED)
            try:
                raw = await run_file_work(signal, lambda: _read_for_edit(absolute, params.path))
            except _Refused as refusal:
                return ToolResult.error(str(refusal))
            except OSError as error:
                return ToolResult.error(_cannot_edit(params.path, error))
            except FileWorkAborted:
                return ToolResult.error(OPERATION_ABORTED)
            bom, content = strip_bom(raw)
            ending = detect_line_ending(content)
            endings = line_endings(content)
            lf_content = normalize_to_lf(content)
            try:
                base, new = apply_edits(lf_content, edits, params.path)
            except EditError as error:
                return ToolResult.error(str(error))
            if len(set(endings)) > 1:  # mixed: every line keeps its own
                final = bom + restore_each_line_ending(lf_content, new, endings, ending)
            else:
                final = bom + restore_line_endings(new, ending)
            try:
                await run_file_work(signal, lambda: _write_text(absolute, final))
            except OSError as error:
                return ToolResult.error(_cannot_edit(params.path, error))
            except FileWorkAborted:
                return ToolResult.error(OPERATION_ABORTED)
            if signal.aborted:
                return ToolResult.error(OPERATION_ABORTED)
        diff = generate_diff(_shown(base), _shown(new))
        details: dict[str, Any] = {"diff": diff.diff}
        if diff.first_changed_line is not None:
            details["firstChangedLine"] = diff.first_changed_line
        return ToolResult.text(
            f"Successfully replaced {len(edits)} block(s) in {params.path}.", details=details
        )


def _is_single_edit(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("oldText"), str)
        and isinstance(value.get("newText"), str)
    )


def _read_for_edit(path: str, shown_path: str) -> str:
    """The file as text; bytes that are not UTF-8 become lone surrogates (`surrogateescape`), so they
    are written back exactly as they were."""
    if not os.access(path, os.R_OK | os.W_OK):
        with open(path, "r+b"):  # raises the OSError that names why (ENOENT, EACCES, EISDIR)
            pass
    try:
        data = read_bounded(path, MAX_EDIT_FILE_BYTES)
    except FileTooLarge as refusal:
        raise _Refused(f"Cannot edit {shown_path}: {refusal.reason}. Use bash to change it.") from refusal
    except NotRegularFile as refusal:
        raise _Refused(f"Cannot edit {shown_path}: {refusal.reason}.") from refusal
    head = data[:BINARY_SNIFF_BYTES]
    if sniff_image_mime(head) is not None or b"\x00" in head:
        raise _Refused(
            f"Cannot edit {shown_path}: binary file. Use bash to inspect it (e.g. file, xxd, strings)."
        )
    return data.decode("utf-8", "surrogateescape")


def _write_text(path: str, text: str) -> None:
    data = _encoded(text)
    with open(open_regular(path, os.O_WRONLY | os.O_TRUNC), "wb") as file:
        file.write(data)


def _shown(text: str) -> str:
    """Text for the diff the model and the user read: bytes that were not UTF-8 shown as U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _encoded(text).decode("utf-8", "replace")
    return text


def _encoded(text: str) -> bytes:
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate the model sent, not one read from the file
        return text.encode("utf-8", "surrogatepass")
