"""The Go toolchain: the `go` command (the host's for bubblewrap and `none`, the image's for
docker) and our report signer, `runners-go-report`, built once per Go version into the cache.

Go problems use the standard library only: the test step runs offline (`GOPROXY=off`), with a
build cache of its own in the run's temporary directory (a shared one could be poisoned by one
submission for the next).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from runners.engine.excerpt import with_output
from runners.model.errors import InfrastructureError
from runners.model.limits import ResourceLimits
from runners.sandbox.base import Mount, Sandbox, SandboxRequest
from runners.toolchains.cache import CachedEnv, ensure_env
from runners.toolchains.hosts import toolchain_host

SIGNER_SOURCE = (
    Path(__file__).resolve().parent.parent / "frameworks" / "go" / "runners_go_report.go"
)
SIGNER = "runners-go-report"


def go_env(tmp: str) -> dict[str, str]:
    """Variables every go command of ours runs with: offline, no VCS stamping, no cgo (no C
    compiler needed), the local toolchain only, caches under `tmp`."""
    return {
        "GOPROXY": "off",
        "GOFLAGS": "-buildvcs=false",
        "GOTOOLCHAIN": "local",
        "CGO_ENABLED": "0",
        "GOTELEMETRY": "off",
        "GOCACHE": f"{tmp}/go-cache",
        "GOPATH": f"{tmp}/go-path",
        "GOTMPDIR": tmp,
        "GO111MODULE": "on",
    }


@dataclass(frozen=True)
class GoEnv:
    go: str  # the go command as the sandbox sees it
    cached: CachedEnv  # holds the signer

    @property
    def signer(self) -> str:
        return f"{self.cached.sandbox_dir}/{SIGNER}"

    @property
    def bin_dir(self) -> str:
        return go_bin_dir(self.go)


class GoToolchains:
    def __init__(
        self, sandbox: Sandbox, cache_dir: Path, prepare_timeout: float, run_id: str
    ) -> None:
        self.sandbox = sandbox
        self.host = toolchain_host(sandbox)
        self.image = self.host.image_for("go")
        self.go = "go" if self.image is not None else _host_go()
        self.host_root, self.sandbox_root = self.host.cache_root(cache_dir, kind="go")
        self.host_root.mkdir(parents=True, exist_ok=True)
        self.prepare_timeout = prepare_timeout
        self.run_id = run_id

    def mounts(self) -> list[Mount]:
        return [
            Mount(source=self.host_root, target=self.sandbox_root, writable=False),
            *([] if self.image is not None else self.host.program_mounts(self.go)),
        ]

    def prepare(self) -> GoEnv:
        source = SIGNER_SOURCE.read_bytes()
        material = {
            "go": self.host.program_identity(self.go, ["version"]),
            "signer": hashlib.sha256(source).hexdigest(),
        }

        def build(host_tmp: Path, sandbox_tmp: str) -> None:
            (host_tmp / ".go").mkdir(parents=True)
            shutil.copy(SIGNER_SOURCE, host_tmp / SIGNER_SOURCE.name)
            result = self.sandbox.prepare(
                SandboxRequest(
                    argv=[
                        self.go,
                        "build",
                        "-o",
                        f"{sandbox_tmp}/{SIGNER}",
                        f"{sandbox_tmp}/{SIGNER_SOURCE.name}",
                    ],
                    cwd=sandbox_tmp,
                    env={
                        "PATH": f"{go_bin_dir(self.go)}:/usr/local/bin:/usr/bin:/bin",
                        "HOME": sandbox_tmp,
                        **go_env(f"{sandbox_tmp}/.go"),
                    },
                    mounts=[
                        Mount(source=host_tmp, target=sandbox_tmp, writable=True),
                        *self.mounts()[1:],
                    ],
                    network=False,
                    limits=ResourceLimits(
                        output_bytes=256 * 1024, wall_timeout=self.prepare_timeout
                    ),
                    timeout=self.prepare_timeout,
                    image=self.image,
                    run_id=self.run_id,
                    purpose="prepare",
                )
            )
            shutil.rmtree(host_tmp / ".go", ignore_errors=True)
            if result.exit_code != 0:
                why = "timed out" if result.timed_out else f"exit code {result.exit_code}"
                raise InfrastructureError(
                    with_output(
                        f"building the Go report signer failed ({why})",
                        result.stderr,
                        result.stdout,
                    )
                )

        return GoEnv(
            self.go, ensure_env(self.host_root, self.sandbox_root, "gosigner", material, build)
        )


def _host_go() -> str:
    found = shutil.which("go")
    if not found:
        raise InfrastructureError(
            "go is not installed (needed for Go problems): install Go 1.19 or "
            "newer (Debian: apt-get install golang-go)"
        )
    return os.path.realpath(found)


def go_bin_dir(go: str) -> str:
    """Where `go` lives, for PATH (in an image: the official image's /usr/local/go/bin)."""
    return str(Path(go).parent) if "/" in go else "/usr/local/go/bin"
