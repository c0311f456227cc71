# Set-up and everyday commands. Everything installs into .venv from the project's own files, with
# every optional part (the extra `all`: MuJoCo, CasADi, OSQP, pymoo, Dask, FMPy; see pyproject.toml).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run lint test docs bench clean-cache clean-docs

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[all,test]"
	touch $(STAMP)

install: $(STAMP)

## run: install, then simulate the built-in scenario arm-relief into runs/arm-relief
run: install
	$(BIN)/actuatorlab run arm-relief --out runs/arm-relief

## lint: install, then check the code with ruff (rules and layout in pyproject.toml)
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## test: install, check the code (lint), then run the test suite (two parts side by side: tests/run_parts.py)
test: lint
	$(BIN)/python tests/run_parts.py

$(VENV)/.installed-docs: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[all,test,docs]"
	touch $@

## docs: install with the docs extra, then build the site into docs/_build/html: warnings are errors,
## cross-references checked (-n), every gallery example run (ACTUATORLAB_DOCS_QUICK=1 runs their short versions)
docs: $(VENV)/.installed-docs
	$(BIN)/python -m sphinx -b html -n -W --keep-going docs docs/_build/html

## bench: run every benchmark (not part of the test suite); figures go to docs/benchmarks.md by hand
bench: install
	$(BIN)/python benchmarks/run_all.py

## clean-cache: drop numba's compiled-kernel cache (needed after editing a kernel that others inline)
clean-cache:
	find src -name '*.nbi' -delete -o -name '*.nbc' -delete

## clean-docs: drop the built site, the generated API pages and the executed gallery
clean-docs:
	rm -rf docs/_build docs/generated docs/auto_examples docs/sg_execution_times.rst
