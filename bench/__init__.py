"""Benchmarks of the harness: `python -m bench` (see bench/__main__.py and docs/benchmarks.md)."""
