"""The YAML frontmatter of skills and prompt templates, read by a real YAML 1.2 parser (ruamel.yaml).

A document may start with a `---` line; everything up to the next `---` line is frontmatter, the rest is
the body. The frontmatter is one YAML 1.2 document in the core schema, as pi reads it: a mapping whose
values are strings, integers, floats, booleans, null, lists and mappings, in any YAML style (block or
flow, plain, quoted or block scalars, anchors and aliases). YAML 1.2 has no timestamp type, so a date
stays the string it was written as. Anything else (malformed YAML, a custom `!tag`, a document that is not
a mapping, an alias that contains itself) is a `FrontmatterError` with a 1-based line number of the file,
so a broken skill is reported and skipped rather than loaded with half its fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from ruamel.yaml.constructor import SafeConstructor
    from ruamel.yaml.error import MarkedYAMLError

Scalar: TypeAlias = str | int | float | bool | None
FrontmatterValue: TypeAlias = Scalar | list["FrontmatterValue"] | dict[str, "FrontmatterValue"]

_DELIMITER = re.compile(r"^---[ \t]*$")
_FIRST_FIELD_LINE = 2  # the line after the opening `---`
_CORE_SCHEMA_TAGS = ("null", "bool", "int", "float", "str", "seq", "map")


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


@cache
def _core_schema_constructor() -> type[SafeConstructor]:
    """The safe constructor limited to the YAML 1.2 core schema: `!!binary`, `!!set`, `!!omap` and custom
    tags are errors, and a timestamp-looking scalar stays a string. Made on the first frontmatter read
    (in a worker that loads resources), not at import: ruamel.yaml is not needed for the first frame."""
    from ruamel.yaml.constructor import SafeConstructor

    class _CoreSchemaConstructor(SafeConstructor):
        pass

    _CoreSchemaConstructor.yaml_constructors = {
        **{
            f"tag:yaml.org,2002:{tag}": SafeConstructor.yaml_constructors[f"tag:yaml.org,2002:{tag}"]
            for tag in _CORE_SCHEMA_TAGS
        },
        "tag:yaml.org,2002:timestamp": SafeConstructor.construct_yaml_str,
        None: SafeConstructor.construct_undefined,
    }
    return _CoreSchemaConstructor


def parse_frontmatter(text: str) -> Frontmatter:
    """Split `text` into fields and body; raises `FrontmatterError` for malformed frontmatter."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or not _DELIMITER.match(lines[0]):
        return Frontmatter(body=text)
    closing = next((index for index in range(1, len(lines)) if _DELIMITER.match(lines[index])), None)
    if closing is None:
        raise FrontmatterError("frontmatter is not closed by a '---' line", 1)
    fields = _parse_yaml("\n".join(lines[1:closing]))
    return Frontmatter(fields=fields, body="\n".join(lines[closing + 1 :]), has_frontmatter=True)


def strip_frontmatter(text: str) -> str:
    """The body without its frontmatter; malformed frontmatter is left in place (nothing is lost)."""
    try:
        return parse_frontmatter(text).body
    except FrontmatterError:
        return text.replace("\r\n", "\n")


def _parse_yaml(source: str) -> dict[str, FrontmatterValue]:
    # One loader per call: a ruamel `YAML` keeps parser state, and resources load on worker threads.
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="safe", pure=True)
    yaml.Constructor = _core_schema_constructor()
    try:
        loaded = yaml.load(source)
    except MarkedYAMLError as error:
        message = _one_line(error.problem or error.context or "invalid YAML")
        raise FrontmatterError(message, _line(error, len(source))) from None
    except YAMLError as error:
        raise FrontmatterError(_one_line(str(error)), _FIRST_FIELD_LINE) from None
    except RecursionError:
        raise FrontmatterError("values are nested too deeply", _FIRST_FIELD_LINE) from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise FrontmatterError("frontmatter must be 'key: value' fields", _FIRST_FIELD_LINE)
    done: dict[int, FrontmatterValue] = {}
    return {_key_text(key): _plain(value, done, set()) for key, value in loaded.items()}


def _line(error: MarkedYAMLError, source_length: int) -> int:
    """The line of the problem; for one found at the end (an unclosed quote), the line where it began."""
    mark = error.problem_mark
    if mark is None or (mark.index >= source_length and error.context_mark is not None):
        mark = error.context_mark
    return _FIRST_FIELD_LINE + (mark.line if mark is not None else 0)


def _one_line(message: str) -> str:
    return " ".join(message.split())


def _plain(value: Any, done: dict[int, FrontmatterValue], open_ids: set[int]) -> FrontmatterValue:
    """`value` with string keys everywhere. An alias shared by many fields is converted once (a few
    lines of anchors cannot blow up into millions of values); an alias inside itself is an error."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    identity = id(value)
    if identity in done:
        return done[identity]
    if identity in open_ids:
        raise FrontmatterError("an alias refers to a value that contains it", _FIRST_FIELD_LINE)
    open_ids.add(identity)
    converted: FrontmatterValue
    if isinstance(value, dict):
        converted = {_key_text(key): _plain(item, done, open_ids) for key, item in value.items()}
    elif isinstance(value, list):
        converted = [_plain(item, done, open_ids) for item in value]
    else:  # the core-schema constructor makes nothing else; a new ruamel.yaml might
        raise FrontmatterError(f"unsupported value {value!r}", _FIRST_FIELD_LINE)
    open_ids.discard(identity)
    done[identity] = converted
    return converted


def _key_text(key: Any) -> str:
    """A mapping key as the string pi's JavaScript objects would hold (`1` → "1", `true` → "true")."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, tuple):
        return ",".join(_key_text(part) for part in key)
    return str(key)
