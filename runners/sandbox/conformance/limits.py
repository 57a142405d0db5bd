"""Limits: memory, processes, CPU, file size, /tmp size, open files, output, wall clock."""

from __future__ import annotations

import time

from runners.sandbox.conformance.subject import BASE_LIMITS, Check, Ran, Subject, expect

MB = 1024 * 1024


def _over_memory(subject: Subject) -> Ran:
    return subject.run(
        """
        chunks = []
        for _ in range(100):  # 1 GB in 10 MB pieces, every page written
            chunks.append(b"\\x01" * (10 * 1024 * 1024))
        report(survived=len(chunks))
    """,
        limits=BASE_LIMITS.model_copy(update={"memory_mb": 128}),
        timeout=60,
    )


def memory(subject: Subject) -> None:
    ran = _over_memory(subject)
    expect("survived" not in ran.facts, "1 GB was allocated under a 128 MB limit", ran)
    expect(ran.result.exit_code != 0, "the run over its memory limit exited 0", ran)


def memory_flagged(subject: Subject) -> None:
    ran = _over_memory(subject)
    expect(
        ran.result.oom_killed or "MemoryError" in ran.result.stderr,
        "the run over its memory limit is neither flagged oom_killed nor saw a MemoryError",
        ran,
    )


def pids(subject: Subject) -> None:
    ran = subject.run(
        """
        import time
        forked, refused = 0, None
        for _ in range(200):
            try:
                pid = os.fork()
            except OSError as exc:
                refused = exc.strerror
                break
            if pid == 0:
                os.close(1); os.close(2)
                time.sleep(30)
                os._exit(0)
            forked += 1
        report(forked=forked, refused=refused)
    """,
        limits=BASE_LIMITS.model_copy(update={"pids": 32}),
        timeout=30,
    )
    expect(ran.facts.get("refused"), "200 processes were started under a limit of 32", ran)
    expect(ran.facts.get("forked", 99) < 32, "more processes started than the limit of 32", ran)


def cpu(subject: Subject) -> None:
    ran = subject.run(
        """
        import time
        started = time.monotonic()
        children = []
        for _ in range(2):
            pid = os.fork()
            if pid == 0:
                end = time.monotonic() + 2.0
                while time.monotonic() < end:
                    pass
                os._exit(0)
            children.append(pid)
        used = 0.0
        for pid in children:
            _, _, usage = os.wait4(pid, 0)
            used += usage.ru_utime + usage.ru_stime
        report(cpu=used, wall=time.monotonic() - started)
    """,
        limits=BASE_LIMITS.model_copy(update={"cpus": 0.5}),
        timeout=30,
    )
    expect("cpu" in ran.facts, "the CPU probe did not finish", ran)
    share = ran.facts["cpu"] / max(ran.facts["wall"], 0.1)
    expect(
        share <= 0.5 * 1.3 + 0.05,
        f"two busy processes used {share:.2f} CPUs under a limit of 0.5",
        ran,
    )


def file_size(subject: Subject) -> None:
    ran = subject.run(
        """
        import errno
        try:
            with open("big.bin", "wb") as handle:
                for _ in range(5):
                    handle.write(b"x" * (1024 * 1024))
            report(wrote="all")
        except OSError as exc:
            report(wrote=errno.errorcode.get(exc.errno, str(exc.errno)))
    """,
        limits=BASE_LIMITS.model_copy(update={"file_size_mb": 2}),
    )
    expect(
        ran.facts.get("wrote") not in (None, "all"),
        "a 5 MB file was written under a 2 MB limit",
        ran,
    )
    big = subject.work / "big.bin"
    expect(
        not big.exists() or big.stat().st_size <= 2 * MB, "the file on the host is over 2 MB", ran
    )


def tmp_size(subject: Subject) -> None:
    ran = subject.run(
        """
        import errno
        written, error = 0, None
        for i in range(16):
            try:
                with open(f"/tmp/fill-{i}", "wb") as handle:
                    handle.write(b"x" * (1024 * 1024))
                written += 1
            except OSError as exc:
                error = errno.errorcode.get(exc.errno, str(exc.errno))
                break
        report(written=written, error=error)
    """,
        limits=BASE_LIMITS.model_copy(update={"tmp_size_mb": 8}),
    )
    expect(ran.facts.get("error") == "ENOSPC", "16 MB went into a /tmp of 8 MB without ENOSPC", ran)
    expect(ran.facts.get("written", 99) <= 8, "more than 8 MB went into /tmp", ran)


def nofile(subject: Subject) -> None:
    ran = subject.run(
        """
        import errno
        opened, error = [], None
        for _ in range(200):
            try:
                opened.append(os.open("/dev/null", os.O_RDONLY))
            except OSError as exc:
                error = errno.errorcode.get(exc.errno, str(exc.errno))
                break
        report(opened=len(opened), error=error)
    """,
        limits=BASE_LIMITS.model_copy(update={"nofile": 64}),
    )
    expect(ran.facts.get("error") == "EMFILE", "200 files were opened under a limit of 64", ran)
    expect(ran.facts.get("opened", 999) < 64, "more files opened than the limit of 64", ran)


def output(subject: Subject) -> None:
    ran = subject.run(
        """
        sys.stdout.write("HEAD\\n")
        for _ in range(50_000):
            sys.stdout.write("x" * 99 + "\\n")  # 5 MB
        sys.stdout.write("TAIL\\n")
        sys.stderr.write("done\\n")
    """,
        limits=BASE_LIMITS.model_copy(update={"output_bytes": 64 * 1024}),
    )
    result = ran.result
    expect(result.exit_code == 0, "the flooding run failed", ran)
    expect(
        result.stdout_truncated, "5 MB of stdout under a 64 KB cap is not flagged truncated", ran
    )
    expect(len(result.stdout.encode()) < 64 * 1024 + 200, "more than 64 KB of stdout was kept", ran)
    expect(
        result.stdout.startswith("HEAD") and result.stdout.rstrip().endswith("TAIL"),
        "the head and the tail of the output are not both kept",
        ran,
    )
    expect(
        result.stderr.strip() == "done" and not result.stderr_truncated,
        "stderr was lost or cut with stdout's flood",
        ran,
    )


def wall_clock(subject: Subject) -> None:
    started = time.monotonic()
    ran = subject.run("while True:\n    pass\n", timeout=3)
    elapsed = time.monotonic() - started
    expect(ran.result.timed_out, "an endless loop was not reported timed out", ran)
    expect(ran.result.exit_code != 0, "a run killed at its wall clock exited 0", ran)
    expect(elapsed < 3 + 10, f"a 3 s wall clock returned after {elapsed:.1f} s", ran)


CHECKS = (
    Check(
        "limits.memory",
        "a run cannot use more memory than its limit",
        memory,
    ),
    Check(
        "limits.memory_flagged",
        "a run over its memory limit is flagged oom_killed (or sees MemoryError)",
        memory_flagged,
    ),
    Check("limits.pids", "a run cannot start more processes than its pids limit", pids),
    Check("limits.cpu", "busy processes together get no more CPU than the cpus limit", cpu),
    Check("limits.file_size", "no file grows past the file-size limit (EFBIG)", file_size),
    Check("limits.tmp_size", "the private /tmp is full (ENOSPC) at its size limit", tmp_size),
    Check(
        "limits.nofile", "a process cannot open more files than the nofile limit (EMFILE)", nofile
    ),
    Check(
        "limits.output",
        "stdout is capped at output_bytes, head and tail kept, flagged; stderr apart",
        output,
    ),
    Check(
        "limits.wall_clock",
        "a run that does not end is killed at its timeout and flagged timed out",
        wall_clock,
    ),
)
