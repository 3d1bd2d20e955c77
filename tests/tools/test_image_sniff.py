from __future__ import annotations

from pi_tui.tools.image_sniff import sniff_image_mime


def test_sniffs_supported_formats_only() -> None:
    assert sniff_image_mime(b"\x89PNG\r\n\x1a\n....") == "image/png"
    assert sniff_image_mime(b"\xff\xd8\xff\xdb") == "image/jpeg"
    assert sniff_image_mime(b"GIF87a") == "image/gif"
    assert sniff_image_mime(b"RIFF\x10\x00\x00\x00WEBP") == "image/webp"
    assert sniff_image_mime(b"RIFF\x10\x00\x00\x00WAVE") is None
    assert sniff_image_mime(b"BM\x00\x00") is None
    assert sniff_image_mime(b"") is None
