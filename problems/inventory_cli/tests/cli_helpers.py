"""Running the submission and checking its answers. Imported by the tests; not a test file."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

TIMEOUT_SECONDS = 10


@dataclass
class Result:
    argv: list[str]
    code: int
    stdout: str
    stderr: str

    def describe(self) -> str:
        return (
            f"command: {self.argv[-8:]}\nexit code: {self.code}\n"
            f"stdout: {self.stdout[:800]!r}\nstderr: {self.stderr[:800]!r}"
        )


class Cli:
    """Runs `entrypoint + args [+ --db DB]` in `cwd`."""

    def __init__(self, entrypoint: list[str], cwd: Path, db: Path | None) -> None:
        self.entrypoint = list(entrypoint)
        self.cwd = Path(cwd)
        self.db = db

    def run(
        self,
        *args: str,
        db: bool = True,
        env: dict[str, str] | None = None,
        drop_env: tuple[str, ...] = (),
    ) -> Result:
        argv = [*self.entrypoint, *map(str, args)]
        if db and self.db is not None:
            argv += ["--db", str(self.db)]
        environment = {**os.environ, **(env or {})}
        for name in drop_env:
            environment.pop(name, None)
        proc = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
            cwd=self.cwd,
            env=environment,
            check=False,
        )
        return Result(argv, proc.returncode, proc.stdout, proc.stderr)

    def ok(self, *args: str, **kwargs) -> object:
        """Run, expect exit 0 and one JSON document on stdout; return it."""
        result = self.run(*args, **kwargs)
        assert result.code == 0, result.describe()
        return parse_json(result)

    def text(self, *args: str, **kwargs) -> str:
        """Run, expect exit 0; return stdout as is."""
        result = self.run(*args, **kwargs)
        assert result.code == 0, result.describe()
        return result.stdout

    def fails(self, code: str, *args: str, **kwargs) -> dict:
        """Run, expect a user error with `code`; return the error object."""
        return user_error(self.run(*args, **kwargs), code)


def parse_json(result: Result) -> object:
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError as exc:
        raise AssertionError(
            f"stdout is not one JSON document ({exc})\n{result.describe()}"
        ) from None


def user_error(result: Result, code: str) -> dict:
    """Exit 1, nothing on stdout, and `{"error": {"code": code, "message": str, ...}}` on stderr."""
    assert result.code == 1, result.describe()
    assert result.stdout == "", result.describe()
    try:
        payload = json.loads(result.stderr)
    except json.JSONDecodeError:
        raise AssertionError(f"stderr is not one JSON object\n{result.describe()}") from None
    assert isinstance(payload, dict) and isinstance(payload.get("error"), dict), result.describe()
    error = payload["error"]
    assert error.get("code") == code, result.describe()
    assert isinstance(error.get("message"), str) and error["message"], result.describe()
    return error


def usage_error(result: Result) -> None:
    assert result.code == 2, result.describe()
    assert result.stdout == "", result.describe()
    assert result.stderr.strip(), result.describe()


def write_csv(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path
