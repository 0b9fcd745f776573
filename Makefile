# Portality Brain. `make run` brings the product up on embedded defaults; `make test` runs the suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip

.PHONY: install install-dev run test lint check bench clean-data

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e .
	touch $@

install-dev: $(VENV)/.installed-dev

$(VENV)/.installed-dev: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e '.[dev]'
	touch $(VENV)/.installed $@

run: install
	exec $(PY) -m portality.runner

lint: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

check: install-dev
	DJANGO_SETTINGS_MODULE=tests.settings $(PY) manage.py makemigrations --check --dry-run

test: install-dev lint check
	$(VENV)/bin/pytest $(PYTEST_ARGS)

bench: install-dev
	$(VENV)/bin/pytest tests/bench -s $(PYTEST_ARGS)
