"""The docker container profile, checked as data: `container_spec` is a pure function, so the
lock-down (no network, read-only root, no capabilities, limits, labels) is tested without Docker.
tests/sandbox/test_docker.py checks the same profile from inside real containers."""

from __future__ import annotations

from pathlib import Path

from runners.model.limits import ResourceLimits
from runners.sandbox.base import Mount, SandboxRequest
from runners.sandbox.docker.spec import CA_TARGET, container_spec, sandbox_user
from runners.sandbox.docker.sweep import LABEL_MANAGED, LABEL_OWNER, LABEL_REQUEST, LABEL_RUN

LIMITS = ResourceLimits(
    memory_mb=512,
    pids=128,
    cpus=4.0,
    file_size_mb=64,
    tmp_size_mb=32,
    nofile=1024,
    wall_timeout=60,
    output_bytes=1024,
)


def spec_for(**request: object) -> tuple[dict, list[str]]:
    fields: dict = {
        "argv": ["python3", "-m", "pytest"],
        "cwd": "/workspace",
        "env": {"HOME": "/tmp/home"},
        "limits": LIMITS,
        "timeout": 30.0,
        "run_id": "run-1",
        **request,
    }
    return container_spec(
        SandboxRequest(**fields),
        image="sha256:abc",
        user="1000:1000",
        owner="host:42:99",
        request_id="req-1",
        cpu_count=2,
        ca_bundle=Path("/etc/ssl/certs/ca.pem"),
    )


def test_a_test_step_is_locked_down():
    spec, notes = spec_for(
        mounts=[
            Mount(source=Path("/host/sub"), target="/workspace", writable=True),
            Mount(source=Path("/host/tests"), target="/tests"),
        ]
    )
    assert spec["network_mode"] == "none"
    assert spec["read_only"] is True
    assert spec["cap_drop"] == ["ALL"] and spec["security_opt"] == ["no-new-privileges"]
    assert spec["user"] == "1000:1000" and spec["init"] is True
    assert spec["tmpfs"] == {"/tmp": "rw,exec,nosuid,nodev,mode=1777,size=32m"}
    assert spec["environment"] == {"HOME": "/tmp/home"}  # only the request's variables
    assert [(m["Source"], m["Target"], m["ReadOnly"]) for m in spec["mounts"]] == [
        ("/host/sub", "/workspace", False),
        ("/host/tests", "/tests", True),
    ]
    assert spec["command"] == ["python3", "-m", "pytest"] and spec["working_dir"] == "/workspace"
    assert spec["entrypoint"][-1] == "60"  # the in-container backstop: timeout + 30 s grace
    assert notes == []


def test_limits_become_engine_limits():
    spec, _ = spec_for()
    assert spec["mem_limit"] == spec["memswap_limit"] == "512m"  # no swap beyond the memory
    assert spec["pids_limit"] == 128
    assert spec["nano_cpus"] == 2 * 10**9  # capped at the host's CPUs
    assert {u["Name"]: u["Hard"] for u in spec["ulimits"]} == {
        "core": 0,
        "nofile": 1024,
        "fsize": 64 * 1024 * 1024,
    }


def test_labels_let_a_later_start_sweep_the_container():
    spec, _ = spec_for(purpose="prepare")
    assert spec["labels"] == {
        LABEL_MANAGED: "1",
        LABEL_RUN: "run-1",
        LABEL_OWNER: "host:42:99",
        "runners.purpose": "prepare",
        LABEL_REQUEST: "req-1",
    }


def test_the_prepare_step_gets_the_network_and_the_ca_bundle():
    spec, notes = spec_for(
        network=True,
        env={
            "REQUESTS_CA_BUNDLE": "/host/ca.pem",
            "SSL_CERT_DIR": "/x",
            "HTTPS_PROXY": "http://127.0.0.1:3128",
        },
    )
    assert spec["network_mode"] == "bridge"
    assert (spec["mounts"][-1]["Source"], spec["mounts"][-1]["Target"]) == (
        "/etc/ssl/certs/ca.pem",
        CA_TARGET,
    )
    env = spec["environment"]
    assert (
        env["REQUESTS_CA_BUNDLE"] == env["SSL_CERT_FILE"] == env["NODE_EXTRA_CA_CERTS"] == CA_TARGET
    )
    assert "SSL_CERT_DIR" not in env
    assert any("HTTPS_PROXY" in note and "loopback" in note for note in notes)


def test_the_sandbox_user_is_the_harness_unless_root():
    assert sandbox_user(0, 0) == "1000:1000"
    assert sandbox_user(1234, 99) == "1234:99"
