"""Every hostile agent under every backend (agent_cases.py), as assertions.

The agent step's matrix runs once per session (in parallel), in the first test that needs it;
each test then checks one observation. Docker and bubblewrap are required under CI=true (a missing
backend fails instead of skipping); `none` runs the cases it can contain.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest
from support import need

from .agent_cases import AGENT_CASES, BY_ID
from .agent_harness import AgentWorld
from .cases import BACKENDS
from .harness import Observation, available_backends, cache_digest
from .report import DOC, agent_section, cache_changes

WORKERS = int(os.environ.get("RUNNERS_HOSTILE_WORKERS", "6"))
MARKS = {"docker": [pytest.mark.docker], "bubblewrap": [pytest.mark.bubblewrap], "none": []}
# The whole agent matrix runs in one module fixture (every case on every backend): not fast.
pytestmark = pytest.mark.slow


@dataclass
class AgentMatrix:
    observations: dict[tuple[str, str], Observation]
    probes: dict[str, str | None]
    cache_changes: list[str]


def _params() -> list:
    return [
        pytest.param(case.id, backend, marks=MARKS[backend], id=f"{case.id}-{backend}")
        for case in AGENT_CASES
        for backend in BACKENDS
        if backend not in case.skip_on
    ]


@pytest.fixture(scope="session")
def agent_matrix(request: pytest.FixtureRequest) -> AgentMatrix:
    probes = available_backends()
    wanted = set()
    for item in request.session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if item.originalname == "test_hostile_agent" and probes[params["backend"]] is None:
            wanted.add((params["case_id"], params["backend"]))
    started = time.monotonic()
    with AgentWorld() as world:
        before = cache_digest()
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            futures = {
                pair: pool.submit(world.run, BY_ID[pair[0]], pair[1]) for pair in sorted(wanted)
            }
            observations = {pair: future.result() for pair, future in futures.items()}
        changes = cache_changes(before, cache_digest())
    print(f"\nhostile agents: {len(observations)} steps in {time.monotonic() - started:.0f} s")
    return AgentMatrix(observations, probes, changes)


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("case_id, backend", _params())
def test_hostile_agent(agent_matrix: AgentMatrix, case_id: str, backend: str) -> None:
    if backend != "none":
        need(
            agent_matrix.probes[backend] is None,
            f"sandbox {backend} unavailable: {agent_matrix.probes[backend]}",
        )
    obs = agent_matrix.observations[(case_id, backend)]
    assert not obs.violations, (
        f"{case_id} on {backend} ({obs.outcome}, {obs.elapsed:.1f} s):\n"
        + "\n".join(obs.violations)
    )


@pytest.mark.timeout(1800)
def test_the_agent_steps_leave_the_toolchain_caches_unchanged(agent_matrix: AgentMatrix) -> None:
    assert not agent_matrix.cache_changes, (
        f"prepared toolchains changed: {agent_matrix.cache_changes}"
    )


def test_every_real_sandbox_runs_every_agent_case() -> None:
    assert all(
        set(case.skip_on) <= {"none"} and all(r.strip() for r in case.skip_on.values())
        for case in AGENT_CASES
    )
    covered = " ".join(case.title for case in AGENT_CASES)
    for attack in (
        "hidden tests",
        "another agent",
        "cache",
        "setsid",
        "20 MB",
        "SIGTERM",
        "secret",
        "network",
    ):
        assert attack in covered, attack


def test_the_security_document_has_the_agent_cases() -> None:
    assert agent_section() in DOC.read_text(encoding="utf-8"), (
        "docs/SECURITY.md's agent section is stale: paste tests.hostile.report.agent_section() "
        "into it (python -c 'from tests.hostile.report import agent_section; "
        "print(agent_section())')"
    )
