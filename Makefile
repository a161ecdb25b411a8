# Penta: `make run` serves the game on http://127.0.0.1:8000, `make test` runs the whole suite.
# Both set everything up on a fresh machine (a Python >= 3.12 is the one thing they need).

PORT ?= 8000
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
DEV := DEBUG=true
# The first Python >= 3.12 on the PATH (pyenv's shims honour .python-version).
PYTHON ?= $(shell for p in python3.13 python3.12 python3 python; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null \
	&& { echo $$p; break; }; done)

.PHONY: run test test-fast test-browser install lock lint format messages migrate strategy clean

# Exactly the locked versions (requirements/dev.txt, with hashes; `make lock` makes it from pyproject.toml).
$(VENV)/.installed: requirements/dev.txt
	@if [ -z "$(PYTHON)" ]; then echo "Penta needs Python 3.12 or newer (Django 6); none was found on the PATH." >&2; exit 1; fi
	@[ -x $(PY) ] || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes --no-deps -r requirements/dev.txt
	@touch $@

install: $(VENV)/.installed

# The compiled .mo files are committed; recompile when GNU gettext is there.
# These manage.py calls run on a developer's machine: DEBUG=true lets the settings load without a
# SECRET_KEY (with DEBUG off they refuse to, as a production server must).
messages: install
	@if command -v msgfmt >/dev/null 2>&1; then $(DEV) $(PY) manage.py compilemessages --ignore=.venv -v0; \
	else echo "msgfmt (GNU gettext) not found: using the committed translations"; fi

migrate: install
	$(DEV) $(PY) manage.py migrate --no-input -v0

strategy: install
	$(DEV) $(PY) manage.py build_strategy --if-missing

# The server runs the game clock (auto-commits, turn timers, computer moves) itself.
# PORT goes to the settings too: the links in its mails lead back to this server (PENTA_SITE_URL).
run: install messages migrate strategy
	$(DEV) PORT=$(PORT) $(PY) manage.py runserver 127.0.0.1:$(PORT)

# The non-browser tests run in parallel (one worker per core); the browser tests in a second pytest
# process of their own: sync Playwright keeps an event loop in the main thread, which the async tests
# must not share, and their daphne servers already keep the cores busy.
test: install messages
	$(BIN)/pytest -m "not browser" -n auto $(PYTEST_ARGS)
	DJANGO_ALLOW_ASYNC_UNSAFE=true $(BIN)/pytest -m browser $(PYTEST_ARGS)

test-fast: install
	$(BIN)/pytest -m "not browser" -x -q $(PYTEST_ARGS)

# The layers and the apps' independence (pyproject.toml, [tool.importlinter]) are checked with the style.
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

# requirements/base.txt is what a server needs, requirements/dev.txt adds the tests and tools; both pin
# every package with its hashes, for Python 3.12 and newer on any platform.
UV := var/lock-tools/bin/uv
lock:
	@[ -x $(UV) ] || { $(PYTHON) -m venv var/lock-tools && var/lock-tools/bin/pip install --quiet "uv==0.13.9"; }
	$(UV) pip compile pyproject.toml --universal --python-version 3.12 --generate-hashes --quiet \
		--no-header -o requirements/base.txt
	$(UV) pip compile pyproject.toml --group dev --universal --python-version 3.12 --generate-hashes --quiet \
		--no-header -o requirements/dev.txt

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache .ruff_cache .hypothesis
