#!/usr/bin/env bash
# Compare agents side by side: runs `promptfoo eval` on promptfooconfig.yaml (or the config given
# with -c/--config) in the project's promptfoo environment (scripts/promptfoo-env.sh), writes
# .runners/promptfoo/results.json and stores the eval for the web viewer (scripts/view.sh).
#
#   bash scripts/compare.sh                       # the example agents on the example problems
#   bash scripts/compare.sh -c my-agents.yaml     # another config
#   bash scripts/compare.sh --filter-pattern checkpoint_1   # any further `promptfoo eval` options
#
# Exit code: 0 when the eval ran (rows may have failed: promptfoo's exit code 100 means "some rows
# did not pass" and is the normal outcome of a comparison); promptfoo's own code otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/promptfoo-env.sh
runners_require_tools

config=promptfooconfig.yaml
args=()
while (($#)); do
  case "$1" in
    -c|--config) config="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
results="$PROMPTFOO_CONFIG_DIR/results.json"

status=0
npx --no-install promptfoo eval -c "$config" --no-cache --no-progress-bar \
  -o "$results" ${args[@]+"${args[@]}"} || status=$?
if ((status == 100)); then
  echo "compare: some rows did not pass (promptfoo exit code 100); that is a result, not an error"
  status=0
fi
if ((status == 0)); then
  echo "compare: results in ${results#"$PWD/"}"
  echo "compare: open the viewer with: bash scripts/view.sh   (then http://localhost:${PROMPTFOO_VIEW_PORT:-15500})"
fi
exit "$status"
