"""Array creation (frontend/numpy/creation.py): compiled results and perform against
NumPy itself, for constant and graph-valued arguments."""

from __future__ import annotations

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import creation as m
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


def _check(fn, ref, values, rtol=None, atol=None):
    """Builds ``fn`` on inputs shaped like ``values``, checks compiled == perform and
    perform == ``ref(*values)`` (dtype, shape and values)."""
    xs = [hg.tensor(f"x{i}", v.shape, v.dtype) for i, v in enumerate(values)]
    out = fn(*xs)
    many = isinstance(out, (list, tuple))
    _, got = compare_with_perform(hg.Graph(xs, list(out) if many else out), values, rtol=rtol, atol=atol)
    expected = ref(*values)
    got, expected = (list(got), list(expected)) if many else ([got], [expected])
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_same(g, np.asarray(e), rtol=rtol, atol=atol)


def _run(inputs, values, outs, expected):
    """Compiled == perform for ``outs``, and perform == NumPy's ``expected``."""
    _, ref = compare_with_perform(hg.Graph(inputs, outs), values)
    ref = ref if isinstance(outs, (list, tuple)) else [ref]
    expected = expected if isinstance(outs, (list, tuple)) else [expected]
    assert len(ref) == len(expected)
    for r, e in zip(ref, expected):
        assert_same(r, np.asarray(e))


def _input(shape, dtype, rng, kind="normal"):
    return hg.tensor("x", shape, dtype), random_array(rng, shape, dtype, kind)


def _check_allclose(build, numpy_fn, values, rtol=1e-6, atol=0.0):
    xs = [hg.tensor(f"x{i}", v.shape, str(v.dtype)) for i, v in enumerate(values)]
    out = build(*xs)
    outs = list(out) if isinstance(out, tuple) else [out]
    g = hg.Graph(xs, outs)
    got, _ = compare_with_perform(g, values, rtol=rtol, atol=atol)
    got = list(got) if isinstance(got, (list, tuple)) else [got]
    want = numpy_fn(*values)
    want = list(want) if isinstance(want, tuple) else [want]
    for gv, wv in zip(got, want):
        wv = np.asarray(wv)
        assert gv.dtype == wv.dtype and gv.shape == wv.shape
        np.testing.assert_allclose(gv, wv, rtol=rtol, atol=atol, equal_nan=True)


# --- from existing data ------------------------------------------------------------------------
def test_copy_asarray_array(rng):
    v = rng.normal(size=(3,)).astype(np.float32)
    _check_allclose(lambda x: m.copy(x) * 2, lambda x: np.copy(x) * 2, [v])
    _check_allclose(lambda x: m.asarray(x, dtype="float64") + m.array([1.0, 2.0, 3.0]),
                    lambda x: np.asarray(x, dtype="float64") + np.array([1.0, 2.0, 3.0]), [v])


# --- numerical ranges --------------------------------------------------------------------------
@pytest.mark.parametrize("start,stop,num,endpoint", [(0, 1, 5, True), (2.5, -1, 4, False), (1, 1, 1, True),
                                                     (0, 3, 0, True), (-1, 2, 2, True)])
def test_linspace(start, stop, num, endpoint):
    assert_same(hg.evaluate(hg.Graph([], m.linspace(start, stop, num, endpoint))),
                np.linspace(start, stop, num, endpoint=endpoint))
    a, b = hg.scalar("a", "float32"), hg.scalar("b", "float32")
    av, bv = np.float32(start), np.float32(stop)
    _, ref = compare_with_perform(hg.Graph([a, b], m.linspace(a, b, num, endpoint)), [av, bv])
    assert_same(ref, np.linspace(av, bv, num, endpoint=endpoint))


def test_logspace_geomspace_constants():
    for args, kw in [((0, 3), {}), ((1, 2), dict(num=5, base=2.0, endpoint=False)),
                     ((0.0, 1.0), dict(num=4, dtype="float32")), (([0, 1], [2, 3]), dict(num=3, axis=-1))]:
        c = m.logspace(*args, **kw)
        assert_same(hg.compile(hg.Graph([], c))(), np.logspace(*args, **kw))
    for args, kw in [((1, 1000), dict(num=4)), ((-1, -16), dict(num=5, endpoint=False)),
                     ((1j, 16j), dict(num=3)), ((2, 3), dict(num=4, dtype="float32"))]:
        c = m.geomspace(*args, **kw)
        assert_same(hg.compile(hg.Graph([], c))(), np.geomspace(*args, **kw))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("num,endpoint", [(6, True), (5, False), (1, True), (0, True)])
def test_logspace_geomspace_graph(dtype, num, endpoint):
    bounds = [np.asarray(v, dtype) for v in (1, 3)]
    run(lambda a, b: m.logspace(a, b, num, endpoint=endpoint, base=2.0), bounds,
        lambda a, b: np.logspace(a, b, num, endpoint=endpoint, base=2.0), rtol=1e-5)
    for lo, hi in [(2, 50), (-3, -24)]:
        bounds = [np.asarray(v, dtype) for v in (lo, hi)]
        run(lambda a, b: m.geomspace(a, b, num, endpoint=endpoint), bounds,
            lambda a, b: np.geomspace(a, b, num, endpoint=endpoint), rtol=1e-5)
    with pytest.raises(NotImplementedError, match="logspace"):
        m.logspace(hg.tensor("a", (2,)), 1.0)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid(indexing, sparse, rng):
    x, y, z = hg.tensor("x", (3,), "float32"), hg.tensor("y", (2,), "int8"), hg.tensor("z", (4,), "float32")
    vs = [random_array(rng, (3,), "float32"), random_array(rng, (2,), "int8"), random_array(rng, (4,), "float32")]
    _run([x, y, z], vs, m.meshgrid(x, y, z, indexing=indexing, sparse=sparse),
         np.meshgrid(*vs, indexing=indexing, sparse=sparse))
    _run([x], vs[:1], m.meshgrid(x, indexing=indexing), np.meshgrid(vs[0], indexing=indexing))


# --- building matrices -------------------------------------------------------------------------
@pytest.mark.parametrize("args,kwargs", [((3,), {}), ((0,), {"dtype": "int32"})], ids=str)
def test_identity(args, kwargs):
    _check(lambda: m.identity(*args, **kwargs), lambda: np.identity(*args, **kwargs), [])


@pytest.mark.parametrize("shape,k", [((3,), 0), ((3,), 2), ((2,), -1), ((3, 4), 1), ((3, 3), -2), ((0,), 1)], ids=str)
def test_diag(shape, k, rng):
    x, v = _input(shape, "int64", rng)
    _run([x], [v], m.diag(x, k), np.diag(v, k))


@pytest.mark.parametrize("shape,k", [((2, 2), 0), ((3,), 1), ((2, 1), -2), ((), 0), ((0,), 1)], ids=str)
def test_diagflat(shape, k, rng):
    v = random_array(rng, shape, "float32")
    _check(lambda x: m.diagflat(x, k), lambda x: np.diagflat(x, k), [v])


@pytest.mark.parametrize("N,M,k,dtype", [
    (3, None, 0, "float64"), (2, 4, 1, "int32"), (4, 2, -1, "bool"), (0, 3, 0, "float32"),
])
def test_tri(N, M, k, dtype):
    assert_same(hg.evaluate(hg.Graph([], m.tri(N, M, k, dtype))), np.tri(N, M, k, dtype=dtype))


@pytest.mark.parametrize("shape,k", [((3, 4), 0), ((4, 3), -1), ((2, 3, 3), 1), ((3, 3), 5), ((0, 2), 0)], ids=str)
def test_tril_triu(shape, k, rng):
    x, v = _input(shape, "complex64", rng)
    _run([x], [v], [m.tril(x, k), m.triu(x, k)], [np.tril(v, k), np.triu(v, k)])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool", "complex64"])
@pytest.mark.parametrize("N,increasing", [(None, False), (3, True), (1, False), (0, True)], ids=str)
def test_vander(dtype, N, increasing, rng):
    v = random_array(rng, (4,), dtype, "small_int" if dtype == "int32" else "normal")
    _check(lambda x: m.vander(x, N, increasing), lambda x: np.vander(x, N, increasing), [v], rtol=1e-6)


def test_vander_empty_and_errors(rng):
    _check(lambda x: m.vander(x), lambda x: np.vander(x), [random_array(rng, (0,), "float32")])
    with pytest.raises(ValueError, match="vander: x must be a one-dimensional"):
        m.vander(hg.tensor("x", (2, 2), "float32"))


def test_block_diag(rng):
    a, b, c = hg.tensor("a", (2, 2), "float32"), hg.tensor("b", (3,), "int64"), hg.tensor("c", (1, 3), "float32")
    va, vb, vc = (random_array(rng, (2, 2), "float32"), random_array(rng, (3,), "int64"),
                  random_array(rng, (1, 3), "float32"))
    dt = np.result_type(va, vb, vc)
    expected = np.zeros((4, 8), dt)
    expected[0:2, 0:2], expected[2, 2:5], expected[3:4, 5:8] = va, vb, vc
    _run([a, b, c], [va, vb, vc], m.block_diag(a, b, c), expected)


# --- window functions --------------------------------------------------------------------------
@pytest.mark.parametrize("name, args", [("bartlett", ()), ("blackman", ()), ("hamming", ()),
                                        ("hanning", ()), ("kaiser", (8.6,))])
@pytest.mark.parametrize("M", [0, 1, 7])
def test_windows(name, args, M):
    x = hg.tensor("x", (M,), "float64")
    g = hg.Graph([x], x * getattr(m, name)(M, *args))
    ones = np.ones(M)
    np.testing.assert_allclose(hg.compile(g)(ones), getattr(np, name)(M, *args), rtol=1e-12)
    with pytest.raises(TypeError, match=f"{name}: M must be a static integer"):
        getattr(m, name)(x, *args)


@pytest.mark.parametrize("build,err,match", [
    (lambda x: m.diag(hg.tensor("t", (2, 2, 2))), ValueError, "must be 1-d or 2-d"),
    (lambda x: m.tril(hg.tensor("t", (3,))), ValueError, "at least 2 dims"),
    (lambda x: m.tril(hg.tensor("t", (None, 3))), ValueError, "axis 0 of the input must have a known size"),
    (lambda x: m.meshgrid(x, indexing="xz"), ValueError, "indexing must be 'xy' or 'ij'"),
    (lambda x: m.linspace(0, 1, -1), ValueError, "num must be non-negative"),
    (lambda x: m.block_diag(hg.tensor("t", (1, 1, 1))), ValueError, "input 0 has more than 2 dims"),
    (lambda x: m.geomspace(hg.scalar("a", "complex64"), 2.0, 3), NotImplementedError, "geomspace"),
])
def test_errors(build, err, match):
    x = hg.tensor("x", (2, 3), "float32")
    with pytest.raises(err, match=match):
        build(x)
