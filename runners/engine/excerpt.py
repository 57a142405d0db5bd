"""The few lines of a tool's output that say why it failed.

An infrastructure failure ("pytest exited 4", "npm ci failed") is useless without its cause, and
the cause sits in megabytes of captured output. `decisive_lines` picks, without knowing the tool,
the lines that look like errors (`ERROR: usage: ...`, `error: unrecognized arguments`, the last
line of a Python traceback, node's `Error: Cannot find module`, `npm error ...`, jest's
`● Validation Error:` and the line after it, ...), else the output's last lines, bounded in
lines and characters so a reason stays readable everywhere it is shown.
"""

from __future__ import annotations

import re

MAX_LINES = 10
MAX_CHARS = 1_500
MAX_LINE_CHARS = 300
TAIL_LINES = 5
INDENT = "    "

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Control characters a terminal acts on: C0 but newline and tab (ESC starts colours, screen
# clears, title changes), DEL, and C1 (0x9b is a one-byte CSI). Rich counts them all as zero
# cells wide, so dropping them from a table's text keeps its layout.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Words that mark a line as an error, wherever they are in it.
_ERROR = re.compile(
    r"\b(?:errors?|err!|exception|fatal|panic|usage:|cannot find|could not|unable to|no such file|"
    r"permission denied|unrecognized|segmentation fault|killed)|\w(?:Error|Exception)\b",
    re.IGNORECASE,
)
_TRACEBACK = "Traceback (most recent call last):"
# Ordinary test-run chatter that mentions errors without being one.
_NOISE = re.compile(
    r"^\s*(?:[=_-]+\s*$|PASSED\b|SKIPPED\b|XFAIL\b|[✓✔√○])|\b0 errors?\b", re.IGNORECASE
)


def decisive_lines(
    *outputs: str, max_lines: int = MAX_LINES, max_chars: int = MAX_CHARS
) -> list[str]:
    """The lines of `outputs` (stderr first, usually) that explain a failure, at most `max_lines`
    lines and `max_chars` characters: error-looking lines in order (a heading that ends with
    `:` keeps its next line; a Python traceback keeps its exception line), or else the tail."""
    picked: list[str] = []
    tails: list[str] = []
    for output in outputs:
        lines = [_clean(line) for line in _ANSI.sub("", output or "").splitlines()]
        lines = [line for line in lines if line.strip()]
        picked += _errors(lines)
        if not tails and lines:
            tails = lines[-TAIL_LINES:]
    chosen = _dedupe(picked) or tails
    if len(chosen) > max_lines:  # the first errors are the cause, the last ones the outcome
        head = max_lines // 2
        chosen = [
            *chosen[:head],
            f"[... {len(chosen) - max_lines + 1} more lines ...]",
            *chosen[len(chosen) - (max_lines - head - 1) :],
        ]
    return _fit(chosen, max_chars)


def terminal_safe(text: str) -> str:
    """`text` without the control characters a terminal would act on: what the submission or an
    agent wrote, made safe to show (the CLI's console applies it to everything it prints; the
    Promptfoo row's text, which promptfoo prints in its own table, gets it too)."""
    return CONTROL.sub("", text)


def with_output(reason: str, *outputs: str) -> str:
    """`reason`, followed by the decisive lines of `outputs`, indented, one per line."""
    lines = decisive_lines(*outputs)
    if not lines:
        return reason
    return reason + "\n" + "\n".join(INDENT + line for line in lines)


def _errors(lines: list[str]) -> list[str]:
    picked: list[str] = []
    in_traceback = False
    take_next = False
    for line in lines:
        stripped = line.strip()
        if stripped == _TRACEBACK:
            in_traceback = True
            continue
        if in_traceback:
            if line[:1].isspace():
                continue  # frames and source lines of the traceback
            in_traceback = False
            picked.append(stripped)  # the exception: `ModuleNotFoundError: No module named 'x'`
            continue
        if take_next:
            picked.append(stripped)
            take_next = False
            continue
        if _ERROR.search(line) and not _NOISE.search(line):
            picked.append(stripped)
            take_next = stripped.endswith(":")
    return picked


def _clean(line: str) -> str:
    line = line.rstrip()
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + "…"


def _dedupe(lines: list[str]) -> list[str]:
    seen: set[str] = set()
    kept = []
    for line in lines:
        if line not in seen:
            seen.add(line)
            kept.append(line)
    return kept


def _fit(lines: list[str], max_chars: int) -> list[str]:
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > max_chars:
            kept.append("[...]")
            break
        kept.append(line)
        used += len(line) + 1
    return kept
