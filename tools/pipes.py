"""Output piped into a command that stops reading (``hlograph-opt ... | head``):
the tools stop quietly instead of reporting an internal error."""

from __future__ import annotations

import os
import sys

__all__ = ["stop_on_broken_pipe"]


def stop_on_broken_pipe() -> int:
    """Points stdout at the null device (so the interpreter's final flush does not
    fail again) and returns the exit status 0 for the tool to return."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a file (e.g. redirected in-process)
        pass
    return 0
