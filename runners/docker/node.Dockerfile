# The image vitest/jest test runs execute in (docker sandbox backend): node >= 20 and npm.
#
# Real users build it on node:22-slim. CI builds it on the locally debootstrapped
# runners-local-base:bookworm, which has no node: runners.images then puts a Node distribution
# (node from the npm package node-linux-<arch>, npm from the npm package npm) into the context
# directory node-dist/, laid out like /usr/local. With a base that has node, node-dist/ is empty.
ARG BASE_IMAGE=node:22-slim
FROM ${BASE_IMAGE}

COPY node-dist/ /usr/local/

RUN set -eu; \
    major="$(node -p 'process.versions.node.split(".")[0]')"; \
    if [ "$major" -lt 20 ]; then echo "node >= 20 is required, the base has $(node --version)" >&2; exit 1; fi; \
    node --version; npm --version; \
    if getent passwd 1000 >/dev/null; then \
        old="$(getent passwd 1000 | cut -d: -f1)"; \
        [ "$old" = runner ] || usermod -l runner "$old"; \
        usermod -d /tmp/home -s /bin/sh runner; \
    else \
        getent group 1000 >/dev/null || groupadd -g 1000 runner; \
        useradd -u 1000 -g 1000 -d /tmp/home -M -s /bin/sh runner; \
    fi; \
    grp="$(getent group 1000 | cut -d: -f1)"; [ "$grp" = runner ] || groupmod -n runner "$grp"; \
    rm -rf /home/node; \
    mkdir -p /workspace /tmp/home; chown 1000:1000 /workspace /tmp/home

ENV HOME=/tmp/home \
    LANG=C.UTF-8 \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false
LABEL runners.kind=node
WORKDIR /workspace
USER 1000:1000
CMD ["node"]
