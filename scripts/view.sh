#!/usr/bin/env bash
# The promptfoo web viewer over the evals stored by scripts/compare.sh (same PROMPTFOO_CONFIG_DIR).
#
#   bash scripts/view.sh            # http://localhost:15500
#   bash scripts/view.sh 15600      # another port (or PROMPTFOO_VIEW_PORT=15600)
#
# Note: `promptfoo view` listens on all interfaces and has no host option; on a shared machine,
# firewall the port or use an SSH tunnel.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/promptfoo-env.sh
runners_require_tools

port="${1:-${PROMPTFOO_VIEW_PORT:-15500}}"
echo "view: http://localhost:$port  (Ctrl-C to stop)"
exec npx --no-install promptfoo view -p "$port" -n
