# Portality Brain. `make run` brings the product up on embedded defaults; `make test` runs the suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip

.PHONY: install install-dev system-packages run test test-fast lint check docs messages axe \
	bench bench-retrieval bench-answers bench-ingest bench-formats bench-search bench-chat \
	bench-load bench-vector-backends bench-scale-out bench-conversations bench-long-documents \
	bench-screening bench-redaction bench-across-languages bench-tours

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
	exec $(PY) -m runtime.runner

# ruff (style and bugs), mypy with django-stubs (types of the product code), import-linter
# (the apps' layers). .pre-commit-config.yaml runs the same before each commit.
lint: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	PYTHONPATH=. $(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache

check: install-dev
	DJANGO_SETTINGS_MODULE=tests.settings $(PY) manage.py makemigrations --check --dry-run

# Chromium and Tesseract (spa, por, eng) through apt when missing: scripts/system-packages.sh
system-packages:
	@scripts/system-packages.sh

# The documentation site (docs/, mkdocs.yml) into var/site; a broken link or anchor fails it.
docs: install-dev
	$(VENV)/bin/mkdocs build --strict --quiet

test: install-dev system-packages oidc-provider axe lint check docs
	$(VENV)/bin/pytest $(PYTEST_ARGS)

# The certified OpenID provider the single sign-on tests run (tests/oidc, from npm).
oidc-provider: tests/oidc/node_modules/.installed

tests/oidc/node_modules/.installed: tests/oidc/package-lock.json
	npm ci --prefix tests/oidc --no-audit --no-fund --silent
	touch $@

# Deque's axe-core, which the accessibility tests run in Chromium (tests/a11y, from npm).
axe: tests/a11y/node_modules/.installed

tests/a11y/node_modules/.installed: tests/a11y/package-lock.json
	npm ci --prefix tests/a11y --no-audit --no-fund --silent
	touch $@

# The inner loop: no browser, no Celery worker process, no make run / manage.py processes,
# none of the few tests that take over a second alone, in two processes (pytest-xdist).
# `make test` runs them all, in one.
test-fast: install-dev oidc-provider
	$(VENV)/bin/pytest -m "not e2e and not worker and not process and not slow" -n 2 $(PYTEST_ARGS)

# Benchmarks (tests/bench, outside the product and `make test`; BENCHMARKS.md has today's
# figures). `make bench` runs the kept set at its default sizes; each target runs one.
BENCH_CHUNKS ?= 20000
SHARED_BENCH ?= ../shared/bench

bench: bench-retrieval bench-answers bench-ingest bench-formats bench-search bench-chat \
	bench-load bench-vector-backends bench-scale-out bench-conversations bench-long-documents \
	bench-screening bench-redaction bench-across-languages

bench-retrieval: install-dev
	$(PY) manage.py bench_retrieval $(SHARED_BENCH)/xquad-es --split dev --json
	$(PY) manage.py bench_retrieval $(SHARED_BENCH)/faquad-pt --split dev --json

bench-answers: install-dev
	$(PY) manage.py bench_answers $(SHARED_BENCH)/xquad-es --split heldout --json
	$(PY) manage.py bench_answers $(SHARED_BENCH)/faquad-pt --split heldout --json

bench-long-documents: install-dev
	$(PY) manage.py bench_long_documents $(SHARED_BENCH)/xquad-es --split heldout --json
	$(PY) manage.py bench_long_documents $(SHARED_BENCH)/faquad-pt --split heldout --json

bench-screening: install-dev
	$(PY) manage.py bench_screening --json

bench-redaction: install-dev
	$(PY) manage.py bench_redaction --json

bench-across-languages: install-dev
	$(PY) manage.py bench_across_languages --shared $(SHARED_BENCH) --split dev --json

# The tours' questions asked again of the test documents, against the answers recorded in
# tests/bench/tours-answers.txt: a change to the offline answerer shows every answer it
# moves (TOURS_RECORD=1 records them). Not figures: not part of `make bench`.
bench-tours: install-dev
	$(VENV)/bin/pytest tests/bench/test_tours.py

bench-ingest: install-dev
	$(PY) manage.py bench_ingest --json

bench-formats: install-dev
	$(PY) manage.py bench_formats $(SHARED_BENCH)/xquad-es --split heldout --json
	$(PY) manage.py bench_formats $(SHARED_BENCH)/faquad-pt --split heldout --json

bench-search: install-dev
	$(PY) manage.py bench_search --chunks $(BENCH_CHUNKS) --licenses 200 --json

bench-chat: bench-search
	$(PY) manage.py bench_chat --chunks $(BENCH_CHUNKS) --json

bench-load: install-dev
	$(PY) -m tests.bench.load

bench-vector-backends: install-dev
	$(PY) manage.py bench_vector_backends $(SHARED_BENCH)/xquad-es --split heldout --json
	$(PY) manage.py bench_vector_backends $(SHARED_BENCH)/faquad-pt --split heldout --json

bench-scale-out: install-dev
	$(PY) -m tests.bench.scale_out

bench-conversations: install-dev
	$(PY) manage.py bench_conversations $(SHARED_BENCH)/xquad-es $(SHARED_BENCH)/faquad-pt --json

# The console's catalogs: extract marked strings (needs GNU gettext's xgettext), then fill
# them from locale/translations.py and compile (pure Python). Commit locale/ afterwards.
messages: install-dev
	DJANGO_SETTINGS_MODULE=tests.settings $(PY) manage.py makemessages -l es -l pt_BR \
		--ignore=.venv --ignore=var --ignore=tests --ignore=test-results --no-obsolete
	DJANGO_SETTINGS_MODULE=tests.settings $(PY) manage.py makemessages -d djangojs -l es -l pt_BR \
		--ignore=.venv --ignore=var --ignore=tests --ignore=test-results --ignore=static/widget \
		--no-obsolete
	$(PY) scripts/messages.py
