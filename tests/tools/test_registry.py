from __future__ import annotations

from pathlib import Path

from pi_tui.tools.bash import BashTool
from pi_tui.tools.registry import ALL_TOOL_NAMES, ToolLimits, build_tools, select_tools


def test_all_tools_available_and_default_active_set(tmp_path: Path) -> None:
    tools = build_tools(
        str(tmp_path), limits=ToolLimits(max_lines=10, max_bytes=100), spill_dir=tmp_path / "s"
    )
    assert tuple(tools) == ALL_TOOL_NAMES == ("read", "bash", "edit", "write", "grep", "find", "ls")
    assert [tool.name for tool in select_tools(tools)] == ["read", "bash", "edit", "write"]
    assert [tool.name for tool in select_tools(tools, ["ls", "nope", "grep"])] == ["ls", "grep"]
    bash = tools["bash"]
    assert isinstance(bash, BashTool) and (bash.max_lines, bash.max_bytes) == (10, 100)
    assert bash.spill_dir == tmp_path / "s"


def test_prompt_snippets_and_guidelines_are_pis(tmp_path: Path) -> None:
    tools = build_tools(str(tmp_path))
    assert {name: tool.prompt_snippet for name, tool in tools.items()} == {
        "read": "Read file contents",
        "bash": "Execute bash commands (ls, grep, find, etc.)",
        "edit": "Make precise file edits with exact text replacement, including multiple disjoint edits "
        "in one call",
        "write": "Create or overwrite files",
        "grep": "Search file contents for patterns (respects .gitignore)",
        "find": "Find files by glob pattern (respects .gitignore)",
        "ls": "List directory contents",
    }
    assert tools["read"].prompt_guidelines == ("Use read to examine files instead of cat or sed.",)
    assert tools["write"].prompt_guidelines == ("Use write only for new files or complete rewrites.",)
    assert len(tools["edit"].prompt_guidelines) == 4
    assert tools["bash"].prompt_guidelines == ()


def test_specs_use_pi_parameter_names_and_plain_schemas(tmp_path: Path) -> None:
    specs = {name: tool.spec() for name, tool in build_tools(str(tmp_path)).items()}
    edit = specs["edit"].parameters
    assert edit["required"] == ["path", "edits"]
    item = edit["properties"]["edits"]["items"]
    assert item["required"] == ["oldText", "newText"] and item["additionalProperties"] is False
    grep = specs["grep"].parameters["properties"]
    assert grep["ignoreCase"] == {
        "type": "boolean",
        "description": "Case-insensitive search (default: false)",
    }
    assert specs["read"].parameters["properties"]["offset"]["type"] == "integer"
    assert "title" not in str(specs) and "anyOf" not in str(specs)
