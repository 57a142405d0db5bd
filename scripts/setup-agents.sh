#!/usr/bin/env bash
# The real coding-agent CLIs of the presets (runners.agents.presets), at their pinned versions,
# installed where the `real_agent` tests run them: a cached toolchain for bubblewrap (npm / uv in
# the sandbox's prepare step) and an agent image for docker (runners-agent-<preset>:<version>).
# Idempotent: a second run only checks. The harness would install them at an agent's first step
# anyway; doing it here keeps that time out of the tests' own limits.
#
# Environment: PYTHON (default .venv/bin/python), RUNNERS_AGENT_SANDBOXES (default
# "bubblewrap docker"; only those usable here are set up).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
args=()
for sandbox in ${RUNNERS_AGENT_SANDBOXES:-bubblewrap docker}; do
    case "$sandbox" in
        docker) docker info >/dev/null 2>&1 || { echo "setup-agents: docker is not answering, skipped" >&2; continue; } ;;
        bubblewrap) command -v bwrap >/dev/null 2>&1 || { echo "setup-agents: no bwrap, skipped" >&2; continue; } ;;
    esac
    args+=(--sandbox "$sandbox")
done
if ((${#args[@]})); then
    "$PYTHON" -m runners preset install "${args[@]}"
fi
