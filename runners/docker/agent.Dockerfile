# An agent image: a coding-agent CLI installed at a pinned version (runners.agents.presets).
#
# Built by runners.agents.presets.install on first use (and by scripts/setup-agents.sh) on the
# runners-cases image, which has python3 (the model-server bridge of a dry run runs on it) and
# node 22. The package comes from its registry at build time: npm for the Node CLIs, uv for the
# Python ones, with the host's CA bundle (host-ca.crt; empty when the host has none) for a proxy
# that intercepts TLS. The CLI lands in /opt/runners-agent/bin (a venv for the Python ones).
ARG BASE_IMAGE=runners-cases:latest
FROM ${BASE_IMAGE}

ARG INSTALLER
ARG PACKAGE

USER root
COPY host-ca.crt /tmp/runners-build-ca.crt
RUN set -eu; \
    if [ -s /tmp/runners-build-ca.crt ]; then \
        export SSL_CERT_FILE=/tmp/runners-build-ca.crt npm_config_cafile=/tmp/runners-build-ca.crt; \
    fi; \
    case "$INSTALLER" in \
        npm) npm install --global --prefix /opt/runners-agent --no-audit --no-fund --loglevel=error \
                 --cache /tmp/npm-cache "$PACKAGE" ;; \
        pip) UV_CACHE_DIR=/tmp/uv-cache uv venv --quiet /opt/runners-agent --python "$(command -v python3)"; \
             UV_CACHE_DIR=/tmp/uv-cache uv pip install --quiet --compile-bytecode \
                 --python /opt/runners-agent/bin/python "$PACKAGE" ;; \
        *) echo "INSTALLER must be npm or pip, got '$INSTALLER'" >&2; exit 1 ;; \
    esac; \
    rm -rf /tmp/runners-build-ca.crt /tmp/npm-cache /tmp/uv-cache

ENV PATH=/opt/runners-agent/bin:/usr/local/bin:/usr/bin:/bin
LABEL runners.kind=agent
USER 1000:1000
