"""SCBench's verifier helpers and parsers, re-implemented from their documented behaviour
(`../shared/reference/scbench-cases.md` §3.6) for problem scripts written against them; the
`slop_code` package in `../compat` exposes them under SCBench's import paths."""
