# The image browser cases run in (case-based problems with `adapter: {type: browser}`, docker
# sandbox backend): the cases image (python3 for the case program's toolchain, node for a
# JavaScript server) plus Debian's headless Chromium and a font. No browser is downloaded from anywhere else: Chromium
# comes from the distribution's packages (the proxy variables come in as build args).
# Build it with `python -m runners image build --kind browser` (after the cases image).
ARG BASE_IMAGE=runners-cases:latest
FROM ${BASE_IMAGE}

ARG HTTP_PROXY
ARG HTTPS_PROXY
ARG NO_PROXY
ARG http_proxy
ARG https_proxy
ARG no_proxy

USER root
RUN set -eu; \
    apt-get update -qq; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null; \
    rm -rf /var/lib/apt/lists/*; \
    chromium --version

LABEL runners.kind=browser
USER 1000:1000
CMD ["chromium", "--version"]
