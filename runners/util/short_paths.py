"""Test messages without the harness's own paths, for a one-line view (a Promptfoo cell).

A failing test often quotes the command it ran, and under a sandbox that command is mostly paths
the harness chose: `/cache/subenv-81666def57c21f703496/bin/python`, `/workspace/main.py`,
`/tmp/pytest-of-runner/pytest-0/test_x0/stock.db`. They say nothing about the submission and
push the test's own words out of sight. Here they become what the submission's author knows:
`python`, `main.py`, `<tmp>/stock.db`. The full message stays in the result.
"""

from __future__ import annotations

import re

# A cached toolchain (runners.toolchains.cache: `<kind>-<content key>`): keep the program's name.
_TOOLCHAIN = re.compile(
    r"(?:/[^\s'\"/]+)*/(?:subenv|nodemods|repodeps|pkgmgr|pylayer|gosigner)-[0-9a-f]{8,}"
    r"(?:/[^\s'\"/]+)*/([^\s'\"/]+)"
)
# pytest's tmp_path: `/tmp/pytest-of-<user>/pytest-<n>/<test>0/`.
_PYTEST_TMP = re.compile(r"(?:/[^\s'\"/]+)*/pytest-of-[^\s'\"/]+/pytest-\d+/[^\s'\"/]+/")
# A workspace on the host (sandbox `none`): `<tmp>/runners-<random>/<part>/`.
_HOST_WORKSPACE = re.compile(
    r"(?:/[^\s'\"/]+)*/runners-[A-Za-z0-9_]{6,}/(submission|tests|config|reports|home|tmp)/"
)
# The paths a remapping sandbox (docker, bubblewrap) shows: /workspace (the copy), /harness/...
_SANDBOX = re.compile(
    r"(?<![\w.-])/(?:workspace(?:/|(?![\w.-]))|harness/(?=tests/|config/|reports/))"
)


def shorten(text: str) -> str:
    """`text` with the harness's paths replaced by what they stand for."""
    text = _TOOLCHAIN.sub(r"\1", text)
    text = _PYTEST_TMP.sub("<tmp>/", text)
    text = _HOST_WORKSPACE.sub(
        lambda m: "" if m.group(1) == "submission" else f"{m.group(1)}/", text
    )
    return _SANDBOX.sub(lambda m: "." if m.group(0) == "/workspace" else "", text)
