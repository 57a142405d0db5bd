"""File operations: the cwd, writable and read-only mounts, a read-only root, a private /tmp."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import uuid
from pathlib import Path

from runners.sandbox.conformance.subject import Check, Subject, expect


def cwd(subject: Subject) -> None:
    ran = subject.run("report(cwd=os.getcwd(), listed=sorted(os.listdir('.')))")
    expect(ran.result.exit_code == 0, "the run failed", ran)
    want = subject.target(subject.work)
    seen = ran.facts.get("cwd", "")
    expect(
        seen == want or Path(seen).resolve() == Path(want).resolve(),
        f"the cwd is {seen!r}, not the request's {want!r}",
        ran,
    )
    expect(
        "check.py" in ran.facts.get("listed", []), "the cwd does not hold the mounted files", ran
    )


def writable_mount(subject: Subject) -> None:
    ran = subject.run("""
        os.makedirs("made/deeper", exist_ok=True)
        with open("made/deeper/out.txt", "w") as handle:
            handle.write("written inside")
        os.symlink("deeper/out.txt", "made/link")
        report(done=True)
    """)
    expect(ran.facts.get("done"), "writing into the writable mount failed", ran)
    out = subject.work / "made" / "deeper" / "out.txt"
    expect(
        out.is_file() and out.read_text() == "written inside",
        "what was written did not reach the host",
        ran,
    )
    copy = Path(tempfile.mkdtemp(prefix="runners-conformance-rm-"))
    try:  # the harness can read and remove what the sandbox wrote (ownership and modes)
        shutil.copytree(subject.work / "made", copy / "made", symlinks=True)
        shutil.rmtree(subject.work / "made")
    except OSError as exc:
        expect(False, f"the harness cannot read or remove what the run wrote: {exc}", ran)
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def read_only_mount(subject: Subject) -> None:
    data = subject.directory("data")
    (data / "given.txt").write_text("given")
    (data / "sub").mkdir()
    before = _digest(data)
    target = subject.target(data)
    ran = subject.run(
        """
        target = sys.argv[1]
        facts = {"read": open(f"{target}/given.txt").read()}
        attempts = {
            "append": lambda: open(f"{target}/given.txt", "a").write("x"),
            "create": lambda: open(f"{target}/new.txt", "w").write("x"),
            "mkdir": lambda: os.mkdir(f"{target}/newdir"),
            "remove": lambda: os.remove(f"{target}/given.txt"),
            "rename": lambda: os.rename(f"{target}/given.txt", f"{target}/moved.txt"),
            "chmod": lambda: os.chmod(f"{target}/given.txt", 0o777),
            "rmdir": lambda: os.rmdir(f"{target}/sub"),
        }
        for name, attempt in attempts.items():
            try:
                attempt()
                facts[name] = "done"
            except OSError as exc:
                facts[name] = exc.strerror
        report(**facts)
    """,
        args=(target,),
        mounts=(subject.mount(data),),
    )
    expect(ran.facts.get("read") == "given", "a read-only mount cannot be read", ran)
    done = [name for name, value in ran.facts.items() if value == "done"]
    expect(not done, f"changes to a read-only mount went through: {done}", ran)
    expect(_digest(data) == before, "the read-only directory changed on the host", ran)


def read_only_root(subject: Subject) -> None:
    name = f"runners-conformance-{uuid.uuid4().hex[:8]}"
    paths = [f"/{name}", f"/etc/{name}", f"/usr/{name}", f"/var/{name}", f"/bin/{name}"]
    try:
        ran = subject.run(
            """
            facts = {}
            for path in sys.argv[1:]:
                try:
                    with open(path, "w") as handle:
                        handle.write("x")
                    facts[path] = "written"
                except OSError as exc:
                    facts[path] = exc.strerror
            report(**facts)
        """,
            args=tuple(paths),
        )
        written = [path for path in paths if ran.facts.get(path) == "written"]
        expect(len(ran.facts) == len(paths), "the probe did not finish", ran)
        expect(not written, f"the sandbox wrote outside its mounts and /tmp: {written}", ran)
        expect(
            not any(Path(path).exists() for path in paths),
            "a file appeared on the host's root",
            ran,
        )
    finally:
        for path in paths:  # a backend that let them through must not leave them on the host
            Path(path).unlink(missing_ok=True)


def private_tmp(subject: Subject) -> None:
    host_tmp = Path(tempfile.gettempdir())
    canary = host_tmp / f"runners-conformance-{uuid.uuid4().hex}"
    canary.write_text("the harness's")
    inside = f"runners-conformance-{uuid.uuid4().hex}"
    try:
        ran = subject.run(
            """
            with open(f"/tmp/{sys.argv[2]}", "w") as handle:
                handle.write("the sandbox's")
            report(sees_host=os.path.exists(sys.argv[1]), wrote=True)
        """,
            args=(str(canary), inside),
        )
        expect(ran.facts.get("wrote"), "/tmp is not writable", ran)
        expect(
            ran.facts.get("sees_host") is False, "the host's /tmp is visible in the sandbox", ran
        )
        expect(
            not (host_tmp / inside).exists(),
            "what the sandbox put in /tmp landed in the host's /tmp",
            ran,
        )
    finally:
        canary.unlink(missing_ok=True)
        (host_tmp / inside).unlink(missing_ok=True)


def _digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): (
            hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        )
        + oct(p.stat().st_mode)
        for p in sorted(root.rglob("*"))
    }


CHECKS = (
    Check(
        "files.cwd", "the command starts in the request's cwd, which holds the mounted files", cwd
    ),
    Check(
        "files.writable_mount",
        "writes to a writable mount reach the host; the harness can remove them",
        writable_mount,
    ),
    Check(
        "files.read_only_mount",
        "a read-only mount can be read and not changed in any way",
        read_only_mount,
    ),
    Check(
        "files.read_only_root",
        "nothing outside the writable mounts and /tmp can be written",
        read_only_root,
    ),
    Check(
        "files.private_tmp",
        "/tmp is writable and private: neither side sees the other's",
        private_tmp,
    ),
)
