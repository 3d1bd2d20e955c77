"""Provider redirects to another origin are not followed (docs/reliability.md, section 14).

The SDKs' HTTP clients follow redirects, and a 307 or 308 keeps the method and the body: a provider (or
anything between pi-tui and it) answering `307 Location: http://elsewhere/` had the whole conversation
sent there, and with it any credential header from models.json that is not `Authorization` (`api-key`,
`x-goog-api-key`; the client drops only `Authorization` on a change of origin). A redirect within the same
origin (scheme, host and port) is still followed. One to another origin is answered as the redirect
itself: the request fails with a message naming where it was sent, and nothing went there.
"""

from __future__ import annotations

from typing import Any

REFUSED_HEADER = "x-pi-tui-refused-redirect"
"""Put on a redirect response that was not followed, naming its target for the error message."""


def _origin(url: Any) -> tuple[str, str, int | None]:
    return (url.scheme, url.host, url.port)


async def refuse_cross_origin_redirect(response: Any) -> None:
    """An httpx response hook: a redirect to another origin loses its `Location`, so the client returns
    the redirect response instead of following it (the SDK then raises it as a status error)."""
    if not response.has_redirect_location:
        return
    source = response.request.url
    try:
        target = source.join(response.headers["Location"])
    except Exception:  # a Location the client could not follow either
        target = None
    if target is not None and _origin(target) == _origin(source):
        return
    response.headers[REFUSED_HEADER] = str(target) if target is not None else response.headers["Location"]
    del response.headers["Location"]


def refused_redirect_text(headers: Any) -> str | None:
    """The error text for a redirect `refuse_cross_origin_redirect` stopped, else None."""
    target = headers.get(REFUSED_HEADER) if headers is not None else None
    if not target:
        return None
    return (
        f"the provider redirected the request to another origin ({target}); pi-tui does not follow such "
        "a redirect, so neither the conversation nor a key was sent there (set baseUrl to the new "
        "address if it is right)"
    )
