#!/usr/bin/env bash
# The example comparison: every example agent on every checkpoint of every example problem.
set -euo pipefail
cd "$(dirname "$0")/.."
for agent_dir in examples/submissions/*/; do
  agent=$(basename "$agent_dir")
  for problem_dir in "$agent_dir"*/; do
    problem=$(basename "$problem_dir")
    echo "=== agent $agent · problem $problem"
    uv run --frozen python -m runners evaluate "problems/$problem" --submission "$problem_dir" \
      --output "runs/demo/$agent/$problem" || true
  done
done
