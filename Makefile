# dpviz: entry points, all self-installing into .venv (needs only python3 >= 3.11).
#   make run   -> install and launch the dashboard
#   make test  -> install and run the whole test suite (what CI runs)
#   make check -> the same without the real-browser tests (@pytest.mark.browser): what a developer runs while working
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test check install bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/python serve.py

test: $(STAMP)
	$(BIN)/python -m pytest

check: $(STAMP)
	$(BIN)/python -m pytest -m "not browser"

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
