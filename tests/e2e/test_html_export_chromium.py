"""The exported page in a real browser: headless Chromium renders it, takes a screenshot, and its net
log shows that the page made no request at all. `make e2e` installs Chromium when it is missing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_tui.export.exporter import export_session
from pi_tui.export.html_export import HtmlOptions
from tests.export.hostile_session import SCRIPT, hostile_session

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is absent (Debian package `chromium`; `make e2e` installs it)",
)
QUIET = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    # Any name a page asks for fails to resolve: nothing can reach the network even by mistake.
    "--host-resolver-rules=MAP * ~NOTFOUND",
]
CONTROL = (
    '<!DOCTYPE html><html><head><link rel="stylesheet" href="https://evil.example/s.css"></head>'
    '<body><img src="http://evil.example/x.png"><p>control</p></body></html>'
)


def chromium(tmp_path: Path, page: Path, *mode: str) -> str:
    done = subprocess.run(
        [str(CHROMIUM), *QUIET, f"--user-data-dir={tmp_path / 'profile'}", *mode, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def page_requests(net_log: Path) -> list[str]:
    """URLs the page itself asked for; the browser's own housekeeping has no initiating origin."""
    log: dict[str, Any] = json.loads(net_log.read_text())
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    starts = [event.get("params", {}) for event in log["events"] if event["type"] == start]
    return [
        params["url"] for params in starts if "url" in params and params.get("initiator") != "not an origin"
    ]


def test_the_page_renders_and_loads_nothing(tmp_path: Path) -> None:
    hostile = hostile_session(tmp_path)
    page = export_session(hostile.store, tmp_path / "export.html", HtmlOptions(full_output=True)).path

    net_log = tmp_path / "net.json"
    dom = chromium(tmp_path, page, f"--log-net-log={net_log}", "--dump-dom")
    assert "Conversation (current branch)" in dom and "Context budget at the leaf" in dom
    assert "Session tree" in dom and "full line 1999" in dom
    assert SCRIPT.replace("<", "&lt;").replace(">", "&gt;") in dom
    assert "<script" not in dom.lower()
    assert page_requests(net_log) == []

    shot = tmp_path / "shot.png"
    chromium(tmp_path, page, "--window-size=1200,2400", f"--screenshot={shot}")
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) > 20_000  # a blank or unstyled page compresses to far less

    pdf = tmp_path / "print.pdf"
    chromium(tmp_path, page, "--no-pdf-header-footer", f"--print-to-pdf={pdf}")
    printed = pdf.read_bytes()
    assert printed.startswith(b"%PDF-") and len(printed) > 20_000


def test_the_net_log_does_see_a_page_that_loads_things(tmp_path: Path) -> None:
    """The check above can fail: the same run on a page with remote references lists them."""
    control = tmp_path / "control.html"
    control.write_text(CONTROL)
    net_log = tmp_path / "net.json"
    chromium(tmp_path, control, f"--log-net-log={net_log}", "--dump-dom")
    assert sorted(page_requests(net_log)) == ["http://evil.example/x.png", "https://evil.example/s.css"]
