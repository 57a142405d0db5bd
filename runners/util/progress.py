"""What is running, said while it runs: which agent, problem and checkpoint, and at what stage.

The code that does the work says which stage it has reached: `stage(PREPARING_TOOLCHAIN)` (the
engine, the agent step). The code that started the work (a CLI command, the Promptfoo provider,
a batch worker) names what runs and where it is said: `with running(subject, reporter): ...`.
With no reporter open (the Python API), `stage` does nothing and costs a context-variable read.

Two reporters, both on stderr, so that stdout keeps only the result (a table, JSON):

- `LiveReporter`: a live display on a terminal (rich): a spinner, the subject, its stage and its
  time, one line per subject running, and a bar when the number of subjects is known;
- `LineReporter`: one plain line per stage, for a pipe, a log file, CI or promptfoo's log.

Only the standard library is imported here: the engine imports this module, and a run that
reports nothing must not pay for rich.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Protocol, Self

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live

PREPARING_WORKSPACE = "preparing workspace"
PREPARING_TOOLCHAIN = "preparing toolchain"
RUNNING_TESTS = "running tests"
COLLECTING = "collecting"
AGENT_STEP = "agent step"
WAITING = "waiting"


@dataclass(frozen=True)
class Subject:
    """What runs: one checkpoint of one problem, for one agent when there is one."""

    problem: str
    checkpoint: str
    agent: str | None = None

    @property
    def label(self) -> str:
        return " · ".join(part for part in (self.agent, self.problem, self.checkpoint) if part)


class Reporter(Protocol):
    """Where progress goes. `key` tells apart subjects running at the same time."""

    def begin(self, key: int, subject: Subject) -> None: ...

    def stage(self, key: int, stage: str) -> None: ...

    def end(self, key: int, outcome: str | None) -> None: ...


@dataclass(frozen=True)
class _Scope:
    reporter: Reporter
    key: int


_current: ContextVar[_Scope | None] = ContextVar("runners_progress", default=None)
_keys = itertools.count(1)


class Ending:
    """What the block of `running` ended with, said by the reporter (a verdict): set `text`."""

    text: str | None = None


@contextmanager
def running(subject: Subject, reporter: Reporter | None) -> Iterator[Ending]:
    """`stage` calls made inside the block (in this thread) report on `subject` to `reporter`.
    With `reporter` None, nothing is reported. The block's end is reported even on an error."""
    ending = Ending()
    if reporter is None:
        yield ending
        return
    key = next(_keys)
    reporter.begin(key, subject)
    token = _current.set(_Scope(reporter, key))
    try:
        yield ending
    finally:
        _current.reset(token)
        reporter.end(key, ending.text)


def stage(name: str) -> None:
    """The running subject has reached stage `name` (nothing happens outside `running`)."""
    scope = _current.get()
    if scope is not None:
        scope.reporter.stage(scope.key, name)


def current() -> Reporter | None:
    """The reporter of the subject running in this thread (to hand on to another thread)."""
    scope = _current.get()
    return scope.reporter if scope is not None else None


def is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


class LineReporter:
    """One line per stage on `stream` (stderr): `<prefix><subject>: <stage>`. For a pipe, a log
    or promptfoo (whose log shows a Python worker's stderr lines; a line starting `INFO` is
    logged at the info level, shown by default, instead of as a warning)."""

    def __init__(self, stream: IO[str] | None = None, prefix: str = "runners: ") -> None:
        self.stream = stream
        self.prefix = prefix
        self._lock = threading.Lock()
        self._subjects: dict[int, tuple[Subject, float]] = {}

    def _write(self, text: str) -> None:
        stream = self.stream or sys.stderr
        with self._lock:
            try:
                stream.write(f"{self.prefix}{text}\n")
                stream.flush()
            except (OSError, ValueError):
                pass  # a closed pipe must not fail the run

    def begin(self, key: int, subject: Subject) -> None:
        self._subjects[key] = (subject, time.monotonic())

    def stage(self, key: int, stage: str) -> None:
        if key in self._subjects:
            self._write(f"{self._subjects[key][0].label}: {stage}")

    def end(self, key: int, outcome: str | None) -> None:
        found = self._subjects.pop(key, None)
        if found is not None and outcome:
            subject, started = found
            first = outcome.strip().splitlines()[0] if outcome.strip() else outcome
            self._write(f"{subject.label}: {first} ({time.monotonic() - started:.1f} s)")

    def note(self, text: str) -> None:
        self._write(text)


def for_promptfoo(enabled: bool = True) -> LineReporter | None:
    """The Promptfoo providers' reporter: lines on the worker's stderr, which promptfoo logs as
    `Python worker stderr: INFO runners: ...` (the `INFO` word makes it an info line, shown by
    default, on a terminal above its progress bar and in a pipe as they come)."""
    return LineReporter(prefix="INFO runners: ") if enabled else None


class LiveReporter:
    """A live display on a terminal's stderr: an optional bar (`total` subjects), then one line
    per running subject with a spinner, its stage and its time. Use as a context manager;
    `print` puts a line above the display (on stdout or stderr) without tearing it."""

    def __init__(
        self,
        console: Console,
        total: int | None = None,
        title: str = "",
        header: Callable[[], list[list[RenderableType]]] | None = None,
    ) -> None:
        self.console = console
        self.total = total
        self.title = title
        self.header = header  # rows shown above the bar (a batch: one per agent)
        self.done = 0
        self.started = time.monotonic()
        self._lock = threading.RLock()
        self._subjects: dict[int, _Running] = {}
        self._live: Live | None = None

    def __enter__(self) -> Self:
        from rich.live import Live

        # No redirection of sys.stdout: the result printed there must stay on stdout.
        self._live = Live(
            _Renderable(self),
            console=self.console,
            transient=True,
            refresh_per_second=8,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            if self._live is not None:
                self._live.stop()
                self._live = None

    def begin(self, key: int, subject: Subject) -> None:
        with self._lock:
            from rich.spinner import Spinner

            self._subjects[key] = _Running(
                subject, "starting", time.monotonic(), Spinner("dots", style="cyan")
            )

    def stage(self, key: int, stage: str) -> None:
        with self._lock:
            if key in self._subjects:
                self._subjects[key].stage = stage

    def end(self, key: int, outcome: str | None) -> None:
        with self._lock:
            if self._subjects.pop(key, None) is not None:
                self.done += 1

    def print(self, renderable: RenderableType, console: Console | None = None) -> None:
        """Print above the display: on `console` (default: the display's own). The display is
        stopped while it prints, so a line on stdout does not land inside the live area."""
        target = console or self.console
        with self._lock:
            live = self._live
            if live is not None:
                live.stop()
            try:
                target.print(renderable)
            finally:
                if live is not None:
                    live.start()

    def rows(self) -> RenderableType:
        """The header's rows (a batch's bars per agent) and the overall bar, then one line per
        running subject: two grids, so a wide bar does not widen the spinner's column."""
        from rich.console import Group
        from rich.progress_bar import ProgressBar
        from rich.table import Table
        from rich.text import Text

        now = time.monotonic()
        top = Table.grid(padding=(0, 1))
        for row in self.header() if self.header else []:
            top.add_row(*row)
        running = Table.grid(padding=(0, 1))
        with self._lock:
            if self.total:
                top.add_row(
                    Text(self.title or "progress", style="bold"),
                    ProgressBar(total=self.total, completed=self.done, width=30),
                    Text(f"{self.done}/{self.total}"),
                    Text(_clock(now - self.started), style="dim"),
                )
            for entry in self._subjects.values():
                running.add_row(
                    entry.spinner,
                    Text(entry.subject.label, style="bold"),
                    Text(entry.stage, style="cyan"),
                    Text(_clock(now - entry.started), style="dim"),
                )
        return Group(top, running)


@dataclass
class _Running:
    subject: Subject
    stage: str
    started: float
    spinner: RenderableType  # one per subject: a spinner animates from its first frame


class _Renderable:
    """Rebuilt on every refresh of the live display."""

    def __init__(self, reporter: LiveReporter) -> None:
        self.reporter = reporter

    def __rich__(self) -> RenderableType:
        return self.reporter.rows()


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}:{secs:02d}"


@contextmanager
def for_cli(
    console: Callable[[], Console],
    enabled: bool = True,
    total: int | None = None,
    title: str = "",
    header: Callable[[], list[list[RenderableType]]] | None = None,
) -> Iterator[LiveReporter | LineReporter | None]:
    """The CLI's reporter for the block: live on a terminal's stderr (`console()`: the CLI's
    stderr console, created only then), lines when stderr is a pipe or a file, None with
    `--no-progress`."""
    if not enabled:
        yield None
    elif is_terminal(sys.stderr) and (live := console()).is_terminal:
        with LiveReporter(live, total=total, title=title, header=header) as reporter:
            yield reporter
    else:
        yield LineReporter()


def above(reporter: Reporter | None, renderable: RenderableType, console: Console) -> None:
    """Print `renderable` on `console` (a result line: stdout), above a live display if any."""
    if isinstance(reporter, LiveReporter):
        reporter.print(renderable, console)
    else:
        console.print(renderable)
