"""The YAML frontmatter of skills and prompt templates: a small, strict subset of YAML.

A document may start with a `---` line; everything up to the next `---` line is frontmatter, the rest is
the body. Understood: `key: value` pairs with plain, single- or double-quoted scalars, `true`/`false`,
`null`/`~`, integers, `[a, b]` flow lists, plain values continued on indented lines, `|` / `>` block
scalars (with `-` / `+` chomping), and one level of nesting under a key with no value (a `- item` list
or `key: value` pairs, as in `metadata:`). Anything else is a `FrontmatterError` with a 1-based line
number, so a broken skill is reported and skipped rather than loaded with half its fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

Scalar = str | int | bool | None
FrontmatterValue = Scalar | list[Scalar] | dict[str, Scalar]

_DELIMITER = re.compile(r"^---[ \t]*$")
_KEY_LINE = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*))?$")
_BLOCK_HEADER = re.compile(r"^([|>])([+-]?)[ \t]*(?:#.*)?$")
_INTEGER = re.compile(r"^[-+]?[0-9]+$")
_DOUBLE_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/", "r": "\r", "0": "\0"}


class FrontmatterError(ValueError):
    """The frontmatter is not YAML this parser accepts; `line` is 1-based within the whole file."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.reason = message


@dataclass(frozen=True)
class Frontmatter:
    fields: dict[str, FrontmatterValue] = field(default_factory=dict)
    body: str = ""
    has_frontmatter: bool = False


def parse_frontmatter(text: str) -> Frontmatter:
    """Split `text` into fields and body; raises `FrontmatterError` for malformed frontmatter."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or not _DELIMITER.match(lines[0]):
        return Frontmatter(body=text)
    closing = next((index for index in range(1, len(lines)) if _DELIMITER.match(lines[index])), None)
    if closing is None:
        raise FrontmatterError("frontmatter is not closed by a '---' line", 1)
    fields = _parse_block(lines[1:closing], first_line=2)
    return Frontmatter(fields=fields, body="\n".join(lines[closing + 1 :]), has_frontmatter=True)


def strip_frontmatter(text: str) -> str:
    """The body without its frontmatter; malformed frontmatter is left in place (nothing is lost)."""
    try:
        return parse_frontmatter(text).body
    except FrontmatterError:
        return text.replace("\r\n", "\n")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _parse_block(lines: list[str], first_line: int) -> dict[str, FrontmatterValue]:
    fields: dict[str, FrontmatterValue] = {}
    index = 0
    while index < len(lines):
        line, number = lines[index], first_line + index
        if "\t" in line[: _indent(line) + 1] and line.strip():
            raise FrontmatterError("tabs are not allowed for indentation", number)
        if _is_blank(line):
            index += 1
            continue
        if _indent(line) > 0:
            raise FrontmatterError("unexpected indentation", number)
        match = _KEY_LINE.match(line)
        if match is None:
            raise FrontmatterError("expected 'key: value'", number)
        key, rest = match.group(1), (match.group(2) or "").strip()
        if key in fields:
            raise FrontmatterError(f'duplicate key "{key}"', number)
        children_end = index + 1
        while children_end < len(lines) and (
            not lines[children_end].strip() or _indent(lines[children_end]) > 0
        ):
            children_end += 1
        children = lines[index + 1 : children_end]
        header = _BLOCK_HEADER.match(rest)
        if header:
            fields[key] = _block_scalar(children, header.group(1), header.group(2))
        elif rest and not rest.startswith("#"):
            if any(child.strip() for child in children):
                fields[key] = _multiline_plain(rest, children, number)
            else:
                fields[key] = _scalar_or_flow(rest, number)
        else:
            fields[key] = _nested(children, number + 1)
        index = children_end
    return fields


def _block_scalar(children: list[str], style: str, chomping: str) -> str:
    content = [line for line in children if line.strip()]
    indent = min((_indent(line) for line in content), default=0)
    body = [line[indent:] if line.strip() else "" for line in children]
    while body and body[-1] == "" and chomping != "+":
        body.pop()
    trailing = len(children) - len(body) if chomping == "+" else 0
    if style == "|":
        text = "\n".join(body)
    else:
        text, previous_blank = "", True
        for line in body:
            if line == "":
                text += "\n"
                previous_blank = True
            else:
                text += ("" if previous_blank else " ") + line
                previous_blank = False
    if not body:
        return ""
    if chomping == "-":
        return text
    return text + "\n" + "\n" * trailing


def _multiline_plain(first: str, children: list[str], line: int) -> Scalar:
    """A plain value continued on more-indented lines: folded with spaces, a blank line is a newline."""
    if first[0] in "\"'[{|>":
        raise FrontmatterError("multi-line quoted or flow values are not supported", line)
    folded = first
    previous_blank = False
    for offset, child in enumerate(children, start=1):
        text = child.strip()
        if not text:
            folded += "\n"
            previous_blank = True
            continue
        if text.startswith("#"):
            raise FrontmatterError("a comment cannot continue a value", line + offset)
        folded += ("" if previous_blank else " ") + text
        previous_blank = False
    return _scalar(folded.rstrip("\n"), line)


def _nested(children: list[str], first_line: int) -> FrontmatterValue:
    content = [(first_line + offset, line.strip()) for offset, line in enumerate(children) if line.strip()]
    if not content:
        return None
    if all(line.startswith("- ") or line == "-" for _, line in content):
        return [_scalar(line[1:].strip(), number) for number, line in content]
    mapping: dict[str, Scalar] = {}
    for number, line in content:
        if line.startswith("#"):
            continue
        match = _KEY_LINE.match(line)
        if match is None:
            raise FrontmatterError("expected 'key: value' or '- item'", number)
        mapping[match.group(1)] = _scalar((match.group(2) or "").strip(), number)
    return mapping


def _scalar_or_flow(text: str, line: int) -> FrontmatterValue:
    if text.startswith("["):
        if not text.rstrip().endswith("]"):
            raise FrontmatterError("unterminated flow list", line)
        inner = text.rstrip()[1:-1].strip()
        return [_scalar(item.strip(), line) for item in inner.split(",")] if inner else []
    return _scalar(text, line)


def _scalar(text: str, line: int) -> Scalar:
    if not text:
        return None
    if text[0] in "\"'":
        return _quoted(text, line)
    if text[0] in "{&*!%@`":
        raise FrontmatterError(f"unsupported YAML syntax {text[0]!r}", line)
    comment = re.search(r"[ \t]#", text)
    if comment:
        text = text[: comment.start()].rstrip()
    if ": " in text or text.endswith(":"):
        raise FrontmatterError("mapping values are not allowed here (quote the value)", line)
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if text in ("null", "Null", "NULL", "~"):
        return None
    if _INTEGER.match(text):
        return int(text)
    return text


def _quoted(text: str, line: int) -> str:
    quote, result, index = text[0], [], 1
    while index < len(text):
        char = text[index]
        if quote == "'" and char == "'":
            if text[index + 1 : index + 2] == "'":
                result.append("'")
                index += 2
                continue
            break
        if quote == '"' and char == "\\":
            escape = text[index + 1 : index + 2]
            if escape not in _DOUBLE_ESCAPES:
                raise FrontmatterError(f"unknown escape \\{escape}", line)
            result.append(_DOUBLE_ESCAPES[escape])
            index += 2
            continue
        if quote == '"' and char == '"':
            break
        result.append(char)
        index += 1
    else:
        raise FrontmatterError("unterminated quoted string", line)
    rest = text[index + 1 :].strip()
    if rest and not rest.startswith("#"):
        raise FrontmatterError("unexpected text after a quoted string", line)
    return "".join(result)
