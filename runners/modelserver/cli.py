"""`runners model-server SCRIPT`: the scripted model on 127.0.0.1, for a CLI run by hand; and
`runners preset list|install`: the ready-made agents and their CLIs.

Registered by runners.agents.cli; only click is imported at load time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rich.console import Console

_PathType = click.Path(path_type=Path)


def register(
    app: click.Group, console: Callable[..., Console], environment: Callable[..., Any]
) -> None:
    @app.command(
        "model-server", short_help="Serve a script as a model, for a dry run of an agent by hand."
    )
    @click.argument("script", type=_PathType)
    @click.option(
        "--checkpoint",
        default=None,
        help="Whose turns to serve (default: the script's only one, or `default:`).",
    )
    @click.option(
        "--port",
        type=click.IntRange(0, 65535),
        default=0,
        show_default=True,
        help="0: a free port.",
    )
    @click.option(
        "--workdir",
        default=None,
        help="The agent's working directory (default: read from its prompt).",
    )
    @click.option(
        "--for-seconds", type=click.FloatRange(min=0), default=None, help="Stop after this long."
    )
    def model_server(
        script: Path,
        checkpoint: str | None,
        port: int,
        workdir: str | None,
        for_seconds: float | None,
    ) -> None:
        """Serve SCRIPT (docs/agents.md, "Dry runs") on 127.0.0.1 until Ctrl-C, then print the
        tokens it served. Point a CLI at the base URL printed for it."""
        from rich.text import Text

        from runners.agents.model_route import wiring
        from runners.agents.presets import PRESETS
        from runners.model.errors import UserInputError
        from runners.modelserver.script import Script
        from runners.modelserver.server import ModelServer

        loaded = Script.load(script)
        try:
            loaded.turns_for(checkpoint)
        except KeyError as exc:
            raise UserInputError(f"option --checkpoint: {exc.args[0]}") from None
        server = ModelServer(loaded, checkpoint, workdir).start(port=port)
        out = console()
        out.print(Text(f"serving {script} on {server.url}", style="bold"))
        for preset in PRESETS.values():
            env, args = wiring(preset, f"{server.url}/{preset.name}")
            said = " ".join([*(f"{k}={v}" for k, v in env.items()), *args, *preset.dry_run_args()])
            out.print(f"  {preset.name}: {said}  (any key in {preset.key_env})")
        out.print(
            f"  any other client: {server.url}/any  (GET {server.url}/_runners/usage: the tokens "
            "served)"
        )
        deadline = None if for_seconds is None else time.monotonic() + for_seconds
        try:
            while deadline is None or time.monotonic() < deadline:
                time.sleep(0.2)
        except KeyboardInterrupt:
            pass
        served = server.stop()
        out.print(
            f"served {served.requests} requests: {served.input_tokens:,} input tokens "
            f"({served.cache_read_tokens:,} from the cache), {served.output_tokens:,} output tokens"
        )

    @app.command(
        "replay-script", short_help="Make a model-server script of a run's recorded sessions."
    )
    @click.argument("run_dir", type=_PathType)
    @click.option(
        "--agent",
        required=True,
        help="The agent whose steps to read (a Claude Code or Codex preset).",
    )
    @click.option("--problem", required=True, help="The problem it solved.")
    @click.option("--output", "-o", type=_PathType, required=True, help="The script to write.")
    def replay_script(run_dir: Path, agent: str, problem: str, output: Path) -> None:
        """Read the session logs RUN_DIR kept for each checkpoint of AGENT on PROBLEM and write them
        as one script: what the model did, to serve again on a dry run (docs/agents.md)."""
        from runners.modelserver.replay import record_run, script_yaml
        from runners.modelserver.script import Script

        script, skipped = record_run(run_dir, agent, problem)
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(script_yaml(script), encoding="utf-8")
        Script.load(output)  # it reads back
        out = console()
        for checkpoint, turns in script.checkpoints.items():
            left = ", ".join(f"{n} × {name}" for name, n in sorted(skipped[checkpoint].items()))
            out.print(
                f"{checkpoint}: {len(turns)} turns"
                + (f" (left out, changing nothing: {left})" if left else "")
            )
        out.print(f"wrote {output}")

    @app.group("preset")
    def preset_app() -> None:
        """The ready-made agents (runners.agents.presets)."""

    @preset_app.command("list")
    def preset_list() -> None:
        """Each preset, its package and pinned version, its key variable."""
        from rich.table import Table

        from runners.agents.presets import PRESETS

        table = Table(title="presets", title_justify="left")
        for header in ("preset", "CLI", "package", "version", "installer", "key", "docker image"):
            table.add_column(header)
        for p in PRESETS.values():
            table.add_row(p.name, p.title, p.package, p.version, p.installer, p.key_env, p.image)
        console().print(table)

    @preset_app.command("install")
    @click.argument("names", nargs=-1)
    @click.option(
        "--sandbox",
        "sandboxes",
        multiple=True,
        default=("bubblewrap",),
        show_default=True,
        help="Where the agents will run (repeatable): docker builds their images, bubblewrap "
        "and none their cached toolchains.",
    )
    @click.option(
        "--cache-dir", type=_PathType, default=None, help="Where prepared toolchains are kept."
    )
    def preset_install(
        names: tuple[str, ...], sandboxes: tuple[str, ...], cache_dir: Path | None
    ) -> None:
        """Install the presets NAMES (default: all) now, rather than at their first step."""
        from runners.agents.presets import PRESETS, get_preset
        from runners.agents.presets.install import install
        from runners.model.errors import UserInputError

        try:
            chosen = [get_preset(n) for n in names] or list(PRESETS.values())
        except ValueError as exc:
            raise UserInputError(f"argument NAMES: {exc}") from None
        out = console()
        for name in sandboxes:
            settings = environment(name, 1, None, cache_dir, False, None)
            sandbox = _sandbox(name, settings)
            for preset in chosen:
                started = time.monotonic()
                installed = install(preset, sandbox, settings, log=lambda line: None)
                where = installed.image or installed.path[0]
                out.print(
                    f"{preset.name} {preset.version} ({sandbox.name}): {where} "
                    f"[{time.monotonic() - started:.1f} s]"
                )


def _sandbox(name: str, settings: Any) -> Any:
    from runners.sandbox.registry import resolve_sandbox

    return resolve_sandbox(name, settings.sandbox_options)
