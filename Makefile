# The two commands the README starts with:
#   make demo   set everything up and run the example comparison of agents
#   make test   run the project's tests
.PHONY: setup setup-full demo test bench

setup:
	bash scripts/setup.sh

setup-full:
	bash scripts/setup.sh --full

demo: setup
	bash scripts/demo.sh

test:
	uv run --frozen pytest

bench:
	uv run --frozen python -m bench
