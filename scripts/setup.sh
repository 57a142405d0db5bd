#!/usr/bin/env bash
# Set up everything the harness needs on a fresh Debian/Ubuntu machine (idempotent):
# uv and the project's Python environment, bubblewrap, Go (for Go problems), and with --full also
# Docker and its images, the npm tools (promptfoo, vitest, jest, Node 22), and the real agent CLIs
# of the presets (scripts/setup-agents.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

full=0
[[ "${1:-}" == "--full" ]] && full=1

as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

# uv: the one on PATH, else pip's (run as `python3 -m uv` when pip put it off PATH).
uv=(uv)
if ! command -v uv >/dev/null 2>&1; then
  uv=(python3 -m uv)
  if ! "${uv[@]}" --version >/dev/null 2>&1; then
    echo "setup: installing uv"
    if ! python3 -m pip --version >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
      apt_install python3-pip
    fi
    # A system Python (PEP 668) refuses a plain install: fall back to the user's site.
    python3 -m pip install --quiet uv 2>/dev/null ||
      python3 -m pip install --quiet --user --break-system-packages uv
  fi
fi
# Locks from the exact pins in pyproject.toml, then installs, byte-compiled once here (not on
# every `uv run`: see [tool.uv] in pyproject.toml); where PYTHONDONTWRITEBYTECODE is set (many
# Docker and CI images) Python would otherwise compile pydantic, rich, click... on every command.
"${uv[@]}" sync --quiet --compile-bytecode
# The project itself is installed editable, so uv leaves it alone.
"${uv[@]}" run --no-sync --quiet python -m compileall -q runners >/dev/null

if command -v apt-get >/dev/null 2>&1; then
  apt_install bubblewrap util-linux
  command -v go >/dev/null 2>&1 || apt_install golang-go
  # headless Chromium for browser cases on bubblewrap and none (docker: the runners-browser image)
  command -v chromium >/dev/null 2>&1 || apt_install chromium
fi

if ((full)); then
  [[ -x scripts/ci-docker.sh ]] && bash scripts/ci-docker.sh
  [[ -x scripts/ci-podman.sh ]] && bash scripts/ci-podman.sh  # the podman sandbox's tests
  [[ -x scripts/setup-node.sh ]] && bash scripts/setup-node.sh
  # the real agent CLIs of the presets (after the images: their docker images build on runners-cases)
  [[ -x scripts/setup-agents.sh ]] && bash scripts/setup-agents.sh
fi
echo "setup: done"
