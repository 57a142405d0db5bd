# The two commands the README starts with:
#   make demo   set everything up, then compare the example agents with promptfoo
#               (= npx promptfoo eval; then npx promptfoo view opens the viewer)
#   make test   run the project's tests
.PHONY: setup setup-full demo test test-fast bench

setup:
	bash scripts/setup.sh

setup-full:
	bash scripts/setup.sh --full

demo: setup-full
	bash scripts/compare.sh

test:
	uv run pytest

# Fast feedback: no dockerd, no network, no npm, no real framework runs (tests/conftest.py).
test-fast:
	uv run pytest -q -m "not docker and not node and not slow and not toolchain"

bench:
	uv run python -m bench
