"""pi-tui: a terminal coding agent whose context management you can see."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pi-tui")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"
