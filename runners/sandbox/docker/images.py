"""What is inside an image (its id, python3, uv), found once per image id by running it."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from runners.model.errors import InfrastructureError
from runners.sandbox.base import SandboxRequest, SandboxResult
from runners.sandbox.docker.client import Engine


@dataclass(frozen=True)
class ImageInfo:
    id: str
    python: str | None
    python_version: str | None
    uv: str | None

    @property
    def short_id(self) -> str:
        return self.id.split(":", 1)[-1][:12]


_image_info: dict[str, ImageInfo] = {}
_image_info_lock = threading.Lock()

_PROBE_SCRIPT = (
    "import json, os, platform, shutil, sys\npy = shutil.which('python3') or "
    "sys.executable\nprint(json.dumps({'python': py, 'version': sys.version.split()[0], "
    "'machine': platform.machine(), 'uv': shutil.which('uv')}))\n"
)


def image_info(
    image: str,
    run: Callable[[SandboxRequest], SandboxResult],
    host_cache: Path | None,
    engine: Engine,
) -> ImageInfo:
    """What is inside `image` (its id, python3, uv), found once per image id by running it.

    Remembered in memory and, once the toolchain cache is known, in a file beside the cache
    directory of that image (outside what any sandbox mounts, so no run can rewrite it).
    """
    ident = engine.image_id(image)
    with _image_info_lock:
        if ident in _image_info:
            return _image_info[ident]
    memo = _memo_file(host_cache, ident)
    if memo is not None and memo.is_file():
        try:
            data = json.loads(memo.read_text())
            if data.get("id") == ident and data.get("python"):
                info = ImageInfo(
                    id=ident,
                    python=data["python"],
                    python_version=data.get("python_version"),
                    uv=data.get("uv"),
                )
                with _image_info_lock:
                    _image_info[ident] = info
                return info
        except (OSError, ValueError, AttributeError):
            pass

    from runners.model.limits import ResourceLimits

    result = run(
        SandboxRequest(
            argv=["python3", "-I", "-c", _PROBE_SCRIPT],
            cwd="/",
            env={"PATH": "/usr/local/bin:/usr/bin:/bin"},
            limits=ResourceLimits(memory_mb=256, pids=64, output_bytes=64 * 1024),
            timeout=60,
            image=ident,
            run_id="image-probe",
            purpose="probe",
        )
    )
    info = ImageInfo(id=ident, python=None, python_version=None, uv=None)
    if result.exit_code == 0:
        try:
            data = json.loads(result.stdout.strip().splitlines()[-1])
            info = ImageInfo(
                id=ident,
                python=data.get("python"),
                python_version=data.get("version"),
                uv=data.get("uv"),
            )
        except (ValueError, IndexError, AttributeError):
            pass
    elif result.timed_out:
        raise InfrastructureError(f"probing the image {image} timed out")
    with _image_info_lock:
        _image_info[ident] = info
    if memo is not None and info.python:
        try:
            memo.parent.mkdir(parents=True, exist_ok=True)
            tmp = memo.with_name(f".{memo.name}.{os.getpid()}")
            tmp.write_text(
                json.dumps(
                    {
                        "id": info.id,
                        "python": info.python,
                        "python_version": info.python_version,
                        "uv": info.uv,
                    }
                )
            )
            tmp.replace(memo)
        except OSError:
            pass
    return info


def _memo_file(host_cache: Path | None, ident: str) -> Path | None:
    if host_cache is None:
        return None
    return host_cache / "docker" / f"{ident.split(':', 1)[-1][:12]}.image.json"
