# The image pytest-based test runs execute in (docker sandbox backend).
#
# Real users build it on python:3.12-slim; CI builds it on the locally debootstrapped
# runners-local-base:bookworm (no registry pulls). Build it with `python -m runners image build`
# (runners.images.build_image), which assembles the context: this file, the harness's own uv
# binary, python-tools.txt and the host CA bundle.
#
# Nothing submission-specific is baked in. The pinned test toolchain is prepared into the
# harness's content-hashed cache by the prepare step in any case; BAKE_TOOLCHAIN=1 additionally
# installs it at /opt/runners/tools (for offline images; it needs the package index at build time).
#
# Besides Python, the programs SCBench's image gives a submission (its setup_base.docker.j2 on
# astral's uv image), which its problems' tests call: uv and uvx; build-essential (gcc, g++,
# make), bzip2, xz, tar, gzip, zip, unzip, curl, ca-certificates, gnupg, procps (apt); Node >= 20
# (node-dist/, from the npm packages node-linux-<arch> and npm; empty when the base has node);
# Rust: rust-dist/ holds the build machine's toolchain (`rustc --print sysroot`, docs left out),
# else the distribution's rustc and cargo are installed; cargo, rustc and rustdoc are linked into
# /usr/local/bin, so nothing at run time needs rustup, and CARGO_HOME is the run's private home.
ARG BASE_IMAGE=python:3.12-slim
FROM ${BASE_IMAGE}

ARG BAKE_TOOLCHAIN=0

COPY uv uvx /usr/local/bin/
COPY node-dist/ /usr/local/
COPY rust-dist/ /usr/local/rust/
COPY python-tools.txt /opt/runners/python-tools.txt
COPY host-ca.crt /opt/runners/build-ca.crt

RUN set -eu; \
    export DEBIAN_FRONTEND=noninteractive; \
    rust=""; [ -x /usr/local/rust/bin/rustc ] || rust="rustc cargo"; \
    apt-get update -q; \
    apt-get install -y -q --no-install-recommends build-essential bzip2 xz-utils tar gzip zip unzip curl \
        ca-certificates gnupg procps $rust; \
    rm -rf /var/lib/apt/lists/*; \
    if [ -z "$rust" ]; then \
        for tool in cargo rustc rustdoc; do ln -s "/usr/local/rust/bin/$tool" "/usr/local/bin/$tool"; done; \
    else rmdir /usr/local/rust; fi; \
    python3 -c 'import sys, venv; assert sys.version_info >= (3, 10), sys.version'; \
    major="$(node -p 'process.versions.node.split(".")[0]')"; \
    if [ "$major" -lt 20 ]; then echo "node >= 20 is required, the image has $(node --version)" >&2; exit 1; fi; \
    uv --version; uvx --version; node --version; npm --version; g++ --version | head -n 1; \
    cargo --version; rustc --version; bzip2 --help 2>&1 | head -n 1; zip -v | head -n 2 | tail -n 1; \
    if getent passwd 1000 >/dev/null; then \
        old="$(getent passwd 1000 | cut -d: -f1)"; \
        [ "$old" = runner ] || usermod -l runner "$old"; \
        usermod -d /tmp/home -s /bin/sh runner; \
    else \
        getent group 1000 >/dev/null || groupadd -g 1000 runner; \
        useradd -u 1000 -g 1000 -d /tmp/home -M -s /bin/sh runner; \
    fi; \
    grp="$(getent group 1000 | cut -d: -f1)"; [ "$grp" = runner ] || groupmod -n runner "$grp"; \
    mkdir -p /workspace /tmp/home; chown 1000:1000 /workspace /tmp/home; \
    if [ "$BAKE_TOOLCHAIN" = 1 ]; then \
        if [ -s /opt/runners/build-ca.crt ]; then export SSL_CERT_FILE=/opt/runners/build-ca.crt; fi; \
        UV_CACHE_DIR=/tmp/uv-cache uv venv --quiet --python "$(command -v python3)" /opt/runners/tools; \
        UV_CACHE_DIR=/tmp/uv-cache uv pip install --quiet --python /opt/runners/tools/bin/python \
            -r /opt/runners/python-tools.txt; \
        rm -rf /tmp/uv-cache; \
    fi; \
    rm -f /opt/runners/build-ca.crt

ENV HOME=/tmp/home \
    LANG=C.UTF-8 \
    PYTHONDONTWRITEBYTECODE=1
LABEL runners.kind=python runners.uv=/usr/local/bin/uv
WORKDIR /workspace
USER 1000:1000
CMD ["python3"]
