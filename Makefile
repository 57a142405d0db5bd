# The two commands the README starts with:
#   make demo   set everything up, then compare the example agents with promptfoo
#   make test   run the project's tests
.PHONY: setup setup-full demo view test bench

setup:
	bash scripts/setup.sh

setup-full:
	bash scripts/setup.sh --full

demo: setup-full
	bash scripts/compare.sh

view:
	bash scripts/view.sh

test:
	uv run pytest

bench:
	uv run python -m bench
