#!/usr/bin/env bash
# The README's picture of the viewer: the first screen (1600 x 1000) of the latest Promptfoo eval,
# as `npx promptfoo view` shows it, into docs/images/promptfoo-viewer.png. Run `make demo` (or
# `bash scripts/compare.sh`) first: the comparison of the example agents is then the latest eval.
# Uses headless Debian Chromium through playwright-core, as tests/promptfoo/test_viewer.py does.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${PORT:-15577}
work=$(mktemp -d)
setsid npx promptfoo view -p "$port" -n >"$work/view.log" 2>&1 &
viewer=$!
trap 'kill -- -"$viewer" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 90); do
  curl -fs "http://127.0.0.1:$port/health" >/dev/null && break
  sleep 1
done
options=$(printf '{"url":"http://127.0.0.1:%s/","width":1600,"chromium":"/usr/bin/chromium",
  "userDataDir":"%s/profile","screenshot":"%s/full.png","firstScreen":"%s/first.png",
  "expect":["passing"],"timeoutMs":60000}' "$port" "$work" "$work" "$work")
node_modules/.bin/node tests/promptfoo/viewer_check.cjs "$options" >"$work/report.json"
mkdir -p docs/images
cp "$work/first.png" docs/images/promptfoo-viewer.png
echo "docs/images/promptfoo-viewer.png: $(wc -c <docs/images/promptfoo-viewer.png) bytes"
