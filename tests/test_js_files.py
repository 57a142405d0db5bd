"""The JavaScript vitest and jest load from a run's config dir: real files shipped in the package
(runners/frameworks/js/), copied unchanged, each valid for Node, and reading what varies per run
from a JSON file the runner writes beside it."""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import subprocess
from importlib.resources import files
from pathlib import Path

import pytest
from support import need

from runners.frameworks.js_report import JS_DIR, SIGNATURE_SUFFIX, SIGNING_MODULE, SNAPSHOT_RESOLVER
from runners.plugins.runners_report_signature import KEY_FILE_ENV

SHIPPED = sorted(p.name for p in JS_DIR.iterdir() if p.suffix in (".js", ".cjs", ".mjs"))


def _node() -> str:
    node = shutil.which("node") or str(
        Path(__file__).resolve().parent.parent / "node_modules/.bin/node"
    )
    need(Path(node).exists(), "node is missing (run scripts/setup-node.sh)")
    return node


def test_the_package_ships_every_file_the_runners_install():
    assert set(SHIPPED) == {
        "runners-jest-reporter.cjs",
        "runners-sign-report.cjs",
        "runners-snapshots.cjs",
        "runners-vitest-reporter.mjs",
        "vitest.config.mjs",
        # kind: repository: configs over the problem's trusted one; vitest's type checker
        "runners-jest-repo.config.cjs",
        "runners-vitest-repo.config.mjs",
        "runners-tsc.cjs",
        "runners-node-test-reporter.mjs",
    }  # node --test
    # Found as package resources, as an installed wheel finds them.
    shipped = files("runners.frameworks") / "js"
    assert all((shipped / name).is_file() for name in SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_each_shipped_file_parses_for_node(name):
    done = subprocess.run(
        [_node(), "--check", str(JS_DIR / name)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_the_signing_module_uses_the_harness_names():
    source = (JS_DIR / SIGNING_MODULE).read_text(encoding="utf-8")
    assert f'"{KEY_FILE_ENV}"' in source and f'"{SIGNATURE_SUFFIX}"' in source


def test_the_key_is_taken_once_and_signs_what_is_written(tmp_path):
    """The reporter's first call holds the key; the key file is gone, so a second caller (code
    requiring the module later) signs nothing."""
    shutil.copy(JS_DIR / SIGNING_MODULE, tmp_path)
    (tmp_path / "key").write_bytes(b"k" * 32)
    script = f"""
    const {{ takeKey }} = require("./{SIGNING_MODULE}");
    const first = takeKey(), second = takeKey();
    first("a.json", "{{}}");
    second("b.json", "{{}}");
    """
    done = subprocess.run(
        [_node(), "-e", script],
        cwd=tmp_path,
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        env={KEY_FILE_ENV: str(tmp_path / "key")},
    )
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "key").exists()
    assert (tmp_path / "a.json.sig").read_text() == hmac.new(
        b"k" * 32, b"{}", hashlib.sha256
    ).hexdigest()
    assert (tmp_path / "b.json").exists() and not (tmp_path / "b.json.sig").exists()


def test_the_snapshot_resolver_copies_into_the_prefix_written_beside_it(tmp_path):
    config, private = tmp_path / "config", tmp_path / "tmp"
    config.mkdir(), private.mkdir()
    shutil.copy(JS_DIR / SNAPSHOT_RESOLVER, config)
    (config / "runners-snapshots.json").write_text(
        json.dumps({"prefix": f"{private}/runners-snapshot-"})
    )
    snaps = tmp_path / "tests" / "__snapshots__"
    snaps.mkdir(parents=True)
    (snaps / "a.test.js.snap").write_text("sealed")
    script = f"""
    const r = require({json.dumps(str(config / SNAPSHOT_RESOLVER))});
    const copy = r.resolveSnapshotPath(
      {json.dumps(str(tmp_path / "tests" / "a.test.js"))}, ".snap");
    console.log(JSON.stringify([copy, r.resolveTestPath(copy, ".snap")]));
    """
    done = subprocess.run(
        [_node(), "-e", script], check=False, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    copy, test = json.loads(done.stdout)
    assert Path(copy).parent.parent == private and Path(copy).read_text() == "sealed"
    assert test == str(tmp_path / "tests" / "a.test.js")
