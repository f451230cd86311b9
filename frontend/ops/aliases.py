"""NumPy 2's other spellings (the array-API names ``acos``, ``concat``,
``bitwise_left_shift``, ...), ``*_from`` index helpers, window functions,
``lexsort``, ``polyval`` and ``unstack``: builders over the other families'."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..graph import Variable
from . import arrange as _ar
from . import elemwise as _ew
from . import indexing as _ix
from . import linalg_namespace as _la
from . import shape as _sh
from . import sort as _sort
from .basic import as_variable, constant, normalize_axis

__all__ = [
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_invert",
    "bitwise_left_shift", "bitwise_right_shift", "concat", "row_stack", "matrix_transpose",
    "unstack", "copy", "asarray", "array", "diag_indices_from", "tril_indices_from",
    "triu_indices_from", "bartlett", "blackman", "hamming", "hanning", "kaiser", "lexsort",
    "polyval",
]

acos = _ew.arccos
acosh = _ew.arccosh
asin = _ew.arcsin
asinh = _ew.arcsinh
atan = _ew.arctan
atan2 = _ew.arctan2
atanh = _ew.arctanh
bitwise_invert = _ew.invert
bitwise_left_shift = _ew.left_shift
bitwise_right_shift = _ew.right_shift
concat = _sh.concatenate
row_stack = _ar.vstack
matrix_transpose = _la.matrix_transpose


def unstack(x: Any, axis: int = 0) -> tuple[Variable, ...]:
    """The slices of ``x`` along ``axis``, as numpy.unstack (the axis needs a known size)."""
    x = as_variable(x)
    ax = normalize_axis(axis, x.ndim, "unstack")
    n = x.shape[ax]
    if n is None:
        raise ValueError(f"unstack: axis {axis} of {x.type} has an unknown size")
    index = (slice(None),) * ax
    return tuple(x[index + (i,)] for i in range(n))


def copy(a: Any) -> Variable:
    """``a`` itself: graph values are immutable, so a copy is the same value."""
    return as_variable(a)


def asarray(a: Any, dtype: Any = None) -> Variable:
    """``a`` as a graph value (a Variable as it is; data as a constant), cast to ``dtype``."""
    x = as_variable(a)
    return x if dtype is None or np.dtype(dtype) == x.dtype else _ew.astype(x, dtype)


array = asarray


def _static_square(arr: Any, name: str) -> Variable:
    x = as_variable(arr)
    if any(d is None for d in x.shape):
        raise ValueError(f"{name}: needs an array of known shape, got {x.type}")
    return x


def diag_indices_from(arr: Any) -> tuple[Variable, ...]:
    """The indices of the main diagonal of ``arr`` (all dimensions equal, ndim >= 2)."""
    x = _static_square(arr, "diag_indices_from")
    if x.ndim < 2 or len(set(x.shape)) != 1:
        raise ValueError(f"diag_indices_from: needs an array of ndim >= 2 with equal dimensions, got {x.type}")
    return _ar.diag_indices(x.shape[0], x.ndim)


def tril_indices_from(arr: Any, k: int = 0) -> tuple[Variable, Variable]:
    """The indices of the lower triangle of the 2-D ``arr``."""
    x = _static_square(arr, "tril_indices_from")
    if x.ndim != 2:
        raise ValueError(f"tril_indices_from: needs a 2-D array, got {x.type}")
    return _ar.tril_indices(x.shape[-2], k=k, m=x.shape[-1])


def triu_indices_from(arr: Any, k: int = 0) -> tuple[Variable, Variable]:
    """The indices of the upper triangle of the 2-D ``arr``."""
    x = _static_square(arr, "triu_indices_from")
    if x.ndim != 2:
        raise ValueError(f"triu_indices_from: needs a 2-D array, got {x.type}")
    return _ar.triu_indices(x.shape[-2], k=k, m=x.shape[-1])


def _window(fn, name: str):
    def window(M: int, *args) -> Variable:
        if isinstance(M, bool) or not isinstance(M, (int, np.integer)):
            raise TypeError(f"{name}: M must be a static integer, got {M!r}")
        return constant(fn(int(M), *args))
    window.__name__ = name
    window.__doc__ = f"numpy.{name}: the window as a constant (M is static)."
    return window


bartlett = _window(np.bartlett, "bartlett")
blackman = _window(np.blackman, "blackman")
hamming = _window(np.hamming, "hamming")
hanning = _window(np.hanning, "hanning")
kaiser = _window(np.kaiser, "kaiser")


def lexsort(keys: Sequence[Any], axis: int = -1) -> Variable:
    """Indices that sort by the last key, ties broken by the key before it, ...
    (numpy.lexsort): stable argsorts from the first key to the last."""
    if isinstance(keys, Variable):
        keys = [keys[i] for i in range(keys.shape[0])]
    keys = [as_variable(k) for k in keys]
    if not keys:
        raise ValueError("lexsort: needs at least one key")
    order = _sort.argsort(keys[0], axis=axis, stable=True)
    for key in keys[1:]:
        step = _sort.argsort(_ix.take_along_axis(key, order, axis=axis), axis=axis, stable=True)
        order = _ix.take_along_axis(order, step, axis=axis)
    return order


def polyval(p: Any, x: Any) -> Variable:
    """The polynomial with coefficients ``p`` (highest degree first) at ``x``, by
    Horner's rule as numpy.polyval; ``p`` a sequence or a 1-D array of known length."""
    if isinstance(p, (list, tuple)):
        coeffs = [as_variable(c) for c in p]
    else:
        pv = as_variable(p)
        if pv.ndim != 1 or pv.shape[0] is None:
            raise ValueError(f"polyval: p must be 1-D with a known length, got {pv.type}")
        coeffs = [pv[i] for i in range(pv.shape[0])]
    y = _sh.zeros_like(as_variable(x))
    x = as_variable(x)
    for c in coeffs:
        y = y * x + c
    return y
