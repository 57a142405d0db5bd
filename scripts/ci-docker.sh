#!/usr/bin/env bash
# Everything the docker sandbox's tests need on a fresh machine, and nothing on a second run:
#   1. the Docker engine (Debian's docker.io), installed if missing and started if not answering;
#   2. the local base image runners-local-base:bookworm (scripts/build-local-base.sh: debootstrap
#      from this machine's apt mirror, cached as a tarball; no registry pull);
#   3. runners-python:latest and runners-node:latest built on it with the project's Python
#      (runners.images.ensure_images: skipped when the images' recipe label is current), and
#      runners-python:3.12 for the tests of `--python` / a problem's `python:` (the local base
#      has Debian's 3.11; this machine's pyenv or uv-managed 3.12 is copied in).
#
# Environment: PYTHON (default .venv/bin/python), RUNNERS_CI_PYTHONS (default "3.12"; versions
# of the extra images, space-separated, "" for none), RUNNERS_BASE_CACHE_DIR (see build-local-base.sh),
# DOCKERD_LOG (default /var/log/runners-dockerd.log).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
DOCKERD_LOG="${DOCKERD_LOG:-/var/log/runners-dockerd.log}"
export DEBIAN_FRONTEND=noninteractive

log() { printf '[ci-docker] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (installs and starts the Docker engine)"
[ -x "$PYTHON" ] || die "$PYTHON not found: create the project environment first (uv sync)"

apt_install() {
    apt-get install -y -q --no-install-recommends "$@" >/dev/null 2>&1 || {
        apt-get update -q >/dev/null
        apt-get install -y -q --no-install-recommends "$@" >/dev/null
    }
}

engine_answers() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

started=$(date +%s)

# 1. The engine.
if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null; then
    log "installing docker.io"
    apt_install docker.io
fi
if ! engine_answers; then
    log "starting dockerd (log: $DOCKERD_LOG)"
    setsid nohup dockerd >"$DOCKERD_LOG" 2>&1 </dev/null &
    for _ in $(seq 1 120); do
        engine_answers && break
        sleep 0.5
    done
    engine_answers || { tail -n 30 "$DOCKERD_LOG" >&2; die "dockerd did not come up within 60 s"; }
fi
log "Docker engine $(docker version --format '{{.Server.Version}}')"

# 2. The local base image.
bash "$ROOT/scripts/build-local-base.sh" >/dev/null

# 3. Our images. A base without node takes node and npm from the npm registry through `npm pack`.
if ! command -v npm >/dev/null; then
    log "installing npm (to fetch a Node distribution for runners-node)"
    apt_install npm
fi
RUNNERS_CI_PYTHONS="${RUNNERS_CI_PYTHONS-3.12}" "$PYTHON" - <<'EOF'
import os, sys, time

from runners.images import LOCAL_BASE, ensure_images

started = time.monotonic()
tags = ensure_images(base_image=LOCAL_BASE, pythons=os.environ["RUNNERS_CI_PYTHONS"].split(), log=lambda line: print(f"  {line}", file=sys.stderr)
                     if not line.startswith((" ---> ", "Step ", "Removing intermediate")) else None)
print(f"[ci-docker] images ready in {time.monotonic() - started:.1f} s: "
      + ", ".join(f"{kind}={tag}" for kind, tag in tags.items()), file=sys.stderr)
EOF
log "done in $(( $(date +%s) - started )) s"
