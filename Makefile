# The two commands of the README: `make test` and `make book`. Each creates .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SCALE ?= small
DEVICE ?= auto

export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: setup setup-gpu test book notebooks lint clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml requirements-lock.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade-strategy only-if-needed -c requirements-lock.txt -e ".[book,dev]"
	touch $@

# CUDA machines: the same pins, with PyPI's torch 2.13.0 (its Linux build is the CUDA 13 one) and
# JAX's CUDA 13 plugin; PyPI alone (no local wheel folders), then the device report.
setup-gpu: setup
	$(BIN)/pip uninstall --quiet --yes torch
	PIP_FIND_LINKS= $(BIN)/pip install --quiet --index-url https://pypi.org/simple \
		-c requirements-lock.txt "torch==2.13.0" "jax[cuda13]"
	$(BIN)/reprolib doctor

test: setup
	$(BIN)/ruff check src tests notebooks benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/reprolib toc --check
	$(BIN)/pytest

# Execute every notebook at $(SCALE) into book/generated, then build the book strictly.
notebooks: setup
	$(BIN)/reprolib batch --scale $(SCALE) --device $(DEVICE)

book: notebooks
	$(BIN)/jupyter-book build . --warningiserror --nitpick --keep-going
	@echo "The book is in _build/html/index.html"

lint: setup
	$(BIN)/ruff check src tests notebooks benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy

clean:
	rm -rf _build book/generated
