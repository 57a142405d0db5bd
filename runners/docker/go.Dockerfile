# The image Go test runs execute in (docker sandbox backend): the go command, no network needed.
#
# Real users build it on golang:1.22-bookworm (go in /usr/local/go/bin). CI builds it on the
# locally debootstrapped runners-local-base:bookworm, which has no Go: Debian's golang-go is
# installed from the distribution's packages (the proxy variables come in as build args).
# Build it with `python -m runners image build --kind go`.
ARG BASE_IMAGE=golang:1.22-bookworm
FROM ${BASE_IMAGE}

ARG HTTP_PROXY
ARG HTTPS_PROXY
ARG NO_PROXY
ARG http_proxy
ARG https_proxy
ARG no_proxy

ENV PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

RUN set -eu; \
    if ! command -v go >/dev/null 2>&1; then \
        apt-get update -qq; \
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go >/dev/null; \
        rm -rf /var/lib/apt/lists/*; \
    fi; \
    go version; \
    if getent passwd 1000 >/dev/null; then \
        old="$(getent passwd 1000 | cut -d: -f1)"; \
        [ "$old" = runner ] || usermod -l runner "$old"; \
        usermod -d /tmp/home -s /bin/sh runner; \
    else \
        getent group 1000 >/dev/null || groupadd -g 1000 runner; \
        useradd -u 1000 -g 1000 -d /tmp/home -M -s /bin/sh runner; \
    fi; \
    grp="$(getent group 1000 | cut -d: -f1)"; [ "$grp" = runner ] || groupmod -n runner "$grp"; \
    mkdir -p /workspace /tmp/home; chown 1000:1000 /workspace /tmp/home

ENV HOME=/tmp/home \
    LANG=C.UTF-8 \
    GOTOOLCHAIN=local \
    GOPROXY=off \
    CGO_ENABLED=0
LABEL runners.kind=go
WORKDIR /workspace
USER 1000:1000
CMD ["go", "version"]
