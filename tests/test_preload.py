"""What only the end of a run needs is imported while the tests run, and never after the run."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_modules_are_imported_by_the_time_the_run_is_joined_and_a_broken_one_is_left_alone():
    script = textwrap.dedent("""
        import sys
        from runners.engine import preload
        preload.after_run("runners.outputs.render", "no_such_module_here")
        assert "runners.outputs.render" not in sys.modules
        handle = preload.Preload(["runners.parsers.ctrf"])
        handle.join()
        print("runners.outputs.render" in sys.modules, "runners.parsers.ctrf" in sys.modules)
        again = preload.Preload([])  # the wish list is used once
        print(again._thread is None)
    """)
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["True", "True", "True"]
