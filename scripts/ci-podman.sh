#!/usr/bin/env bash
# What the `podman` sandbox's tests need, and nothing on a second run: podman and catatonit
# (Debian's packages), podman's Docker-compatible service on its rootful socket, and
# runners-python:latest copied from the Docker engine into podman's store (no registry pull).
# Run after scripts/ci-docker.sh (it builds the image). Environment: PODMAN_LOG (default
# /var/log/runners-podman.log).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SOCKET=/run/podman/podman.sock
PODMAN_LOG="${PODMAN_LOG:-/var/log/runners-podman.log}"
export DEBIAN_FRONTEND=noninteractive
export CONTAINERS_CONF="$ROOT/scripts/podman/containers.conf"
log() { printf '[ci-podman] %s\n' "$*" >&2; }

[ "$(id -u)" = 0 ] || { log "error: must run as root"; exit 1; }
if ! command -v podman >/dev/null || ! command -v catatonit >/dev/null; then
    log "installing podman and catatonit"
    apt-get install -y -q --no-install-recommends podman catatonit >/dev/null 2>&1 || {
        apt-get update -q >/dev/null
        apt-get install -y -q --no-install-recommends podman catatonit >/dev/null
    }
fi
answers() { curl -sf --unix-socket "$SOCKET" http://d/_ping >/dev/null 2>&1; }
if ! answers; then
    log "starting podman's service on $SOCKET (log: $PODMAN_LOG)"
    mkdir -p "$(dirname "$SOCKET")"
    setsid nohup podman system service --time=0 "unix://$SOCKET" >"$PODMAN_LOG" 2>&1 </dev/null &
    for _ in $(seq 1 60); do answers && break; sleep 0.5; done
    answers || { tail -n 20 "$PODMAN_LOG" >&2; log "error: podman's service did not answer"; exit 1; }
fi
image=runners-python:latest
if [ "$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null)" != "$(docker image inspect --format '{{.Id}}' "$image" | cut -d: -f2)" ]; then
    log "copying $image from the Docker engine into podman"
    docker save "$image" | podman load >/dev/null
fi
log "podman $(podman version --format '{{.Server.Version}}' 2>/dev/null || podman --version) ready"
