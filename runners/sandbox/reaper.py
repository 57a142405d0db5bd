"""Process-tree supervisor for backends without a pid namespace (`none`).

Run as `python -I reaper.py ARGV...`. It becomes a child subreaper, so daemons that double-fork
or call setsid are re-parented to it instead of init; when the command exits, when the harness
sends SIGTERM, or when the harness dies (parent-death signal), it kills every remaining descendant
before exiting. Standalone on purpose: it imports nothing from `runners` and runs in any Python 3.
"""

import ctypes
import errno
import os
import signal
import sys

PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1


def descendants(pid: int) -> list[int]:
    found, stack = [], [pid]
    while stack:
        current = stack.pop()
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    children = [int(c) for c in handle.read().split()]
            except OSError:
                continue
            found.extend(children)
            stack.extend(children)
    return found


def kill_all() -> None:
    # Freeze-free loop: repeat until nothing is left, since a dying parent can still fork.
    for _ in range(50):
        pids = descendants(os.getpid())
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        reap(block=False)


def reap(block: bool) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        except OSError as exc:
            if exc.errno == errno.EINTR:
                continue
            return
        if pid == 0:
            return


def main() -> int:
    harness = os.getppid()
    argv = sys.argv[1:]
    if not argv:
        print("reaper: no command", file=sys.stderr)
        return 125
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)

    def on_term(signum, frame):  # noqa: ARG001
        kill_all()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    # Should the harness die (killed, crashed), SIGTERM: the whole tree goes with it.
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != harness:  # it died before the line above
        return 125
    try:
        child = os.fork()
    except OSError as exc:
        print(f"reaper: fork failed: {exc}", file=sys.stderr)
        return 125
    if child == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            print(f"reaper: cannot run {argv[0]}: {exc}", file=sys.stderr)
            os._exit(127)
    status = 0
    while True:
        try:
            pid, wstatus = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == child:
            status = os.waitstatus_to_exitcode(wstatus)
            break
    kill_all()
    reap(block=False)
    return status if status >= 0 else 128 - status


if __name__ == "__main__":
    sys.exit(main())
