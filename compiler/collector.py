"""Python's cyclic garbage collector paused while hlograph lowers, compiles or
imports a program."""

from __future__ import annotations

import contextlib
import gc
import threading

__all__ = ["paused"]

_gc_lock = threading.Lock()
_gc_holders = 0  # lowerings, compiles and imports under way that turned the collector off


@contextlib.contextmanager
def paused():
    """Python's cyclic garbage collector off while a graph lowers and compiles: the
    lowering allocates objects by the hundred thousand (MLIR handles, types, the
    graph's copies), and each of the collections they would trigger traverses every
    object of the process (a 10k-op chain: 10-25% of its time to a first result).
    Reference counting still frees what lowering drops; the collector resumes after
    the last lowering under way (in any thread) ends, unless it was off before."""
    global _gc_holders
    with _gc_lock:
        mine = gc.isenabled() or _gc_holders > 0
        if mine:
            _gc_holders += 1
            gc.disable()
    try:
        yield
    finally:
        if mine:
            with _gc_lock:
                _gc_holders -= 1
                if _gc_holders == 0:
                    gc.enable()
