"""How tools turn a model-supplied path into a file path (pi's `path-utils`)."""

from __future__ import annotations

import errno
import os
import re
import unicodedata

_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_AM_PM = re.compile(r" (AM|PM)\.", re.IGNORECASE)

# libuv's wording where it differs from strerror (Node error messages are what pi shows).
_NODE_DESCRIPTIONS = {errno.EISDIR: "illegal operation on a directory"}


def expand_path(path: str) -> str:
    """Strip a leading `@`, normalise unusual Unicode spaces, expand `~`."""
    if path.startswith("@"):
        path = path[1:]
    path = _UNICODE_SPACES.sub(" ", path)
    if path == "~" or path.startswith("~/"):
        path = os.path.expanduser("~") + path[1:]
    return path


def resolve_to_cwd(path: str, cwd: str) -> str:
    """An absolute, normalised path; relative paths are taken from `cwd`."""
    return os.path.normpath(os.path.join(cwd, expand_path(path)))


def resolve_read_path(path: str, cwd: str) -> str:
    """As resolve_to_cwd, then macOS screenshot name variants if the plain path does not exist."""
    resolved = resolve_to_cwd(path, cwd)
    if os.path.exists(resolved):
        return resolved
    nfd = unicodedata.normalize("NFD", resolved)
    variants = [
        _AM_PM.sub(lambda match: f"\u202f{match.group(1)}.", resolved),
        nfd,
        resolved.replace("'", "\u2019"),
        nfd.replace("'", "\u2019"),
    ]
    for variant in variants:
        if variant != resolved and os.path.exists(variant):
            return variant
    return resolved


def node_error_message(error: OSError, syscall: str, path: str) -> str:
    """An OSError worded as Node.js would (`ENOENT: no such file or directory, open '<path>'`)."""
    if error.errno is None:
        return str(error)
    code = errno.errorcode.get(error.errno, "EUNKNOWN")
    description = _NODE_DESCRIPTIONS.get(error.errno) or os.strerror(error.errno)
    description = description[:1].lower() + description[1:]
    return f"{code}: {description}, {syscall} '{path}'"


def error_code(error: OSError) -> str:
    return errno.errorcode.get(error.errno or 0, "EUNKNOWN")
