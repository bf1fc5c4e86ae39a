# Accelerator Atlas — the two commands a fresh machine needs:
#   make serve   set up everything and serve the site on http://127.0.0.1:8000/
#   make test    set up everything (Chromium included) and run all tests
.DEFAULT_GOAL := help
SHELL := /bin/bash

PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
export NO_MKDOCS_2_WARNING := 1
# Python keeps the bytecode of what it imports (in __pycache__/, ignored by git; the in-page bundle leaves it out),
# also where the environment says otherwise (an empty value turns PYTHONDONTWRITEBYTECODE off): every test worker,
# site build, command-line and kernel-demo process of `make test` imports the same modules (README: what it saves).
export PYTHONDONTWRITEBYTECODE :=
# Tests run on every CPU (pytest-xdist); one test file stays on one worker, so its module fixtures run once
# (except the files tests/conftest.py lists in SPLIT_FILES, whose independent tests are spread one by one).
PYTEST_WORKERS ?= auto
PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --dist loadfile
# One BLAS/OpenMP thread per test worker (and for `make fit`, where a single fit took 147 s instead of 6 s with them): the workers already use every CPU, and OpenBLAS's own threads on top of
# them made the speed fit's cross-validation (scipy least_squares, an SVD per step) three times slower.
TEST_THREADS := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

.PHONY: help setup serve build validate test test-fast test-kernels kernels-setup chromium build-cache clean bench bench-cli new-device lint fit

help:
	@echo "make serve     set up and serve the site (English at /, German at /de/)"
	@echo "make test      set up and run all tests (installs Debian's chromium if missing)"
	@echo "make test-fast unit and property tests only: no site build, no browser, no kernel backends"
	@echo "make build     build the site into site/ (strict)"
	@echo "make validate  check the data set only"
	@echo "make lint      ruff and the import contracts (lint-imports) over all Python (also part of make test)"
	@echo "make fit       fit the speed model on data/inference/ and cross-validate it (writes atlas/core/calculators/fitted.py)"
	@echo "make bench     measure the command line and the in-page calculators (bench/cli-results.json, bench/results.json)"
	@echo "make bench-cli measure the command line alone: median seconds per answer (goal 0.3 s)"
	@echo "make new-device ID=rtx-5080 VENDOR_FOLDER=nvidia VENDOR=NVIDIA NAME='NVIDIA GeForce RTX 5080' KIND=gpu [LIKE=rtx-5090]"
	@echo "make test-kernels  install the kernel-demo backends (requirements-kernels.txt) and run their tests"

# pip --no-compile: Python compiles what is imported when it is first imported, instead of pip compiling every file
# of every package at install time (24 -> 14 s for requirements.txt, 23 -> 10 s for the kernel backends).
$(VENV)/.installed: requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "Python 3.11 is required, found " + sys.version' 
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile --no-deps --no-build-isolation --editable .
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

setup: $(VENV)/.installed node_modules/.installed

# Kernel-demo backends (PyTorch CPU build from this machine's disk, JAX, Triton), same venv.
$(VENV)/.kernels-installed: requirements-kernels.txt $(VENV)/.installed
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -r requirements-kernels.txt
	touch $@

kernels-setup: $(VENV)/.kernels-installed

test-kernels: kernels-setup
	$(PY) -m pytest -m kernels

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium for the browser tests"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; }

serve: setup
	$(VENV)/bin/mkdocs serve

build: setup
	$(VENV)/bin/mkdocs build --strict

validate: $(VENV)/.installed
	$(PY) -m atlas.data validate

fit: $(VENV)/.installed
	$(TEST_THREADS) $(PY) -m atlas.data fit

new-device: $(VENV)/.installed
	$(PY) -m atlas.data new-device "$(ID)" --vendor-folder "$(VENDOR_FOLDER)" --vendor "$(VENDOR)" --name "$(NAME)" --kind "$(KIND)" $(if $(LIKE),--like "$(LIKE)")

# What every site build reads from the build cache (.cache/atlas: the trimmed standard library, gzip copies of
# Pyodide's files), made once before the test run's builds start side by side and would each make it.
build-cache: setup
	$(PY) -m macros.runtime_hooks

# The set-up steps run side by side (pip, npm and apt each wait on disk and network much of the time); make keeps
# their order where one needs another (the kernel backends go into the virtual environment).
test:
	$(MAKE) --no-print-directory -j3 setup chromium kernels-setup build-cache
	$(TEST_THREADS) $(PY) -m pytest $(PYTEST_PARALLEL)

test-fast: setup
	$(TEST_THREADS) $(PY) -m pytest -q $(PYTEST_PARALLEL) -m "not browser and not slow and not kernels"

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache

clean:
	rm -rf site .pytest_cache .hypothesis .cache

bench-cli: $(VENV)/.installed
	$(PY) -m bench.cli

bench: setup chromium bench-cli
	$(VENV)/bin/mkdocs build --strict --quiet --site-dir bench/tmp/site
	$(PY) -m bench.calculators --site bench/tmp/site
