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
    with pytest.raises(NotImplementedError, match="logspace"):
        m.logspace(hg.tensor("a", (2,)), 1.0)


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
