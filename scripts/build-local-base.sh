#!/usr/bin/env bash
# Build the local base image `runners-local-base:bookworm` without pulling from any registry.
#
# A minimal Debian (debootstrap --variant=minbase) with what our images need (python3,
# python3-venv, ca-certificates, libstdc++6 for node), taken from the Debian mirror this machine's
# apt already uses, cached as a tarball so a second run (or a second CI run on the same machine)
# skips debootstrap, then `docker import`ed. Idempotent: nothing is redone when the image already
# carries the tarball's checksum.
#
# Environment:
#   RUNNERS_BASE_CACHE_DIR  where the rootfs tarball is kept   (default /var/cache/runners-base)
#   RUNNERS_BASE_SUITE      Debian suite                        (default bookworm)
#   RUNNERS_BASE_IMAGE      image name to import as             (default runners-local-base:$SUITE)
#   RUNNERS_DEBIAN_MIRROR   mirror URL (default: read from /etc/apt/sources.list{,.d/*})
#   RUNNERS_BASE_REBUILD=1  debootstrap again even when a tarball is cached
#
# Prints the image name on its last line.
set -euo pipefail

CACHE_DIR="${RUNNERS_BASE_CACHE_DIR:-/var/cache/runners-base}"
SUITE="${RUNNERS_BASE_SUITE:-bookworm}"
IMAGE="${RUNNERS_BASE_IMAGE:-runners-local-base:${SUITE}}"
ARCH="$(dpkg --print-architecture)"
# Bump when the rootfs recipe below changes, so cached tarballs of an older recipe are not reused.
RECIPE_VERSION=1
INCLUDE="python3,python3-venv,ca-certificates,libstdc++6,passwd"
LABEL_KEY="runners.base.sha256"

log() { printf '[build-local-base] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (debootstrap and docker import need it)"
command -v docker >/dev/null || die "the docker CLI is missing (apt-get install docker.io)"
docker version --format '{{.Server.Version}}' >/dev/null 2>&1 \
    || die "the Docker engine does not answer (start dockerd first)"

# The mirror this machine's apt uses for $SUITE: deb822 .sources files first, then sources.list.
read_mirror() {
    if [ -n "${RUNNERS_DEBIAN_MIRROR:-}" ]; then
        printf '%s\n' "$RUNNERS_DEBIAN_MIRROR"
        return
    fi
    local found=""
    shopt -s nullglob
    local sources=(/etc/apt/sources.list.d/*.sources)
    if [ "${#sources[@]}" -gt 0 ]; then
        found="$(awk -v suite="$SUITE" '
            function flush() {
                if (types ~ /(^|[ \t])deb([ \t]|$)/ && (" " suites " ") ~ ("[ \t]" suite "[ \t]") && uris != "" && first == "") {
                    split(uris, parts, /[ \t]+/); first = parts[1]
                }
                types = ""; suites = ""; uris = ""
            }
            /^[ \t]*$/ { flush(); next }
            /^[ \t]*#/ { next }
            tolower($1) == "types:"  { sub(/^[^:]*:[ \t]*/, ""); types = $0 }
            tolower($1) == "suites:" { sub(/^[^:]*:[ \t]*/, ""); suites = $0 }
            tolower($1) == "uris:"   { sub(/^[^:]*:[ \t]*/, ""); uris = $0 }
            END { flush(); if (first != "") print first }
        ' "${sources[@]}")"
    fi
    if [ -z "$found" ]; then
        local lists=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list)
        for list in "${lists[@]}"; do
            [ -f "$list" ] || continue
            found="$(awk -v suite="$SUITE" '
                $1 == "deb" {
                    i = 2
                    if ($i ~ /^\[/) { while ($i !~ /\]$/ && i < NF) i++; i++ }
                    if ($(i + 1) == suite) { print $i; exit }
                }' "$list")"
            [ -n "$found" ] && break
        done
    fi
    [ -n "$found" ] || die "no 'deb' source for suite $SUITE in /etc/apt/sources.list{,.d/*}; set RUNNERS_DEBIAN_MIRROR"
    printf '%s\n' "$found"
}

mkdir -p "$CACHE_DIR"
exec 9>"$CACHE_DIR/.lock"
flock 9

KEY="$(printf '%s\n' "$RECIPE_VERSION" "$SUITE" "$ARCH" "$INCLUDE" | sha256sum | cut -c1-12)"
TARBALL="$CACHE_DIR/rootfs-${SUITE}-${ARCH}-${KEY}.tar.gz"

if [ "${RUNNERS_BASE_REBUILD:-0}" = 1 ]; then
    rm -f "$TARBALL"
fi

if [ ! -s "$TARBALL" ]; then
    if ! command -v debootstrap >/dev/null; then
        log "installing debootstrap"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null \
            || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null; }
    fi
    MIRROR="$(read_mirror)"
    ROOT="$(mktemp -d "$CACHE_DIR/rootfs.XXXXXX")"
    trap 'rm -rf "$ROOT" "$TARBALL.tmp"' EXIT
    log "debootstrap --variant=minbase $SUITE ($ARCH) from the apt mirror of this machine"
    started=$(date +%s)
    if ! debootstrap --variant=minbase --arch="$ARCH" --include="$INCLUDE" \
            "$SUITE" "$ROOT" "$MIRROR" >"$CACHE_DIR/debootstrap.log" 2>&1; then
        tail -n 30 "$CACHE_DIR/debootstrap.log" >&2
        [ -f "$ROOT/debootstrap/debootstrap.log" ] && tail -n 30 "$ROOT/debootstrap/debootstrap.log" >&2
        die "debootstrap failed (log: $CACHE_DIR/debootstrap.log)"
    fi
    # Nothing host-specific or cached in the image: package lists, downloaded .debs, logs, and
    # the resolv.conf/hostname debootstrap copied from the host (docker provides its own).
    rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/cache/apt/archives/*.deb \
           "$ROOT"/var/log/* "$ROOT"/debootstrap "$ROOT"/tmp/* "$ROOT"/var/tmp/*
    : >"$ROOT/etc/resolv.conf"
    echo localhost >"$ROOT/etc/hostname"
    log "debootstrap took $(( $(date +%s) - started )) s; packing the rootfs"
    tar --numeric-owner --xattrs -C "$ROOT" \
        --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' \
        -cf - . | gzip -1 >"$TARBALL.tmp"
    mv "$TARBALL.tmp" "$TARBALL"
    rm -rf "$ROOT"
    trap - EXIT
    # Older recipes' tarballs are never used again.
    find "$CACHE_DIR" -maxdepth 1 -name "rootfs-${SUITE}-${ARCH}-*.tar.gz" ! -name "$(basename "$TARBALL")" -delete
else
    log "reusing cached rootfs $TARBALL"
fi

SHA="$(sha256sum "$TARBALL" | cut -d' ' -f1)"
CURRENT="$(docker image inspect --format "{{ index .Config.Labels \"$LABEL_KEY\" }}" "$IMAGE" 2>/dev/null || true)"
if [ "$CURRENT" = "$SHA" ]; then
    log "$IMAGE is up to date"
else
    log "docker import $IMAGE"
    docker import \
        --change "LABEL $LABEL_KEY=$SHA" \
        --change "LABEL runners.base.suite=$SUITE" \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' \
        --change 'CMD ["/bin/bash"]' \
        "$TARBALL" "$IMAGE" >/dev/null
fi
echo "$IMAGE"
