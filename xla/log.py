"""hlograph's loggers: ``hlograph`` and one child per stage.

- ``hlograph.lower``: specializing a graph to argument types, lowering it to StableHLO;
- ``hlograph.passes``: the pass pipeline, each item with its time;
- ``hlograph.compile``: XLA compiling a module;
- ``hlograph.cache``: executable cache hits and misses (in memory, on disk) with the key;
- ``hlograph.host``: Numba compiling host segments.

Each stage logs one INFO line with its time in milliseconds when it ends
(``DEBUG`` adds details such as cache keys). Nothing logs on the per-call path
of a compiled function, only while code is specialized, lowered and compiled.

Standard ``logging`` configuration applies (``logging.getLogger("hlograph")``).
From the shell, ``HLOGRAPH_LOG=info`` (or ``debug``, ``warning``, ...) sets the
level and sends the lines to stderr; the handler is installed when hlograph is
imported, only when the variable is set.

This module imports nothing of hlograph and no jax, so every layer may use it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from typing import Iterator

__all__ = ["ENV_LOG", "logger", "LOWER", "PASSES", "COMPILE", "CACHE", "HOST", "timed", "configure_from_env"]

ENV_LOG = "HLOGRAPH_LOG"

logger = logging.getLogger("hlograph")
LOWER = logging.getLogger("hlograph.lower")
PASSES = logging.getLogger("hlograph.passes")
COMPILE = logging.getLogger("hlograph.compile")
CACHE = logging.getLogger("hlograph.cache")
HOST = logging.getLogger("hlograph.host")

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
           "warn": logging.WARNING, "error": logging.ERROR, "critical": logging.CRITICAL}


class Timer:
    """The elapsed time of a ``timed`` block, in milliseconds (``ms``)."""

    __slots__ = ("start", "ms")

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.ms = 0.0


@contextlib.contextmanager
def timed(log: logging.Logger, what: str, *args, level: int = logging.INFO) -> Iterator[Timer]:
    """Logs ``what % args`` followed by `` in <t> ms`` on ``log`` when the block
    ends without an exception; costs one ``isEnabledFor`` check when the logger
    is off."""
    timer = Timer()
    yield timer
    timer.ms = (time.perf_counter() - timer.start) * 1e3
    if log.isEnabledFor(level):
        log.log(level, what + " in %.2f ms", *args, timer.ms)


_handler: logging.Handler | None = None


def configure_from_env() -> None:
    """Applies ``$HLOGRAPH_LOG``: sets the ``hlograph`` logger's level and adds
    one handler writing to stderr (once). Does nothing when the variable is
    unset or empty; warns (RuntimeWarning) and does nothing when it is not a
    level name or number."""
    global _handler
    value = os.environ.get(ENV_LOG, "").strip()
    if not value:
        return
    if value.lower() in _LEVELS:
        level = _LEVELS[value.lower()]
    elif value.isdigit():
        level = int(value)
    else:
        import warnings
        warnings.warn(f"{ENV_LOG}={value!r} is not a log level (expected one of "
                      f"{', '.join(sorted(set(_LEVELS) - {'warn'}))} or a number); logging stays off",
                      RuntimeWarning, stacklevel=2)
        return
    logger.setLevel(level)
    if _handler is None:
        _handler = logging.StreamHandler(sys.stderr)
        _handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        logger.addHandler(_handler)


configure_from_env()
