"""The next request as Markdown for a dialog: where it goes, its headers, its body."""

from __future__ import annotations

import json

from pi_tui.session.next_request import RequestPreview

CACHE_FIELDS = ("prompt_cache_key", "prompt_cache_retention")


def cache_summary(body: dict[str, object]) -> str:
    """One line on what engages the provider's cache in this request."""
    markers = json.dumps(body).count('"cache_control"')
    parts = [f"`{name}`: {body[name]}" for name in CACHE_FIELDS if name in body]
    if markers:
        parts.append(f"{markers} cache marker{'s' if markers != 1 else ''}")
    return "Cache: " + (", ".join(parts) if parts else "automatic prefix caching only (no key, no markers)")


def request_markdown(base_url: str, preview: RequestPreview) -> str:
    url = base_url.rstrip("/") + preview.path
    headers = "\n".join(f"{name}: {value}" for name, value in preview.headers.items())
    body = json.dumps(preview.body, indent=2, ensure_ascii=False)
    return "\n\n".join(
        [
            f"`POST {url}`",
            cache_summary(preview.body),
            f"```text\n{headers}\n```",
            f"```json\n{body}\n```",
        ]
    )
