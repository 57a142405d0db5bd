"""The session logs a CLI writes in its private home, kept beside the step's record.

A preset names them (globs relative to the home: Claude Code's `~/.claude/projects/*/*.jsonl`,
Codex's `~/.codex/sessions/**/*.jsonl`, ...). They are copied to `<step>/transcript/<path>` before
the home is thrown away; the record lists them, Promptfoo's row links them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from runners.agents.layout import StepRecord
from runners.agents.presets import Preset

TRANSCRIPT_DIR = "transcript"
#: A transcript bigger than this is kept but not read (a preset's parser reads it for tokens).
READ_LIMIT = 64 * 1024 * 1024


def keep_transcripts(
    preset: Preset | None, home: Path, step_dir: Path, record: StepRecord
) -> dict[str, str]:
    """Copy the preset's transcripts out of `home`; their texts by path relative to `home`."""
    target = step_dir / TRANSCRIPT_DIR
    shutil.rmtree(target, ignore_errors=True)
    record.transcript = []
    if preset is None:
        return {}
    texts: dict[str, str] = {}
    home_real = home.resolve()
    for pattern in preset.transcripts:
        for path in sorted(home.glob(pattern)):
            # The agent owns its home: a link could point anywhere on the host, so only files
            # really inside it are read.
            if (
                path.is_symlink()
                or not path.is_file()
                or not path.resolve().is_relative_to(home_real)
            ):
                continue
            relative = path.relative_to(home).as_posix()
            if relative in texts:
                continue
            destination = target / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, destination)
            record.transcript.append(f"{TRANSCRIPT_DIR}/{relative}")
            texts[relative] = (
                path.read_text(encoding="utf-8", errors="replace")
                if path.stat().st_size <= READ_LIMIT
                else ""
            )
    return texts
