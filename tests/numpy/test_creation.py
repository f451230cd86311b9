"""Array creation (frontend/numpy/creation.py): compiled results and perform against
NumPy itself, for constant and graph-valued arguments."""

from __future__ import annotations

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import creation as m
from hlograph.tests.helpers import assert_same, check_against_numpy, random_array


# --- from existing data ------------------------------------------------------------------------
def test_copy_asarray_array(rng):
    v = rng.normal(size=(3,)).astype(np.float32)
    check_against_numpy(lambda x: m.copy(x) * 2, [v], lambda x: np.copy(x) * 2, rtol=1e-6, atol=0)
    check_against_numpy(lambda x: m.asarray(x, dtype="float64") + m.array([1.0, 2.0, 3.0]), [v],
                        lambda x: np.asarray(x, dtype="float64") + np.array([1.0, 2.0, 3.0]))


# --- numerical ranges --------------------------------------------------------------------------
@pytest.mark.parametrize("start,stop,num,endpoint", [(0, 1, 5, True), (2.5, -1, 4, False), (1, 1, 1, True),
                                                     (0, 3, 0, True), (-1, 2, 2, True)])
def test_linspace(start, stop, num, endpoint):
    assert_same(hg.evaluate(hg.Graph([], m.linspace(start, stop, num, endpoint))),
                np.linspace(start, stop, num, endpoint=endpoint))
    av, bv = np.float32(start), np.float32(stop)
    check_against_numpy(lambda a, b: m.linspace(a, b, num, endpoint), [av, bv],
                        np.linspace(av, bv, num, endpoint=endpoint))


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
    check_against_numpy(lambda a, b: m.logspace(a, b, num, endpoint=endpoint, base=2.0), bounds,
                        lambda a, b: np.logspace(a, b, num, endpoint=endpoint, base=2.0), rtol=1e-5)
    for lo, hi in [(2, 50), (-3, -24)]:
        bounds = [np.asarray(v, dtype) for v in (lo, hi)]
        check_against_numpy(lambda a, b: m.geomspace(a, b, num, endpoint=endpoint), bounds,
                            lambda a, b: np.geomspace(a, b, num, endpoint=endpoint), rtol=1e-5)
    # array bounds run along a new axis (axis=0 by default), as NumPy
    assert m.logspace(hg.tensor("a", (2,)), 1.0, num=5).type == hg.TensorType("float64", (5, 2))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid(indexing, sparse, rng):
    vs = [random_array(rng, (3,), "float32"), random_array(rng, (2,), "int8"), random_array(rng, (4,), "float32")]
    check_against_numpy(lambda *xs: m.meshgrid(*xs, indexing=indexing, sparse=sparse), vs,
                        lambda *xs: np.meshgrid(*xs, indexing=indexing, sparse=sparse))
    check_against_numpy(lambda x: m.meshgrid(x, indexing=indexing), vs[:1], lambda x: np.meshgrid(x, indexing=indexing))


# --- building matrices -------------------------------------------------------------------------
@pytest.mark.parametrize("args,kwargs", [((3,), {}), ((0,), {"dtype": "int32"})], ids=str)
def test_identity(args, kwargs):
    check_against_numpy(lambda: m.identity(*args, **kwargs), [], lambda: np.identity(*args, **kwargs))


@pytest.mark.parametrize("shape,k", [((3,), 0), ((3,), 2), ((2,), -1), ((3, 4), 1), ((3, 3), -2), ((0,), 1)], ids=str)
def test_diag(shape, k, rng):
    v = random_array(rng, shape, "int64")
    check_against_numpy(lambda x: m.diag(x, k), [v], lambda x: np.diag(x, k))


@pytest.mark.parametrize("shape,k", [((2, 2), 0), ((3,), 1), ((2, 1), -2), ((), 0), ((0,), 1)], ids=str)
def test_diagflat(shape, k, rng):
    v = random_array(rng, shape, "float32")
    check_against_numpy(lambda x: m.diagflat(x, k), [v], lambda x: np.diagflat(x, k))


@pytest.mark.parametrize("N,M,k,dtype", [
    (3, None, 0, "float64"), (2, 4, 1, "int32"), (4, 2, -1, "bool"), (0, 3, 0, "float32"),
])
def test_tri(N, M, k, dtype):
    assert_same(hg.evaluate(hg.Graph([], m.tri(N, M, k, dtype))), np.tri(N, M, k, dtype=dtype))


@pytest.mark.parametrize("shape,k", [((3, 4), 0), ((4, 3), -1), ((2, 3, 3), 1), ((3, 3), 5), ((0, 2), 0)], ids=str)
def test_tril_triu(shape, k, rng):
    v = random_array(rng, shape, "complex64")
    check_against_numpy(lambda x: [m.tril(x, k), m.triu(x, k)], [v], lambda x: [np.tril(x, k), np.triu(x, k)])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool", "complex64"])
@pytest.mark.parametrize("N,increasing", [(None, False), (3, True), (1, False), (0, True)], ids=str)
def test_vander(dtype, N, increasing, rng):
    v = random_array(rng, (4,), dtype, "small_int" if dtype == "int32" else "normal")
    check_against_numpy(lambda x: m.vander(x, N, increasing), [v], lambda x: np.vander(x, N, increasing), rtol=1e-6)


def test_vander_empty_and_errors(rng):
    check_against_numpy(lambda x: m.vander(x), [random_array(rng, (0,), "float32")], lambda x: np.vander(x))
    with pytest.raises(ValueError, match="vander: x must be a one-dimensional"):
        m.vander(hg.tensor("x", (2, 2), "float32"))


def test_block_diag(rng):
    va, vb, vc = (random_array(rng, (2, 2), "float32"), random_array(rng, (3,), "int64"),
                  random_array(rng, (1, 3), "float32"))
    dt = np.result_type(va, vb, vc)
    expected = np.zeros((4, 8), dt)
    expected[0:2, 0:2], expected[2, 2:5], expected[3:4, 5:8] = va, vb, vc
    check_against_numpy(m.block_diag, [va, vb, vc], expected)


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
    (lambda x: m.tril(hg.tensor("t", ())), ValueError, "at least 1 dim"),
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


@pytest.mark.parametrize("k", [-1, 0, 2])
@pytest.mark.parametrize("fn", [hg.tril, hg.triu])
def test_tril_triu_of_1d_input_mask_its_square_broadcast(fn, k, rng):
    for n in (0, 1, 4):
        v = random_array(rng, (n,), "int8")
        check_against_numpy(lambda x: fn(x, k), [v], lambda a: getattr(np, fn.__name__)(a, k))
    with pytest.raises(ValueError, match="at least 1 dim"):
        fn(hg.tensor("x", (), "float32"))


# --- array: nested sequences of graph values, ndmin, ndmax -------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "complex64"])
def test_array_stacks_nested_graph_values(dtype, rng):
    a, b = random_array(rng, (3,), dtype), random_array(rng, (3,), dtype)
    s = random_array(rng, (), dtype)
    check_against_numpy(lambda x, y: m.array([x, y, [1, 0, 1]]), [a, b],
                        np.array([a, b, np.array([1, 0, 1])]).astype(np.result_type(a, b, 1)))
    check_against_numpy(lambda x, y: m.asarray((x, (y,))[1]), [a, b], b[None])
    check_against_numpy(lambda x: m.array([[x, 2], [x, x]], dtype="float64"), [s],
                        np.array([[s, 2], [s, s]], dtype="float64"))
    check_against_numpy(lambda x, y: m.array([[x], [y]], ndmin=4), [a, b], np.array([[a], [b]], ndmin=4))
    check_against_numpy(lambda x: m.array(x, ndmin=2, ndmax=3), [a], np.array(a, ndmin=2, ndmax=3))
    check_against_numpy(lambda x: m.array([x, x], ndmax=2), [a], np.array([a, a], ndmax=2))
    check_against_numpy(lambda x: m.array([x[:0], x[:0]]), [a], np.array([a[:0], a[:0]]))


def test_array_promotes_like_numpy():
    x = hg.tensor("x", (), "int8")
    assert m.array([x, 1]).dtype == np.int8  # Python numbers are weak, as in NumPy 2
    assert m.array([x, 1.5]).dtype == np.float64
    assert m.array([x, np.float32(1.5)]).dtype == np.float32
    assert m.array([[x, x]], dtype="float16").type == hg.TensorType("float16", (1, 2))


def test_array_errors():
    x = hg.tensor("x", (3,), "float32")
    with pytest.raises(ValueError, match="ragged"):
        m.array([x, x[:2]])
    with pytest.raises(ValueError, match="more than ndmax=1"):
        m.array([x, x], ndmax=1)
    with pytest.raises(ValueError, match=r"ndmax must be in the range \[0, 64\]"):
        m.array(x, ndmax=-1)
    with pytest.raises(ValueError, match=r"ndmin must be <= ndmax \(1\)"):
        m.array(x, ndmin=2, ndmax=1)
    with pytest.raises(ValueError, match="empty level"):
        m.array([x, []])


# --- linspace: retstep and axis; logspace and geomspace along an axis ---------------------------
@pytest.mark.parametrize("num,endpoint", [(5, True), (4, False), (1, True), (1, False), (0, True)])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_linspace_retstep_and_axis(num, endpoint, axis, rng):
    a, b = random_array(rng, (2,), "float32"), random_array(rng, (3, 1), "float64")
    want, step = np.linspace(a, b, num, endpoint=endpoint, retstep=True, axis=axis)
    check_against_numpy(lambda x, y: list(m.linspace(x, y, num, endpoint, retstep=True, axis=axis)), [a, b],
                        [want, np.broadcast_to(step, want.shape[:axis % want.ndim] + want.shape[axis % want.ndim + 1:])
                         if np.ndim(step) else step])
    y, st = m.linspace(1.0, 2.0, num, endpoint, retstep=True, axis=0)
    ref = np.linspace(1.0, 2.0, num, endpoint=endpoint, retstep=True)
    assert_same(hg.evaluate(hg.Graph([], [y, st]))[1], np.asarray(ref[1]))
    check_against_numpy(lambda x, y: m.logspace(x, y, num, endpoint, axis=axis), [a, b],
                        np.logspace(a, b, num, endpoint=endpoint, axis=axis), rtol=1e-5)
    pa, pb = np.abs(a) + 0.5, np.abs(b) + 0.5
    check_against_numpy(lambda x, y: m.geomspace(x, y, num, endpoint, axis=axis), [pa, pb],
                        np.geomspace(pa, pb, num, endpoint=endpoint, axis=axis), rtol=1e-5)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float16"])
def test_linspace_integer_dtype_rounds_down(dtype):
    s = np.asarray(-3.0)
    check_against_numpy(lambda x: m.linspace(x, 4, 9, dtype=dtype), [s], np.linspace(s, 4, 9, dtype=dtype))
    check_against_numpy(lambda x: m.linspace(x, [[4], [7]], 5, dtype=dtype, axis=-1), [s],
                        np.linspace(s, [[4], [7]], 5, dtype=dtype, axis=-1))


# --- the *_like functions' shape= -------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (0,), 4, (2, 1, 3), [3, 2]])
@pytest.mark.parametrize("dtype", [None, "int8", "complex64"])
def test_like_functions_take_a_shape(shape, dtype, rng):
    a = random_array(rng, (3, 2), "float32")
    fill = rng.normal()
    for name, args in [("zeros_like", ()), ("ones_like", ()), ("full_like", (fill,)),
                       ("full_like", (np.array([1.5, -2.5], np.float64),))]:
        if name == "full_like" and np.ndim(args[0]) and (np.ndim(shape) == 0 or list(np.atleast_1d(shape))[-1:] != [2]):
            continue  # an array fill value must broadcast to the shape
        want = getattr(np, name)(a, *args, dtype=dtype, shape=shape)
        check_against_numpy(lambda x: getattr(hg, name)(x, *args, dtype=dtype, shape=shape), [a], want)
        check_against_numpy(lambda x: getattr(np, name)(x, *args, dtype=dtype, shape=shape), [a], want)
    got = hg.empty_like(hg.tensor("x", (3, 2), "float32"), shape=(5,), dtype="int32")
    assert got.type == hg.TensorType("int32", (5,))
    assert np.empty_like(hg.tensor("x", (3, None), "float32"), shape=(2, 2)).type == hg.TensorType("float32", (2, 2))
    # a graph-valued fill value
    check_against_numpy(lambda x, v: hg.full_like(x, v, dtype=dtype, shape=shape), [a, np.float64(fill)],
                        np.full_like(a, fill, dtype=dtype, shape=shape))
