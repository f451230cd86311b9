"""Host ops (value-dependent output shapes): perform against NumPy, and the Numba
implementations, run through host segments, against perform.

Numba compiles each segment once (~0.3-1 s), so every test builds its graph
with unknown dims and runs one cached segment on many values: random ones,
empty results, everything selected, repeated values, NaNs, size-0 inputs.
"""

from __future__ import annotations

import functools
from typing import Callable

import ml_dtypes
import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops import dynamic as dyn
from hlograph.frontend.types import as_dtype
from hlograph.runtime.host import has_impl, impls  # noqa: F401 - registers the implementations
from hlograph.runtime.host.segment import HostCompileError, HostSegment
from hlograph.tests.helpers import assert_same, compare_with_perform

# --- harness -----------------------------------------------------------------------------
#: name -> builder(*params) -> (inputs, outputs); compiled once per (name, params)
BUILDERS: dict[str, Callable] = {}


def builder(fn):
    BUILDERS[fn.__name__] = fn
    return fn


@functools.cache
def compiled(name: str, *params) -> tuple[hg.Graph, HostSegment]:
    inputs, outputs = BUILDERS[name](*params)
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    graph = hg.Graph(inputs, outputs)
    return graph, HostSegment(graph.nodes, graph.inputs, graph.outputs)


def check(name: str, params: tuple, values: list, numpy_fn: Callable | None = None) -> list:
    """Runs the segment ``(name, params)`` on ``values``; its results must equal perform's
    (exact dtypes and shapes), and perform's must equal ``numpy_fn(*values)``. Inputs must
    not be mutated. Returns the host results."""
    graph, seg = compiled(name, *params)
    assert seg.mode == "numba"  # no op fell back to its Python perform
    values = [np.asarray(v) for v in values]
    copies = [v.copy() for v in values]
    expected = hg.evaluate(graph, *values)
    got = seg(*values)
    for i, (v, c) in enumerate(zip(values, copies)):
        np.testing.assert_array_equal(v, c, err_msg=f"input {i} was mutated")
    assert len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected)):
        assert_same(g, e, what=f"{name}{params} output {i}")
    if numpy_fn is not None:
        ref = numpy_fn(*values)
        ref = ref if isinstance(ref, tuple) else (ref,)
        assert len(ref) == len(expected)
        for i, (e, r) in enumerate(zip(expected, ref)):
            assert_same(e, np.asarray(r), what=f"perform of {name}{params} output {i} vs NumPy")
    return got


def sample(rng, shape, dtype, *, nan: bool = False, low: int = -3, high: int = 4) -> np.ndarray:
    """Small integer-valued samples (so values repeat) of ``dtype``; NaNs and infinities
    sprinkled in for inexact dtypes when ``nan``."""
    dt = as_dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind == "u":
        low = max(low, 0)
    v = rng.integers(low, high, size=shape).astype(dt)
    if dt.kind == "c":
        v = v + 1j * rng.integers(-1, 2, size=shape).astype(dt)
    if nan and dt.kind in "fc" and v.size:
        flat = v.reshape(-1)
        picks = rng.random(flat.shape) < 0.3
        flat[picks] = np.nan
        if dt.kind == "c":  # NaN in only the imaginary part
            flat[rng.random(flat.shape) < 0.2] = complex(1, np.nan)
        flat[rng.random(flat.shape) < 0.1] = np.inf
    return v


REAL = ["float32", "float64", "int32", "int64", "bool"]

# --- unique ------------------------------------------------------------------------------
@builder
def unique(dtype, ndim, flags):
    x = hg.tensor("x", (None,) * ndim, dtype)
    out = dyn.unique(x, *flags)
    return [x], out


def np_unique(flags):
    return lambda x: np.unique(x, *flags)


@pytest.mark.parametrize("dtype", REAL)
def test_unique_values(dtype, rng):
    params = (dtype, 1, (False, False, False))
    ref = np_unique((False, False, False))
    for n in (0, 1, 2, 17, 60):
        check("unique", params, [sample(rng, (n,), dtype, nan=True)], ref)
    check("unique", params, [np.zeros(9, dtype)], ref)  # all equal
    if as_dtype(dtype).kind in "fc":
        check("unique", params, [np.full(5, np.nan, dtype)], ref)  # NaNs collapse into one
        check("unique", params, [np.array([0.0, -0.0, 1.0, -0.0], dtype)], ref)


@pytest.mark.parametrize("flags", [(False, True, False), (True, False, True)],
                         ids=lambda f: "+".join(n for n, on in zip(("index", "inverse", "counts"), f) if on))
def test_unique_flags(flags, rng):
    params = ("float64", 2, flags)
    ref = np_unique(flags)
    for shape in [(3, 5), (0, 4), (1, 1), (6, 7)]:
        check("unique", params, [sample(rng, shape, "float64", nan=True)], ref)
    check("unique", params, [np.full((2, 3), np.nan)], ref)


@pytest.mark.parametrize("dtype", ["int64", "complex128"])
def test_unique_all_flags(dtype, rng):
    params = (dtype, 1, (True, True, True))
    ref = np_unique((True, True, True))
    for n in (0, 1, 25):
        check("unique", params, [sample(rng, (n,), dtype, nan=True)], ref)


def test_unique_0d(rng):
    params = ("float32", 0, (True, True, True))
    for v in (1.5, np.nan):
        got = check("unique", params, [np.array(v, np.float32)], np_unique((True, True, True)))
        assert got[2].shape == ()  # the inverse has the input's shape (NumPy 2)


def test_unique_types_and_axis():
    x = hg.tensor("x", (None, 3), "int32")
    v, i, inv, c = dyn.unique(x, True, True, True)
    assert v.type == hg.frontend.types.TensorType("int32", (None,))
    assert (i.dtype, inv.shape, c.dtype) == (np.int64, (None, 3), np.int64)
    assert dyn.unique(hg.tensor("e", (0, 3), "float32")).shape == (0,)
    assert isinstance(dyn.unique(x), hg.Variable)
    with pytest.raises(NotImplementedError, match=r"unique: axis=1 is not supported for input 'x' of rank 2"):
        dyn.unique(x, axis=1)
    y = hg.tensor("y", (5,), "int32")
    assert dyn.unique(y, axis=-1).owner.op == dyn.unique(y).owner.op
    with pytest.raises(ValueError, match="unique: axis 1 is out of bounds"):
        dyn.unique(y, axis=1)


# --- nonzero, flatnonzero, argwhere ------------------------------------------------------
@builder
def nonzero(fn, dtype, ndim):
    x = hg.tensor("x", (None,) * ndim, dtype)
    return [x], getattr(dyn, fn)(x)


NONZERO_CASES = [("nonzero", "float64", 2), ("nonzero", "bool", 1), ("flatnonzero", "complex128", 2),
                 ("flatnonzero", "bool", 0), ("argwhere", "int32", 3), ("argwhere", "int64", 0)]


@pytest.mark.parametrize("fn,dtype,ndim", NONZERO_CASES, ids=lambda c: str(c))
def test_nonzero_family(fn, dtype, ndim, rng):
    params = (fn, dtype, ndim)
    ref = getattr(np, fn)
    shapes = [(), ()] if ndim == 0 else [(4,) * ndim, (2,) * (ndim - 1) + (0,), (1,) * ndim, (3,) * ndim]
    for shape in shapes:
        v = sample(rng, shape, dtype, nan=True, low=-1, high=2)  # about a third zeros; NaN is nonzero
        check("nonzero", params, [v], ref)
        check("nonzero", params, [np.zeros(shape, dtype)], ref)  # empty result
        check("nonzero", params, [np.ones(shape, dtype)], ref)  # everything selected


def test_nonzero_types_and_errors():
    x = hg.tensor("x", (None, 4), "float32")
    rows, cols = dyn.nonzero(x)
    assert rows.type == cols.type == hg.frontend.types.TensorType("int64", (None,))
    assert dyn.nonzero(hg.tensor("e", (3, 0), "bool"))[0].shape == (0,)
    assert dyn.argwhere(x).shape == (None, 2)
    assert dyn.argwhere(hg.scalar("s")).shape == (None, 0)
    assert dyn.flatnonzero(hg.scalar("s")).shape == (None,)
    with pytest.raises(ValueError, match="nonzero: calling nonzero on a 0-d input"):
        dyn.nonzero(hg.scalar("s"))
    with pytest.raises(ValueError, match="Nonzero: input 'x' is 0-d"):
        dyn.Nonzero()(hg.scalar("s"))


# --- boolean masks -----------------------------------------------------------------------
@builder
def boolean_mask(dtype, ndim, mask_ndim):
    x = hg.tensor("x", (None,) * ndim, dtype)
    m = hg.tensor("m", (None,) * mask_ndim, "bool")
    return [x, m], dyn.boolean_mask(x, m)


@pytest.mark.parametrize("dtype,ndim,mask_ndim", [("float64", 2, 1), ("int32", 2, 2), ("bool", 1, 1),
                                                  ("float32", 0, 0), ("int64", 3, 1)], ids=str)
def test_boolean_mask(dtype, ndim, mask_ndim, rng):
    params = (dtype, ndim, mask_ndim)
    ref = lambda x, m: x[m]  # noqa: E731
    shapes = [()] if ndim == 0 else [(5,) + (3,) * (ndim - 1), (0,) + (2,) * (ndim - 1), (4,) * ndim]
    for shape in shapes:
        x = sample(rng, shape, dtype, nan=True)
        mshape = shape[:mask_ndim]
        for m in (rng.random(mshape) < 0.5, np.zeros(mshape, bool), np.ones(mshape, bool)):
            check("boolean_mask", params, [x, np.asarray(m)], ref)


def test_boolean_mask_errors():
    x = hg.tensor("x", (3, 4), "float32")
    with pytest.raises(TypeError, match="BooleanMask: mask must be bool, got int32"):
        dyn.boolean_mask(x, hg.tensor("m", (3,), "int32"))
    with pytest.raises(ValueError, match="BooleanMask: boolean index did not match input 'x' along axis 1"):
        dyn.boolean_mask(x, hg.tensor("m", (3, 5), "bool"))
    with pytest.raises(ValueError, match="BooleanMask: mask of rank 3 is longer than input 'x' of rank 2"):
        dyn.boolean_mask(x, hg.tensor("m", (3, 4, 1), "bool"))
    assert dyn.boolean_mask(x, hg.tensor("m", (3,), "bool")).shape == (None, 4)
    assert dyn.boolean_mask(hg.tensor("e", (0, 4), "int8"), hg.tensor("m", (0, 4), "bool")).shape == (0,)
    # unknown dims are checked when the graph runs
    _, seg = compiled("boolean_mask", "float64", 2, 1)
    with pytest.raises(IndexError, match="BooleanMask: boolean index did not match"):
        seg(np.zeros((3, 2)), np.ones(4, bool))


@builder
def mask_assign(dtype, ndim, mask_ndim, values):
    x = hg.tensor("x", (None,) * ndim, dtype)
    m = hg.tensor("m", (None,) * mask_ndim, "bool")
    if isinstance(values, tuple):  # the values are a graph input of this shape
        v = hg.tensor("v", values, dtype)
        return [x, m, v], dyn.mask_assign(x, m, v)
    return [x, m], dyn.mask_assign(x, m, values)


def np_mask_assign(x, m, v=None):
    y = x.copy()
    y[m] = v
    return y


def test_mask_assign_scalar_values(rng):
    params = ("float64", 2, 1, ())
    for shape in [(5, 3), (0, 3), (4, 0)]:
        x = sample(rng, shape, "float64", nan=True)
        for m in (rng.random(shape[0]) < 0.5, np.zeros(shape[0], bool), np.ones(shape[0], bool)):
            check("mask_assign", params, [x, m, np.array(np.nan)], np_mask_assign)
            check("mask_assign", params, [x, m, np.array(2.5)], np_mask_assign)


def test_mask_assign_values_per_element(rng):
    """``values`` with one entry per selected element, and a Python constant cast to int32."""
    params = ("int64", 2, 2, (None,))
    for shape in [(3, 4), (0, 2), (5, 1)]:
        x = sample(rng, shape, "int64")
        for m in (rng.random(shape) < 0.5, np.ones(shape, bool), np.zeros(shape, bool)):
            v = rng.integers(-9, 9, size=int(m.sum()))
            check("mask_assign", params, [x, m, v], np_mask_assign)
    const = ("int32", 1, 1, 7.9)  # cast as NumPy's assignment casts: to 7
    x = sample(rng, (6,), "int32")
    m = rng.random(6) < 0.5
    check("mask_assign", const, [x, m], lambda x, m: np_mask_assign(x, m, 7.9))
    _, seg = compiled(*(("mask_assign",) + params))
    with pytest.raises(ValueError, match="MaskAssign: values do not broadcast"):
        seg(np.zeros((2, 2), np.int64), np.ones((2, 2), bool), np.zeros(3, np.int64))


def test_mask_assign_row_values(rng):
    """``values`` of shape (1, cols) or (count, 1) broadcast over the selected rows."""
    params = ("float32", 2, 1, (None, None))
    x = sample(rng, (6, 3), "float32")
    m = rng.random(6) < 0.5
    for v in (np.arange(3, dtype=np.float32)[None], np.ones((int(m.sum()), 1), np.float32),
              np.arange(3 * int(m.sum()), dtype=np.float32).reshape(-1, 3)):
        check("mask_assign", params, [x, m, v], np_mask_assign)


def test_mask_assign_errors():
    x = hg.tensor("x", (3, 4), "float32")
    m = hg.tensor("m", (3,), "bool")
    with pytest.raises(ValueError, match=r"MaskAssign: values of shape \(2, 5\) do not broadcast"):
        dyn.mask_assign(x, m, hg.tensor("v", (2, 5), "float32"))
    with pytest.raises(ValueError, match="MaskAssign: values of rank 3 do not fit"):
        dyn.mask_assign(x, m, hg.tensor("v", (1, 1, 4), "float32"))
    with pytest.raises(TypeError, match="MaskAssign: values must have the dtype of input 'x'"):
        dyn.MaskAssign()(x, m, hg.tensor("v", (), "float64"))
    assert dyn.mask_assign(x, m, 1).type == x.type


# --- runtime-sized construction ----------------------------------------------------------
@builder
def eye(fn, dtype):
    n, m, k = hg.scalar("n", "int64"), hg.scalar("m", "int32"), hg.scalar("k", "int64")
    return [n, m, k], getattr(dyn, fn)(n, m, k, dtype=dtype)


@pytest.mark.parametrize("fn,dtype", [("dynamic_eye", "float64"), ("dynamic_eye", "bool"),
                                      ("dynamic_tri", "int32")])
def test_eye_tri(fn, dtype):
    params = (fn, dtype)
    np_fn = np.eye if fn == "dynamic_eye" else np.tri
    for n, m, k in [(3, 3, 0), (4, 2, 1), (2, 5, -1), (0, 3, 0), (3, 0, 0), (3, 4, 7), (5, 4, -9), (1, 1, 0)]:
        check("eye", params, [np.int64(n), np.int32(m), np.int64(k)],
              lambda n, m, k: np_fn(int(n), int(m), int(k), dtype=as_dtype(dtype)))
    _, seg = compiled("eye", *params)
    with pytest.raises(ValueError, match="Dynamic(Eye|Tri): negative dimensions are not allowed"):
        seg(np.int64(-1), np.int32(2), np.int64(0))


def test_eye_static_sizes():
    k = hg.scalar("k", "int32")
    assert dyn.dynamic_eye(3, 4, k).shape == (3, 4)
    assert dyn.dynamic_eye(hg.scalar("n", "int64")).shape == (None, None)
    assert dyn.dynamic_tri(2, k=k, dtype="int8").type == hg.frontend.types.TensorType("int8", (2, 2))
    with pytest.raises(TypeError, match="DynamicEye: n must be a 0-d integer value, got float32"):
        dyn.dynamic_eye(hg.scalar("n", "float32"))
    with pytest.raises(TypeError, match="DynamicEye: k must be an integer"):
        dyn.dynamic_eye(3, k=1.5)
    with pytest.raises(ValueError, match="DynamicEye: negative dimensions"):
        dyn.dynamic_eye(-1)


@builder
def arange(start_dtype, stop_dtype, step, dtype):
    start, stop = hg.scalar("start", start_dtype), hg.scalar("stop", stop_dtype)
    if step is None:
        st = hg.scalar("step", start_dtype)
        return [start, stop, st], dyn.dynamic_arange(start, stop, st, dtype=dtype)
    return [start, stop], dyn.dynamic_arange(start, stop, step, dtype=dtype)


ARANGE_BOUNDS = [(0, 5, 1), (5, 0, -1), (-3, 9, 2), (2, 2, 1), (7, 1, 1), (0, 10, 3), (1, -8, -3)]


ARANGE_DTYPES = [("int64", "int64", None), ("int32", "int32", "float32"), ("float32", "float32", None),
                 ("int64", "int64", "uint8")]


@pytest.mark.parametrize("start_dtype,stop_dtype,dtype", ARANGE_DTYPES, ids=str)
def test_arange(start_dtype, stop_dtype, dtype):
    params = (start_dtype, stop_dtype, None, dtype)
    sdt = as_dtype(start_dtype)
    for a, b, s in ARANGE_BOUNDS + ([(0.5, 3.2, 0.7), (1.0, -1.0, -0.3), (0.0, 1.0, 0.1)]
                                    if sdt.kind == "f" else []):
        vals = [sdt.type(a), as_dtype(stop_dtype).type(b), sdt.type(s)]
        if dtype is not None and as_dtype(dtype).kind == "u" and min(a, b) < 0:
            continue  # negative values have no unsigned form
        check("arange", params, vals, lambda a, b, s: np.arange(a[()], b[()], s[()], dtype=dtype))
    _, seg = compiled("arange", *params)
    with pytest.raises(ValueError, match="DynamicArange: step must not be zero"):
        seg(sdt.type(0), as_dtype(stop_dtype).type(3), sdt.type(0))


def test_arange_mixed_bounds_and_python_step():
    """A float32 start, int64 stop and a Python step: NumPy's arange dtype is float64."""
    params = ("float32", "int64", 0.5, None)
    for a, b in [(0, 5), (3, 1), (-2, 2)]:
        check("arange", params, [np.float32(a) + np.float32(0.25), np.int64(b)],
              lambda a, b: np.arange(a[()], b[()], 0.5))


def test_arange_types():
    n = hg.scalar("n", "int32")
    assert dyn.dynamic_arange(n).type == hg.frontend.types.TensorType("int64", (None,))
    assert dyn.dynamic_arange(hg.scalar("f", "float32"), 3).dtype == np.float64
    assert dyn.dynamic_arange(n, 10, dtype="int16").dtype == np.int16
    assert dyn.dynamic_arange(2, 11, 3).shape == (3,)  # all bounds static
    with pytest.raises(TypeError, match="DynamicArange: stop must be a 0-d real value"):
        dyn.dynamic_arange(0, hg.tensor("v", (3,), "int64"))
    with pytest.raises(TypeError, match="DynamicArange: complex results are not supported"):
        dyn.dynamic_arange(n, dtype="complex64")


@builder
def linspace(dtype, endpoint, out_dtype):
    a, b, n = hg.scalar("a", dtype), hg.scalar("b", dtype), hg.scalar("n", "int32")
    return [a, b, n], dyn.dynamic_linspace(a, b, n, endpoint=endpoint, dtype=out_dtype)


@pytest.mark.parametrize("dtype,endpoint,out_dtype", [("float64", True, None), ("float32", False, None),
                                                      ("int64", True, "int32")],
                         ids=str)
def test_linspace(dtype, endpoint, out_dtype):
    params = (dtype, endpoint, out_dtype)
    dt = as_dtype(dtype)
    for a, b, n in [(0, 1, 5), (2, -3, 7), (1, 1, 3), (0, 10, 0), (0, 10, 1), (0, 10, 2), (-5, 5, 50)]:
        vals = [dt.type(a), dt.type(b), np.int32(n)]
        check("linspace", params, vals,
              lambda a, b, n: np.linspace(a[()], b[()], int(n), endpoint=endpoint, dtype=out_dtype))
    _, seg = compiled("linspace", *params)
    with pytest.raises(ValueError, match="DynamicLinspace: the number of samples must be non-negative"):
        seg(dt.type(0), dt.type(1), np.int32(-1))


def test_linspace_types():
    n = hg.scalar("n", "int64")
    assert dyn.dynamic_linspace(0, 1, n).type == hg.frontend.types.TensorType("float64", (None,))
    assert dyn.dynamic_linspace(hg.scalar("a", "float32"), 1.0, n).dtype == np.float32
    assert dyn.dynamic_linspace(0, 1, 4).shape == (4,)
    with pytest.raises(TypeError, match="dynamic_linspace: num must be an integer"):
        dyn.dynamic_linspace(0, 1, 4.0)
    with pytest.raises(TypeError, match="DynamicLinspace: num must be a 0-d integer value"):
        dyn.dynamic_linspace(0, 1, hg.scalar("f", "float64"))


# --- repeat, compress, extract -----------------------------------------------------------
@builder
def repeat(dtype, ndim, rep_dtype, rep_ndim, axis):
    x = hg.tensor("x", (None,) * ndim, dtype)
    r = hg.tensor("r", (None,) * rep_ndim, rep_dtype)
    return [x, r], dyn.dynamic_repeat(x, r, axis=axis)


@pytest.mark.parametrize("dtype,ndim,rep_dtype,rep_ndim,axis", [
    ("float64", 2, "int64", 1, 1), ("int32", 2, "int32", 0, None), ("bool", 1, "uint8", 1, 0),
    ("float32", 3, "int64", 1, -3)], ids=str)
def test_repeat(dtype, ndim, rep_dtype, rep_ndim, axis, rng):
    params = (dtype, ndim, rep_dtype, rep_ndim, axis)
    for shape in [(3,) * ndim, (2,) * (ndim - 1) + (0,), (4, 1, 2)[:ndim]]:
        x = sample(rng, shape, dtype, nan=True)
        n = x.size if axis is None else shape[axis]
        reps = [rng.integers(0, 4, size=n if rep_ndim else ()), np.zeros(n if rep_ndim else ()),
                np.full(1 if rep_ndim else (), 2)]
        for r in reps:
            r = np.asarray(r).astype(rep_dtype)
            check("repeat", params, [x, r], lambda x, r: np.repeat(x, r, axis=axis))
    _, seg = compiled("repeat", *params)
    if np.dtype(rep_dtype).kind == "i":
        with pytest.raises(ValueError, match="DynamicRepeat: repeats may not contain negative values"):
            seg(np.ones((2,) * ndim, dtype), -np.ones(2 if rep_ndim else (), rep_dtype))
    if rep_ndim:
        with pytest.raises(ValueError, match="DynamicRepeat: repeats do not broadcast"):
            seg(np.ones((2,) * ndim, dtype), np.ones(3, rep_dtype))


def test_repeat_errors():
    x = hg.tensor("x", (2, 3), "float32")
    with pytest.raises(TypeError, match=r"DynamicRepeat\{axis=None\}: repeats must be integers, got float64"):
        dyn.dynamic_repeat(x, hg.tensor("r", (6,), "float64"))
    with pytest.raises(TypeError, match="repeats must be integers, got uint64"):
        dyn.dynamic_repeat(x, hg.tensor("r", (6,), "uint64"))
    with pytest.raises(ValueError, match=r"DynamicRepeat\{axis=1\}: 2 repeats do not broadcast to the 3"):
        dyn.dynamic_repeat(x, hg.tensor("r", (2,), "int64"), axis=1)
    with pytest.raises(ValueError, match="dynamic_repeat: axis 2 is out of bounds"):
        dyn.dynamic_repeat(x, hg.tensor("r", (2,), "int64"), axis=2)
    assert dyn.dynamic_repeat(x, hg.tensor("r", (), "int32"), axis=-1).shape == (2, None)
    assert dyn.dynamic_repeat(hg.scalar("s"), 3, axis=0).shape == (None,)


@builder
def compress(cond_dtype, dtype, ndim, axis):
    c = hg.tensor("c", (None,), cond_dtype)
    x = hg.tensor("x", (None,) * ndim, dtype)
    return [c, x], dyn.compress(c, x, axis=axis)


@pytest.mark.parametrize("cond_dtype,dtype,ndim,axis",
                         [("bool", "float64", 2, 0), ("float64", "int32", 2, -1), ("int64", "float32", 2, None)],
                         ids=str)
def test_compress(cond_dtype, dtype, ndim, axis, rng):
    params = (cond_dtype, dtype, ndim, axis)
    for shape in [(4, 3), (0, 3), (3, 0)]:
        x = sample(rng, shape, dtype, nan=True)
        n = x.size if axis is None else shape[axis]
        for c in (rng.integers(0, 2, n), np.zeros(n), np.ones(n), rng.integers(0, 2, max(n - 1, 0)),
                  np.concatenate([np.ones(n), np.zeros(2)])):  # shorter, and longer with zeros past the end
            c = c.astype(cond_dtype)
            check("compress", params, [c, x], lambda c, x: np.compress(c, x, axis=axis))
    _, seg = compiled("compress", *params)
    with pytest.raises(IndexError, match="Compress: condition selects an index out of bounds"):
        seg(np.ones(7, cond_dtype), np.ones((2, 3), dtype))


@builder
def extract(cond_dtype, cond_ndim, dtype, ndim):
    c = hg.tensor("c", (None,) * cond_ndim, cond_dtype)
    x = hg.tensor("x", (None,) * ndim, dtype)
    return [c, x], dyn.extract(c, x)


@pytest.mark.parametrize("cond_dtype,cond_ndim,dtype,ndim",
                         [("bool", 2, "float64", 2), ("int32", 1, "int64", 1)], ids=str)
def test_extract(cond_dtype, cond_ndim, dtype, ndim, rng):
    params = (cond_dtype, cond_ndim, dtype, ndim)
    for shape in [(3,) * ndim, (0,) * ndim]:
        x = sample(rng, shape, dtype, nan=True)
        cshape = shape if cond_ndim == ndim else (x.size,)
        for c in (rng.integers(0, 2, cshape), np.zeros(cshape), np.ones(cshape)):
            check("extract", params, [c.astype(cond_dtype), x], np.extract)
    if cond_ndim == 1:  # a longer condition may select only within x
        check("extract", params, [np.array([1, 0, 1, 0, 0], cond_dtype), np.arange(3)], np.extract)
        _, seg = compiled("extract", *params)
        with pytest.raises(IndexError, match="Extract: condition selects an index out of bounds"):
            seg(np.ones(4, cond_dtype), np.arange(3))


def test_compress_extract_errors():
    x = hg.tensor("x", (2, 3), "float32")
    with pytest.raises(ValueError, match=r"Compress\{axis=0\}: condition must be a 1-d array"):
        dyn.compress(hg.tensor("c", (2, 1), "bool"), x, axis=0)
    assert dyn.compress(hg.tensor("c", (2,), "bool"), x, axis=0).shape == (None, 3)
    assert dyn.compress(hg.tensor("c", (0,), "bool"), x).shape == (0,)
    assert dyn.extract(hg.tensor("c", (2, 3), "bool"), x).shape == (None,)


# --- bincount ----------------------------------------------------------------------------
@builder
def bincount(dtype, weights_dtype, minlength):
    x = hg.tensor("x", (None,), dtype)
    if weights_dtype is None:
        return [x], dyn.bincount(x, minlength=minlength)
    w = hg.tensor("w", (None,), weights_dtype)
    return [x, w], dyn.bincount(x, w, minlength=minlength)


@pytest.mark.parametrize("dtype,weights_dtype,minlength", [("int64", None, 0), ("uint8", None, 5),
                                                           ("int32", "float32", 3), ("bool", "int64", 0)],
                         ids=str)
def test_bincount(dtype, weights_dtype, minlength, rng):
    params = (dtype, weights_dtype, minlength)
    for n in (0, 1, 10, 40):
        x = sample(rng, (n,), dtype, low=0, high=7)
        vals = [x] if weights_dtype is None else [x, sample(rng, (n,), weights_dtype, low=-5, high=6)]
        # NumPy gives int64 zeros for an empty x even with weights; the Op's dtype is float64
        out_dt = np.int64 if weights_dtype is None else np.float64
        check("bincount", params, vals,
              lambda x, w=None: np.bincount(x, w, minlength=minlength).astype(out_dt))
    _, seg = compiled("bincount", *params)
    if dtype in ("int64", "int32"):
        bad = [np.array([1, -1, 2], dtype)] + ([] if weights_dtype is None else [np.ones(3, weights_dtype)])
        with pytest.raises(ValueError, match="Bincount: input 'x' must have no negative elements"):
            seg(*bad)
    if weights_dtype is not None:
        with pytest.raises(ValueError, match="Bincount: the weights and input 'x' do not have the same len"):
            seg(np.ones(3, dtype), np.ones(2, weights_dtype))


def test_bincount_errors():
    with pytest.raises(TypeError, match=r"Bincount\{minlength=0, weighted=False\}: input 'x' must be "
                                        r"non-negative integers, got float32"):
        dyn.bincount(hg.tensor("x", (3,), "float32"))
    with pytest.raises(ValueError, match="Bincount.*: input 'x' must be 1-d"):
        dyn.bincount(hg.tensor("x", (3, 2), "int64"))
    with pytest.raises(TypeError, match="weights must convert safely to float64, got complex64"):
        dyn.bincount(hg.tensor("x", (3,), "int64"), hg.tensor("w", (3,), "complex64"))
    with pytest.raises(ValueError, match="weights .* must have the shape of input 'x'"):
        dyn.bincount(hg.tensor("x", (3,), "int64"), hg.tensor("w", (2,), "float64"))
    with pytest.raises(ValueError, match="bincount: minlength must not be negative"):
        dyn.bincount(hg.tensor("x", (3,), "int64"), minlength=-1)
    assert dyn.bincount(hg.tensor("x", (3,), "int8"), hg.tensor("w", (3,), "float32")).dtype == np.float64


# --- set operations ----------------------------------------------------------------------
@builder
def setop(fn, dtype_a, ndim_a, dtype_b, ndim_b):
    a = hg.tensor("a", (None,) * ndim_a, dtype_a)
    b = hg.tensor("b", (None,) * ndim_b, dtype_b)
    return [a, b], getattr(dyn, fn)(a, b)


SETOP_CASES = [("setdiff1d", "float64", 1, "float64", 1), ("setdiff1d", "int32", 2, "float64", 1),
               ("intersect1d", "float32", 1, "float32", 2), ("intersect1d", "int64", 1, "int32", 1),
               ("union1d", "float64", 2, "float64", 1), ("isin", "float64", 2, "float64", 1),
               ("isin", "bool", 0, "bool", 1),
               ("setdiff1d", "complex128", 1, "float64", 2), ("isin", "complex128", 2, "float32", 1)]


@pytest.mark.parametrize("fn,dtype_a,ndim_a,dtype_b,ndim_b", SETOP_CASES, ids=str)
def test_set_ops(fn, dtype_a, ndim_a, dtype_b, ndim_b, rng):
    params = (fn, dtype_a, ndim_a, dtype_b, ndim_b)
    ref = getattr(np, fn)

    def shape(ndim, n):
        return (n, 2)[:ndim] if ndim else ()

    def like(values, ndim, dtype):  # the same values in the other input's rank and dtype
        flat = values.reshape(-1)
        flat = (flat.real if as_dtype(dtype).kind != "c" else flat).astype(dtype)
        return flat[: flat.size // 2 * 2].reshape(-1, 2) if ndim == 2 else flat

    for na, nb in [(6, 5), (0, 3), (4, 0), (0, 0), (12, 1)]:
        a = sample(rng, shape(ndim_a, na), dtype_a, nan=True)
        b = sample(rng, shape(ndim_b, nb), dtype_b, nan=True)
        check("setop", params, [a, b], ref)
        check("setop", params, [a, like(a, ndim_b, dtype_b)], ref)  # every value shared


def test_set_ops_nan_and_signed_zero():
    params = ("setdiff1d", "float64", 1, "float64", 1)
    a = np.array([np.nan, 1.0, 0.0, np.nan, -0.0, 2.0])
    for b in (np.array([np.nan]), np.array([-0.0, 2.0]), a):
        check("setop", params, [a, b], np.setdiff1d)
    params = ("isin", "float64", 2, "float64", 1)
    check("setop", params, [a.reshape(2, 3), np.array([np.nan, 0.0])], np.isin)


def test_set_op_types():
    a, b = hg.tensor("a", (3,), "int32"), hg.tensor("b", (2, 2), "float32")
    assert dyn.setdiff1d(a, b).type == hg.frontend.types.TensorType("int32", (None,))
    assert dyn.intersect1d(a, b).dtype == np.float64
    assert dyn.union1d(a, hg.tensor("c", (1,), "int8")).dtype == np.int32
    assert dyn.isin(b, a).type == hg.frontend.types.TensorType("bool", (2, 2))


# --- segments of several ops, compile errors, the registry -------------------------------
@builder
def pipeline():
    x = hg.tensor("x", (None,), "float64")
    t = hg.tensor("t", (None,), "float64")
    u, counts = dyn.unique(x, return_counts=True)
    keep = dyn.isin(u, t)
    repeated = dyn.dynamic_repeat(dyn.boolean_mask(u, keep), dyn.boolean_mask(counts, keep))
    return [x, t], [repeated, dyn.flatnonzero(keep), dyn.bincount(counts)]


def np_pipeline(x, t):
    u, counts = np.unique(x, return_counts=True)
    keep = np.isin(u, t)
    return np.repeat(u[keep], counts[keep]), np.flatnonzero(keep), np.bincount(counts)


def test_one_segment_runs_several_ops(rng):
    graph, seg = compiled("pipeline")
    assert seg.mode == "numba" and len(seg.nodes) == 7
    for n in (0, 1, 30):
        x = sample(rng, (n,), "float64", nan=True)
        check("pipeline", (), [x, x[: n // 2]], np_pipeline)
        check("pipeline", (), [x, np.array([], np.float64)], np_pipeline)
    # one Numba function calls every op in order
    calls = [line for line in seg.source.splitlines() if " = " in line]
    assert len(calls) == 7


@builder
def strided():
    x = hg.tensor("x", (None, None), "float64")
    m = hg.tensor("m", (None,), "bool")
    r = hg.tensor("r", (None,), "int64")
    return [x, m, r], [dyn.unique(x), dyn.boolean_mask(x, m), dyn.mask_assign(x, m, -1.0),
                       dyn.compress(m, x, axis=0), dyn.dynamic_repeat(x, r, axis=1), dyn.argwhere(x)]


def test_non_contiguous_inputs(rng):
    """Transposed and strided views (as callers may pass them) give NumPy's results."""
    base = sample(rng, (5, 8), "float64", nan=True)
    mask = rng.random(16) < 0.5
    reps = np.arange(10, dtype=np.int64)
    x, m, r = base.T[::2], mask[::2], reps[::2]  # (4, 5), (8,), (5,) views
    assert not (x.flags.c_contiguous or m.flags.c_contiguous or r.flags.c_contiguous)
    m = m[:4]

    def ref(x, m, r):
        y = x.copy()
        y[m] = -1.0
        return np.unique(x), x[m], y, np.compress(m, x, axis=0), np.repeat(x, r, axis=1), np.argwhere(x)

    check("strided", (), [x, m, r], ref)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_host_ops_take_half_precision_exactly(dtype):
    # Numba lacks float16/bfloat16: the segment hands them over as float32 and back
    dt = as_dtype(dtype)
    x = hg.tensor("x", (None,), dtype)
    t = hg.tensor("t", (None,), dtype)
    outs = [dyn.unique(x), dyn.isin(x, t), dyn.nonzero(x)[0], dyn.flatnonzero(x), dyn.argwhere(x),
            dyn.setdiff1d(x, t), dyn.intersect1d(x, t), dyn.union1d(x, t)]
    graph = hg.Graph([x, t], outs)
    seg = HostSegment(graph.nodes, graph.inputs, graph.outputs)
    assert seg.mode == "numba"
    # values float32 cannot tell apart from the next half-precision ones, NaN, zeros
    eps = float(ml_dtypes.finfo(dt).eps)
    xv = np.array([1.0, 1.0 + eps, 0.0, -0.0, np.nan, 65504.0 if dtype == "float16" else 3e38, 1.0], dt)
    tv = np.array([1.0 + eps, np.nan, 0.0], dt)
    got = seg(xv, tv)
    # NumPy on the exact float32 values (ml_dtypes' own bfloat16 sort misplaces NaN)
    x32, t32 = xv.astype(np.float32), tv.astype(np.float32)
    want = [np.unique(x32).astype(dt), np.isin(x32, t32), np.nonzero(x32)[0], np.flatnonzero(x32),
            np.argwhere(x32), np.setdiff1d(x32, t32).astype(dt), np.intersect1d(x32, t32).astype(dt),
            np.union1d(x32, t32).astype(dt)]
    for g, e in zip(got, want):
        assert_same(g, e)
    assert got[0].dtype == dt and len(got[0]) == 5  # 0, 1, 1+eps, the big one, nan
    for p in ("O0", "O2"):
        for g, e in zip(hg.compile(graph, pipeline=p)(xv, tv), got):
            assert_same(g, e)


def test_host_ops_without_numba_dtypes_name_the_op():
    # arange's float32 arithmetic would round differently from float16's: refused
    a = hg.tensor("a", (), "float16")
    b = hg.tensor("b", (), "float16")
    y = dyn.dynamic_arange(a, b, dtype="float16")
    graph = hg.Graph([a, b], y)
    seg = HostSegment(graph.nodes, graph.inputs, graph.outputs)
    with pytest.raises(HostCompileError, match=r"DynamicArange.*: Numba has no float16 arrays"):
        seg(np.float16(0), np.float16(3))


def test_every_host_op_is_registered_and_explains_itself():
    ops = [cls for cls in vars(dyn).values()
           if isinstance(cls, type) and issubclass(cls, dyn.HostOp) and cls not in (dyn.HostOp, dyn.SetOp)]
    assert len(ops) == 18
    for cls in ops:
        assert cls.host_only
        assert isinstance(cls.host_reason, str) and cls.host_reason
        op = cls.__new__(cls)
        assert has_impl(op), cls.__name__
    for name in dyn.__all__:
        assert callable(getattr(dyn, name))


def test_mixed_graph_compiles_and_runs(rng):
    """Device ops before and after host ops, through hg.compile: results match perform."""
    x = hg.tensor("x", (None,), "float64")
    n = hg.scalar("n", "int64")
    y = hg.exp(x) - 1.0
    kept = dyn.boolean_mask(y, y > 0)
    values, counts = dyn.unique(hg.floor(kept * 3), return_counts=True)
    eye = dyn.dynamic_eye(n, n + 1, 1)
    graph = hg.Graph([x, n], [hg.sum(kept), values * 2, counts, hg.sum(eye * 3.0, axis=0),
                              dyn.dynamic_arange(n) + 1])
    compare_with_perform(graph, [rng.normal(size=20), np.int64(3)])
    fn = hg.compile(graph)  # one signature: compiled once, the host shapes vary per call
    for xv, nv in [(-np.ones(20), 0), (np.ones(20), 5), (rng.normal(size=20), 2)]:
        for i, (a, e) in enumerate(zip(fn(xv, np.int64(nv)), hg.evaluate(graph, xv, np.int64(nv)))):
            assert_same(a, e, what=f"output {i}")
