"""SCBench's import paths for case-based problem scripts, served by `runners.cases`."""
