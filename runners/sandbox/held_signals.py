"""Hold the Python-level SIGINT/SIGTERM handlers while a child process starts.

A cancellation raises KeyboardInterrupt in the main thread (Ctrl-C, a local pool worker's
SIGTERM, Ray's `ray.cancel`, which calls the SIGINT handler through `_thread.interrupt_main`).
Raised inside `subprocess.Popen` after the fork, or before the caller stored the Popen object,
it would lose the child: nothing would stop it or its tree. Held, the signal is delivered by
`release()`, once the caller knows the process and can clean it up.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

HELD = (signal.SIGINT, signal.SIGTERM)


class HeldSignals:
    def __init__(self) -> None:
        self.pending: list[int] = []
        self.saved: dict[int, Any] = {}
        # Only the main thread runs Python signal handlers (and only it may change them).
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in HELD:
            if callable(signal.getsignal(sig)):  # SIG_DFL/SIG_IGN: the kernel acts, nothing to hold
                self.saved[sig] = signal.signal(sig, self._hold)

    def _hold(self, signum: int, frame: FrameType | None) -> None:
        self.pending.append(signum)

    def release(self) -> None:
        """Put the handlers back, then run them for what arrived meanwhile (which may raise)."""
        saved, self.saved = self.saved, {}
        for sig, handler in saved.items():
            signal.signal(sig, handler)
        pending, self.pending = self.pending, []
        for signum in pending:
            handler = saved[signum]
            handler(signum, None)
