"""A click choice that says which choice was probably meant (`--pass-policy all-case`)."""

from __future__ import annotations

from typing import Any

import click

from runners.util.suggest import did_you_mean


class Choice(click.Choice):  # type: ignore[type-arg]  # click.Choice is generic in its stubs only
    def get_invalid_choice_message(self, value: Any, ctx: click.Context | None) -> str:
        message = super().get_invalid_choice_message(value, ctx)
        hint = did_you_mean(str(value), [str(c) for c in self.choices])
        return f"{message.rstrip('.')}{hint}." if hint else message
