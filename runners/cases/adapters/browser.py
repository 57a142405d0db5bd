"""The browser adapter: the submission's server (per group, as for `api`) and headless Chromium
(per group), each case in a fresh browser context that opens `start_page` and runs its steps.

The reads of the steps form `output` (a mapping); `status_code` is the HTTP status of the last
page load, `url` and `page_title` where the page ended. A step that cannot be done (no element
within its timeout) stops the case: its reason goes to `stderr`. On a failing case a screenshot
is saved with the run's artifacts.
"""

from __future__ import annotations

import base64
import re
import time
import urllib.parse
from types import TracebackType
from typing import Any, Self

from ..model import BaseCase, BrowserCase, BrowserResult
from .cdp import Browser, BrowserError, Page, find_chromium
from .server import ServerAdapter
from .steps import center_js, focus_js, key_events, output_key, parse_step, read_js, state_js

POLL = 0.05


class StepFailed(Exception):
    pass


class BrowserAdapter(ServerAdapter):
    browser: Browser | None = None
    page: Page | None = None
    step_error: str | None = None  # why the last case's steps stopped

    def __enter__(self) -> Self:
        super().__enter__()
        if self.failure:
            return self
        binary = find_chromium(self.settings.browser)
        if binary is None:
            self.failure = (
                "no Chromium in the sandbox (Debian: apt-get install chromium; docker: the "
                "runners-browser image)"
            )
            return self
        try:
            view = self.config.viewport
            self.browser = Browser(binary, self.settings.env, view.width, view.height)
            self.browser.version()
        except (BrowserError, OSError) as exc:
            self.failure = f"Chromium could not be started: {exc}"
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._close_page()
        if self.browser is not None:
            self.browser.close()
        super().__exit__(kind, exc, tb)

    def _close_page(self) -> None:
        if self.page is not None:
            self.page.close()
            self.page = None

    def run_case(self, case: BaseCase) -> BrowserResult:
        assert isinstance(case, BrowserCase)
        ids = {"id": case.id, "group": case.group, "group_type": case.group_type}
        if self.failure or self.browser is None:
            return BrowserResult(**ids, status_code=-1, stderr=self.failure, adapter_error=True)
        started = time.monotonic()
        deadline = started + self.timeout_for(case)
        output: dict[str, Any] = {}
        error: str | None = None
        timed_out = False
        try:
            if self.page is None or self.group.isolated:
                self._close_page()
                view = self.config.viewport
                self.page = self.browser.page(view.width, view.height)
                self._navigate(self.config.start_page, deadline)
            for index, step in enumerate(case.steps):
                action, options = parse_step(step, index)
                try:
                    self._step(action, options, output, deadline)
                except StepFailed as exc:
                    raise StepFailed(f"steps[{index}] ({action}): {exc}") from None
        except StepFailed as exc:
            error, timed_out = str(exc), time.monotonic() >= deadline
        except BrowserError as exc:
            error = f"browser: {exc}"
        page = self.page
        url = title = None
        if page is not None:
            try:
                url, title = (
                    page.evaluate("location.href", timeout=5),
                    page.evaluate("document.title", timeout=5),
                )
            except BrowserError:
                pass
        status = self.browser.document_status.get(page.session, 0) if page is not None else 0
        self.step_error = error
        return BrowserResult(
            **ids,
            status_code=status,
            output=output,
            stderr=error,
            url=url,
            page_title=title,
            timed_out=timed_out,
            elapsed=round(time.monotonic() - started, 6),
            resource_path=url,
        )

    def on_failure(self, case: BaseCase) -> str | None:
        notes = [f"steps stopped: {self.step_error}"] if self.step_error else []
        if (
            self.config.screenshot != "off"
            and self.page is not None
            and self.settings.artifacts is not None
        ):
            notes.append(self._screenshot(case.id) or "")
        return "\n".join(n for n in notes if n) or None

    def _screenshot(self, name: str) -> str | None:
        assert self.page is not None and self.settings.artifacts is not None
        try:
            data = self.page.send("Page.captureScreenshot", {"format": "png"}, timeout=10)["data"]
        except BrowserError:
            return None
        folder = self.settings.artifacts / "screenshots"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{_safe(self.group.name)}__{_safe(name)}.png"
        path.write_bytes(base64.b64decode(data))
        if self.settings.keep is not None:
            self.settings.keep(path)
        return f"screenshot: reports/{path.name} (with the run's artifacts)"

    # ---- steps -------------------------------------------------------------------------------

    def _url(self, target: str) -> str:
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            return target
        return urllib.parse.urljoin(f"http://{self.host}:{self.port}/", target)

    def _navigate(self, target: str, deadline: float) -> None:
        assert self.page is not None
        reply = self.page.send(
            "Page.navigate", {"url": self._url(target)}, timeout=self._left(deadline)
        )
        if reply.get("errorText"):
            raise StepFailed(f"loading {target} failed: {reply['errorText']}")
        self._until(
            deadline,
            lambda: (
                self.page is not None and self.page.evaluate("document.readyState") == "complete"
            ),
            f"{target} did not finish loading",
        )

    def _left(self, deadline: float) -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise StepFailed("the case's timeout was reached")
        return left

    def _until(self, deadline: float, ready: Any, what: str, step_ms: int | None = None) -> Any:
        limit = min(deadline, time.monotonic() + (step_ms or self.config.default_timeout_ms) / 1000)
        while True:
            value = ready()
            if value:
                return value
            if time.monotonic() >= limit:
                raise StepFailed(
                    f"{what} (waited {(step_ms or self.config.default_timeout_ms) / 1000:g} s)"
                )
            time.sleep(POLL)

    def _element(self, selector: str, visible: bool, deadline: float, step_ms: int | None) -> None:
        assert self.page is not None
        page = self.page

        def ready() -> bool:
            state = page.evaluate(state_js(selector))
            return bool(state["count"] and (state["visible"] or not visible))

        self._until(
            deadline,
            ready,
            f"no {'visible ' if visible else ''}element matches {selector!r}",
            step_ms,
        )

    def _step(self, action: str, options: Any, output: dict[str, Any], deadline: float) -> None:
        page = self.page
        assert page is not None
        self._left(deadline)
        if action == "navigate":
            self._navigate(options.url, deadline)
        elif action == "click":
            self._element(options.selector, True, deadline, options.timeout_ms)
            point = page.evaluate(center_js(options.selector))
            for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
                page.send(
                    "Input.dispatchMouseEvent",
                    {
                        "type": kind,
                        "x": point["x"],
                        "y": point["y"],
                        "button": "left",
                        "clickCount": 1,
                    },
                )
        elif action == "fill":
            self._element(options.selector, True, deadline, options.timeout_ms)
            page.evaluate(focus_js(options.selector, clear=True))
            page.send("Input.insertText", {"text": options.value})
            page.evaluate(
                "document.activeElement && document.activeElement.dispatchEvent(new "
                "Event('change', {bubbles: true}))"
            )
        elif action == "press":
            if options.selector:
                self._element(options.selector, True, deadline, options.timeout_ms)
                page.evaluate(focus_js(options.selector, clear=False))
            for event in key_events(options.key):
                page.send("Input.dispatchKeyEvent", event)
        elif action == "wait":
            self._wait(options, deadline)
        elif action == "screenshot":
            note = (
                self._screenshot(options.as_ or f"step-{len(output)}")
                if self.settings.artifacts
                else None
            )
            if options.as_:
                output[options.as_] = note
        else:
            output[output_key(action, options)] = self._read(action, options, deadline)

    def _wait(self, options: Any, deadline: float) -> None:
        if options.ms is not None and options.selector is None:
            time.sleep(min(options.ms / 1000, max(deadline - time.monotonic(), 0)))
            return
        page = self.page
        assert page is not None

        def ready() -> bool:
            state = page.evaluate(state_js(options.selector))
            if options.count is not None and state["count"] != options.count:
                return False
            if options.text is not None and not any(options.text in t for t in state["texts"]):
                return False
            if options.count is not None or options.text is not None:
                return True
            return {
                "attached": state["count"] > 0,
                "detached": state["count"] == 0,
                "visible": state["visible"],
                "hidden": not state["visible"],
            }[options.state]

        wanted = ", ".join(
            f"{k}={v!r}"
            for k, v in (("count", options.count), ("text", options.text))
            if v is not None
        )
        self._until(
            deadline,
            ready,
            f"{options.selector!r} never became {wanted or options.state}",
            options.timeout_ms,
        )

    def _read(self, action: str, options: Any, deadline: float) -> Any:
        page = self.page
        assert page is not None
        if action == "evaluate":
            return page.evaluate(options.script, timeout=self._left(deadline))
        if action == "count":
            return page.evaluate(state_js(options.selector))["count"]
        if action == "visible":
            return page.evaluate(state_js(options.selector))["visible"]
        self._element(options.selector, False, deadline, options.timeout_ms)
        return page.evaluate(read_js(action, options.selector, options.name))


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:80] or "case"
