#!/usr/bin/env bash
# A convenience over `npx promptfoo eval` (which is all it runs, from the project root, where
# promptfoo reads the project's settings from .env): it also says that promptfoo's exit code 100
# ("some rows did not pass") is the normal outcome of a comparison, and exits 0 for it; then it
# makes the eval's report page (`runners report --eval latest`) and ends with its address.
#
#   bash scripts/compare.sh                       # = npx promptfoo eval (promptfooconfig.yaml)
#   bash scripts/compare.sh -c my-agents.yaml     # any `promptfoo eval` options
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -x node_modules/.bin/promptfoo ]]; then
  echo "promptfoo is not installed: run 'bash scripts/setup-node.sh'" >&2
  exit 1
fi
if [[ ! -x .venv/bin/python ]]; then
  echo ".venv/bin/python is missing: run 'uv sync'" >&2
  exit 1
fi

status=0
npx --no-install promptfoo eval "$@" || status=$?
if ((status == 100)); then
  echo "compare: some rows did not pass (promptfoo exit code 100); that is a result, not an error"
  status=0
fi
if ((status == 0)); then
  echo "compare: open the viewer with: npx promptfoo view   (http://localhost:15500)"
  # One static page of this eval (docs/report.md): the rows of the viewer link to it.
  if made=$(.venv/bin/python -m runners report --eval latest 2>&1); then
    echo "compare: the report page: ${made#report: }"
  else
    echo "compare: no report page: ${made##*$'\n'}" >&2
  fi
fi
exit "$status"
