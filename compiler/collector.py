"""Python's cyclic garbage collector paused while hlograph lowers, compiles or
imports a program, and kept off the objects of the libraries imported before."""

from __future__ import annotations

import contextlib
import gc
import threading

__all__ = ["FREEZE_ENV", "freeze_imported", "paused"]

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


#: ``HLOGRAPH_GC_FREEZE=off`` (or 0) keeps Python's collector as it was
FREEZE_ENV = "HLOGRAPH_GC_FREEZE"


def freeze_imported() -> bool:
    """Moves every object alive now (when ``import hlograph`` ends: the modules,
    functions and classes of jax, jaxlib, NumPy and hlograph, ~100k objects) to the
    collector's permanent generation (``gc.freeze``), unless ``$HLOGRAPH_GC_FREEZE``
    is off. Building a graph allocates a few objects per node that live as long as
    the graph, and each full collection they trigger traversed all of those
    objects again (a 10k-op chain: a third of its building time). Reference
    counting still frees every object; only reference cycles among objects made
    before the import would stay. True when it froze."""
    from ..xla.pjrt import env_setting

    if env_setting(FREEZE_ENV) is False:
        return False
    gc.freeze()
    return True
