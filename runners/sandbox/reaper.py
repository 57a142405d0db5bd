"""Process-tree supervisor for backends without a pid namespace (`none`).

Run as `python -I reaper.py HARNESS_PID ARGV...`: two processes, so that no single SIGKILL can
orphan the command's tree.

- The *link* (this process, the harness's direct child): what the harness waits for and signals.
  It passes SIGTERM/SIGINT on to the supervisor, waits for it and exits with its status. Its
  parent-death signal is tied to the harness (HARNESS_PID, checked after arming it, so a harness
  that died while this interpreter started is noticed too).
- The *supervisor* (forked by the link): a child subreaper, so daemons that double-fork or call
  setsid are re-parented to it instead of init. When the command exits, on SIGTERM, and when the
  link dies, it kills every remaining descendant before exiting.

The link exists because something may SIGKILL the harness's direct children, which no handler
survives: a Ray worker kills its direct children when it exits (a force-cancelled cell), and a
SIGKILLed subreaper hands its descendants to init, where they would run on. Killing the link
instead fires the supervisor's parent-death signal, and the supervisor cleans up.
Standalone on purpose: it imports nothing from `runners` and runs in any Python 3.
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


def wait_for(child: int) -> int:
    """Exit status of `child` (as a shell reports it), reaping every other child on the way."""
    while True:
        try:
            pid, wstatus = os.waitpid(-1, 0)
        except ChildProcessError:
            return 0
        except InterruptedError:
            continue
        if pid == child:
            status = os.waitstatus_to_exitcode(wstatus)
            return status if status >= 0 else 128 - status


def tie_to_parent(libc: ctypes.CDLL, parent: int) -> bool:
    """SIGTERM when `parent` dies; False when it already has (the signal would never come)."""
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    return os.getppid() == parent


def fork() -> int | None:
    try:
        return os.fork()
    except OSError as exc:
        print(f"reaper: fork failed: {exc}", file=sys.stderr)
        return None


def supervise(libc: ctypes.CDLL, argv: list[str]) -> int:
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    child = fork()
    if child is None:
        return 125
    if child == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            print(f"reaper: cannot run {argv[0]}: {exc}", file=sys.stderr)
            os._exit(127)
    status = wait_for(child)
    kill_all()
    reap(block=False)
    return status


def main() -> int:
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        print("usage: reaper.py HARNESS_PID COMMAND...", file=sys.stderr)
        return 125
    harness, argv = int(sys.argv[1]), sys.argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    supervisor = None

    def on_link_signal(signum, frame):
        if supervisor is None:  # nothing started yet
            os._exit(128 + signum)
        try:
            os.kill(supervisor, signal.SIGTERM)
        except OSError:
            pass

    signal.signal(signal.SIGTERM, on_link_signal)
    signal.signal(signal.SIGINT, on_link_signal)
    if not tie_to_parent(libc, harness):
        return 125
    link = os.getpid()
    pid = fork()
    if pid is None:
        return 125
    if pid == 0:

        def on_term(signum, frame):
            kill_all()
            os._exit(128 + signum)

        signal.signal(signal.SIGTERM, on_term)
        signal.signal(signal.SIGINT, on_term)
        if not tie_to_parent(libc, link):
            kill_all()
            os._exit(125)
        os._exit(supervise(libc, argv))
    supervisor = pid
    return wait_for(pid)


if __name__ == "__main__":
    sys.exit(main())
