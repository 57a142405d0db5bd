"""The case program: runs one checkpoint's cases inside the sandbox and writes the signed report.

Started by the harness as the run's test command (see `runners_cases_main.py`) with two
arguments: the one-time key's file and the tests directory. Its settings are in `run.json` in
the vault (the directory the key names, runners/cases/vault.py), never in the environment: the
sandbox's first processes (docker-init, `timeout`, none's supervisor) keep the environment they
were started with, readable through /proc by the submission, so that environment is exactly the
submission's own. Order matters: it makes itself non-dumpable and a subreaper, takes the key
(deleting its file), and only then starts any process of the submission.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from .adapters.api import APIAdapter
from .adapters.base import Adapter, RunSettings, fill_static
from .adapters.browser import BrowserAdapter
from .adapters.cli import CLIAdapter
from .casefile import CaseFileError
from .fresh import FreshState, Scratch
from .model import CASE_TYPES, BaseCase, CaseResult, CLIResult
from .problem import ConfigError, ProblemConfig
from .procs import harden
from .scoring import CaseScore, score_case
from .scripts import ScriptError, make_loader, make_verifier, short_trace
from .spec import GroupConfig
from .vault import REPORT, SETTINGS, SIGNATURE, sign, vault_name

KEY_FILE_ENV = "RUNNERS_REPORT_KEY_FILE"
BROWSER_ENV = "RUNNERS_CASES_BROWSER"  # the user's choice of Chromium binary (tests, odd hosts)
ADAPTERS: dict[str, type[Adapter]] = {
    "cli": CLIAdapter,
    "api": APIAdapter,
    "browser": BrowserAdapter,
}
STDERR_LINES = 6  # of an unchecked stderr, in a failing case's message
# Never given to the submission, should the user's environment hold them.
PRIVATE = (KEY_FILE_ENV, BROWSER_ENV, "PYTHONPATH", "PYTHONSAFEPATH", "PYTHONNOUSERSITE")


class ProblemError(Exception):
    """The problem is wrong (a case file, a script): the run is refused as bad input."""

    def __init__(self, file: str | None, case: str | None, message: str) -> None:
        self.file, self.case, self.message = file, case, message
        super().__init__(message)


class Run:
    def __init__(self, env: dict[str, str], key: bytes, tests: Path) -> None:
        vault = tests / vault_name(key)
        settings = json.loads((vault / SETTINGS).read_text(encoding="utf-8"))
        self.problem_dir = vault / settings["problem"]
        self.display = settings.get("problem_display", "")
        self.checkpoint_name = settings["checkpoint"]
        self.reports = Path(settings["reports"])
        self.scratch = Scratch(**settings.get("scratch", {}))
        submission_env = {k: v for k, v in env.items() if k not in PRIVATE}
        self.settings = RunSettings(
            workspace=Path(settings["workspace"]),
            entry=settings["entry"],
            env=submission_env,
            artifacts=self.reports,
            browser=env.get(BROWSER_ENV) or None,
            static=settings.get("static", {}),
        )
        self.select: list[str] = settings.get("select", [])
        self.key = key
        self.cases: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.notes: list[dict[str, Any]] = []  # not fatal: shown with the result
        self.fresh: FreshState | None = None

    # ---- the run -------------------------------------------------------------------------------

    def script_path(self, file: str | None) -> str | None:
        """A problem script's name (`loader.py`) as its path, for the error's header."""
        if file and not os.path.isabs(file) and (self.problem_dir / file).is_file():
            return str(self.problem_dir / file)
        return file

    def execute(self) -> int:
        try:
            problem = ProblemConfig.from_yaml(self.problem_dir)
            checkpoint = problem.load_checkpoint(self.checkpoint_name)
            self.settings.checkpoint_timeout = checkpoint.timeout
            self.settings.env = {**self.settings.env, **checkpoint.env}
            self.loader, self.loader_file = make_loader(problem, checkpoint)
            self.verifier, self.verifier_file = make_verifier(problem, checkpoint)
            # Before the submission's first process: what every case (every group's server) starts
            # from.
            self.fresh = FreshState(self.settings.workspace, self.scratch)
            self.settings.keep = self.fresh.keep
            self.problem, self.checkpoint = problem, checkpoint
            for group in checkpoint.groups.values():
                self.run_group(group)
        except ProblemError as exc:
            self.errors.append(
                {"file": self.script_path(exc.file), "case": exc.case, "message": exc.message}
            )
        except ScriptError as exc:
            self.errors.append({"file": exc.file, "case": None, "message": exc.message})
        except CaseFileError as exc:
            self.errors.append({"file": exc.file, "case": exc.case, "message": exc.message})
        except (ConfigError, OSError) as exc:
            self.errors.append({"file": "config.yaml", "case": None, "message": str(exc)})
        if (
            not self.errors and not self.cases and self.notes
        ):  # nothing at all to grade: the problem is wrong
            self.errors += [
                {"file": self.script_path(n["file"]), "case": None, "message": n["message"]}
                for n in self.notes
            ]
        self.write_report()
        if self.errors:
            return 2
        return 0 if all(c["status"] == "passed" for c in self.cases) else 1

    def run_group(self, group: GroupConfig) -> None:
        kind = self.problem.adapter.type
        try:
            store = self.loader.initialize_store()
        except Exception as exc:  # noqa: BLE001 - a problem script's failure, reported as such
            raise ProblemError(
                self.loader_file, None, f"initialize_store() raised {short_trace(exc)}"
            ) from None
        fresh = self.fresh
        assert fresh is not None  # made in execute(), before the first group
        fresh.restore()  # a group's server starts from the same state as every case
        with ADAPTERS[kind](self.problem.adapter, self.settings, group) as adapter:
            try:
                produced = self.loader(group=group, store=store)
                cases = iter(produced)
            except (CaseFileError, ProblemError):
                raise
            except Exception as exc:  # noqa: BLE001
                what = (
                    f"returned {type(produced).__name__}, not an iterator of (case, expected) pairs"
                    if "produced" in locals()
                    else f"raised {short_trace(exc)}"
                )
                raise ProblemError(
                    self.loader_file, None, f"group {group.name!r}: the loader {what}"
                ) from None
            last = None
            while True:
                try:
                    item = next(cases)
                except StopIteration:
                    break
                except (CaseFileError, ProblemError):
                    raise
                except Exception as exc:  # noqa: BLE001
                    after = f", after case {last!r}" if last else " (before its first case)"
                    raise ProblemError(
                        self.loader_file,
                        None,
                        f"group {group.name!r}{after}: the loader raised {short_trace(exc)}",
                    ) from None
                case, expected = self._check_item(item, kind, group)
                last = case.id
                if (
                    self.select
                    and group.name not in self.select
                    and f"{group.name}/{case.id}" not in self.select
                ):
                    continue
                if kind == "cli" and (group.isolated or case.reset):
                    fresh.restore()
                self.run_case(adapter, group, case, expected)
                try:
                    store.update(case, self.last_actual, expected)
                except Exception as exc:  # noqa: BLE001
                    raise ProblemError(
                        self.loader_file, case.id, f"store.update() raised {short_trace(exc)}"
                    ) from None
            if last is None:
                self.notes.append(
                    {
                        "file": self.loader_file,
                        "group": group.name,
                        "message": f"group {group.name!r}: the loader gave no case",
                    }
                )

    def _check_item(
        self, item: Any, kind: str, group: GroupConfig
    ) -> tuple[BaseCase, CaseResult | None]:
        case_cls, _ = CASE_TYPES[kind]
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], case_cls)):
            raise ProblemError(
                self.loader_file,
                None,
                f"group {group.name!r}: the loader must yield ({case_cls.__name__}, expected "
                f"result) pairs for a {kind} adapter, got {_kind_of(item)}",
            )
        case, expected = item
        if self.settings.static:
            try:
                case = type(case).model_validate(
                    fill_static(case.model_dump(), self.settings.static)
                )
            except ValueError as exc:
                raise ProblemError(self.loader_file, case.id, str(exc)) from None
        return case, expected if isinstance(expected, CaseResult) else None

    def run_case(
        self, adapter: Adapter, group: GroupConfig, case: BaseCase, expected: CaseResult | None
    ) -> None:
        started = time.monotonic()
        _, result_cls = CASE_TYPES[self.problem.adapter.type]
        try:
            actual = adapter.run_case(case)
        except Exception as exc:  # noqa: BLE001 - the adapter's own failure: this case errs, the run goes on
            actual = result_cls(
                id=case.id,
                group=case.group,
                group_type=case.group_type,
                status_code=-1,
                adapter_error=True,
                stderr=f"adapter failed: {short_trace(exc)}",
            )
        self.last_actual = actual
        entry: dict[str, Any] = {
            "id": f"{group.name}/{case.id}",
            "name": case.id,
            "group": group.name,
            "group_type": group.type,
            "file": f"{group.original_checkpoint or self.checkpoint_name}/{group.get_real_name()}",
            "stdout": actual.output if isinstance(actual.output, str) else None,
            "stderr": actual.stderr if isinstance(actual.stderr, str) else None,
        }
        score: CaseScore | None = None
        try:
            verdicts = self.verifier(
                group_name=case.group, case_name=case.id, actual=actual, expected=expected
            )
            if not isinstance(verdicts, dict):
                raise TypeError(
                    f"the verifier returned {type(verdicts).__name__}, not a dict of attribute -> "
                    "result"
                )
            score = score_case(verdicts, actual, expected)
        except Exception as exc:  # noqa: BLE001 - one case errs, not the run
            entry.update(
                status="error",
                attributes=[],
                message=f"{self.verifier_file} raised on case "
                f"{group.name}/{case.id}: {short_trace(exc)}",
            )
        else:
            entry.update(
                score=score.score,
                attributes=[a.as_dict() for a in score.attributes],
                diff=score.diff_text(),
            )
            if not score.judged:
                entry.update(
                    status="error",
                    message=f"{self.verifier_file} judged no attribute of case "
                    f"{group.name}/{case.id}: nothing was checked",
                )
            elif actual.adapter_error:
                entry.update(status="error", message=f"adapter error: {actual.stderr}")
            else:
                entry["status"] = "passed" if score.passed else "failed"
        if entry["status"] != "passed":
            entry["message"] = self.failure_message(entry, adapter.on_failure(case), actual, score)
        entry["duration_ms"] = round((time.monotonic() - started) * 1000, 3)
        self.cases.append(entry)
        print(
            f"{entry['status'].upper():6} {entry['id']} ({entry['duration_ms']:.0f} ms)", flush=True
        )

    @staticmethod
    def failure_message(
        entry: dict[str, Any], note: str | None, actual: CaseResult, score: CaseScore | None
    ) -> str:
        """What the table and the Promptfoo row show of a case that did not pass: the verdict on its
        first line, then why the adapter got nothing (a dead server, a step that failed), the diff,
        and the end of the program's stderr when the verifier did not judge it (a crash's trace)."""
        if "message" in entry:  # an error: the adapter's or the verifier's own words
            head = [entry["message"]]
        else:
            assert score is not None
            wrong = [a.name for a in score.judged if not a.correct]
            head = [f"{', '.join(wrong)} wrong (score {score.score or 0:.2f})"]
        diff = entry.get("diff") if "message" not in entry else None  # an error's diff says nothing
        judged = {a.name: a.correct for a in score.judged} if score is not None else {}
        stderr = ""
        if (
            isinstance(actual, CLIResult)
            and "stderr" not in judged
            and isinstance(actual.stderr, str)
            and actual.stderr.strip()
        ):
            tail = actual.stderr.strip().splitlines()[-STDERR_LINES:]
            stderr = "stderr (not checked), last lines:\n" + "\n".join(f"  {line}" for line in tail)
        # a wrong exit code: the program's own words on stderr (a crash's trace) say more than the
        # diff
        body = [stderr, diff or ""] if judged.get("status_code") is False else [diff or "", stderr]
        return "\n".join(line for line in [*head, note or "", *body] if line).strip()

    # ---- the report ----------------------------------------------------------------------------

    def write_report(self) -> None:
        body = {
            "format": "runners-cases/1",
            "checkpoint": self.checkpoint_name,
            "cases": self.cases,
            "errors": self.errors,
            "notes": [f"{n['file']}: {n['message']}" for n in self.notes],
        }
        text = json.dumps(body, ensure_ascii=True, default=str)
        if self.display:  # paths in messages as the user knows them, not the vault's
            text = text.replace(
                json.dumps(str(self.problem_dir))[1:-1], json.dumps(self.display)[1:-1]
            )
        data = text.encode()
        if self.fresh is not None:  # nothing the last case left among the reports (a planted link)
            self.fresh.restore(workspace=False)
        self.reports.mkdir(parents=True, exist_ok=True)
        for name, content in ((REPORT, data), (SIGNATURE, sign(self.key, data).encode())):
            (self.reports / name).unlink(missing_ok=True)
            (self.reports / name).write_bytes(content)


def _kind_of(item: Any) -> str:
    if isinstance(item, tuple):
        return "(" + ", ".join(type(x).__name__ for x in item) + ")"
    return type(item).__name__


def take_key(path: str) -> bytes:
    """Read the one-time key and delete its file, before any submission process exists."""
    with open(path, "rb") as handle:
        key = handle.read()
    os.unlink(path)
    return key


def main(argv: list[str] | None = None) -> int:
    harden()
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: runners_cases_main.py KEY_FILE TESTS_DIR", file=sys.stderr)
        return 3
    try:
        key = take_key(args[0])
    except OSError as exc:
        print(
            f"runners cases: the run's key is missing ({exc}); no report is written",
            file=sys.stderr,
        )
        return 3
    try:
        run = Run(dict(os.environ), key, Path(args[1]))
    except (OSError, ValueError, KeyError) as exc:
        print(
            f"runners cases: the run's settings cannot be read ({exc}); no report is written",
            file=sys.stderr,
        )
        return 3
    return run.execute()
