# FaultMaven for Slack — the two commands a newcomer needs are `make run` and `make test`.
# Both create and refresh the virtual environment in .venv on their own.

PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TORCH  := torch==2.13.0

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export LITELLM_LOCAL_MODEL_COST_MAP := True
export LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS := True
export LANCEDB_LOG := error
export TOKENIZERS_PARALLELISM := false

.PHONY: setup run test test-quick lint fmt bench bench-smoke clean doctor eval demo

setup: $(STAMP)

# Re-run whenever the declared dependencies change; torch first, pinned, so nothing pulls a CUDA build.
$(STAMP): pyproject.toml constraints.txt
	@command -v $(PYTHON) >/dev/null || { echo "Python 3.11 is required ($(PYTHON) not found)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(TORCH)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev,postgres]'
	touch $(STAMP)

run: $(STAMP)
	@if [ -n "$$SLACK_BOT_TOKEN" ] || grep -qs '^SLACK_BOT_TOKEN=.' .env; then \
		$(BIN)/fm run; \
	else \
		echo "No SLACK_BOT_TOKEN set: starting the local console surface (fm run --console)."; \
		$(BIN)/fm run --console; \
	fi

# The PostgreSQL tests run against FM_TEST_DATABASE_URL; when it is unset and a local server has a
# database "test" (as CI's has), they use it rather than being skipped.
PG_LOCAL := postgresql+asyncpg://postgres@127.0.0.1:5432/test
PG_FOUND := psql -q -h 127.0.0.1 -p 5432 -U postgres -d test -c 'select 1' >/dev/null 2>&1

test: $(STAMP)
	@if [ -z "$$FM_TEST_DATABASE_URL" ] && $(PG_FOUND); then \
		echo "PostgreSQL tests use $(PG_LOCAL) (set FM_TEST_DATABASE_URL to choose another)."; \
		export FM_TEST_DATABASE_URL=$(PG_LOCAL); \
	fi; \
	$(BIN)/python -m pytest --cov --cov-report=term $(PYTEST_ARGS)

# The loop while editing: the tests that load the embedding model (marked slow) are left out, and
# so is coverage. `make test` stays the whole suite, and CI runs that.
test-quick: $(STAMP)
	$(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

fmt: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Every figure the README documents (retrieval, the bot under load, start-up, /metrics cost);
# a run takes a while. It fails only when a benchmark stops or leaves out a figure, never on speed.
bench: $(STAMP)
	$(BIN)/python -m tests.benchmarks

# The same benchmarks at small sizes, for CI: that each runs to the end and prints its figures.
bench-smoke: $(STAMP)
	$(BIN)/python -m tests.benchmarks --smoke

doctor: $(STAMP)
	$(BIN)/fm doctor

# The evaluation scenarios through the real turn engine, against FM_LLM_MODEL when one is set;
# without a model, or with EVAL_ARGS="--investigator competent|poor", a scripted investigator
# plays. Results in eval-results/.
eval: $(STAMP)
	$(BIN)/fm eval $(EVAL_ARGS)

# Three incidents (checkout-api, a Kafka consumer, an Alertmanager alert) through the bot against
# a fake Slack and a scripted model, written to demo-output/ (kafka/, alert/): each thread as HTML
# and PNG, the payloads, and its numbers. DEMO_ARGS=--update-docs refreshes docs/demo*.png|html.
demo: $(STAMP)
	$(BIN)/python -m tests.demo --out demo-output $(DEMO_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .coverage *.egg-info
