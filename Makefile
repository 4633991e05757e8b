# FabricStudio: `make run` opens the designer, `make test` runs the whole suite.
# Both create the local virtual environment .venv when it is missing or out of date.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
EXAMPLE ?= examples/leaf-spine-storage-management.json

.PHONY: run test venv clean screenshots bench

$(STAMP): pyproject.toml
	@echo "FabricStudio: preparing $(VENV) (first run, or pyproject.toml changed)."
	@echo "Installing Qt (PySide6, about 100 MB), pyqtgraph, networkx, SimPy, pydantic, numpy"
	@echo "and the test tools; the first time this takes a few minutes."
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --progress-bar on -e '.[test]'
	touch $(STAMP)
	@echo "FabricStudio: $(VENV) is ready."

venv: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/fabricstudio gui $(EXAMPLE)

test: $(STAMP)
	$(VENV)/bin/lint-imports
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest

screenshots: $(STAMP)
	$(PY) tools/screenshots.py
	$(PY) tools/screenshots_simulation.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
