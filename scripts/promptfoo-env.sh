# Sourced by scripts/compare.sh and scripts/view.sh, and read by bench/promptfoo.py for the bench
# and the promptfoo tests: the environment promptfoo runs in for this project. Offline, private,
# no caching, one interpreter.
#
#   PROMPTFOO_CONFIG_DIR      promptfoo's DB (evals the viewer shows), logs and cache live in the
#                             project (.runners/promptfoo/), not in ~/.promptfoo
#   PROMPTFOO_CACHE_ENABLED   false: never replay a stored provider result. The cache key hashes only
#                             the provider script, not `runners` or the submissions, so a replay
#                             could show an old grade. (The YAML's evaluateOptions.cache is ignored
#                             by the CLI; compare.sh also passes --no-cache.)
#   PROMPTFOO_PYTHON          the project's venv interpreter for the provider, the assertion and the
#                             test generator. promptfoo caches the first interpreter it validates
#                             for the whole process, so per-provider pythonExecutable is not used.
#   PROMPTFOO_DISABLE_*       no telemetry, update check, sharing or remote generation.
# Values already set in the environment win, except the ones that keep runs offline and uncached.
_runners_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PROMPTFOO_CONFIG_DIR="${PROMPTFOO_CONFIG_DIR:-$_runners_root/.runners/promptfoo}"
export PROMPTFOO_PYTHON="${PROMPTFOO_PYTHON:-$_runners_root/.venv/bin/python}"
export PROMPTFOO_CACHE_ENABLED=false
export PROMPTFOO_DISABLE_TELEMETRY=1
export PROMPTFOO_DISABLE_UPDATE=1
export PROMPTFOO_DISABLE_SHARING=1
export PROMPTFOO_DISABLE_REMOTE_GENERATION=1
export PROMPTFOO_DISABLE_REDTEAM_REMOTE_GENERATION=1
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
# npx and npm scripts put node_modules/.bin first on PATH, so promptfoo runs on the Node 22
# from the npm package `node`; make plain `node` resolve to it too.
export PATH="$_runners_root/node_modules/.bin:$PATH"
mkdir -p "$PROMPTFOO_CONFIG_DIR"

runners_require_tools() {
  if [[ ! -x "$_runners_root/node_modules/.bin/promptfoo" ]]; then
    echo "promptfoo is not installed: run 'bash scripts/setup-node.sh'" >&2
    return 1
  fi
  if [[ ! -x "$PROMPTFOO_PYTHON" ]]; then
    echo "$PROMPTFOO_PYTHON is missing: run 'uv sync' (or set PROMPTFOO_PYTHON)" >&2
    return 1
  fi
}
