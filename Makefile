# Every target sets itself up: a fresh clone needs only `make run` or `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-shuffled lint bench fmt e2e clean demo screenshots

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the project definition changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/pi-tui $(ARGS)

demo: $(STAMP)
	$(BIN)/pi-tui --demo

lint: $(STAMP)
	$(BIN)/ruff check pi_tui tests bench
	$(BIN)/ruff format --check pi_tui tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint
	$(BIN)/pytest

# The same suite in a random order; `make test-shuffled SEED=N` repeats an order.
SEED ?= $(shell date +%s)
test-shuffled: $(STAMP)
	@echo "test order seed: $(SEED)"
	$(BIN)/pytest -p randomly -p no:cacheprovider --randomly-seed=$(SEED)

fmt: $(STAMP)
	$(BIN)/ruff format pi_tui tests bench
	$(BIN)/ruff check --fix pi_tui tests bench

# Browser and terminal tests; Chromium is installed when missing (needs root), else its tests are skipped.
e2e: $(STAMP)
	@command -v chromium >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y chromium; \
		else echo "e2e: chromium is not installed and installing it needs root;" \
			"run: sudo apt-get install -y chromium (its tests are skipped meanwhile)" >&2; fi; }
	$(BIN)/pytest tests/e2e

# The README's pictures, from the snapshot tests' scenarios (tests/tui/readme_pictures.py).
screenshots: $(STAMP)
	$(BIN)/python -m tests.tui.readme_pictures docs/screenshots

bench: $(STAMP)
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
