"""Recognise the image formats the read tool returns as images, by content (pi: jpg, png, gif, webp)."""

from __future__ import annotations

SNIFF_BYTES = 16


def sniff_image_mime(head: bytes) -> str | None:
    """The MIME type if `head` (the file's first bytes) starts a supported image, else None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    return None
