# Session Inspector: every task sets itself up (a local .venv) on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test bench screenshots clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

## Open the inspector on the bundled demo session (no network, no API key).
demo: $(STAMP)
	$(BIN)/session-inspector --demo

## Run the whole test suite (architecture contract, unit, property, snapshot, integration).
test: $(STAMP)
	$(BIN)/ruff check inspector widgets styles bench tests
	$(BIN)/lint-imports
	$(BIN)/python -m pytest

## Benchmarks (not tests): generate a ~1 GB session and compare against raw orjson parsing.
bench: $(STAMP)
	$(BIN)/python bench/run.py $(BENCH_ARGS)

## Regenerate the SVGs in screenshots/ from the demo session.
screenshots: $(STAMP)
	$(BIN)/python -m widgets.screenshots

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
