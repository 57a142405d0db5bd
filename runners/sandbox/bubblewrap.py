"""`bubblewrap`: Linux namespaces around a host process, for machines without Docker.

Profile: a fresh root with only /usr, /etc and the interpreter read-only; the workspace mounts as
asked; a size-limited private /tmp; new user, pid, net, ipc, uts and cgroup namespaces (so no
network but loopback, and no view of host processes or their environments); all capabilities
dropped; `--die-with-parent` and `--new-session`. Run as root, the harness first drops to an
unprivileged uid and puts the sandbox in its own cgroup (memory, pids, CPU); otherwise it falls
back to rlimits and says which limits are not enforced.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import threading
import uuid
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from runners.egress.netns import new_netns, require_root, setns
from runners.model.errors import InfrastructureError
from runners.sandbox import seccomp
from runners.sandbox.base import Sandbox, SandboxRequest, SandboxResult
from runners.sandbox.cgroups import RunCgroup
from runners.sandbox.process import apply_rlimits, run_process
from runners.util.probe_memo import file_identity, kernel_identity, remembered
from runners.util.processes import owner_alive

SANDBOX_UID = 65534  # "nobody": the uid sandboxed processes run as when the harness is root
INNER_UID = 1000  # the uid seen inside when the harness is not root (user namespace)
MB = 1024 * 1024
_ROOT_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
# A run's cgroup is named <run id>-<purpose>-<harness pid>-<random>: the pid says whose it is.
_GROUP_OWNER = re.compile(r"-(\d+)-[0-9a-f]{6}$")
_swept = False
_sweep_lock = threading.Lock()


def _is_root() -> bool:
    return os.geteuid() == 0


def _bwrap() -> str | None:
    return shutil.which("bwrap")


def _base_args(network: bool) -> list[str]:
    args = ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
    if not network:
        args.append("--unshare-net")
    if _is_root():
        # Privileged setup (root can reach every mount source, e.g. a cache under /root), then
        # the command's first step, setpriv, drops to an unprivileged uid with no capabilities.
        args += [
            "--cap-drop",
            "ALL",
            "--cap-add",
            "CAP_SETUID",
            "--cap-add",
            "CAP_SETGID",
            "--cap-add",
            "CAP_SETPCAP",
        ]
    else:
        args += [
            "--unshare-user",
            "--uid",
            str(INNER_UID),
            "--gid",
            str(INNER_UID),
            "--cap-drop",
            "ALL",
        ]
        if _supports_disable_userns():
            args.append(
                "--disable-userns"
            )  # no `unshare -r` inside: docker's seccomp refuses it too
    args += [
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "sandbox",
        "--ro-bind",
        "/usr",
        "/usr",
    ]
    for name in _ROOT_LINKS:
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev"]
    return args


def _drop_inside(seccomp: list[str] | None = None) -> list[str]:
    """Run first inside the sandbox when the harness is root: become `nobody`, for good. The
    seccomp filter goes on the innermost bwrap: it must still set up its own namespace."""
    if not _is_root():
        return []
    inner = _no_nested_userns()
    if not inner:
        return _setpriv()
    return [*_setpriv(), inner[0], *(seccomp or []), *inner[1:]]


def _setpriv() -> list[str]:
    return [
        "/usr/bin/setpriv",
        f"--reuid={SANDBOX_UID}",
        f"--regid={SANDBOX_UID}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]


def _host_key() -> list[str]:
    """What the probes below depend on: the programs, the kernel's namespace settings, the uid."""
    return [
        file_identity(_bwrap() or "bwrap"),
        file_identity("/usr/bin/setpriv"),
        *kernel_identity(),
    ]


@lru_cache(maxsize=1)
def _supports_disable_userns() -> bool:
    def ask() -> bool:
        bwrap = _bwrap()
        try:
            out = (
                subprocess.run(
                    [bwrap, "--help"], capture_output=True, text=True, timeout=20, check=False
                ).stdout
                if bwrap
                else ""
            )
        except (OSError, subprocess.SubprocessError):
            return False
        return "--disable-userns" in out

    return remembered("bwrap-disable-userns", [file_identity(_bwrap() or "bwrap")], ask)


@lru_cache(maxsize=1)
def _no_nested_userns() -> list[str]:
    """Root harness: after setpriv, a nested unprivileged bwrap whose user namespace cannot nest,
    so the command cannot make user namespaces of its own (`unshare -r`, then mount and the rest of
    the kernel surface a namespace-root gets). [] where that is unavailable (bwrap < 0.8, no
    unprivileged user namespaces); the rest of the profile still holds."""
    bwrap = _bwrap()
    if (
        not bwrap
        or not _is_root()
        or not bwrap.startswith("/usr/")
        or not _supports_disable_userns()
    ):
        return []
    inner = [
        bwrap,
        "--unshare-user",
        "--disable-userns",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--dev-bind",
        "/",
        "/",
        "--",
    ]

    def ask() -> bool:
        try:
            proc = subprocess.run(
                [
                    bwrap,
                    *_base_args(network=False),
                    "--tmpfs",
                    "/tmp",
                    "--",
                    *_setpriv(),
                    *inner,
                    "/usr/bin/true",
                ],
                capture_output=True,
                timeout=20,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return False
        return proc.returncode == 0

    return inner if remembered("bwrap-nested-userns", _host_key(), ask) else []


class BubblewrapSandbox(Sandbox):
    name = "bubblewrap"
    toolchains = "runners.toolchains.hosts:BubblewrapToolchains"  # this machine's, mounted

    @classmethod
    def probe(cls) -> str | None:
        return _probe()

    def memory_bounded(self) -> bool:
        return RunCgroup.usable()

    def run(self, request: SandboxRequest) -> SandboxResult:
        bwrap = _bwrap()
        assert bwrap is not None, "probe() must pass before run()"
        limits = request.limits
        if _is_root():
            for mount in request.mounts:
                if mount.writable and mount.source.exists():
                    _chown_tree(mount.source, SANDBOX_UID)
        notes: list[str] = []
        self._sweep_once()
        netns = _egress_netns(
            request
        )  # an allow-list: a namespace holding only the proxy's listeners
        cgroup = (
            RunCgroup.create(
                f"{request.run_id}-{request.purpose}-{os.getpid()}-{uuid.uuid4().hex[:6]}", limits
            )
            if _is_root()
            else None
        )
        if cgroup is None:
            notes.append("memory, process and CPU limits not enforced: no cgroup access")
        else:
            notes += cgroup.notes
        seccomp_fd = seccomp.program_fd()
        filter_args = ["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []
        if seccomp_fd is None:
            notes.append(f"no seccomp filter: none for {platform.machine()}")
        nested = _is_root() and bool(_no_nested_userns())  # then the inner bwrap installs it
        args = [
            bwrap,
            *_base_args(request.network or netns is not None),
            *([] if nested else filter_args),
        ]
        # The run's own POSIX message queues, listed (as docker does): a case-based run removes
        # what one case left before the next (runners/cases/fresh.py); unlisted, they would stay.
        args += ["--mqueue", "/dev/mqueue"]
        tmp_size = (limits.tmp_size_mb or 512) * MB
        # A private /tmp the unprivileged uid can use (bwrap would make it root-owned 0755).
        args += [
            "--perms",
            "1777",
            "--size",
            str(tmp_size),
            "--tmpfs",
            "/tmp",
            "--perms",
            "0777",
            "--dir",
            "/tmp/home",
        ]
        args += _parent_dirs(m.target for m in request.mounts)
        for mount in request.mounts:
            args += ["--bind" if mount.writable else "--ro-bind", str(mount.source), mount.target]
        args += ["--chdir", request.cwd, "--clearenv"]
        for key, value in request.env.items():
            args += ["--setenv", key, value]
        args += ["--", *_drop_inside(filter_args if nested else []), *request.argv]

        def enter_limits() -> None:
            if netns is not None:
                setns(netns)
            if cgroup is not None:
                cgroup.enter()
            apply_rlimits(limits)

        try:
            result = run_process(
                args,
                cwd="/",
                env={"PATH": "/usr/bin:/bin"},
                timeout=request.timeout,
                output_cap=limits.output_bytes or 4 * MB,
                preexec_fn=enter_limits,
                pass_fds=[seccomp_fd] if seccomp_fd is not None else [],
                stop=request.stop,
                on_stdout=request.on_stdout,
            )
        finally:
            if seccomp_fd is not None:
                os.close(seccomp_fd)
            if netns is not None:
                os.close(netns)
            oom = cgroup.oom_killed() if cgroup is not None else False
            if cgroup is not None:
                cgroup.remove()  # kills anything left in the sandbox's cgroup
        result.oom_killed = oom
        result.notes += notes
        return result

    def limitations(self) -> dict[str, str]:
        found = {}
        if not (_is_root() and RunCgroup.usable()):
            why = "no cgroup access (the harness is not root): rlimits only"
            found.update(
                {
                    "limits.memory": why,
                    "limits.memory_flagged": why,
                    "limits.pids": why,
                    "limits.cpu": why,
                }
            )
        if not _is_root():
            found["network.allow_list"] = (
                "the egress proxy is opened in the sandbox's namespace as root"
            )
        return found

    def leftovers(self, run_id: str) -> list[str]:
        return [str(group) for group in RunCgroup.groups() if group.name.startswith(f"{run_id}-")]

    def sweep_orphans(self) -> int:
        """Remove the cgroups of runs whose harness died mid-run (the sandbox died with it)."""
        if not _is_root():
            return 0
        return RunCgroup.sweep(_orphan_group)

    def _sweep_once(self) -> None:
        global _swept
        with _sweep_lock:
            if _swept:
                return
            _swept = True
        self.sweep_orphans()


def _egress_netns(request: SandboxRequest) -> int | None:
    """For a request with an egress proxy: a fresh network namespace (loopback only) in which the
    proxy's listeners are opened; the sandbox joins it instead of unsharing its own."""
    if request.egress is None:
        return None
    require_root("bubblewrap")
    netns = new_netns()
    try:
        request.egress.attach(netns)
    except OSError as exc:
        os.close(netns)
        raise InfrastructureError(
            f"cannot open the egress proxy in the sandbox's network namespace: {exc}"
        ) from None
    except BaseException:
        os.close(netns)
        raise
    return netns


def _orphan_group(name: str) -> bool:
    found = _GROUP_OWNER.search(name)
    if not found or int(found.group(1)) == os.getpid():
        return False
    return not owner_alive(int(found.group(1)))  # a reused pid: left for a later start


def _parent_dirs(targets: Iterable[str]) -> list[str]:
    """Create mount points' parents traversable by the sandbox uid (bwrap would use 0700)."""
    args: list[str] = []
    seen = {"/", "/usr", "/etc", "/proc", "/dev", "/tmp", "/tmp/home"}
    for target in targets:
        for parent in reversed(Path(target).parents):
            path = str(parent)
            if path not in seen:
                seen.add(path)
                args += ["--perms", "0755", "--dir", path]
    return args


def _chown_tree(path: Path, uid: int) -> None:
    for dirpath, dirnames, filenames in os.walk(path):
        for name in [*dirnames, *filenames]:
            try:
                os.lchown(os.path.join(dirpath, name), uid, uid)
            except OSError:
                pass
    os.lchown(path, uid, uid)


@lru_cache(maxsize=1)
def _probe() -> str | None:
    bwrap = _bwrap()
    if bwrap is None:
        return "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    if _is_root() and shutil.which("setpriv") is None:
        return "setpriv (util-linux) is needed to drop root privileges before bwrap"

    def ask() -> str | None:
        try:
            proc = subprocess.run(
                [
                    bwrap,
                    *_base_args(network=False),
                    "--tmpfs",
                    "/tmp",
                    "--",
                    *_drop_inside(),
                    "/usr/bin/true",
                ],
                capture_output=True,
                text=True,
                timeout=20,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return f"bwrap could not be started: {exc}"
        if proc.returncode != 0:
            detail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
            return (
                f"bwrap cannot create namespaces here ({detail[0]}); unprivileged user namespaces "
                "may be disabled (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu "
                "kernel.apparmor_restrict_unprivileged_userns=0)"
            )
        return None

    # Only a working bwrap is remembered: whatever made it fail may be fixed by the next run.
    return remembered("bwrap-usable", _host_key(), ask, keep=lambda why: why is None)
