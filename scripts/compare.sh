#!/usr/bin/env bash
# A convenience over `npx promptfoo eval` (which is all it runs, from the project root, where
# promptfoo reads the project's settings from .env). promptfoo exits 100 both when rows failed
# their grade and when rows errored; this reads the eval's results and tells them apart
# (runners/promptfoo/verdict.py):
#
#   0    every row is a grade, passed or failed (promptfoo's 100 for failed rows is a result)
#   2    some row is bad input: a provider or problem config, a submission path, an agent that
#        never started (ERROR rows)
#   4    some row is a problem error: the problem's own files failed to load (ERROR rows)
#   3    some row is an infrastructure failure
#   1    promptfoo itself failed (its own error; no results)
# (the first that applies of 2, 4, 3; promptfoo's other codes are passed on).
# Then it makes the eval's report page (`runners report --eval latest`) and ends with its address.
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

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
results="$scratch/results.json"
# The config this eval reads (-c/--config, else promptfoo's default), to name it at the end.
config=promptfooconfig.yaml
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    -c | --config) config="${args[i + 1]:-$config}" ;;
    --config=*) config="${args[i]#--config=}" ;;
  esac
done

status=0
npx --no-install promptfoo eval "$@" -o "$results" || status=$?
if ((status == 0 || status == 100)) && [[ -f "$results" ]]; then
  if ((status == 100)); then
    echo "compare: some rows did not pass (promptfoo exit code 100)"
  fi
  status=0
  .venv/bin/python -m runners.promptfoo.verdict "$results" || status=$?
fi
if ((status == 0)); then
  # `promptfoo view` opens the latest eval; earlier ones are under Evals (top left).
  description=$(sed -n 's/^description: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$config" 2>/dev/null | head -n 1)
  echo "compare: every row is a grade; open the viewer with: npx promptfoo view   (http://localhost:15500; it opens this eval${description:+: $description})"
  # One static page of this eval (docs/report.md): the rows of the viewer link to it.
  if made=$(.venv/bin/python -m runners report --eval latest 2>&1); then
    echo "compare: the report page: ${made#report: }"
  else
    echo "compare: no report page: ${made##*$'\n'}" >&2
  fi
fi
exit "$status"
