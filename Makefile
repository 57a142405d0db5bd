# The two commands the README starts with:
#   make demo   set everything up, then compare the example agents with promptfoo
#               (= npx promptfoo eval; then npx promptfoo view opens the viewer)
#   make test   run the project's tests
.PHONY: setup setup-full demo test bench

setup:
	bash scripts/setup.sh

setup-full:
	bash scripts/setup.sh --full

demo: setup-full
	bash scripts/compare.sh

test:
	uv run pytest

bench:
	uv run python -m bench
