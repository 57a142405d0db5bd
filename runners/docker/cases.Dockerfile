# The image case-based problems run in (docker sandbox backend) when the submission's command is
# not the default Python one (`adapter.command`, or a .js/.sh entry file): the python image (the
# case program's toolchain runs on its python3) plus Node (node, npm, npx in /usr/local/bin).
# Node comes as for the node image: from the npm packages node-linux-<arch> and npm, put by
# runners.images into the context directory node-dist/ (empty when the base already has node).
# Build it with `python -m runners image build --kind cases` (after the python image).
ARG BASE_IMAGE=runners-python:latest
FROM ${BASE_IMAGE}

USER root
COPY node-dist/ /usr/local/
RUN set -eu; \
    major="$(node -p 'process.versions.node.split(".")[0]')"; \
    if [ "$major" -lt 20 ]; then echo "node >= 20 is required, the image has $(node --version)" >&2; exit 1; fi; \
    python3 --version; node --version; command -v bash

LABEL runners.kind=cases
USER 1000:1000
CMD ["node", "--version"]
