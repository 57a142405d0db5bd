"""The docker sandbox backend: `client` (engine, probe, images), `spec` (request -> container
arguments, pure), `lifecycle` (create/wait/kill/remove, chown), `sweep` (labels, orphans),
`images` (what an image holds), `backend` (the `Sandbox`)."""

from runners.sandbox.docker.backend import DockerSandbox

__all__ = ["DockerSandbox"]
