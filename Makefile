# Portality Brain. `make run` brings the product up on embedded defaults; `make test` runs the suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip

.PHONY: install install-dev system-packages run test test-fast lint check bench messages

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
	$(VENV)/bin/lint-imports --no-cache

check: install-dev
	DJANGO_SETTINGS_MODULE=tests.settings $(PY) manage.py makemigrations --check --dry-run

# Chromium and Tesseract (spa, por, eng) through apt when missing: scripts/system-packages.sh
system-packages:
	@scripts/system-packages.sh

test: install-dev system-packages lint check
	$(VENV)/bin/pytest $(PYTEST_ARGS)

# The inner loop: no browser, no Celery worker process, no make run / manage.py processes,
# none of the few tests that take over a second alone. `make test` runs them all.
test-fast: install-dev
	$(VENV)/bin/pytest -m "not e2e and not worker and not process and not slow" $(PYTEST_ARGS)

bench: install-dev
	$(VENV)/bin/pytest tests/bench -s $(PYTEST_ARGS)

# The console's catalogs: extract marked strings (needs GNU gettext's xgettext), then fill
# them from locale/translations.py and compile (pure Python). Commit locale/ afterwards.
messages: install-dev
	DJANGO_SETTINGS_MODULE=tests.settings $(PY) manage.py makemessages -l es -l pt_BR \
		--ignore=.venv --ignore=var --ignore=tests --ignore=test-results --no-obsolete
	DJANGO_SETTINGS_MODULE=tests.settings $(PY) manage.py makemessages -d djangojs -l es -l pt_BR \
		--ignore=.venv --ignore=var --ignore=tests --ignore=test-results --ignore=static/widget \
		--no-obsolete
	$(PY) scripts/messages.py
