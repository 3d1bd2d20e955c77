"""pi-tui: a terminal coding agent whose context management you can see."""

# The one place the version is written (pyproject.toml reads it from here, `[tool.hatch.version]`): a
# constant, because asking importlib.metadata at import cost 30-130 ms on every start, `--version` too.
__version__ = "0.1.0"
