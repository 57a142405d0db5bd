"""The submission as a server, one per group: started on a free loopback port inside the
sandbox's network namespace, probed until it answers, and killed with everything it started
when the group ends.

Server command: the entry command with `{address}`/`{port}` filled in when it holds them, else
followed by `--address A --port P` (SCBench's convention), then the adapter's `arguments`.
Ready means any HTTP answer on `health_path`, within `startup_timeout_s` from the start.
"""

from __future__ import annotations

import http.client
import shlex
import socket
import subprocess
import time
from types import TracebackType
from typing import Self

from ..procs import Drain, kill_descendants, kill_group
from .base import Adapter, fill_static
from .deadline import DeadlineConnection

PROBE_INTERVAL = 0.05
PROBE_TIMEOUT = 2.0  # seconds for one health probe, whole
EXIT_GRACE = 0.5  # after a request got no answer: is the server dying?


def free_port(address: str) -> int:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((address, 0))
        return int(sock.getsockname()[1])


class ServerAdapter(Adapter):
    proc: subprocess.Popen[bytes] | None = None
    failure: str | None = None  # why the server is not usable: every case of the group errs
    drains: tuple[Drain, Drain] | None = None

    @property
    def host(self) -> str:
        return "127.0.0.1" if self.config.address == "localhost" else self.config.address

    def __enter__(self) -> Self:
        self.port = self.config.port or free_port(self.host)
        argv = self.server_argv()
        self.command = shlex.join(argv)
        try:
            self.proc = subprocess.Popen(
                argv,
                cwd=str(self.settings.workspace),
                env=self.settings.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            self.failure = f"the server could not be started ({self.command}): {exc.strerror}"
            return self
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.drains = (Drain(self.proc.stdout), Drain(self.proc.stderr))
        self.failure = self._wait_ready()
        if self.failure:
            self._stop()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop()

    def server_argv(self) -> list[str]:
        entry = list(self.settings.entry)
        joined = " ".join(entry)
        if "{port}" in joined or "{address}" in joined:
            entry = [
                part.replace("{address}", self.host).replace("{port}", str(self.port))
                for part in entry
            ]
        else:
            entry += ["--address", self.host, "--port", str(self.port)]
        # SCBench's API problems pass static assets to their server: `--sde {{static:sde_dir}}`
        arguments = fill_static(list(self.config.arguments), self.settings.static)
        return [*entry, *shlex.split(" ".join(arguments))]

    exit_note = ""  # how the server ended, once it has

    def exited(self, during: str | None = None) -> bool:
        """Whether the server has exited since it became ready (first seen `during` a case, after a
        request got no answer: said so, giving it a moment to finish dying)."""
        if self.proc is None:
            return False
        if during is not None and not self.exit_note:
            try:
                self.proc.wait(timeout=EXIT_GRACE)
            except subprocess.TimeoutExpired:
                return False
        if self.proc.poll() is None:
            return False
        if not self.exit_note:
            when = f" during case {during!r}" if during else " between cases"
            self.exit_note = f"the server exited with code {self.proc.returncode}{when}"
        return True

    def _wait_ready(self) -> str | None:
        assert self.proc is not None
        deadline = time.monotonic() + self.config.startup_timeout_s
        path = self.config.health_path or "/"
        last = "no answer"
        while True:
            if self.proc.poll() is not None:
                return (
                    f"the server exited with code {self.proc.returncode} before answering on "
                    f"{self.host}:{self.port}{path}{self.output_tail()}"
                )
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return (
                    f"the server did not answer on http://{self.host}:{self.port}{path} within "
                    f"{self.config.startup_timeout_s:g} s (last probe: {last}){self.output_tail()}"
                )
            # One probe gets at most PROBE_TIMEOUT for the whole exchange, never past the deadline:
            # a health check answered a byte at a time cannot hold the start-up past it.
            conn = DeadlineConnection(
                self.host,
                self.port,
                deadline=time.monotonic() + min(PROBE_TIMEOUT, max(remaining, 0.05)),
            )
            try:
                conn.request("GET", path)
                conn.getresponse().read(65536)
                return None  # any HTTP answer counts, as in SCBench
            except (OSError, http.client.HTTPException) as exc:
                last = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            finally:
                conn.close()
            time.sleep(min(PROBE_INTERVAL, max(deadline - time.monotonic(), 0)))

    def output_tail(self, limit: int = 1500) -> str:
        if self.drains is None:
            return ""
        text = "\n".join(d.text() for d in self.drains if d.text().strip()).strip()
        return f"\nserver output:\n{text[-limit:]}" if text else ""

    def _stop(self) -> None:
        if self.proc is not None:
            kill_group(self.proc.pid)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        kill_descendants()
        if self.drains is not None:
            for drain in self.drains:
                drain.join()
            self.drains = None
        if self.proc is not None:
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()
        self.proc = None
