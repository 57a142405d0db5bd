"""The environment SCBench's tests expect, on our own small fixtures, under bubblewrap and docker.

SCBench (SprocketLab/slop-code-bench) grades in one image; its problems' tests rely on it:

- they copy a fixture of the tests directory into tmp_path (`shutil.copy`, `copytree`) and let the
  submission write the copy: the copy must be writable, while the original stays read-only;
- they call the image's programs: `uv run x.py`, `uvx`, `node`, `g++`, `cargo`/`rustc`, `bzcat`,
  `zip`, `curl`, `gpg`, `ps`.

Both used to fail here: sealing the tests cleared their write bits, which a copy carries over
(`attempt to write a readonly database`); bubblewrap had no `uv`, docker no `bzip2` (nor Node or
Rust). The reference comparison over SCBench's own 20 problems is bench/scbench_pytest_compare.py
(docs/scbench.md).
"""

from __future__ import annotations

import pytest
from support import make_problem, make_submission, need_docker_image, need_sandbox

from runners import EnvironmentSpec, run_checkpoint

BACKENDS = [pytest.param("bubblewrap"), pytest.param("docker", marks=pytest.mark.docker)]

COPIES = {
    "data/seed.txt": "seed\n",
    "data/tree/a.txt": "a\n",
    "test_checkpoint_1.py": """
        import shutil
        import subprocess
        from pathlib import Path

        import pytest

        DATA = Path(__file__).parent / "data"


        def test_the_submission_writes_its_copy_of_a_fixture_file(entrypoint_argv, tmp_path):
            copy = tmp_path / "seed.txt"
            shutil.copy(DATA / "seed.txt", copy)
            done = subprocess.run(
                entrypoint_argv + ["file", str(copy)], capture_output=True, text=True
            )
            assert done.returncode == 0, done.stderr
            assert copy.read_text() == "seed\\nmore\\n"


        def test_the_submission_writes_into_its_copy_of_a_fixture_tree(entrypoint_argv, tmp_path):
            tree = shutil.copytree(DATA / "tree", tmp_path / "tree")
            done = subprocess.run(
                entrypoint_argv + ["tree", str(tree)], capture_output=True, text=True
            )
            assert done.returncode == 0, done.stderr
            assert sorted(p.name for p in tree.iterdir()) == ["a.txt", "b.txt"]


        def test_the_originals_stay_read_only():
            with pytest.raises(OSError):
                (DATA / "seed.txt").open("a").close()
            with pytest.raises(OSError):
                (DATA / "tree" / "new.txt").write_text("x")
    """,
}
WRITER = """
import sys
from pathlib import Path

kind, path = sys.argv[1], Path(sys.argv[2])
if kind == "file":
    with path.open("a") as handle:
        handle.write("more\\n")
else:
    (path / "b.txt").write_text("b\\n")
"""

TOOLS = {
    "test_checkpoint_1.py": """
        import bz2
        import subprocess

        import pytest


        def run(argv, cwd):
            done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, f"{argv}: {done.stderr[-2000:]}"
            return done.stdout


        def test_uv_runs_a_script(tmp_path):
            (tmp_path / "hello.py").write_text("import sys; print('uv', sys.version_info[0])")
            assert run(["uv", "run", "hello.py"], tmp_path).strip() == "uv 3"
            assert run(["uvx", "--version"], tmp_path).startswith("uv")


        def test_node_runs_a_script(tmp_path):
            assert run(["node", "-e", "console.log(6 * 7)"], tmp_path).strip() == "42"
            run(["npm", "--version"], tmp_path)


        def test_a_cpp_program_compiles_and_runs(tmp_path):
            (tmp_path / "main.cpp").write_text(
                '#include <iostream>\\nint main() { std::cout << "cpp"; }\\n'
            )
            run(["g++", "-std=c++17", "-o", "main", "main.cpp"], tmp_path)
            assert run(["./main"], tmp_path) == "cpp"


        def test_a_rust_crate_builds_offline(tmp_path):
            run(["cargo", "new", "--lib", "--vcs", "none", "adder"], tmp_path)
            run(["cargo", "build", "--release", "--offline"], tmp_path / "adder")
            (tmp_path / "main.rs").write_text('fn main() { print!("rust"); }\\n')
            run(["rustc", "--edition", "2021", "-o", "main", "main.rs"], tmp_path)
            assert run(["./main"], tmp_path) == "rust"


        def test_archives_and_the_rest(tmp_path):
            (tmp_path / "data.bz2").write_bytes(bz2.compress(b"bzipped"))
            assert run(["bzcat", "data.bz2"], tmp_path) == "bzipped"
            (tmp_path / "a.txt").write_text("zipped")
            run(["zip", "-q", "a.zip", "a.txt"], tmp_path)
            assert run(["unzip", "-p", "a.zip"], tmp_path) == "zipped"
            for argv in (["tar", "--version"], ["gzip", "--version"], ["curl", "--version"],
                         ["gpg", "--version"], ["ps"], ["make", "--version"]):
                run(argv, tmp_path)
    """,
}


def _need(backend: str) -> None:
    need_sandbox(backend)
    if backend == "docker":
        need_docker_image("python")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_copy_of_a_fixture_is_writable_and_the_fixture_is_not(tmp_path, backend):
    _need(backend)
    problem = make_problem(tmp_path, COPIES)
    submission = make_submission(tmp_path, {"main.py": WRITER})
    result = run_checkpoint(problem, "checkpoint_1", submission, EnvironmentSpec(sandbox=backend))
    assert not result.infrastructure_failure, result.infrastructure_reason
    failed = {t.name: t.failure_message for t in result.tests if not t.passed}
    assert not failed and len(result.tests) == 3, failed


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_tests_find_the_programs_of_scbench_s_image(tmp_path, backend):
    _need(backend)
    problem = make_problem(tmp_path, TOOLS, timeout=300)
    submission = make_submission(tmp_path, {"main.py": "print('unused')\n"})
    result = run_checkpoint(problem, "checkpoint_1", submission, EnvironmentSpec(sandbox=backend))
    assert not result.infrastructure_failure, result.infrastructure_reason
    failed = {t.name: (t.failure_message or "")[-600:] for t in result.tests if not t.passed}
    assert not failed and len(result.tests) == 5, failed
