"""What an agent may reach on the network: nothing, everything, or an allow-list (`network:`).

    network: false                              # nothing (the default)
    network: true                               # the host's network (docker: its bridge)
    network:                                    # only what is listed, through the harness's proxy
      allow: [api.anthropic.com:443, "*.example.org", openai]
      routes: {ANTHROPIC_BASE_URL: anthropic}   # VARIABLE: upstream base URL (or a known API)

`allow` entries are `host[:port]` (port 443 when omitted; a leading `*.` matches any subdomain) or
the name of a known model API. A route sets the agent's VARIABLE to a plain-HTTP address of the
harness's proxy that forwards to the upstream, so the harness sees the model traffic and counts
its tokens; the route's upstream needs no `allow` entry.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

#: Model APIs by name: `allow: [anthropic]`, `routes: {ANTHROPIC_BASE_URL: anthropic}`.
KNOWN_APIS = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
    "gemini": "https://generativelanguage.googleapis.com",
}
_HOST = re.compile(
    r"^(\*\.)?([A-Za-z0-9_]([A-Za-z0-9_-]{0,62})?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})?)*\.?$"
)
_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Endpoint:
    """One allowed `host:port` (`host` may start with `*.`)."""

    host: str
    port: int

    def matches(self, host: str, port: int) -> bool:
        host = host.lower().rstrip(".")
        if port != self.port:
            return False
        if self.host.startswith("*."):
            return host.endswith(self.host[1:])
        return host == self.host

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


@dataclass(frozen=True)
class Upstream:
    """Where a route forwards: scheme, host, port and the base path requests are appended to."""

    scheme: str
    host: str
    port: int
    path: str

    @property
    def url(self) -> str:
        default = 443 if self.scheme == "https" else 80
        port = "" if self.port == default else f":{self.port}"
        return f"{self.scheme}://{_bracketed(self.host)}{port}{self.path}"

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        return _bracketed(self.host) + ("" if self.port == default else f":{self.port}")


def parse_endpoint(text: str) -> Endpoint:
    """`host[:port]`, `[v6]:port`, or a known API's name; ValueError saying what is expected."""
    if text in KNOWN_APIS:
        upstream = parse_upstream(KNOWN_APIS[text])
        return Endpoint(upstream.host, upstream.port)
    if "://" in text or "/" in text:
        raise ValueError(
            f"{text!r}: give host[:port] (no scheme, no path), or one of {', '.join(KNOWN_APIS)}"
        )
    host, port = text, 443
    found = re.match(
        r"^\[(?P<v6>[^\]]+)\](?::(?P<port>\d+))?$|^(?P<host>[^:]+)(?::(?P<p>\d+))?$", text
    )
    if found is None:
        raise ValueError(f"{text!r}: expected host[:port] (an IPv6 address in brackets)")
    host = found["v6"] or found["host"]
    digits = found["port"] or found["p"]
    if digits is not None:
        port = int(digits)
    if not 0 < port < 65536:
        raise ValueError(f"{text!r}: port {port} is out of range 1-65535")
    _check_host(host, text)
    return Endpoint(host.lower().rstrip("."), port)


def parse_upstream(text: str) -> Upstream:
    """An `http(s)://host[:port][/path]` base URL, or a known API's name."""
    url = KNOWN_APIS.get(text, text)
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"{text!r}: expected an http:// or https:// base URL, or one of {', '.join(KNOWN_APIS)}"
        )
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(
            f"{text!r}: a base URL without query, fragment or credentials (pass keys by `pass_env`)"
        )
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise ValueError(f"{text!r}: {exc}") from None
    _check_host(parts.hostname, text)
    return Upstream(parts.scheme, parts.hostname.lower(), port, parts.path.rstrip("/"))


def _check_host(host: str, text: str) -> None:
    try:
        ipaddress.ip_address(host)
        return
    except ValueError:
        pass
    if not _HOST.match(host):
        raise ValueError(
            f"{text!r}: not a host name"
            if host == text
            else f"{text!r}: {host!r} is not a host name"
        )


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class NetworkPolicy(BaseModel):
    """`network: {allow: [...], routes: {...}}`: only these, through the harness's proxy."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    allow: list[str] = Field(
        default_factory=list,
        description="host[:port] the agent may reach "
        "(HTTPS through CONNECT, plain HTTP forwarded), or a known API's name",
    )
    routes: dict[str, str] = Field(
        default_factory=dict,
        description="VARIABLE: upstream base URL; "
        "the variable is set to the harness's plain-HTTP front for it",
    )

    @field_validator("allow")
    @classmethod
    def _allow(cls, entries: list[str]) -> list[str]:
        for entry in entries:
            parse_endpoint(entry)
        return entries

    @field_validator("routes")
    @classmethod
    def _routes(cls, routes: dict[str, str]) -> dict[str, str]:
        for name, url in routes.items():
            if not _VARIABLE.match(name):
                raise ValueError(
                    f"{name!r} is not a variable name (the route sets it to the proxy's address)"
                )
            parse_upstream(url)
        return routes

    @model_validator(mode="after")
    def _something(self) -> NetworkPolicy:
        if not self.allow and not self.routes:
            raise ValueError(
                "an allow-list with neither `allow` nor `routes` reaches nothing; "
                "write `network: false` for that"
            )
        return self

    def endpoints(self) -> list[Endpoint]:
        return [parse_endpoint(entry) for entry in self.allow]

    def upstreams(self) -> dict[str, Upstream]:
        return {name: parse_upstream(url) for name, url in self.routes.items()}

    def allows(self, host: str, port: int) -> bool:
        return any(endpoint.matches(host, port) for endpoint in self.endpoints())

    def describe(self) -> str:
        parts = [str(e) for e in self.endpoints()]
        parts += [f"{name} -> {up.url}" for name, up in self.upstreams().items()]
        return ", ".join(parts)


def network_mode(network: bool | NetworkPolicy) -> str:
    """`none`, `host` (the whole network) or `allow-list`."""
    if isinstance(network, NetworkPolicy):
        return "allow-list"
    return "host" if network else "none"
