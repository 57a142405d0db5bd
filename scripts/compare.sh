#!/usr/bin/env bash
# A convenience over `npx promptfoo eval` (which is all it runs, from the project root, where
# promptfoo reads the project's settings from .env): it also says that promptfoo's exit code 100
# ("some rows did not pass") is the normal outcome of a comparison, and exits 0 for it.
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
npx --no-install promptfoo eval "$@" || status=$?
if ((status == 100)); then
  echo "compare: some rows did not pass (promptfoo exit code 100); that is a result, not an error"
  status=0
fi
if ((status == 0)); then
  # `promptfoo view` opens the latest eval; earlier ones are under Evals (top left).
  description=$(sed -n 's/^description: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$config" 2>/dev/null | head -n 1)
  echo "compare: open the viewer with: npx promptfoo view   (http://localhost:15500; it opens this eval${description:+: $description})"
fi
exit "$status"
