# memsite: `make run` serves the service and runs one job worker (Procfile), `make test` runs the
# test suite.
# Both set up everything first: virtualenv, requirements, the embedded PostgreSQL 17 with pgvector
# and Apache AGE (skipped when DATABASE_URL is set), and migrations.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export DJANGO_SETTINGS_MODULE := memsite.settings

.PHONY: run test lint db-start db-stop db-status setup migrate browser

run: setup migrate
	$(BIN)/python manage.py collectstatic --noinput -v 0
	$(BIN)/python manage.py ensure_demo_user
	@if [ "$$MEMSITE_SEED_DEMO" != "0" ]; then $(BIN)/python manage.py seed_demo || echo "demo data not added"; fi
	$(BIN)/honcho start

test: setup browser
	$(BIN)/ruff check .
	$(BIN)/python manage.py collectstatic --noinput -v 0
	$(BIN)/pytest

# The dashboard's browser tests drive Debian's chromium with chromedriver.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		(apt-get update -qq && apt-get install -y -qq chromium chromium-driver)

lint: setup
	$(BIN)/ruff check .

setup: $(STAMP) db-start

$(STAMP): requirements.txt requirements-nodeps.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -r requirements.txt
	$(BIN)/pip install -q --disable-pip-version-check --no-deps -r requirements-nodeps.txt
	$(BIN)/python manage.py prepare_embedding_model
	$(BIN)/python manage.py prepare_relation_model
	touch $(STAMP)

migrate: setup
	$(BIN)/python manage.py migrate --noinput -v 0

db-start:
	@if [ -z "$$DATABASE_URL" ]; then $(PYTHON) -m memsite.embedded_db start; \
	else echo "DATABASE_URL is set: using that database"; fi

db-stop:
	$(PYTHON) -m memsite.embedded_db stop

db-status:
	$(PYTHON) -m memsite.embedded_db status
