"""How an agent step reaches its model: the scripted model server of a dry run, or the base URL
of the user's gateway, wired into the CLI's own settings.

On a dry run the server listens on a Unix socket in a directory of the step, mounted into the
sandbox with the bridge (runners/modelserver/bridge.py); the agent's command runs under the bridge,
which relays the sandbox's own 127.0.0.1:PORT to that socket. The agent needs no network: in
docker's `none` network and bubblewrap's network namespace it reaches its model and nothing else.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from runners.agents.presets import Preset
from runners.modelserver import bridge
from runners.modelserver.script import Script
from runners.modelserver.server import ModelServer, free_port

SOCKET = "model.sock"
#: Variables a dry run sets for an agent without a preset (its own wrapper may read them).
GENERIC = ("ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL")
OPENAI_GENERIC = ("OPENAI_BASE_URL", "OPENAI_API_BASE")


@dataclass
class ModelRoute:
    """What the step's command and environment get, and the server to stop after it."""

    env: dict[str, str] = field(default_factory=dict)
    args: list[str] = field(default_factory=list)
    server: ModelServer | None = None
    port: int = 0
    inside: str = ""  # the route's directory as the sandbox sees it

    def program(self, argv: list[str]) -> str:
        """The agent's own program in a command `wrap` made."""
        return argv[argv.index("--") + 1] if self.server is not None else argv[0]

    def wrap(self, argv: list[str], python: str) -> list[str]:
        if self.server is None:
            return argv
        return [
            python,
            f"{self.inside}/{Path(bridge.__file__).name}",
            "--port",
            str(self.port),
            "--socket",
            f"{self.inside}/{SOCKET}",
            "--",
            *argv,
        ]


def wiring(preset: Preset | None, url: str) -> tuple[dict[str, str], list[str]]:
    """The variables and flags that point the agent at a model API at `url`."""
    if preset is None:
        return {
            "RUNNERS_MODEL_URL": url,
            **{name: url for name in GENERIC},
            **{name: f"{url}/v1" for name in OPENAI_GENERIC},
        }, []
    return preset.model_env(url), preset.model_args(url)


def start_route(
    preset: Preset | None, script: Path, checkpoint: str, host_dir: Path, inside: str, workdir: str
) -> ModelRoute:
    """Start the scripted server for one step on a socket in `host_dir` (seen as `inside`)."""
    host_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(bridge.__file__, host_dir / Path(bridge.__file__).name)
    server = ModelServer(Script.load(script), checkpoint, workdir).start(
        unix_socket=host_dir / SOCKET
    )
    port = free_port()
    env, args = wiring(preset, f"http://127.0.0.1:{port}/{preset.name if preset else 'any'}")
    if preset is not None:
        args += preset.dry_run_args()
    return ModelRoute(env=env, args=args, server=server, port=port, inside=inside)


def gateway_route(preset: Preset, base_url: str) -> ModelRoute:
    """A real run through the user's `base_url`."""
    env, args = wiring(preset, base_url.rstrip("/"))
    return ModelRoute(env=env, args=args)
