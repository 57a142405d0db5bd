#!/usr/bin/env bash
# Install the project's Node tooling from package-lock.json (idempotent):
#   promptfoo 0.123.1 and the Node 22 it needs (npm package `node`, in node_modules/.bin),
#   playwright-core (viewer test), vitest and jest (the project's own JS tests), ESLint with
#   typescript-eslint and jscpd (the code-quality figures, docs/quality.md);
# and Debian's chromium for the viewer test, when missing and we are root.
#
# `npm ci` runs only when node_modules is not already in sync with the lock (a stamp holding the
# hash of package.json + package-lock.json, written after a successful install, plus a check
# that the key binaries are there). Set RUNNERS_NODE_FORCE=1 to reinstall anyway.
#
# Two install-time downloads from outside the npm registry are switched off (both come from
# optional dependencies of promptfoo and are not needed here):
#   PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1  @playwright/browser-chromium's Chrome download
#   ONNXRUNTIME_NODE_INSTALL=skip       onnxruntime-node's native binary download
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'setup-node: %s\n' "$*" >&2; }

export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
export ONNXRUNTIME_NODE_INSTALL=skip

command -v npm >/dev/null 2>&1 || { log "npm is missing (install Node >= 20 with npm first)"; exit 1; }
[[ -f package-lock.json ]] || { log "package-lock.json is missing"; exit 1; }

STAMP=node_modules/.runners-install.sha256
want="$(cat package.json package-lock.json | sha256sum | cut -d' ' -f1)"

in_sync() {
  [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]] || return 1
  local bin
  for bin in node promptfoo vitest jest; do
    [[ -x "node_modules/.bin/$bin" ]] || return 1
  done
  [[ -f node_modules/playwright-core/package.json ]] || return 1
  # The Node 22 from the `node` package must actually run (promptfoo needs >= 22.22).
  node_modules/.bin/node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=22)?0:1)' \
    >/dev/null 2>&1
}

if [[ "${RUNNERS_NODE_FORCE:-0}" != 1 ]] && in_sync; then
  log "node_modules is in sync with package-lock.json (node $(node_modules/.bin/node --version)); nothing to do"
else
  log "npm ci (promptfoo, node 22, playwright-core, vitest, jest, eslint, jscpd)"
  started=$(date +%s)
  rm -f "$STAMP"
  npm ci --no-audit --no-fund --loglevel=error
  if ! node_modules/.bin/node --version >/dev/null 2>&1; then
    log "node_modules/.bin/node does not run after npm ci"; exit 1
  fi
  echo "$want" >"$STAMP"
  log "npm ci took $(( $(date +%s) - started )) s; node $(node_modules/.bin/node --version), promptfoo $(node -p 'require("./node_modules/promptfoo/package.json").version')"
fi

# Debian's chromium for tests/promptfoo/test_viewer.py (playwright-core drives it; no download).
if ! command -v chromium >/dev/null 2>&1 && [[ ! -x /usr/bin/chromium ]]; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    log "installing chromium (apt-get)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  else
    log "chromium is missing: run 'apt-get install chromium' as root for the viewer test"
  fi
fi
log "done"
