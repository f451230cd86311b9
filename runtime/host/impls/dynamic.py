"""Numba implementations of the dynamic-shape host ops (frontend/ops/dynamic.py).

Each ``impl(op, node)`` returns a plain Python function that the host segment
compiles with ``numba.njit`` together with the other ops of its segment. The
heavy lifting (sorting, grouping, gathering) lives in the module-level kernels
below, compiled once per dtype and cached on disk, so a new segment only
compiles its small glue code. Glue whose code depends on a rank or an axis is
generated from source with those as literals (Numba cannot slice a shape tuple
with a computed bound).

Numba has no float16 or bfloat16 arrays: a host segment hands them to Numba
as float32 (exactly) and converts results back, so these implementations see
float32 where the node says float16/bfloat16 (``numba_dtype``). The ops whose
arithmetic would round differently in float32 (arange, linspace) refuse them
with a TypeError naming the op, which the segment reports as a HostCompileError.
"""

from __future__ import annotations

import math
from typing import Callable

import numba
import numpy as np

from ....frontend.graph import Apply, Op
from ....frontend.ops import dynamic as dyn
from ....frontend.types import DTYPES, dtype_name
from ..registry import register

__all__: list[str] = []

_NO_NUMBA = (DTYPES["float16"], DTYPES["bfloat16"])


def numba_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype a value of ``dtype`` has inside Numba: float32 for float16 and
    bfloat16 (which Numba lacks; the host segment converts at its boundary)."""
    return DTYPES["float32"] if dtype in _NO_NUMBA else dtype


def _host_impl(op_class: type[Op], widen: bool = True):
    """``register(op_class)`` for a factory; with ``widen=False`` it refuses
    float16/bfloat16 values (float32 arithmetic would round differently)."""

    def decorator(factory: Callable[[Op, Apply], Callable]) -> Callable:
        def impl(op: Op, node: Apply) -> Callable:
            for v in list(node.inputs) + list(node.outputs):
                if not widen and v.dtype in _NO_NUMBA:
                    raise TypeError(f"{op}: Numba has no {dtype_name(v.dtype)} arrays "
                                    f"(value of type {v.type})")
            return factory(op, node)

        impl.__name__ = impl.__qualname__ = factory.__name__
        impl.__doc__ = factory.__doc__
        return register(op_class)(impl)

    return decorator


def _from_source(name: str, src: str, **env) -> Callable:
    """A function defined by ``src`` (glue with literal ranks and axes), seeing the kernels."""
    glb = {"np": np, "math": math, **_KERNELS, **env}
    exec(compile(src, f"<hlograph host {name}>", "exec"), glb)
    return glb[name]


def _prod(var: str, dims) -> str:
    """Source of the product of ``var.shape[d]`` over ``dims`` (``1`` when empty)."""
    return " * ".join([f"{var}.shape[{d}]" for d in dims]) or "1"


def _shape(parts: list[str]) -> str:
    return "(" + "".join(p + ", " for p in parts) + ")"


# --- kernels (compiled once per dtype, cached on disk) -------------------------------------
_jit = numba.njit(cache=True, nogil=True)


@_jit
def _group_starts(aux):
    """Where each run of equal values of the sorted ``aux`` starts; NaNs (sorted last) form
    one run, as numpy.unique's ``equal_nan=True``."""
    n = aux.shape[0]
    first_nan = n
    while first_nan > 0 and aux[first_nan - 1] != aux[first_nan - 1]:
        first_nan -= 1
    mask = np.empty(n, np.bool_)
    for i in range(n):
        if i == 0 or i == first_nan:
            mask[i] = True
        elif i > first_nan:
            mask[i] = False
        else:
            mask[i] = aux[i] != aux[i - 1]
    return mask


@_jit
def _unique_values(a):
    aux = np.sort(a)
    return aux[_group_starts(aux)]


@_jit
def _unique_all(a):
    """(values, first indices, inverse, counts) of the 1-d ``a``, as numpy.unique."""
    n = a.shape[0]
    perm = np.argsort(a, kind="mergesort")  # stable: the first index of each value
    aux = a[perm]
    mask = _group_starts(aux)
    values = aux[mask]
    k = values.shape[0]
    index = np.empty(k, np.int64)
    inverse = np.empty(n, np.int64)
    counts = np.zeros(k, np.int64)
    g = -1
    for i in range(n):
        if mask[i]:
            g += 1
            index[g] = perm[i]
        inverse[perm[i]] = g
        counts[g] += 1
    return values, index, inverse, counts


@_jit
def _in_unique(u1, u2):
    """For each value of the unique ``u1``, whether the unique ``u2`` holds it (numpy.isin's
    sort method: a stable sort puts a value of ``u1`` just before its equal in ``u2``)."""
    ar = np.concatenate((u1, u2))
    order = np.argsort(ar, kind="mergesort")
    found = np.zeros(ar.shape[0], np.bool_)
    for i in range(ar.shape[0] - 1):
        if ar[order[i + 1]] == ar[order[i]]:
            found[order[i]] = True
    return found[:u1.shape[0]]


@_jit
def _flatnonzero(a):
    """The indices of the nonzero entries of the 1-d ``a`` (NaN is nonzero)."""
    count = 0
    for i in range(a.shape[0]):
        count += a[i] != 0
    out = np.empty(count + 1, np.int64)  # one spare slot: the loop below stores before it tests
    j = 0
    for i in range(a.shape[0]):
        out[j] = i
        j += a[i] != 0
    return out[:count]


@_jit
def _mask_rows(x2, m):
    """The rows of ``x2`` where ``m`` is true."""
    count = 0
    for i in range(m.shape[0]):
        count += m[i]
    cols = x2.shape[1]
    out = np.empty((count + 1, cols), x2.dtype)  # one spare row, as in _flatnonzero
    j = 0
    if cols == 1:
        for i in range(m.shape[0]):
            out[j, 0] = x2[i, 0]
            j += m[i]
    else:
        for i in range(m.shape[0]):
            if m[i]:
                for c in range(cols):
                    out[j, c] = x2[i, c]
                j += 1
    return out[:count]


@_jit
def _assign_rows(y2, m, v2):
    """``y2[m] = v2`` row by row; ``v2`` has one row per true entry of ``m``, or one row
    for all of them."""
    cols = y2.shape[1]
    if v2.shape[0] == 1 and cols == 1:
        y1 = y2.reshape(m.shape[0])
        val = v2[0, 0]
        for i in range(m.shape[0]):
            y1[i] = val if m[i] else y1[i]  # a select, not a branch: this loop vectorizes
    elif v2.shape[0] == 1:
        for i in range(m.shape[0]):
            keep = not m[i]
            for c in range(cols):
                y2[i, c] = y2[i, c] if keep else v2[0, c]
    else:
        j = 0
        for i in range(m.shape[0]):
            if m[i]:
                for c in range(cols):
                    y2[i, c] = v2[j, c]
                j += 1


@_jit
def _repeat3(x3, r):
    """numpy.repeat along the middle axis of ``x3``; ``r`` has 1 or ``x3.shape[1]`` entries."""
    n = x3.shape[1]
    if r.shape[0] != 1 and r.shape[0] != n:
        raise ValueError("DynamicRepeat: repeats do not broadcast to the length of the axis")
    total = 0
    for j in range(n):
        rj = r[0] if r.shape[0] == 1 else r[j]
        if rj < 0:
            raise ValueError("DynamicRepeat: repeats may not contain negative values")
        total += rj
    out = np.empty((x3.shape[0], total, x3.shape[2]), x3.dtype)
    for p in range(x3.shape[0]):
        t = 0
        for j in range(n):
            rj = r[0] if r.shape[0] == 1 else r[j]
            for _ in range(rj):
                for q in range(x3.shape[2]):
                    out[p, t, q] = x3[p, j, q]
                t += 1
    return out


@_jit
def _take3(x3, idx):
    """``x3[:, idx, :]`` for in-bounds ``idx``."""
    out = np.empty((x3.shape[0], idx.shape[0], x3.shape[2]), x3.dtype)
    for p in range(x3.shape[0]):
        for j in range(idx.shape[0]):
            for q in range(x3.shape[2]):
                out[p, j, q] = x3[p, idx[j], q]
    return out


@_jit
def _bincount(x, minlength):
    n = minlength
    for v in x:
        if v < 0:
            raise ValueError("Bincount: input 'x' must have no negative elements")
        if v >= n:
            n = v + 1
    out = np.zeros(n, np.int64)
    for v in x:
        out[v] += 1
    return out


@_jit
def _bincount_weighted(x, w, minlength):
    if w.shape[0] != x.shape[0]:
        raise ValueError("Bincount: the weights and input 'x' do not have the same length")
    n = minlength
    for v in x:
        if v < 0:
            raise ValueError("Bincount: input 'x' must have no negative elements")
        if v >= n:
            n = v + 1
    out = np.zeros(n, np.float64)
    for i in range(x.shape[0]):
        out[x[i]] += w[i]
    return out


@_jit
def _in_sorted(e, u):
    """For each value of the 1-d ``e``, whether the sorted unique ``u`` holds it, by binary
    search. Real dtypes only: NaNs (sorted last) compare false, so they act as +inf and
    are never found."""
    out = np.empty(e.shape[0], np.bool_)
    m = u.shape[0]
    for i in range(e.shape[0]):
        v = e[i]
        lo, hi = 0, m
        while lo < hi:
            mid = (lo + hi) >> 1
            if u[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo < m and u[lo] == v
    return out


@_jit
def _select_missing(u1, found):
    """The values of ``u1`` where ``found`` is false."""
    out = np.empty(u1.shape[0] - np.count_nonzero(found), u1.dtype)
    j = 0
    for i in range(u1.shape[0]):
        if not found[i]:
            out[j] = u1[i]
            j += 1
    return out


@_jit
def _intersect_unique(u1, u2):
    """The values in both unique inputs, sorted (NaN equals nothing)."""
    aux = np.sort(np.concatenate((u1, u2)))
    count = 0
    for i in range(aux.shape[0] - 1):
        if aux[i + 1] == aux[i]:
            count += 1
    out = np.empty(count, aux.dtype)
    j = 0
    for i in range(aux.shape[0] - 1):
        if aux[i + 1] == aux[i]:
            out[j] = aux[i]
            j += 1
    return out


@_jit
def _isin_flat(e, t):
    """numpy.isin of the 1-d ``e`` in the 1-d ``t`` (one dtype; complex needs this path, as
    Numba has no ordering of complex scalars)."""
    values, index, inverse, counts = _unique_all(e)
    found = _in_unique(values, _unique_values(t))
    out = np.empty(e.shape[0], np.bool_)
    for i in range(e.shape[0]):
        out[i] = found[inverse[i]]
    return out


@_jit
def _stack_columns(idx):
    """The tuple of index vectors of np.nonzero as the columns of an int64 matrix."""
    n = idx[0].shape[0]
    out = np.empty((n, len(idx)), np.int64)
    for j in range(len(idx)):
        col = idx[j]
        for i in range(n):
            out[i, j] = col[i]
    return out


@_jit
def _broadcast_rows(values, shape, rows, cols):
    """``values`` broadcast to ``shape``, as a contiguous ``(rows, cols)`` matrix."""
    return np.ascontiguousarray(np.broadcast_to(values, shape)).reshape(rows, cols)


@_jit
def _linspace(start, stop, n, endpoint, floor):
    """numpy.linspace in the dtype of the 0-d ``start`` and ``stop``, step by step as NumPy."""
    if n < 0:
        raise ValueError("DynamicLinspace: the number of samples must be non-negative")
    div = n - 1 if endpoint else n
    s, e = start[()], stop[()]
    delta = e - s
    y = np.empty(n, start.dtype)
    for i in range(n):
        y[i] = i
    if div > 0:
        d = np.empty(1, start.dtype)
        d[0] = div
        step = delta / d[0]
        if step == 0:  # denormal step: divide first, as NumPy does
            for i in range(n):
                y[i] = y[i] / d[0] * delta
        else:
            for i in range(n):
                y[i] = y[i] * step
    else:
        for i in range(n):
            y[i] = y[i] * delta
    for i in range(n):
        y[i] = y[i] + s
    if endpoint and n > 1:
        y[n - 1] = e
    if floor:  # integer results (never complex: make_node refuses that); .real types for both
        for i in range(n):
            y[i] = np.floor(y[i].real)
    return y


_KERNELS = {f.__name__: f for f in (_group_starts, _unique_values, _unique_all, _in_unique,
                                    _mask_rows, _assign_rows, _repeat3, _take3, _bincount,
                                    _bincount_weighted, _intersect_unique,
                                    _isin_flat, _stack_columns, _broadcast_rows, _flatnonzero,
                                    _in_sorted, _select_missing)}


# --- unique and the nonzero family ---------------------------------------------------------
@_host_impl(dyn.Unique)
def numba_unique(op: dyn.Unique, node: Apply) -> Callable:
    if not (op.return_index or op.return_inverse or op.return_counts):
        def unique(x):
            return _unique_values(x.ravel())
        return unique
    picked = ["values"] + [name for name, flag in (("index", op.return_index),
                                                   ("inverse", op.return_inverse),
                                                   ("counts", op.return_counts)) if flag]
    return _from_source("unique", (
        "def unique(x):\n"
        "    values, index, inverse, counts = _unique_all(x.ravel())\n"
        "    inverse = inverse.reshape(x.shape)\n"
        f"    return {', '.join(picked)}\n"))


@_host_impl(dyn.Nonzero)
def numba_nonzero(op: dyn.Nonzero, node: Apply) -> Callable:
    if node.inputs[0].ndim == 1:
        def nonzero_1d(x):
            return _flatnonzero(x.ravel())
        return nonzero_1d

    def nonzero(x):
        return np.nonzero(x)
    return nonzero


@_host_impl(dyn.FlatNonzero)
def numba_flatnonzero(op: dyn.FlatNonzero, node: Apply) -> Callable:
    def flatnonzero(x):
        return _flatnonzero(x.ravel())
    return flatnonzero


@_host_impl(dyn.ArgWhere)
def numba_argwhere(op: dyn.ArgWhere, node: Apply) -> Callable:
    ndim = node.inputs[0].ndim
    if ndim == 0:
        def argwhere_0d(x):
            return np.zeros((1 if x[()] != 0 else 0, 0), np.int64)
        return argwhere_0d

    def argwhere(x):
        return _stack_columns(np.nonzero(x))
    return argwhere


# --- boolean masks -------------------------------------------------------------------------
def _mask_check_source(op_name: str, k: int) -> str:
    if k == 0:
        return ""
    cond = " or ".join(f"x.shape[{i}] != mask.shape[{i}]" for i in range(k))
    return (f"    if {cond}:\n"
            f"        raise IndexError('{op_name}: boolean index did not match the indexed array')\n")


@_host_impl(dyn.BooleanMask)
def numba_boolean_mask(op: dyn.BooleanMask, node: Apply) -> Callable:
    x, mask = node.inputs
    rest = range(mask.ndim, x.ndim)
    out_shape = _shape(["out.shape[0]"] + [f"x.shape[{d}]" for d in rest])
    return _from_source("boolean_mask", (
        "def boolean_mask(x, mask):\n"
        + _mask_check_source("BooleanMask", mask.ndim) +
        "    rows = mask.size\n"
        f"    cols = {_prod('x', rest)}\n"
        "    out = _mask_rows(x.ravel().reshape(rows, cols), mask.ravel())\n"
        f"    return out.reshape({out_shape})\n"))


@_host_impl(dyn.MaskAssign)
def numba_mask_assign(op: dyn.MaskAssign, node: Apply) -> Callable:
    x, mask, values = node.inputs
    rest = list(range(mask.ndim, x.ndim))
    target = ["count"] + [f"x.shape[{d}]" for d in rest]
    # values with one row for every selected element broadcast to a single row
    one_row = values.ndim < len(target)
    # values broadcast to (count,) + rest, aligned on the right
    offset = len(target) - values.ndim
    checks = " or ".join(
        f"(values.shape[{i}] != 1 and values.shape[{i}] != {target[offset + i]})"
        for i in range(values.ndim))
    check_src = ("" if not checks else
                 f"    if {checks}:\n"
                 "        raise ValueError('MaskAssign: values do not broadcast to the elements "
                 "where the mask is true')\n")
    return _from_source("mask_assign", (
        "def mask_assign(x, mask, values):\n"
        + _mask_check_source("MaskAssign", mask.ndim) +
        "    m = mask.ravel()\n"
        "    count = np.count_nonzero(m)\n"
        + check_src +
        f"    cols = {_prod('x', rest)}\n"
        "    y = x.copy()\n"
        f"    rows = {'1' if one_row else 'count if values.shape[0] != 1 else 1'}\n"
        f"    v = _broadcast_rows(values, {_shape(['rows'] + target[1:])}, rows, cols)\n"
        "    _assign_rows(y.reshape(m.shape[0], cols), m, v)\n"
        "    return y\n"))


# --- runtime-sized construction ------------------------------------------------------------
@_host_impl(dyn.DynamicEye)
def numba_dynamic_eye(op: dyn.DynamicEye, node: Apply) -> Callable:
    dtype = numba_dtype(op.dtype)

    def eye(n, m, k):
        rows, cols, diag = n[()], m[()], k[()]
        if rows < 0 or cols < 0:
            raise ValueError("DynamicEye: negative dimensions are not allowed")
        out = np.zeros((rows, cols), dtype)
        for i in range(max(0, -diag), min(rows, cols - diag)):
            out[i, i + diag] = 1
        return out
    return eye


@_host_impl(dyn.DynamicTri)
def numba_dynamic_tri(op: dyn.DynamicTri, node: Apply) -> Callable:
    dtype = numba_dtype(op.dtype)

    def tri(n, m, k):
        rows, cols, diag = n[()], m[()], k[()]
        if rows < 0 or cols < 0:
            raise ValueError("DynamicTri: negative dimensions are not allowed")
        out = np.zeros((rows, cols), dtype)
        for i in range(rows):
            for j in range(min(cols, max(0, i + diag + 1))):
                out[i, j] = 1
        return out
    return tri


@_jit
def _arange_length(start, stop, step):
    """numpy.arange's length: ceil((stop - start) / step) in the bounds' types, clipped at 0."""
    if step == 0:
        raise ValueError("DynamicArange: step must not be zero")
    span = stop - start
    value = np.float64(span / step)
    if np.isnan(value):
        raise ValueError("DynamicArange: cannot compute the length")
    if value == 0 and span != 0:  # the quotient underflowed
        return 0 if math.copysign(1.0, value) < 0 else 1
    if not np.isfinite(value) or abs(value) >= 9.2e18:
        raise ValueError("DynamicArange: maximum allowed size exceeded")
    return max(int(math.ceil(value)), 0)


@_host_impl(dyn.DynamicArange, widen=False)
def numba_dynamic_arange(op: dyn.DynamicArange, node: Apply) -> Callable:
    dtype = op.dtype
    if dtype == DTYPES["bool"]:
        def arange_bool(start, stop, step):
            s, st = start[()], step[()]
            n = _arange_length(s, stop[()], st)
            if n > 2:
                raise TypeError("DynamicArange: booleans are only supported when the result "
                                "has at most length 2")
            out = np.empty(n, dtype)
            if n >= 1:
                out[0] = s != 0
            if n >= 2:
                out[1] = (s + st) != 0
            return out
        return arange_bool

    def arange(start, stop, step):
        s, st = start[()], step[()]
        n = _arange_length(s, stop[()], st)
        out = np.empty(n, dtype)
        if n >= 1:
            out[0] = s
        if n >= 2:
            out[1] = s + st
        if n > 2:
            # NumPy's fill: x0 + i * (x1 - x0) in the result dtype
            first = out[0]
            delta = out[1] - out[0]
            i_typed = np.empty(1, dtype)
            for i in range(2, n):
                i_typed[0] = i
                out[i] = first + i_typed[0] * delta
        return out
    return arange


@_host_impl(dyn.DynamicLinspace, widen=False)
def numba_dynamic_linspace(op: dyn.DynamicLinspace, node: Apply) -> Callable:
    dtype = op.dtype
    cdt = op.cdtype
    endpoint = op.endpoint
    floor = dtype.kind in "iu"

    def linspace(start, stop, num):
        return _linspace(start.astype(cdt), stop.astype(cdt), num[()], endpoint, floor).astype(dtype)
    return linspace


# --- repeat, compress, extract, bincount ---------------------------------------------------
def _axis_split(var: str, ndim: int, axis: int | None) -> tuple[str, str, str]:
    """Source of (before, along, after) sizes that view ``var`` as 3-d around ``axis``."""
    if axis is None:
        return "1", f"{var}.size", "1"
    return (_prod(var, range(axis)), f"{var}.shape[{axis}]", _prod(var, range(axis + 1, ndim)))


def _axis_result_shape(ndim: int, axis: int | None) -> str:
    if axis is None:
        return "(out.shape[1],)"
    return _shape([f"x.shape[{d}]" if d != axis else "out.shape[1]" for d in range(ndim)])


@_host_impl(dyn.DynamicRepeat)
def numba_dynamic_repeat(op: dyn.DynamicRepeat, node: Apply) -> Callable:
    x = node.inputs[0]
    pre, n, post = _axis_split("x", x.ndim, op.axis)
    cast = ".astype(np.int64)" if node.inputs[1].dtype == DTYPES["bool"] else ""
    return _from_source("repeat", (
        "def repeat(x, repeats):\n"
        f"    out = _repeat3(x.ravel().reshape({pre}, {n}, {post}), repeats.ravel(){cast})\n"
        f"    return out.reshape({_axis_result_shape(x.ndim, op.axis)})\n"))


@_host_impl(dyn.Compress)
def numba_compress(op: dyn.Compress, node: Apply) -> Callable:
    x = node.inputs[1]
    pre, n, post = _axis_split("x", x.ndim, op.axis)
    return _from_source("compress", (
        "def compress(condition, x):\n"
        "    idx = _flatnonzero(condition.ravel())\n"
        f"    if idx.shape[0] > 0 and idx[idx.shape[0] - 1] >= {n}:\n"
        "        raise IndexError('Compress: condition selects an index out of bounds for the axis')\n"
        f"    out = _take3(x.ravel().reshape({pre}, {n}, {post}), idx)\n"
        f"    return out.reshape({_axis_result_shape(x.ndim, op.axis)})\n"))


@_host_impl(dyn.Extract)
def numba_extract(op: dyn.Extract, node: Apply) -> Callable:
    def extract(condition, x):
        idx = _flatnonzero(condition.ravel())
        flat = x.ravel()
        if idx.shape[0] > 0 and idx[idx.shape[0] - 1] >= flat.shape[0]:
            raise IndexError("Extract: condition selects an index out of bounds for input 'x'")
        return flat[idx]
    return extract


@_host_impl(dyn.Bincount)
def numba_bincount(op: dyn.Bincount, node: Apply) -> Callable:
    minlength = op.minlength
    if op.weighted:
        def bincount_weighted(x, weights):
            return _bincount_weighted(x.astype(np.int64), weights.astype(np.float64), minlength)
        return bincount_weighted

    def bincount(x):
        return _bincount(x.astype(np.int64), minlength)
    return bincount


# --- set operations ------------------------------------------------------------------------
def _is_complex(dtype: np.dtype) -> bool:
    return dtype.kind == "c"


@_host_impl(dyn.SetDiff1d)
def numba_setdiff1d(op: dyn.SetDiff1d, node: Apply) -> Callable:
    cdt = numba_dtype(op.compare_dtype(node))
    member = _in_unique if _is_complex(cdt) else _in_sorted

    def setdiff1d(a, b):
        u1 = _unique_values(a.ravel())
        return _select_missing(u1, member(u1.astype(cdt), _unique_values(b.ravel().astype(cdt))))
    return setdiff1d


@_host_impl(dyn.Intersect1d)
def numba_intersect1d(op: dyn.Intersect1d, node: Apply) -> Callable:
    cdt = numba_dtype(op.compare_dtype(node))

    def intersect1d(a, b):
        return _intersect_unique(_unique_values(a.ravel().astype(cdt)),
                                 _unique_values(b.ravel().astype(cdt)))
    return intersect1d


@_host_impl(dyn.Union1d)
def numba_union1d(op: dyn.Union1d, node: Apply) -> Callable:
    cdt = numba_dtype(op.compare_dtype(node))

    def union1d(a, b):
        return _unique_values(np.concatenate((a.ravel().astype(cdt), b.ravel().astype(cdt))))
    return union1d


@_host_impl(dyn.IsIn)
def numba_isin(op: dyn.IsIn, node: Apply) -> Callable:
    cdt = numba_dtype(op.compare_dtype(node))
    if _is_complex(cdt):
        def isin_complex(element, test_elements):
            found = _isin_flat(element.ravel().astype(cdt), test_elements.ravel().astype(cdt))
            return found.reshape(element.shape)
        return isin_complex

    def isin(element, test_elements):
        found = _in_sorted(element.ravel().astype(cdt), _unique_values(test_elements.ravel().astype(cdt)))
        return found.reshape(element.shape)
    return isin
