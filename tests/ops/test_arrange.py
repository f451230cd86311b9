"""Arrangement builders (NumPy names): compiled results against perform, and perform against NumPy."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops import arrange as m
from hlograph.tests.helpers import assert_same, compare_with_perform, random_array


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


def _arrays(rng, specs, kind="normal"):
    return [random_array(rng, shape, dt, kind) for shape, dt in specs]


# --- rank padding and stacking ---------------------------------------------------------------
@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
@pytest.mark.parametrize("shapes", [[()], [(3,)], [(2, 3)], [(0, 2, 1, 2)], [(), (2,), (2, 3)]], ids=str)
def test_atleast(name, shapes, rng):
    vals = _arrays(rng, [(s, "float32") for s in shapes])
    _check(getattr(m, name), getattr(np, name), vals)


def test_atleast_no_inputs():
    assert m.atleast_1d() == () and m.atleast_2d() == () and m.atleast_3d() == ()


@pytest.mark.parametrize("name", ["vstack", "hstack", "dstack", "column_stack"])
@pytest.mark.parametrize("specs", [
    [((3,), "float32"), ((3,), "int32")],
    [((2, 3), "bool"), ((2, 3), "bool"), ((2, 3), "bool")],
    [((2, 0), "float64"), ((2, 0), "float64")],
    [((), "int32"), ((), "int32")],
], ids=lambda s: "-".join(f"{d}{list(sh)}" for sh, d in s))
def test_stack(name, specs, rng):
    vals = _arrays(rng, specs)
    _check(lambda *xs: getattr(m, name)(list(xs)), lambda *vs: getattr(np, name)(list(vs)), vals)


@pytest.mark.parametrize("name", ["vstack", "hstack"])
def test_stack_dtype(name, rng):
    vals = _arrays(rng, [((2, 2), "int32"), ((2, 2), "int8")])
    _check(lambda *xs: getattr(m, name)(xs, dtype="float32"),
           lambda *vs: getattr(np, name)(vs, dtype="float32"), vals)
    with pytest.raises(TypeError, match=name):
        getattr(m, name)([hg.tensor("x", (2,), "float32")], dtype="int32")


def test_stack_mixed_ranks(rng):
    a, b = random_array(rng, (2, 3), "float32"), random_array(rng, (3,), "float32")
    _check(lambda x, y: m.vstack([x, y]), lambda x, y: np.vstack([x, y]), [a, b])
    _check(lambda x, y: m.hstack([y, 1.5, x[0]]), lambda x, y: np.hstack([y, 1.5, x[0]]), [a, b])
    _check(lambda x, y: m.column_stack([x.T, y]), lambda x, y: np.column_stack([x.T, y]), [a, b])


@pytest.mark.parametrize("layout", ["matrix", "rows", "flat", "scalars", "3d"])
def test_block(layout, rng):
    a, b = random_array(rng, (2, 2), "float32"), random_array(rng, (2, 3), "int32")
    c, d = random_array(rng, (5,), "float32"), random_array(rng, (2, 2, 2), "float64")
    build = {
        "matrix": lambda a, b, c, d: [[a, b], [c]],
        "rows": lambda a, b, c, d: [[a, b], [b, a]],
        "flat": lambda a, b, c, d: [c, c, 2],
        "scalars": lambda a, b, c, d: [[1, 2], [3, 4]],
        "3d": lambda a, b, c, d: [[d, d]],
    }[layout]
    _check(lambda *xs: m.block(build(*xs)), lambda *vs: np.block(build(*vs)), [a, b, c, d])


def test_block_errors():
    x = hg.tensor("x", (2,), "float32")
    with pytest.raises(ValueError, match="block: list depths are mismatched"):
        m.block([x, [x]])
    with pytest.raises(TypeError, match="block: .*tuple"):
        m.block((x, x))
    with pytest.raises(ValueError, match="block: .*empty list"):
        m.block([[], [x]])


# --- splitting --------------------------------------------------------------------------------
@pytest.mark.parametrize("name,shape,arg", [
    ("hsplit", (4,), 2), ("hsplit", (2, 6, 1), [1, 4]), ("vsplit", (4, 3), 2), ("vsplit", (0, 2), [0]),
    ("dsplit", (2, 1, 6), 3),
], ids=str)
def test_split(name, shape, arg, rng):
    v = random_array(rng, shape, "int32")
    _check(lambda x: getattr(m, name)(x, arg), lambda x: getattr(np, name)(x, arg), [v])


@pytest.mark.parametrize("name,ndim", [("hsplit", 0), ("vsplit", 1), ("dsplit", 2)])
def test_split_rank_errors(name, ndim):
    with pytest.raises(ValueError, match=name):
        getattr(m, name)(hg.tensor("x", (2,) * ndim, "float32"), 1)


# --- axis moves ------------------------------------------------------------------------------
@pytest.mark.parametrize("src,dst", [(0, -1), (-1, 0), ((0, 1), (-1, -2)), ((2, 0), (0, 3)), ((), ())], ids=str)
def test_moveaxis(src, dst, rng):
    v = random_array(rng, (2, 3, 4, 1), "float32")
    _check(lambda x: m.moveaxis(x, src, dst), lambda x: np.moveaxis(x, src, dst), [v])


@pytest.mark.parametrize("axis,start", [(2, 0), (0, 3), (-1, 1), (1, -2), (1, 1), (0, 1)], ids=str)
def test_rollaxis(axis, start, rng):
    v = random_array(rng, (2, 3, 4), "bool")
    _check(lambda x: m.rollaxis(x, axis, start), lambda x: np.rollaxis(x, axis, start), [v])


@pytest.mark.parametrize("shape,a1,a2", [((2, 3), 0, 1), ((2, 3, 4), -1, 0), ((0, 3), 1, 1)], ids=str)
def test_swapaxes(shape, a1, a2, rng):
    v = random_array(rng, shape, "int32")
    _check(lambda x: m.swapaxes(x, a1, a2), lambda x: np.swapaxes(x, a1, a2), [v])


@pytest.mark.parametrize("axes", [None, (1, 2, 0), (-1, 0, 1)], ids=str)
def test_permute_dims(axes, rng):
    v = random_array(rng, (2, 3, 4), "float64")
    _check(lambda x: m.permute_dims(x, axes), lambda x: np.permute_dims(x, axes), [v])


def test_axis_errors():
    x = hg.tensor("x", (2, 3), "float32")
    with pytest.raises(ValueError, match="moveaxis: .*same number"):
        m.moveaxis(x, (0, 1), 0)
    with pytest.raises(ValueError, match="moveaxis: axis 2 is out of bounds"):
        m.moveaxis(x, 2, 0)
    with pytest.raises(ValueError, match="rollaxis: 'start'"):
        m.rollaxis(x, 0, 3)
    with pytest.raises(ValueError, match="swapaxes"):
        m.swapaxes(x, 0, -3)


@pytest.mark.parametrize("shape,order", [((2, 3), "C"), ((2, 3, 2), "F"), ((), "C"), ((0, 4), "F"), ((3, 2), "K")],
                         ids=str)
def test_ravel(shape, order, rng):
    v = random_array(rng, shape, "complex64")
    _check(lambda x: m.ravel(x, order), lambda x: np.ravel(x, order), [v])


@pytest.mark.parametrize("shape,k,axes", [
    ((2, 3), 1, (0, 1)), ((2, 3), 2, (0, 1)), ((2, 3), -1, (0, 1)), ((2, 3), 4, (0, 1)),
    ((2, 3, 4), 1, (2, 0)), ((2, 3, 4), 3, (-1, 1)), ((0, 3), 1, (0, 1)),
], ids=str)
def test_rot90(shape, k, axes, rng):
    v = random_array(rng, shape, "float32")
    _check(lambda x: m.rot90(x, k, axes), lambda x: np.rot90(x, k, axes), [v])


@pytest.mark.parametrize("name,shape", [("fliplr", (2, 3)), ("fliplr", (2, 3, 2)), ("flipud", (3,)),
                                        ("flipud", (3, 0))], ids=str)
def test_flips(name, shape, rng):
    v = random_array(rng, shape, "int32")
    _check(getattr(m, name), getattr(np, name), [v])


def test_flip_errors():
    with pytest.raises(ValueError, match="fliplr"):
        m.fliplr(hg.tensor("x", (3,), "float32"))
    with pytest.raises(ValueError, match="flipud"):
        m.flipud(hg.tensor("x", (), "float32"))
    with pytest.raises(ValueError, match="rot90: axes must be different"):
        m.rot90(hg.tensor("x", (2, 2), "float32"), 1, (1, -1))


# --- append, insert, delete, resize ---------------------------------------------------------
@pytest.mark.parametrize("a_spec,v_spec,axis", [
    (((2, 3), "float32"), ((2,), "int32"), None),
    (((2, 3), "float32"), ((2, 1), "float32"), -1),
    (((), "int32"), ((), "int8"), None),
    (((0, 2), "bool"), ((3, 2), "bool"), 0),
], ids=str)
def test_append(a_spec, v_spec, axis, rng):
    vals = _arrays(rng, [a_spec, v_spec])
    _check(lambda a, v: m.append(a, v, axis), lambda a, v: np.append(a, v, axis), vals)


@pytest.mark.parametrize("shape,obj,values,axis", [
    ((2, 3), 1, 7.5, 1),
    ((2, 3), -1, [1, 2], 1),
    ((2, 3), [1], [[1], [2]], 1),
    ((2, 3), [3, 0, 1, 0], -4, 1),
    ((2, 3), slice(0, 3, 2), [9, 8], None),
    ((2, 3), 2, [1, 2, 3], 0),
    ((5,), [-1, 5], [10, 11], 0),
    ((0, 2), 0, 3, 0),
    ((2, 2), [], 1, 1),
], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_insert(shape, obj, values, axis, dtype, rng):
    v = random_array(rng, shape, dtype)
    _check(lambda x: m.insert(x, obj, values, axis), lambda x: np.insert(x, obj, values, axis), [v])


def test_insert_many_positions(rng):
    v = random_array(rng, (3, 20), "float32")
    obj = list(range(0, 20, 1)) + [20]
    _check(lambda x: m.insert(x, obj, -1.0, axis=1), lambda x: np.insert(x, obj, -1.0, axis=1), [v])


def test_insert_variable_values(rng):
    vals = [random_array(rng, (3, 2), "float64"), random_array(rng, (2,), "int32")]
    _check(lambda x, v: m.insert(x, [0, 2], v, axis=0), lambda x, v: np.insert(x, [0, 2], v, axis=0), vals)
    _check(lambda x, v: m.insert(x, 1, v, axis=1), lambda x, v: np.insert(x, 1, v, axis=1), vals[:1] + [vals[1][:1]])


@pytest.mark.parametrize("shape,obj,axis", [
    ((2, 4), 1, 1), ((2, 4), [0, 3], -1), ((2, 4), slice(1, None, 2), 1), ((2, 4), -1, None),
    ((5,), [True, False, True, True, False], 0), ((5,), [], 0), ((3, 2), slice(None), 0), ((6,), [1, 2, 3], 0),
    ((2, 40), slice(None, None, 2), 1),
], ids=str)
@pytest.mark.parametrize("dtype", ["float64", "bool"])
def test_delete(shape, obj, axis, dtype, rng):
    v = random_array(rng, shape, dtype)
    _check(lambda x: m.delete(x, obj, axis), lambda x: np.delete(x, obj, axis), [v])


def test_insert_delete_errors():
    x = hg.tensor("x", (2, 3), "float32")
    with pytest.raises(IndexError, match="insert: index 4 is out of bounds"):
        m.insert(x, 4, 1.0, axis=1)
    with pytest.raises(IndexError, match="insert: index -5 is out of bounds"):
        m.insert(x, [0, -5], 1.0, axis=1)
    with pytest.raises(ValueError, match="insert: values"):
        m.insert(x, [0, 1], [1.0, 2.0, 3.0], axis=1)
    with pytest.raises(NotImplementedError, match="insert: graph-valued"):
        m.insert(x, hg.tensor("i", (), "int64"), 1.0)
    with pytest.raises(IndexError, match="delete:"):
        m.delete(x, 3, axis=1)
    with pytest.raises(IndexError, match="delete: index arrays"):
        m.delete(x, [0.5], axis=1)
    with pytest.raises(NotImplementedError, match="delete: graph-valued"):
        m.delete(x, hg.tensor("i", (), "int64"))


@pytest.mark.parametrize("shape,new_shape", [
    ((2, 3), (3, 2)), ((2, 3), (4, 4)), ((3,), 2), ((2, 2), (0, 3)), ((0,), (2, 2)), ((), (2, 3)), ((5,), ()),
], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_resize(shape, new_shape, dtype, rng):
    v = random_array(rng, shape, dtype)
    _check(lambda x: m.resize(x, new_shape), lambda x: np.resize(x, new_shape), [v])


def test_resize_negative():
    with pytest.raises(ValueError, match="resize: .*non-negative"):
        m.resize(hg.tensor("x", (2,), "float32"), (-1, 2))


@pytest.mark.parametrize("specs", [
    [((2, 1), "float32"), ((3,), "int32")],
    [((), "bool"), ((2, 0), "float64"), ((1, 1), "int8")],
    [((4,), "float32")],
], ids=str)
def test_broadcast_arrays(specs, rng):
    vals = _arrays(rng, specs)
    _check(m.broadcast_arrays, np.broadcast_arrays, vals)
    with pytest.raises(ValueError, match="broadcast_arrays"):
        m.broadcast_arrays(hg.tensor("x", (2,), "float32"), hg.tensor("y", (3,), "float32"))


# --- index and matrix constants ----------------------------------------------------------------
@pytest.mark.parametrize("case", [
    ("indices", ((2, 3),), {}), ("indices", ((2, 0, 3),), {"dtype": "int32"}), ("indices", ((3, 2),), {"sparse": True}),
    ("identity", (3,), {}), ("identity", (0,), {"dtype": "int32"}),
    ("diag_indices", (3,), {}), ("diag_indices", (2, 3), {}),
    ("tril_indices", (3,), {}), ("tril_indices", (3, 1, 4), {}), ("triu_indices", (4, -1), {}),
    ("triu_indices", (2, 0, 3), {}),
], ids=str)
def test_constants(case):
    name, args, kwargs = case
    out = getattr(m, name)(*args, **kwargs)
    _check(lambda: out, lambda: getattr(np, name)(*args, **kwargs), [])


@pytest.mark.parametrize("shape,k", [((2, 2), 0), ((3,), 1), ((2, 1), -2), ((), 0), ((0,), 1)], ids=str)
def test_diagflat(shape, k, rng):
    v = random_array(rng, shape, "float32")
    _check(lambda x: m.diagflat(x, k), lambda x: np.diagflat(x, k), [v])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool", "complex64"])
@pytest.mark.parametrize("N,increasing", [(None, False), (3, True), (1, False), (0, True)], ids=str)
def test_vander(dtype, N, increasing, rng):
    v = random_array(rng, (4,), dtype, "small_int" if dtype == "int32" else "normal")
    _check(lambda x: m.vander(x, N, increasing), lambda x: np.vander(x, N, increasing), [v], rtol=1e-6)


def test_vander_empty_and_errors(rng):
    _check(lambda x: m.vander(x), lambda x: np.vander(x), [random_array(rng, (0,), "float32")])
    with pytest.raises(ValueError, match="vander: x must be a one-dimensional"):
        m.vander(hg.tensor("x", (2, 2), "float32"))


@pytest.mark.parametrize("shape,offset,axis1,axis2", [
    ((3, 3), 0, 0, 1), ((3, 4), 1, 0, 1), ((3, 4), -2, 0, 1), ((2, 3, 4), 0, -1, 0), ((2, 3), 5, 0, 1),
    ((0, 3), 0, 0, 1),
], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int8", "bool"])
def test_trace(shape, offset, axis1, axis2, dtype, rng):
    v = random_array(rng, shape, dtype)
    _check(lambda x: m.trace(x, offset, axis1, axis2), lambda x: np.trace(x, offset, axis1, axis2), [v])


@pytest.mark.parametrize("dtype", ["float32", "int8", "int16"])
def test_trace_dtype(dtype, rng):
    v = random_array(rng, (3, 3), "int32", "full")
    _check(lambda x: m.trace(x, dtype=dtype), lambda x: np.trace(x, dtype=dtype), [v], rtol=1e-6)


# --- unwrap ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,axis,kwargs", [
    ((12,), -1, {}), ((3, 8), 0, {}), ((3, 8), 1, {"discont": 4.0}), ((2, 9), -1, {"period": 6.0}),
    ((1,), 0, {}), ((2, 0), 1, {}),
], ids=str)
def test_unwrap(dtype, shape, axis, kwargs, rng):
    v = (np.cumsum(rng.normal(size=shape) * 3, axis=axis) if 0 not in shape else np.zeros(shape)).astype(dtype)
    _check(lambda x: m.unwrap(x, axis=axis, **kwargs), lambda x: np.unwrap(x, axis=axis, **kwargs), [v],
           rtol=1e-5 if dtype == "float32" else None, atol=1e-4 if dtype == "float32" else None)


def test_unwrap_special_values(rng):
    v = np.array([0.0, 3.5, np.nan, 7.0, np.inf, 1.0, -np.inf, 2.0, 5.2, -1.0], dtype="float64")
    with np.errstate(invalid="ignore"):
        _check(lambda x: m.unwrap(x), lambda x: np.unwrap(x), [v])


@pytest.mark.parametrize("dtype,period", [("int32", 2 * np.pi), ("int8", 4), ("int32", 5)])
def test_unwrap_ints(dtype, period, rng):
    v = rng.integers(-20, 20, size=(10,)).astype(dtype)
    _check(lambda x: m.unwrap(x, period=period), lambda x: np.unwrap(x, period=period), [v])


def test_unwrap_errors():
    with pytest.raises(ValueError, match="unwrap: .*at least one dimensional"):
        m.unwrap(hg.tensor("x", (), "float32"))
    with pytest.raises(TypeError, match="unwrap: boolean"):
        m.unwrap(hg.tensor("x", (3,), "bool"))


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
    _check(lambda *xs: build(m.select, hg.greater, *xs), lambda *vs: build(np.select, np.greater, *vs), vals)


def test_select_broadcast_and_nan(rng):
    x = np.array([np.nan, np.inf, -1.0, 2.0], dtype="float32")
    c = np.array([True, False, True, False])
    _check(lambda x, c: m.select([c, ~c], [x, 1.0], default=-1.0),
           lambda x, c: np.select([c, ~c], [x, 1.0], default=-1.0), [x, c])
    s = np.array(True)
    _check(lambda s: m.select([s], [1], default=np.zeros((2, 2), "float32")),
           lambda s: np.select([s], [1], default=np.zeros((2, 2), "float32")), [s])


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
    _check(lambda a, c0, c1: m.choose(a, [c0, c1, 7], mode=mode),
           lambda a, c0, c1: np.choose(a, [c0, c1, 7], mode=mode), [a, c0, c1])


def test_choose_array_choices_and_constants(rng):
    a = rng.integers(0, 4, size=(5,)).astype("int64")
    ch = random_array(rng, (4, 5), "float64")
    _check(lambda a, ch: m.choose(a, ch), lambda a, ch: np.choose(a, ch), [a, ch])
    _check(lambda ch: m.choose([1, 0, 3, 2, 0], ch), lambda ch: np.choose([1, 0, 3, 2, 0], ch), [ch])
    _check(lambda ch: m.choose(0, [ch[0]]), lambda ch: np.choose(0, [ch[0]]), [ch])
    with pytest.raises(ValueError, match="choose: invalid entry"):
        m.choose([0, 3], [np.zeros(2), np.ones(2)])
    with pytest.raises(TypeError, match="choose: 'a' must have an integer dtype"):
        m.choose(hg.tensor("a", (2,), "float32"), [1, 2])
    with pytest.raises(ValueError, match="choose: mode"):
        m.choose([0], [1], mode="bad")


def _np_put(a, ind, v, mode="raise"):
    out = np.array(a, copy=True)
    np.put(out, ind, v, mode=mode)
    return out


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
    _check(lambda a: m.put(a, ind, v, mode), lambda a: _np_put(a, ind, v, mode), [a])


def test_put_graph_values(rng):
    a = random_array(rng, (3, 4), "float64")
    ind = rng.permutation(12)[:5].astype("int32")
    v = random_array(rng, (2,), "float32")
    _check(lambda a, i, v: m.put(a, i, v), lambda a, i, v: _np_put(a, i, v), [a, ind, v])
    _check(lambda a, i, v: m.put(a, i, v, mode="wrap"), lambda a, i, v: _np_put(a, i, v, "wrap"),
           [a, ind + 24, v])


def test_put_errors():
    x = hg.tensor("x", (2, 3), "float32")
    with pytest.raises(IndexError, match="put: index 6 is out of bounds"):
        m.put(x, [6], 1.0)
    with pytest.raises(TypeError, match="put: indices must have an integer dtype"):
        m.put(x, [0.5], 1.0)
    with pytest.raises(ValueError, match="put: mode"):
        m.put(x, [0], 1.0, mode="bad")


def test_names_are_new():
    for name in m.__all__:
        assert callable(getattr(m, name))
        assert getattr(hg, name, None) in (None, getattr(m, name))


@pytest.mark.parametrize("name,fn,ref", [
    ("hstack", lambda x: m.hstack([x, x]), lambda v: np.hstack([v, v])),
    ("vstack", lambda x: m.vstack([x, x[0]]), lambda v: np.vstack([v, v[0]])),
    ("moveaxis", lambda x: m.moveaxis(x, 0, -1), lambda v: np.moveaxis(v, 0, -1)),
    ("rot90", lambda x: m.rot90(x, -1), lambda v: np.rot90(v, -1)),
    ("ravel", lambda x: m.ravel(x, "F"), lambda v: np.ravel(v, "F")),
    ("atleast_3d", m.atleast_3d, np.atleast_3d),
    ("delete", lambda x: m.delete(x, 1, axis=1), lambda v: np.delete(v, 1, axis=1)),
    ("select", lambda x: m.select([x > 0], [x], -1.0), lambda v: np.select([v > 0], [v], -1.0)),
], ids=lambda p: p if isinstance(p, str) else "")
def test_unknown_dims(name, fn, ref, rng):
    x = hg.tensor("x", (None, 3), "float32")
    out = fn(x)
    assert out.shape[0] is None or None in out.shape
    v = random_array(rng, (2, 3), "float32")
    _, got = compare_with_perform(hg.Graph([x], out), [v])
    assert_same(got, ref(v))


def test_unknown_dims_rejected():
    x = hg.tensor("x", (None, 3), "float32")
    with pytest.raises(ValueError, match="insert: axis 0 of the input must have a known size"):
        m.insert(x, 0, 1.0, axis=1)
    with pytest.raises(ValueError, match="resize: axis 0"):
        m.resize(x, 4)
