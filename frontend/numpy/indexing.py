"""NumPy's indexing routines that compose other ops: index arrays as constants
(indices, diag_indices, tril_indices, triu_indices and their ``*_from`` forms),
diagonal, and choose, select, put and fill_diagonal.

``x[idx]``, ``take``, ``take_along_axis``, ``put_along_axis``, ``unravel_index``,
``ravel_multi_index`` and ``searchsorted`` build the indexing Ops themselves
(``frontend/ops/indexing.py``); ``nonzero``, ``compress`` and ``extract`` run on
the host (``frontend/ops/dynamic.py``). Graphs are functional: ``put`` and
``fill_diagonal`` return the updated copy instead of writing into their argument.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..graph import Constant, Variable
from ..types import as_dtype
from ..ops import elemwise as ew
from ..ops import shape as sh
from ..ops.basic import as_int, as_variable, broadcast_shapes, normalize_axis, result_type, static_shape
from ..ops.indexing import at, getitem
from .manipulation import ravel, resize

__all__ = [
    "indices", "diag_indices", "diag_indices_from", "tril_indices", "tril_indices_from", "triu_indices",
    "triu_indices_from", "diagonal", "fill_diagonal", "select", "piecewise", "choose", "put",
]


# --- index arrays as constants -------------------------------------------------------------
def indices(dimensions: Sequence[int], dtype: Any = int, sparse: bool = False) -> Variable | tuple[Variable, ...]:
    """numpy.indices: a constant grid of indices (one array stacked per dim, or a tuple of
    broadcastable arrays when ``sparse``)."""
    dims = tuple(as_int(d, "indices", "a dimension") for d in dimensions)
    out = np.indices(dims, dtype=as_dtype(dtype), sparse=sparse)
    return tuple(Constant(o) for o in out) if sparse else Constant(out)


def _index_tuple(arrays: tuple[np.ndarray, ...]) -> tuple[Variable, ...]:
    return tuple(Constant(np.asarray(a, dtype=np.int64)) for a in arrays)


def diag_indices(n: int, ndim: int = 2) -> tuple[Variable, ...]:
    """numpy.diag_indices: ``ndim`` constant int64 vectors indexing the main diagonal of an
    (n, ..., n) array."""
    return _index_tuple(np.diag_indices(as_int(n, "diag_indices", "n"), as_int(ndim, "diag_indices", "ndim")))


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
    return diag_indices(x.shape[0], x.ndim)


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Variable, Variable]:
    """numpy.tril_indices: constant int64 row and column indices of the lower triangle (at and
    below the ``k``-th diagonal) of an (n, m) array."""
    m = None if m is None else as_int(m, "tril_indices", "m")
    return _index_tuple(np.tril_indices(as_int(n, "tril_indices", "n"), as_int(k, "tril_indices", "k"), m))


def tril_indices_from(arr: Any, k: int = 0) -> tuple[Variable, Variable]:
    """The indices of the lower triangle of the 2-D ``arr``."""
    x = _static_square(arr, "tril_indices_from")
    if x.ndim != 2:
        raise ValueError(f"tril_indices_from: needs a 2-D array, got {x.type}")
    return tril_indices(x.shape[-2], k=k, m=x.shape[-1])


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Variable, Variable]:
    """numpy.triu_indices: constant int64 row and column indices of the upper triangle (at and
    above the ``k``-th diagonal) of an (n, m) array."""
    m = None if m is None else as_int(m, "triu_indices", "m")
    return _index_tuple(np.triu_indices(as_int(n, "triu_indices", "n"), as_int(k, "triu_indices", "k"), m))


def triu_indices_from(arr: Any, k: int = 0) -> tuple[Variable, Variable]:
    """The indices of the upper triangle of the 2-D ``arr``."""
    x = _static_square(arr, "triu_indices_from")
    if x.ndim != 2:
        raise ValueError(f"triu_indices_from: needs a 2-D array, got {x.type}")
    return triu_indices(x.shape[-2], k=k, m=x.shape[-1])


# --- diagonals ---------------------------------------------------------------------------------
def diagonal_positions(n1: int, n2: int, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns) of the diagonal at ``offset`` of an (n1, n2) matrix, as int64 vectors."""
    length = max(0, min(n1 - max(-offset, 0), n2 - max(offset, 0)))
    i = np.arange(length, dtype=np.int64)
    return i + max(-offset, 0), i + max(offset, 0)


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """numpy.diagonal: the diagonal at ``offset`` of the (``axis1``, ``axis2``) planes, as the
    last dim of the result."""
    x = as_variable(x)
    if x.ndim < 2:
        raise ValueError(f"diagonal: the input must have at least 2 dims, got {x.ndim}")
    a1, a2 = normalize_axis(axis1, x.ndim, "diagonal"), normalize_axis(axis2, x.ndim, "diagonal")
    if a1 == a2:
        raise ValueError("diagonal: axis1 and axis2 cannot be the same")
    offset = as_int(offset, "diagonal", "offset")
    shape = static_shape(x, "diagonal", [a1, a2])
    rest = [a for a in range(x.ndim) if a not in (a1, a2)]
    rows, cols = diagonal_positions(shape[a1], shape[a2], offset)
    return getitem(sh.transpose(x, rest + [a1, a2]), (Ellipsis, rows, cols))


def fill_diagonal(x: Any, val: Any, offset: int = 0, wrap: bool = False) -> Variable:
    """Functional numpy.fill_diagonal, with PyTensor's ``offset`` for 2-d inputs: a copy of
    ``x`` with ``val`` on its diagonal (a scalar, or values taken in order and repeated
    cyclically as NumPy's flat assignment does). ``wrap`` continues the diagonal of a tall
    2-d input below its first square block, every ``cols + 1`` elements of the flattened
    array (offset 0 only). Inputs of more dims need equal dims and no offset."""
    x = as_variable(x)
    offset = as_int(offset, "fill_diagonal", "offset")
    if x.ndim < 2:
        raise ValueError(f"fill_diagonal: the input must have at least 2 dims, got {x.ndim}")
    shape = static_shape(x, "fill_diagonal")
    if x.ndim == 2 and wrap and shape[0] > shape[1] + 1:
        if offset:
            raise ValueError(f"fill_diagonal: wrap=True takes offset 0, got offset {offset}")
        flat = np.arange(0, shape[0] * shape[1], shape[1] + 1, dtype=np.int64)
        idx = (flat // shape[1], flat % shape[1])
    elif x.ndim == 2:
        idx = diagonal_positions(shape[0], shape[1], offset)
    else:
        if len(set(shape)) != 1 or offset:
            raise ValueError(f"fill_diagonal: an input of more than 2 dims needs equal dims and offset 0, "
                             f"got shape {shape}")
        idx = (np.arange(shape[0], dtype=np.int64),) * x.ndim
    n = len(idx[0])
    v = as_variable(val)
    if v.ndim and n:
        v = ravel(v)
        size = v.shape[0]
        if size is None:
            raise ValueError(f"fill_diagonal: val needs a static size, got {v.type}")
        if size == 0:
            return x  # NumPy assigns nothing from an empty val
        if size != n:
            v = getitem(v, np.arange(n, dtype=np.int64) % size)
    elif v.ndim:
        v = getitem(ravel(v), np.arange(0, dtype=np.int64))
    return at(x)[idx].set(v)


# --- select, choose, put ----------------------------------------------------------------------
def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Variable:
    """numpy.select: where the first true condition of ``condlist`` holds, the matching element
    of ``choicelist``, else ``default``; everything broadcast together, the dtype is the choices'
    and ``default``'s result type."""
    if len(condlist) != len(choicelist):
        raise ValueError("select: list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    conds = [as_variable(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise TypeError(f"select: invalid entry {i} in condlist: should be boolean ndarray")
    dt = result_type(*choicelist, default)
    out = as_variable(default, dt)
    for c, v in zip(reversed(conds), reversed(list(choicelist))):
        out = ew.where(c, as_variable(v, dt), out)
    shape = broadcast_shapes(*(v.shape for v in conds), *(as_variable(v).shape for v in choicelist),
                             as_variable(default).shape, op="select")
    if tuple(out.shape) != shape and None not in shape:
        out = sh.broadcast_to(out, shape)
    return out


def piecewise(x: Any, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> Variable:
    """numpy.piecewise: where ``condlist[i]`` holds, ``funclist[i]`` (a function of ``x``,
    called with ``*args, **kw``, or a constant); a later true condition wins, one extra
    function is the "otherwise" case, elsewhere 0; the result has ``x``'s dtype and shape.
    NumPy calls each function on the elements its condition selects, a graph on all of
    ``x`` (the same values for the elementwise functions piecewise is written with)."""
    x = as_variable(x)
    # NumPy's reading of condlist: a list of conditions unless its first entry is a scalar
    # (then one condition), an array's rows (its first axis) when it has 2 dims or more
    if isinstance(condlist, (list, tuple)):
        first_is_array = bool(condlist) and isinstance(condlist[0], (list, np.ndarray, Variable))
        conds = [as_variable(c) for c in condlist] if first_is_array or x.ndim == 0 \
            else [as_variable(condlist)]
    else:
        cond = as_variable(condlist)
        if cond.ndim == 0 or (cond.ndim == 1 and x.ndim != 0):
            conds = [cond]
        else:
            conds = [cond[i] for i in range(static_shape(cond, "piecewise", [0])[0])]
    conds = [c if c.dtype == np.bool_ else ew.astype(c, np.bool_) for c in conds]
    funclist = list(funclist) if isinstance(funclist, (list, tuple)) else [funclist]
    n, n2 = len(conds), len(funclist)
    if n == n2 - 1:  # the "otherwise" condition
        other = ew.logical_not(conds[0])
        for c in conds[1:]:
            other = ew.logical_and(other, ew.logical_not(c))
        conds.append(other)
    elif n != n2:
        raise ValueError(f"piecewise: with {n} condition(s), either {n} or {n + 1} functions are expected")
    y = sh.zeros_like(x)
    for cond, func in zip(conds, funclist):
        value = func(x, *args, **kw) if callable(func) else func
        y = ew.where(cond, ew.astype(as_variable(value), x.dtype), y)
    if tuple(y.shape) != tuple(x.shape) and None not in x.shape:
        y = sh.broadcast_to(y, x.shape)
    return y


def choose(a: Any, choices: Sequence[Any], mode: str = "raise") -> Variable:
    """numpy.choose: ``choices[a[i]][i]`` with ``a``, every choice and the result broadcast
    together. ``mode`` 'wrap' takes ``a`` modulo the number of choices, 'clip' clips it; 'raise'
    checks constant ``a`` and otherwise clips out-of-range entries on a device."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    if isinstance(choices, Variable):
        choices = [choices[i] for i in range(static_shape(choices, "choose", [0])[0])]
    choices = list(choices)
    if not choices:
        raise ValueError("choose: choices must be a non-empty sequence")
    a = as_variable(a)
    if a.dtype.kind not in "iu":
        raise TypeError(f"choose: 'a' must have an integer dtype, got {a.dtype}")
    n = len(choices)
    if mode == "raise" and isinstance(a, Constant) and a.data.size and (a.data.min() < 0 or a.data.max() >= n):
        raise ValueError("choose: invalid entry in choice array")
    if mode == "wrap":
        a = ew.remainder(a, n)
    dt = result_type(*choices)
    out = as_variable(choices[-1], dt)
    # entries >= n - 1 keep the last choice and entries < 0 the first (clipping)
    for k in range(n - 2, -1, -1):
        cond = ew.less_equal(a, k) if k == 0 else ew.equal(a, k)
        out = ew.where(cond, as_variable(choices[k], dt), out)
    shape = broadcast_shapes(a.shape, *(as_variable(c).shape for c in choices), op="choose")
    if tuple(out.shape) != shape and None not in shape:
        out = sh.broadcast_to(out, shape)
    return out


def put(a: Any, ind: Any, v: Any, mode: str = "raise") -> Variable:
    """Functional numpy.put: a copy of ``a`` whose flat positions ``ind`` hold ``v`` (cast to
    ``a``'s dtype and repeated cyclically when shorter than ``ind``). ``mode`` 'wrap' or 'clip'
    bounds the indices; 'raise' checks constant indices (out-of-range graph-valued indices are
    dropped on a device). With repeated indices the value written last in NumPy is not
    guaranteed to win."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"put: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    a = as_variable(a)
    shape = static_shape(a, "put")
    size = math.prod(shape)
    if not isinstance(ind, Variable) and np.size(ind) == 0:
        return a
    ind = as_variable(ind)
    if ind.dtype.kind not in "iu":
        raise TypeError(f"put: indices must have an integer dtype, got {ind.dtype}")
    if mode == "raise" and isinstance(ind, Constant) and ind.data.size and size and \
            (ind.data.min() < -size or ind.data.max() >= size):
        bad = ind.data.min() if ind.data.min() < -size else ind.data.max()
        raise IndexError(f"put: index {bad} is out of bounds for size {size}")
    ind = ravel(ind)
    m = static_shape(ind, "put")[0]
    if m == 0:
        return a
    if size == 0:
        raise IndexError("put: cannot replace elements of an empty array")
    if mode == "wrap":
        ind = ew.remainder(ind, size)
    elif mode == "clip":
        ind = ew.clip(ind, 0, size - 1)
    v = ravel(as_variable(v, a.dtype))
    if static_shape(v, "put")[0] == 0:
        return a
    v = resize(v, m)
    flat = at(ravel(a))[ind].set(v)
    return sh.reshape(flat, shape)
