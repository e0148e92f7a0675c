# The two commands of the README: `make test` and `make book`. Each creates .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SCALE ?= small
DEVICE ?= auto

export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: setup test book notebooks lint clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml requirements-lock.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade-strategy only-if-needed -c requirements-lock.txt -e ".[book,dev]"
	touch $@

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
