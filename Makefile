# The two commands the README starts with:
#   make demo   set everything up, then two promptfoo evals: scripted agents run and graded
#               (npx promptfoo eval -c promptfooconfig.agents.yaml), then the comparison of the
#               example agents' submissions (npx promptfoo eval), last, so that npx promptfoo view
#               opens it (it opens the latest eval; the other is one click away under Evals)
#               each eval's report page (runners report, docs/report.md) is named on its last line
#   make test   lint (make lint), then run the project's tests
.PHONY: setup setup-full demo lint test test-fast bench

# uv on PATH, else the one pip installed (scripts/setup.sh installs it on a fresh machine).
UV := $(shell command -v uv 2>/dev/null || echo python3 -m uv)

setup:
	bash scripts/setup.sh

setup-full:
	bash scripts/setup.sh --full

demo: setup-full
	bash scripts/compare.sh -c promptfooconfig.agents.yaml
	bash scripts/compare.sh

# ruff's findings and its formatting, over the whole repository (pyproject.toml's [tool.ruff];
# ruff comes with the dev dependencies that setup syncs).
lint: setup
	$(UV) run --no-sync ruff check .
	$(UV) run --no-sync ruff format --check .

# setup first (a few seconds when already set up), so `make test` works on a fresh machine;
# then --no-sync: setup has just synced and byte-compiled the environment. Lint first: seconds.
test: setup lint
	$(UV) run --no-sync pytest

# Fast feedback: no dockerd, no network, no npm, no real framework runs (tests/conftest.py), no
# test over about a second (`slow`); one pytest-xdist worker per CPU.
test-fast: setup
	$(UV) run --no-sync pytest -q -n auto -m "not docker and not node and not slow and not toolchain"

bench: setup
	$(UV) run --no-sync python -m bench
