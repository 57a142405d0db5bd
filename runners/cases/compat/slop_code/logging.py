"""`get_logger(name)`: SCBench's structlog loggers take keyword fields; these pass them to the
standard library's logging as text."""

from __future__ import annotations

import logging
from typing import Any


class _Logger:
    def __init__(self, name: str, fields: dict[str, Any] | None = None) -> None:
        self._logger = logging.getLogger(name)
        self._fields = dict(fields or {})

    def bind(self, **fields: Any) -> _Logger:
        return _Logger(self._logger.name, {**self._fields, **fields})

    def _log(self, level: int, event: Any, *args: Any, **fields: Any) -> None:
        if self._logger.isEnabledFor(level):
            extra = " ".join(
                f"{k}={v!r}" for k, v in {**self._fields, **fields}.items() if k != "exc_info"
            )
            self._logger.log(
                level, f"{event} {extra}".strip(), *args, exc_info=fields.get("exc_info")
            )

    def debug(self, event: Any = "", *args: Any, **fields: Any) -> None:
        self._log(logging.DEBUG, event, *args, **fields)

    def info(self, event: Any = "", *args: Any, **fields: Any) -> None:
        self._log(logging.INFO, event, *args, **fields)

    def warning(self, event: Any = "", *args: Any, **fields: Any) -> None:
        self._log(logging.WARNING, event, *args, **fields)

    warn = warning

    def error(self, event: Any = "", *args: Any, **fields: Any) -> None:
        self._log(logging.ERROR, event, *args, **fields)

    def exception(self, event: Any = "", *args: Any, **fields: Any) -> None:
        self._log(
            logging.ERROR,
            event,
            *args,
            exc_info=True,
            **{k: v for k, v in fields.items() if k != "exc_info"},
        )


def get_logger(name: str | None = None) -> _Logger:
    return _Logger(name or "slop_code")
