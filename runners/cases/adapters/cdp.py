"""Headless Chromium driven over the Chrome DevTools Protocol through a pipe.

`--remote-debugging-pipe`: Chromium reads commands from fd 3 and writes replies and events to
fd 4, each a JSON message ended by a NUL byte. No debugging port is opened, so nothing else in
the sandbox (the submission's server, or its page) can take the browser over. Requests to
anything but loopback go to a closed proxy port, on top of the sandbox having no network.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")
# Every request that is not to loopback is sent to this proxy, where nothing listens.
DEAD_PROXY = "http://127.0.0.1:9"


class BrowserError(Exception):
    pass


_LAUNCH = (
    "import os, sys\n"
    "os.dup2(int(sys.argv[1]), 3)\nos.dup2(int(sys.argv[2]), 4)\n"
    "os.close(int(sys.argv[1]))\nos.close(int(sys.argv[2]))\n"
    "os.execv(sys.argv[3], sys.argv[3:])\n"
)


def _high(fd: int) -> int:
    """The same pipe end on a descriptor of 10 or more, clear of 3 and 4 (Chromium's)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


def find_chromium(explicit: str | None = None) -> str | None:
    if explicit:
        return explicit if os.path.exists(explicit) else shutil.which(explicit)
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One Chromium process; `page()` opens a fresh context and tab, `close()` ends everything."""

    def __init__(self, binary: str, env: dict[str, str], width: int, height: int) -> None:
        self.profile = tempfile.mkdtemp(prefix="runners-chromium-")
        to_browser_r, self._to_browser = map(_high, os.pipe())
        self._from_browser, from_browser_w = map(_high, os.pipe())
        args = [
            binary,
            "--headless=new",
            "--no-sandbox",
            "--no-zygote",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-sync",
            "--disable-component-update",
            "--disable-breakpad",
            "--mute-audio",
            "--remote-debugging-pipe",
            f"--proxy-server={DEAD_PROXY}",
            "--proxy-bypass-list=<-loopback>;127.0.0.1;localhost;[::1]",
            "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
            f"--user-data-dir={self.profile}",
            f"--window-size={width},{height}",
            "about:blank",
        ]
        # A small launcher puts the pipe ends on fds 3 and 4, where Chromium looks for them.
        self.proc = subprocess.Popen(
            [sys.executable, "-S", "-c", _LAUNCH, str(to_browser_r), str(from_browser_w), *args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            pass_fds=(to_browser_r, from_browser_w),
            start_new_session=True,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next = 0
        self._lock = threading.Lock()
        self._waiting: dict[int, queue.Queue[dict[str, Any]]] = {}
        self.document_status: dict[str, int] = {}  # session -> status of its last page load
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._stderr = b""
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        while chunk := self.proc.stderr.read(4096):
            self._stderr = (self._stderr + chunk)[-8192:]

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                for waiter in list(self._waiting.values()):
                    waiter.put({"error": {"message": "the browser closed"}})
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                pending = self._waiting.pop(message["id"], None) if "id" in message else None
                if pending is not None:
                    pending.put(message)
                elif message.get("method") == "Network.responseReceived":
                    params = message.get("params", {})
                    if params.get("type") == "Document":
                        self.document_status[message.get("sessionId", "")] = int(
                            params["response"]["status"]
                        )

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        with self._lock:
            self._next += 1
            ident = self._next
            waiter: queue.Queue[dict[str, Any]] = queue.Queue()
            self._waiting[ident] = waiter
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        try:
            os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        except OSError as exc:
            raise BrowserError(
                f"the browser is gone ({exc.strerror}){self.stderr_tail()}"
            ) from None
        try:
            reply = waiter.get(timeout=timeout)
        except queue.Empty:
            self._waiting.pop(ident, None)
            raise BrowserError(
                f"the browser did not answer {method} within {timeout:g} s"
            ) from None
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error'].get('message')}{self.stderr_tail()}")
        return dict(reply.get("result", {}))

    def stderr_tail(self) -> str:
        text = self._stderr.decode("utf-8", "replace").strip()
        return f" (browser: {text[-400:]})" if text and self.proc.poll() is not None else ""

    def version(self, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                return str(
                    self.send("Browser.getVersion", timeout=max(deadline - time.monotonic(), 0.1))[
                        "product"
                    ]
                )
            except BrowserError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise

    def page(self, width: int, height: int) -> Page:
        context = self.send("Target.createBrowserContext", {"disposeOnDetach": True})[
            "browserContextId"
        ]
        target = self.send(
            "Target.createTarget", {"url": "about:blank", "browserContextId": context}
        )["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        page = Page(self, session, context)
        for domain in ("Page.enable", "Runtime.enable", "Network.enable"):
            page.send(domain)
        page.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        return page

    def close(self) -> None:
        try:
            os.write(
                self._to_browser, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0"
            )
        except OSError:
            pass
        try:
            self.proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            pass
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    def __init__(self, browser: Browser, session: str, context: str) -> None:
        self.browser, self.session, self.context = browser, session, context

    def send(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = 30.0
    ) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session, timeout=timeout)

    def evaluate(self, expression: str, timeout: float = 30.0) -> Any:
        reply = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            timeout=timeout,
        )
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"script error: {text}")
        return reply.get("result", {}).get("value")

    def close(self) -> None:
        try:
            self.browser.send(
                "Target.disposeBrowserContext", {"browserContextId": self.context}, timeout=5
            )
        except BrowserError:
            pass
