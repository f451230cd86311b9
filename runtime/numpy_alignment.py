"""NumPy arrays with 64-byte aligned data, so that compiled functions read them
in place.

PJRT's CPU client uses a host buffer as the device buffer (no copy) only when
its data is 64-byte aligned. NumPy's default allocator gives malloc's 16-byte
alignment, so a large NumPy argument was copied into fresh memory on every call
(``0.5*cos(exp(tanh(sin(x)*y + x)) - y)`` on two float32[4M] arguments: the
copies and their page faults were a third of the call). Importing hlograph
installs ``runtime/_align.c``'s allocator (NEP 49) as NumPy's data allocator of
the importing context: arrays created afterwards in it are aligned (arrays that
already exist, and arrays made in threads with a context of their own, keep
NumPy's allocator). It changes nothing else: same memory, zeroed arrays still
lazily zeroed, 72 more bytes per buffer.

``HLOGRAPH_ALIGN_NUMPY=0`` leaves NumPy's allocator alone; ``restore()`` puts it
back. Where the extension could not be built, nothing is installed.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["ALIGNMENT", "install", "installed", "restore", "is_aligned"]

#: the alignment PJRT's CPU client needs to use a host buffer in place
ALIGNMENT = 64

def _extension():
    try:
        from . import _align
    except ImportError:
        return None
    return _align


def install() -> bool:
    """Makes NumPy allocate 64-byte aligned data in this context (unless
    ``$HLOGRAPH_ALIGN_NUMPY`` is 0); True when the aligned allocator is this
    context's allocator afterwards."""
    if os.environ.get("HLOGRAPH_ALIGN_NUMPY", "1") == "0":
        return False
    ext = _extension()
    if ext is None:
        return False
    ext.install()
    return True


def installed() -> bool:
    """Whether NumPy's current data allocator (in this context) is the aligned one."""
    from numpy._core.multiarray import get_handler_name
    return get_handler_name() == "hlograph_aligned_64"


def restore() -> None:
    """Puts back, in this context, the allocator ``install()`` replaced."""
    ext = _extension()
    if ext is not None:
        ext.restore()


def is_aligned(a: np.ndarray) -> bool:
    """Whether ``a``'s data can be a device buffer in place (64-byte aligned)."""
    return a.ctypes.data % ALIGNMENT == 0
