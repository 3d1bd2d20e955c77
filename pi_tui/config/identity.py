"""How pi-tui names itself to providers that ask (OpenRouter's app attribution headers)."""

from __future__ import annotations

APP_NAME = "pi-tui"
APP_URL = "https://github.com/pi-tui/pi-tui"
APP_CATEGORY = "cli-agent"
