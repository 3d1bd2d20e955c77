"""A 400 from a server that speaks another dialect, answered with the `compat` switch that fixes it.

Servers name the field they refuse ("Unsupported parameter: 'store'", "Unrecognized request argument
supplied: stream_options", "Extra inputs are not permitted: strict"); when the message points at one field
pi-tui can leave out or change, the error says which models.json switch does it. The patterns are
deliberately narrow: no hint beats a wrong one.
"""

from __future__ import annotations

import re

_HINTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), hint)
    for pattern, hint in (
        (
            r"reasoning_content.{0,40}(missing|required)|(missing|required).{0,40}reasoning_content",
            '"requiresReasoningContentOnAssistantMessages": true',
        ),
        (
            r"\bmax_tokens\b.{0,60}(not supported|unsupported)|use .?max_completion_tokens",
            '"maxTokensField": "max_completion_tokens"',
        ),
        (r"\bmax_completion_tokens\b", '"maxTokensField": "max_tokens"'),
        (r"\bstream_options\b|include_usage", '"supportsUsageInStreaming": false'),
        (r"\bstore\b", '"supportsStore": false'),
        (r"\bstrict\b", '"supportsStrictMode": false'),
        (r"\bdeveloper\b", '"supportsDeveloperRole": false'),
        (r"\breasoning_effort\b", '"supportsReasoningEffort": false'),
        (
            r"(role )?.?user.? after .?(role )?.?tool|after (a )?tool (message|result)",
            '"requiresAssistantAfterToolResult": true',
        ),
        (r"tool.{0,30}\bname\b.{0,30}(missing|required)", '"requiresToolResultName": true'),
    )
)
REFUSAL_WORDS = re.compile(
    r"unsupported|not supported|unrecognized|unknown|not permitted|extra inputs|invalid|unexpected|"
    r"not allowed|missing|required",
    re.IGNORECASE,
)


def compat_hint(status: int, message: str) -> str | None:
    """The switch to set for a refused request, or None when the message names no known field."""
    if status not in (400, 422) or not REFUSAL_WORDS.search(message):
        return None
    for pattern, hint in _HINTS:
        if pattern.search(message):
            return f"this server may need {hint} in the model's compat (models.json)"
    return None
