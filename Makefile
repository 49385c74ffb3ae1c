# ICg-Bench: `make demo` and `make test` set everything up themselves.
# Exact versions come from constraints.txt (the lock), so every machine builds the bytes
# CI tested. `make lock` regenerates it from pyproject.toml's lower bounds.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PIP := PIP_CONSTRAINT=$(CURDIR)/constraints.txt PIP_DISABLE_PIP_VERSION_CHECK=1 $(BIN)/python -m pip
STAMP := $(VENV)/.installed
PYTEST_ARGS ?= -n auto --dist loadfile
# Bytecode is cached even where PYTHONDONTWRITEBYTECODE is set (as on some CI images): an
# editable install leaves src/ uncompiled, so every command would compile the package again
# at each start, and pytest would rewrite every test module at each run. The caches go to
# __pycache__/ folders, which git ignores.
COMPILE := $(BIN)/python -m compileall -q src
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest

.PHONY: demo test test-drift test-slow test-mutation full-tier lint docs references contract schemas system-deps install install-dev lock bench clean

demo: $(STAMP)-run
	@$(COMPILE)
	$(BIN)/icgbench demo

test: $(STAMP)-dev system-deps full-tier
	@$(COMPILE)
	$(PYTEST) $(PYTEST_ARGS)

# The committed board is graded against the full tier: build it (into datasets/full/, which
# git ignores) when any of its files is missing, saying so; the build installs only files
# that match the committed descriptor.
full-tier: $(STAMP)-run
	@$(BIN)/icgbench data list --tier full >/dev/null 2>&1 || $(BIN)/icgbench data build --tier full --jobs 2

system-deps:
	@tools/install-system-deps.sh

test-slow: $(STAMP)-dev system-deps full-tier
	@$(COMPILE)
	$(PYTEST) -m slow $(PYTEST_ARGS)

# The drift checks: the committed small tier, the panel's published scores and the shipped
# effects regenerated from the code, and every model fitted twice (determinism).
test-drift: $(STAMP)-dev system-deps full-tier
	@$(COMPILE)
	$(PYTEST) -m "drift and not slow" $(PYTEST_ARGS)

# A time-boxed mutation campaign (not CI): MUTATION_MINUTES bounds it, results stay in
# mutants/ so a rerun resumes; tools/mutation-report prints the killed ratio per package.
MUTATION_MINUTES ?= 90
test-mutation: $(STAMP)-mutation system-deps
	mkdir -p mutants && ln -sfn ../$(VENV) mutants/$(VENV)
	timeout --foreground $(MUTATION_MINUTES)m $(BIN)/mutmut run --max-children 2; \
	  status=$$?; [ $$status -eq 0 ] || [ $$status -eq 124 ]  # 124: the time box ended it
	$(BIN)/python tools/mutation-report

lint: $(STAMP)-dev
	$(BIN)/ruff check src tests benchmarks

contract: $(STAMP)-dev system-deps
	$(BIN)/python -m icgbench.contract.build
	cd r && sh ./configure

schemas: contract

docs: $(STAMP)-dev full-tier
	$(BIN)/python -m icgbench.reference

# The page's reference lines on the full tier, shipped with the package (grading them takes
# a minute or two): rerun after changing grading code; make test-drift says when.
references: $(STAMP)-dev full-tier
	$(BIN)/python -m icgbench.leaderboard.references

bench: $(STAMP)-dev
	$(BIN)/python benchmarks/bench_generate.py
	$(BIN)/python benchmarks/bench_verify.py
	$(BIN)/python benchmarks/bench_score.py

install: $(STAMP)-run
install-dev: $(STAMP)-dev

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP)-run: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP) install --quiet -e .
	@touch $@

$(STAMP)-dev: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP) install --quiet -e '.[dev]'
	@touch $@ $(STAMP)-run

$(STAMP)-mutation: $(STAMP)-dev
	$(PIP) install --quiet -e '.[dev,mutation]'
	@touch $@

lock:
	rm -rf .lock-venv
	$(PYTHON) -m venv .lock-venv
	PIP_CONSTRAINT= .lock-venv/bin/python -m pip install --quiet --disable-pip-version-check '.[dev,mutation]' hatchling
	( echo "# The lock: exact versions \`make demo\` and \`make test\` install (regenerate: make lock)."; \
	  .lock-venv/bin/python -m pip freeze --exclude-editable --all | grep -v '^icgbench' | LC_ALL=C sort -f ) > constraints.txt
	rm -rf .lock-venv

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
	find src tests benchmarks -name __pycache__ -type d -prune -exec rm -rf {} +
