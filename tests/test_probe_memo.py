"""Host probes are asked once and remembered across harness processes, never past a change."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support import need_sandbox

from runners.util import probe_memo

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def memo(tmp_path, monkeypatch):
    monkeypatch.setenv("RUNNERS_CACHE_DIR", str(tmp_path / "cache"))
    probe_memo.forget()
    yield tmp_path / "cache" / probe_memo.DIR_NAME
    probe_memo.forget()


def test_an_answer_is_reused_by_a_later_process_and_asked_again_when_the_file_changes(
    memo, tmp_path
):
    program = tmp_path / "tool"
    program.write_bytes(b"\x7fELF v1")
    calls = []

    def ask() -> str:
        calls.append(1)
        return f"answer {len(calls)}"

    key = [probe_memo.file_identity(program)]
    assert probe_memo.remembered("tool", key, ask) == "answer 1"
    probe_memo.forget()  # as a new harness process would start
    assert probe_memo.remembered("tool", [probe_memo.file_identity(program)], ask) == "answer 1"
    assert len(calls) == 1
    program.write_bytes(b"\x7fELF version 2")  # an upgrade: another size and mtime
    probe_memo.forget()
    assert probe_memo.remembered("tool", [probe_memo.file_identity(program)], ask) == "answer 2"


def test_a_failed_probe_is_not_remembered(memo):
    answers = iter(["broken", None])
    first = probe_memo.remembered(
        "bwrap", ["k"], lambda: next(answers), keep=lambda why: why is None
    )
    probe_memo.forget()
    second = probe_memo.remembered(
        "bwrap", ["k"], lambda: next(answers), keep=lambda why: why is None
    )
    assert (first, second) == ("broken", None)


def test_a_damaged_or_foreign_memo_file_is_asked_again(memo):
    assert probe_memo.remembered("x", ["k"], lambda: 1) == 1
    (written,) = memo.iterdir()
    written.write_text("{not json")
    probe_memo.forget()
    assert probe_memo.remembered("x", ["k"], lambda: 2) == 2
    data = json.loads(written.read_text())
    data["key"] = "another key that hashed the same"
    written.write_text(json.dumps(data))
    probe_memo.forget()
    assert probe_memo.remembered("x", ["k"], lambda: 3) == 3


def test_a_launcher_script_is_never_remembered(tmp_path):
    shim = tmp_path / "python3"
    shim.write_text('#!/bin/sh\nexec python3.12 "$@"\n')  # a pyenv shim picks per directory
    assert probe_memo.interpreter_key(str(shim)) is None
    assert probe_memo.interpreter_key(sys.executable) is not None


PROBE_TWICE = textwrap.dedent("""
    import subprocess, sys
    calls = []
    real = subprocess.run
    def counting(*args, **kwargs):
        calls.append(args[0][0])
        return real(*args, **kwargs)
    subprocess.run = counting
    from runners.sandbox import bubblewrap
    from runners.toolchains.hosts import host_interpreter_mounts, host_interpreter_identity
    assert bubblewrap.BubblewrapSandbox.probe() is None
    bubblewrap._no_nested_userns()
    host_interpreter_identity(sys.executable)
    host_interpreter_mounts(sys.executable)
    print(len(calls))
""")


@pytest.mark.bubblewrap
def test_a_second_harness_process_starts_no_probe_subprocess(tmp_path):
    need_sandbox("bubblewrap")
    env = {**os.environ, "RUNNERS_CACHE_DIR": str(tmp_path / "cache")}
    counts = [
        int(
            subprocess.run(
                [sys.executable, "-c", PROBE_TWICE],
                env=env,
                cwd=ROOT,
                text=True,
                capture_output=True,
                check=True,
            ).stdout
        )
        for _ in range(2)
    ]
    assert counts[0] >= 3 and counts[1] == 0, counts
