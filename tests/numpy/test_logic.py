"""Logic functions (frontend/numpy/logic.py): compiled results and perform against
NumPy itself, over dtypes, broadcasting, NaN and infinities."""

from __future__ import annotations

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import logic as m
from hlograph.tests.helpers import assert_same, compare_with_perform, random_array


def run(fn, values, numpy_fn=None, *, rtol=None, atol=None, dtypes=None):
    """Builds ``fn`` on graph inputs shaped like ``values``, compiles and evaluates it
    (compare_with_perform), and compares both with ``numpy_fn(*values)`` (default: the NumPy
    function of the same name)."""
    values = [np.asarray(v) for v in values]
    xs = [hg.tensor(f"x{i}", v.shape, v.dtype) for i, v in enumerate(values)]
    out = fn(*xs)
    outs = list(out) if isinstance(out, tuple) else [out]
    graph = hg.Graph(xs, outs)
    _, expected = compare_with_perform(graph, values, rtol=rtol, atol=atol)
    expected = expected if isinstance(expected, (list, tuple)) else [expected]
    numpy_fn = numpy_fn or getattr(np, fn.__name__)
    with np.errstate(all="ignore"):
        ref = numpy_fn(*values)
    ref = list(ref) if isinstance(ref, tuple) else [ref]
    assert len(ref) == len(expected)
    for i, (e, r) in enumerate(zip(expected, ref)):
        assert_same(e, np.asarray(r), rtol=rtol, atol=atol, what=f"{fn.__name__} output {i} vs NumPy")
    return expected


def special_values(rng, shape, dtype):
    """Random values with NaN, +-inf and zeros sprinkled in (floats)."""
    x = random_array(rng, shape, dtype)
    if x.size and np.dtype(dtype).kind == "f":
        flat = x.reshape(-1)
        picks = rng.integers(0, 5, flat.shape)
        flat[picks == 0] = np.nan
        flat[picks == 1] = np.inf
        flat[picks == 2] = -np.inf
    return x


# --- comparisons -----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose(dtype, equal_nan, rng):
    a = special_values(rng, (4, 5), dtype)
    b = a.copy()
    b.reshape(-1)[::3] += (rng.normal(size=b.reshape(-1)[::3].shape) * 1e-5).astype(dtype)
    b.reshape(-1)[1::4] = random_array(rng, b.reshape(-1)[1::4].shape, dtype)
    kw = dict(rtol=1e-4, atol=1e-6, equal_nan=equal_nan)
    run(lambda x, y: m.isclose(x, y, **kw), [a, b], lambda x, y: np.isclose(x, y, **kw))
    run(lambda x, y: m.allclose(x, y, **kw), [a, b], lambda x, y: np.asarray(np.allclose(x, y, **kw)))
    run(lambda x, y: m.allclose(x, y, **kw), [a, a], lambda x, y: np.asarray(np.allclose(x, y, **kw)))


def test_isclose_broadcast_and_scalars(rng):
    a = random_array(rng, (3, 1), "float32")
    b = random_array(rng, (4,), "int32")
    run(m.isclose, [a, b])
    run(lambda x: m.isclose(x, 1), [np.array([1.0, 1.000001, np.inf], np.float32)],
        lambda x: np.isclose(x, 1))
    run(lambda x: m.isclose(2.0, x), [np.zeros((0, 2), np.float64)], lambda x: np.isclose(2.0, x))
    run(lambda x: m.isclose(x, x), [np.array(np.nan)], lambda x: np.isclose(x, x))


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_array_equal_equiv(dtype, rng):
    a = special_values(rng, (2, 3), dtype)
    b = a.copy()
    for equal_nan in (False, True):
        ref = lambda x, y: np.asarray(np.array_equal(x, y, equal_nan=equal_nan))  # noqa: E731
        run(lambda x, y: m.array_equal(x, y, equal_nan=equal_nan), [a, b], ref)
    c = a.copy()
    c.reshape(-1)[0] = not c.reshape(-1)[0] if dtype == "bool" else 7
    run(m.array_equal, [a, c], lambda x, y: np.asarray(np.array_equal(x, y)))
    run(m.array_equal, [a, a[:1]], lambda x, y: np.asarray(np.array_equal(x, y)))
    run(m.array_equiv, [a, a[:1]], lambda x, y: np.asarray(np.array_equiv(x, y)))
    run(m.array_equiv, [a[:1], a[:1, :1]], lambda x, y: np.asarray(np.array_equiv(x, y)))
    run(m.array_equiv, [a, a[:, :2]], lambda x, y: np.asarray(np.array_equiv(x, y)))


def test_isscalar():
    for v in (1, 2.5, 1j, True, np.float32(1), "s", [1], np.array(1.0), hg.tensor("x", ()),
              hg.constant(1.0), None):
        assert m.isscalar(v) == (False if isinstance(v, hg.Variable) else np.isscalar(v))


def test_errors():
    f = hg.tensor("f", (3,), "float32")
    with pytest.raises(TypeError, match="isclose"):
        m.isclose(f, f, rtol=hg.scalar("r"))
