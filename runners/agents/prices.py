"""The price table (prices.yaml): the cost of a run whose CLI reported tokens but no cost.

An estimate says so: the step's report carries `cost_estimated` and a note naming the model, the
table's date and source. A model not in the table leaves the cost unknown (never 0).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from runners.model.validation import validate_model

if TYPE_CHECKING:
    from runners.agents.report import AgentReport

PRICES_FILE = Path(__file__).with_name("prices.yaml")
PER = 1_000_000
_DATED = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")


class Price(BaseModel):
    """USD per million tokens."""

    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_read: float | None = Field(None, ge=0)
    cache_write: float | None = Field(None, ge=0)


class PriceTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    date: str
    source: str
    models: dict[str, Price]

    def find(self, model: str) -> tuple[str, Price] | None:
        """The price of `model`, also written with a provider prefix (`openai/gpt-5`) or a date
        suffix (`claude-sonnet-4-5-20250929`)."""
        for name in (model, model.rsplit("/", 1)[-1]):
            for candidate in (name, _DATED.sub("", name)):
                if candidate in self.models:
                    return candidate, self.models[candidate]
        return None


@lru_cache(maxsize=4)
def price_table(path: Path = PRICES_FILE) -> PriceTable:
    from runners.model.validation import load_yaml_mapping

    return validate_model(PriceTable, load_yaml_mapping(path), path)


def estimate_cost(
    model: str, report: AgentReport, table: PriceTable | None = None
) -> tuple[float, str] | None:
    """(USD, a note saying how it was estimated), or None: no tokens, or a model not in the
    table."""
    if report.prompt_tokens is None and report.completion_tokens is None:
        return None
    table = table or price_table()
    found = table.find(model)
    if found is None:
        return None
    name, price = found
    read, written = report.cached_tokens or 0, report.cache_write_tokens or 0
    fresh = max((report.prompt_tokens or 0) - read - written, 0)
    cost = (
        fresh * price.input
        + read * (price.cache_read if price.cache_read is not None else price.input)
        + written * (price.cache_write if price.cache_write is not None else price.input)
        + (report.completion_tokens or 0) * price.output
    ) / PER
    return round(
        cost, 6
    ), f"estimated from the tokens at {name}'s prices ({table.source}, {table.date})"
