"""Indexing routines (frontend/numpy/indexing.py): compiled results against perform, and
perform against NumPy."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import indexing as m
from hlograph.tests.helpers import assert_same, check_against_numpy, random_array


def _np_put(a, ind, v, mode="raise"):
    out = np.array(a, copy=True)
    np.put(out, ind, v, mode=mode)
    return out


def _fill_diagonal_reference(v, val, offset):
    out = v.copy()
    rows, cols = m.diagonal_positions(v.shape[0], v.shape[1], offset)
    out[rows, cols] = val
    return out


# --- index arrays as constants -----------------------------------------------------------------
@pytest.mark.parametrize("case", [
    ("indices", ((2, 3),), {}), ("indices", ((2, 0, 3),), {"dtype": "int32"}), ("indices", ((3, 2),), {"sparse": True}),
    ("diag_indices", (3,), {}), ("diag_indices", (2, 3), {}),
    ("tril_indices", (3,), {}), ("tril_indices", (3, 1, 4), {}), ("triu_indices", (4, -1), {}),
    ("triu_indices", (2, 0, 3), {}),
], ids=str)
def test_constants(case):
    name, args, kwargs = case
    out = getattr(m, name)(*args, **kwargs)
    check_against_numpy(lambda: out, [], lambda: getattr(np, name)(*args, **kwargs))


def test_index_helpers_from_arrays(rng):
    a = rng.normal(size=(4, 4))
    check_against_numpy(lambda x: x[m.diag_indices_from(x)], [a], lambda x: x[np.diag_indices_from(x)])
    b = rng.normal(size=(3, 5))
    for k in (-1, 0, 2):
        check_against_numpy(lambda x: x[m.tril_indices_from(x, k=k)], [b], lambda x: x[np.tril_indices_from(x, k=k)])
        check_against_numpy(lambda x: x[m.triu_indices_from(x, k=k)], [b], lambda x: x[np.triu_indices_from(x, k=k)])
    with pytest.raises(ValueError, match="diag_indices_from"):
        m.diag_indices_from(hg.tensor("x", (2, 3), "float32"))


# --- diagonals ----------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,offset,axis1,axis2", [
    ((3, 4), 0, 0, 1), ((3, 4), 2, 0, 1), ((3, 4), -1, 1, 0), ((2, 3, 4), 1, 2, 0), ((2, 3, 4), 5, 0, 1),
    ((4, 2, 4), -2, -1, 0),
], ids=str)
def test_diagonal(shape, offset, axis1, axis2, rng):
    v = random_array(rng, shape, "float64")
    check_against_numpy(lambda x: m.diagonal(x, offset, axis1, axis2), [v],
                        lambda x: np.diagonal(x, offset, axis1, axis2))


@pytest.mark.parametrize("shape,offset", [((3, 3), 0), ((5, 3), 0), ((3, 5), 2), ((4, 3), -1), ((2, 2), 4)], ids=str)
def test_fill_diagonal(shape, offset, rng):
    v = random_array(rng, shape, "float32")
    expected = _fill_diagonal_reference(v, 7.0, offset)
    if offset == 0:
        np_out = v.copy()
        np.fill_diagonal(np_out, 7.0)
        assert_same(expected, np_out)
    check_against_numpy(lambda x: m.fill_diagonal(x, 7.0, offset), [v], expected)


def test_fill_diagonal_values_and_nd(rng):
    v = random_array(rng, (3, 3, 3), "int32")
    wv = random_array(rng, (3, 4), "float64")
    dv = random_array(rng, (3,), "float64")
    e = v.copy()
    np.fill_diagonal(e, -1)
    check_against_numpy(lambda x, w, d: [m.fill_diagonal(x, -1), m.fill_diagonal(w, d)], [v, wv, dv],
                        [e, _fill_diagonal_reference(wv, dv, 0)])


def test_diagonal_errors():
    x = hg.tensor("x", (2, 3), "float32")
    with pytest.raises(ValueError, match="axis1 and axis2 cannot be the same"):
        m.diagonal(x, 0, 1, -1)
    with pytest.raises(ValueError, match="needs equal dims"):
        m.fill_diagonal(hg.tensor("t", (2, 3, 2)), 1.0)


# --- select, choose, put -------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
@pytest.mark.parametrize("default", [0, 2.5, "array"], ids=str)
def test_select(dtype, default, rng):
    x = random_array(rng, (2, 3), dtype)
    y = random_array(rng, (3,), dtype)
    c = random_array(rng, (2, 1), "bool")
    d = random_array(rng, (2, 3), "int8") if default == "array" else None

    def build(select, greater, x, y, c, *d_):
        return select([c, greater(x, y)], [x, y], d_[0] if d_ else default)

    vals = [x, y, c] + ([d] if d is not None else [])
    check_against_numpy(lambda *xs: build(m.select, hg.greater, *xs), vals,
                        lambda *vs: build(np.select, np.greater, *vs))


def test_select_broadcast_and_nan(rng):
    x = np.array([np.nan, np.inf, -1.0, 2.0], dtype="float32")
    c = np.array([True, False, True, False])
    check_against_numpy(lambda x, c: m.select([c, ~c], [x, 1.0], default=-1.0), [x, c],
                        lambda x, c: np.select([c, ~c], [x, 1.0], default=-1.0))
    s = np.array(True)
    check_against_numpy(lambda s: m.select([s], [1], default=np.zeros((2, 2), "float32")), [s],
                        lambda s: np.select([s], [1], default=np.zeros((2, 2), "float32")))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_piecewise(dtype, rng):
    x = random_array(rng, (3, 5), dtype)
    funcs = [lambda v: -v, lambda v, k=2: v * k, 7]                      # functions and a constant
    check_against_numpy(lambda v: m.piecewise(v, [v < 0, v > 1], funcs), [x],
                        lambda v: np.piecewise(v, [v < 0, v > 1], funcs))
    # one extra function: the "otherwise" case; a single condition; *args and **kw
    check_against_numpy(lambda v: m.piecewise(v, [v < 0], [0.5, lambda v: v ** 2]), [x],
                        lambda v: np.piecewise(v, [v < 0], [0.5, lambda v: v ** 2]))
    x1 = x[0]  # one condition array: one condition for a 1-d x (NumPy reads a 2-d one's rows)
    check_against_numpy(lambda v: m.piecewise(v, v > 0, [lambda v, a, b=0: v * a + b], 3, b=1), [x1],
                        lambda v: np.piecewise(v, v > 0, [lambda v, a, b=0: v * a + b], 3, b=1))
    # through NumPy's protocol
    g = hg.trace_numpy(lambda v: np.piecewise(v, [v < 0, v >= 0], [lambda t: -t, lambda t: t / 2]), x)
    assert_same(hg.compile(g)(x), np.piecewise(x, [x < 0, x >= 0], [lambda t: -t, lambda t: t / 2]))
    with pytest.raises(ValueError, match="either 2 or 3 functions"):
        m.piecewise(hg.tensor("x", (3,)), [x[0, :3] > 0, x[0, :3] < 0], [1])


def test_select_errors():
    x = hg.tensor("x", (2,), "float32")
    with pytest.raises(TypeError, match="select: invalid entry 0"):
        m.select([x], [x])
    with pytest.raises(ValueError, match="select: list of cases"):
        m.select([x > 0], [])
    with pytest.raises(ValueError, match="select with an empty"):
        m.select([], [])


@pytest.mark.parametrize("mode", ["raise", "clip", "wrap"])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_choose(mode, dtype, rng):
    lo, hi = (0, 3) if mode == "raise" else (-4, 7)
    a = rng.integers(lo, hi, size=(2, 3)).astype("int32")
    c0, c1 = random_array(rng, (2, 3), dtype), random_array(rng, (3,), dtype)
    check_against_numpy(lambda a, c0, c1: m.choose(a, [c0, c1, 7], mode=mode), [a, c0, c1],
                        lambda a, c0, c1: np.choose(a, [c0, c1, 7], mode=mode))


def test_choose_array_choices_and_constants(rng):
    a = rng.integers(0, 4, size=(5,)).astype("int64")
    ch = random_array(rng, (4, 5), "float64")
    check_against_numpy(lambda a, ch: m.choose(a, ch), [a, ch], lambda a, ch: np.choose(a, ch))
    check_against_numpy(lambda ch: m.choose([1, 0, 3, 2, 0], ch), [ch], lambda ch: np.choose([1, 0, 3, 2, 0], ch))
    check_against_numpy(lambda ch: m.choose(0, [ch[0]]), [ch], lambda ch: np.choose(0, [ch[0]]))
    with pytest.raises(ValueError, match="choose: invalid entry"):
        m.choose([0, 3], [np.zeros(2), np.ones(2)])
    with pytest.raises(TypeError, match="choose: 'a' must have an integer dtype"):
        m.choose(hg.tensor("a", (2,), "float32"), [1, 2])
    with pytest.raises(ValueError, match="choose: mode"):
        m.choose([0], [1], mode="bad")


@pytest.mark.parametrize("shape,ind,v,mode", [
    ((2, 3), [0, 5, 2], [7, 8, 9], "raise"),
    ((2, 3), [-1, 1, 3, 4], [1.5, 2.5], "raise"),
    ((4,), 2, 9, "raise"),
    ((2, 3), [8, -7, 1], [1, 2, 3], "wrap"),
    ((2, 3), [8, -7, 1], [1, 2, 3], "clip"),
    ((3,), [], [1], "raise"),
    ((), [0], 5, "raise"),
], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_put(shape, ind, v, mode, dtype, rng):
    a = random_array(rng, shape, dtype)
    check_against_numpy(lambda a: m.put(a, ind, v, mode), [a], lambda a: _np_put(a, ind, v, mode))


def test_put_graph_values(rng):
    a = random_array(rng, (3, 4), "float64")
    ind = rng.permutation(12)[:5].astype("int32")
    v = random_array(rng, (2,), "float32")
    check_against_numpy(lambda a, i, v: m.put(a, i, v), [a, ind, v], lambda a, i, v: _np_put(a, i, v))
    check_against_numpy(lambda a, i, v: m.put(a, i, v, mode="wrap"), [a, ind + 24, v],
                        lambda a, i, v: _np_put(a, i, v, "wrap"))


def test_put_errors():
    x = hg.tensor("x", (2, 3), "float32")
    with pytest.raises(IndexError, match="put: index 6 is out of bounds"):
        m.put(x, [6], 1.0)
    with pytest.raises(TypeError, match="put: indices must have an integer dtype"):
        m.put(x, [0.5], 1.0)
    with pytest.raises(ValueError, match="put: mode"):
        m.put(x, [0], 1.0, mode="bad")


@pytest.mark.parametrize("shape", [(7, 3), (4, 3), (5, 5), (2, 5), (0, 3), (9, 1)])
@pytest.mark.parametrize("val", [7.5, "cycle", "exact", "empty"])
@pytest.mark.parametrize("wrap", [True, False])
def test_fill_diagonal_wrap_and_cyclic_values(shape, val, wrap, rng):
    v = random_array(rng, shape, "float64")
    vals = {"cycle": np.array([1.0, -2.0]), "empty": np.zeros((0,))}.get(val, val)
    if val == "exact":
        probe = np.zeros(shape)
        np.fill_diagonal(probe, 1.0, wrap=wrap)
        vals = np.arange(1.0, probe.sum() + 1).reshape(-1, 1)  # any shape: taken flattened
    expected = v.copy()
    np.fill_diagonal(expected, vals, wrap=wrap)
    check_against_numpy(lambda x: m.fill_diagonal(x, vals, wrap=wrap), [v], expected)
    # through NumPy's own function (it returns the filled copy for a graph value)
    check_against_numpy(lambda x: np.fill_diagonal(x, vals, wrap), [v], expected)


def test_fill_diagonal_wrap_errors():
    with pytest.raises(ValueError, match="wrap=True takes offset 0"):
        m.fill_diagonal(hg.tensor("t", (5, 2)), 1.0, offset=1, wrap=True)
