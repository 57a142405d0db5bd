"""Every hostile case under every backend, as assertions (see cases.py for what each must get).

The whole matrix runs once per session (in parallel, only the (case, backend) pairs selected), in
the first test that needs it; each test then checks one observation. Docker and bubblewrap are
required under CI=true (a missing backend fails instead of skipping); `none` always runs.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass

import pytest
from support import need

from .cases import BACKENDS, BY_ID, CASES, NOT_PASS, PASS, PROBLEM, REFUSED, Case
from .harness import Observation, World, available_backends, cache_digest, framework_reason
from .problems import NODE_FRAMEWORKS
from .report import DOC, SPECIAL_ROWS, Run, cache_changes, render

WORKERS = int(os.environ.get("RUNNERS_HOSTILE_WORKERS", "6"))
MARKS = {"docker": [pytest.mark.docker], "bubblewrap": [pytest.mark.bubblewrap], "none": []}


@dataclass
class Matrix:
    observations: dict[tuple[str, str], Observation]
    probes: dict[str, str | None]
    seconds: float
    cache_changes: list[str]


def _params() -> list:
    params = []
    for case in CASES:
        # Not a test where the case does not apply (`skip_on`: attacks `none` cannot contain, which
        # would hit the host); test_only_none_leaves_cases_out checks those are few and explained.
        for backend in (b for b in BACKENDS if b not in case.skip_on):
            marks = MARKS[backend] + (
                [pytest.mark.node] if case.framework in NODE_FRAMEWORKS else []
            )
            params.append(pytest.param(case.id, backend, marks=marks, id=f"{case.id}-{backend}"))
    return params


def _selected(session: pytest.Session) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    cases, specials = set(), set()
    for item in session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if item.originalname == "test_hostile_case":
            cases.add((params["case_id"], params["backend"]))
        elif item.originalname == "test_special_row":
            specials.add((params["row"], params["backend"]))
    return cases, specials


@pytest.fixture(scope="session")
def matrix(request: pytest.FixtureRequest) -> Matrix:
    probes = available_backends()
    wanted, specials = _selected(request.session)
    backends = [
        b for b in BACKENDS if probes[b] is None and any(w[1] == b for w in wanted | specials)
    ]
    # cases that cannot run here (no node, no Chromium) skip, or fail under CI
    wanted = {(c, b) for c, b in wanted if framework_reason(BY_ID[c].framework, b) is None}
    observations: dict[tuple[str, str], Observation] = {}
    cases = [case for case in CASES if any(c == case.id for c, _ in wanted)]
    with World(backends) as world:
        before = cache_digest()
        world.warm_up({case.framework for case in cases} | ({"pytest"} if specials else set()))
        started = time.monotonic()
        for obs in world.run_matrix(
            cases,
            workers=WORKERS,
            only=wanted,
            specials=[(r, b) for r, b in sorted(specials) if b in backends],
        ):
            observations[(obs.case, obs.backend)] = obs
        seconds = time.monotonic() - started
        changes = cache_changes(before, cache_digest())
    result = Matrix(observations, probes, seconds, changes)
    print(f"\nhostile matrix: {len(observations)} runs in {seconds:.0f} s")
    if os.environ.get("RUNNERS_WRITE_SECURITY_DOC") == "1":
        unavailable = {b: r for b, r in probes.items() if r is not None}
        DOC.write_text(
            render(Run(observations, backends, unavailable, seconds, changes)), encoding="utf-8"
        )
    return result


def _need_backend(matrix: Matrix, backend: str) -> None:
    if backend != "none":
        need(
            matrix.probes[backend] is None,
            f"sandbox {backend} unavailable: {matrix.probes[backend]}",
        )


@pytest.mark.timeout(3600)
@pytest.mark.parametrize("case_id, backend", _params())
def test_hostile_case(matrix: Matrix, case_id: str, backend: str) -> None:
    _need_backend(matrix, backend)
    reason = framework_reason(BY_ID[case_id].framework, backend)
    need(reason is None, f"the {BY_ID[case_id].framework} cases cannot run here: {reason}")
    obs = matrix.observations[(case_id, backend)]
    assert obs.outcome != "SKIP", f"{case_id} on {backend} was not run: {obs.note}"
    assert not obs.violations, (
        f"{case_id} on {backend} ({obs.outcome}, {obs.elapsed:.1f} s):\n"
        + "\n".join(obs.violations)
    )


@pytest.mark.timeout(3600)
@pytest.mark.parametrize(
    "row, backend",
    [
        pytest.param(row.id, b, marks=MARKS[b], id=f"{row.id}-{b}")
        for row in SPECIAL_ROWS
        for b in BACKENDS
    ],
)
def test_special_row(matrix: Matrix, row: str, backend: str) -> None:
    """The rows that are not a submission's case: a killed harness or batch leaves nothing within
    seconds, a full workspace file system is an infrastructure failure, an alias bomb is refused."""
    _need_backend(matrix, backend)
    obs = matrix.observations[(row, backend)]
    assert not obs.violations, f"{row} on {backend} ({obs.outcome}): " + "\n".join(obs.violations)
    expected = next(r for r in SPECIAL_ROWS if r.id == row).expected(backend)
    assert obs.outcome in expected, (obs.outcome, obs.reason)


@pytest.mark.timeout(3600)
def test_toolchain_caches_are_unchanged(matrix: Matrix) -> None:
    assert not matrix.cache_changes, (
        f"prepared toolchains changed during the hostile runs: {matrix.cache_changes}"
    )


def test_every_row_of_the_catalogue_is_covered() -> None:
    covered = {
        int(n) for case in [*CASES, *SPECIAL_ROWS] for n in re.findall(r"§6\.(\d+)", case.catalogue)
    }
    # 27 (archive extraction) does not apply: no archive a run produces is ever extracted.
    assert set(range(1, 27)) <= covered, sorted(set(range(1, 27)) - covered)
    assert len(CASES) >= 25


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_a_wrong_submission_never_expects_a_pass(case: Case) -> None:
    """Only correct submissions (controls, probes) may expect PASS; forgeries must be flagged."""
    if case.undefended:
        assert case.flags, "an undefended case must name what the scan flags"
        return
    correct = (
        case.id.endswith("honest")
        or case.id == "honest-reference"
        or "probe.py" in case.files
        or case.id == "leftover-daemons"
    )
    for backend in BACKENDS:
        if not correct:
            assert PASS not in case.expected(backend) and case.expected(backend) <= NOT_PASS | {
                REFUSED,
                PROBLEM,
            }, backend


def test_only_none_leaves_cases_out() -> None:
    """Every real sandbox runs every case; on `none` only the attacks that would hit the host
    itself are left out, each with its reason (the document lists them)."""
    left_out = {
        (case.id, backend): reason for case in CASES for backend, reason in case.skip_on.items()
    }
    assert {backend for _, backend in left_out} <= {"none"}
    assert all(reason.strip() for reason in left_out.values())
    assert len(left_out) <= 12, sorted(left_out)


def test_the_security_document_lists_every_case() -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = [case.id for case in [*CASES, *SPECIAL_ROWS] if f"`{case.id}`" not in text]
    assert not missing, (
        f"docs/SECURITY.md is stale; regenerate it (python -m tests.hostile.report): {missing}"
    )
