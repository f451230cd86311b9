"""Array manipulation (frontend/numpy/manipulation.py): compiled results against perform,
and perform against NumPy."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import manipulation as m
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


def test_concat_row_stack_matrix_transpose_unstack(rng):
    a, b = rng.normal(size=(2, 3)).astype(np.float32), rng.normal(size=(4, 3)).astype(np.float32)
    _check_allclose(lambda x, y: m.concat([x, y], axis=-2), lambda x, y: np.concat([x, y], axis=-2), [a, b])
    _check_allclose(lambda x, y: m.row_stack([x, y]), lambda x, y: np.vstack([x, y]), [a, b])
    c = rng.normal(size=(2, 3, 5))
    _check_allclose(m.matrix_transpose, np.matrix_transpose, [c])
    _check_allclose(lambda x: m.unstack(x, axis=-1), lambda x: np.unstack(x, axis=-1), [c])
    _check_allclose(lambda x: m.unstack(x), np.unstack, [np.zeros((3, 0))])
    with pytest.raises(ValueError, match="unstack: axis 0 .* unknown size"):
        m.unstack(hg.tensor("x", (None, 2), "float32"))


# --- splitting --------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,arg,axis", [
    ((6, 4), 3, 0), ((6, 4), [1, 3], 1), ((5,), [2, 2, 9], 0), ((2, 4), 2, -1), ((0, 3), 2, 0), ((4,), [], 0),
], ids=str)
def test_split(shape, arg, axis, rng):
    x, v = _input(shape, "float32", rng)
    _run([x], [v], m.split(x, arg, axis), np.split(v, arg, axis))


@pytest.mark.parametrize("shape,arg,axis", [((7, 2), 3, 0), ((5,), 5, 0), ((3, 4), 8, 1), ((6,), [4, 1], 0)], ids=str)
def test_array_split(shape, arg, axis, rng):
    x, v = _input(shape, "int32", rng)
    _run([x], [v], m.array_split(x, arg, axis), np.array_split(v, arg, axis))


@pytest.mark.parametrize("name,shape,arg", [
    ("hsplit", (4,), 2), ("hsplit", (2, 6, 1), [1, 4]), ("vsplit", (4, 3), 2), ("vsplit", (0, 2), [0]),
    ("dsplit", (2, 1, 6), 3),
], ids=str)
def test_hsplit_vsplit_dsplit(name, shape, arg, rng):
    v = random_array(rng, shape, "int32")
    _check(lambda x: getattr(m, name)(x, arg), lambda x: getattr(np, name)(x, arg), [v])


@pytest.mark.parametrize("name,ndim", [("hsplit", 0), ("vsplit", 1), ("dsplit", 2)])
def test_split_rank_errors(name, ndim):
    with pytest.raises(ValueError, match=name):
        getattr(m, name)(hg.tensor("x", (2,) * ndim, "float32"), 1)


# --- axis moves, flips and rolls -------------------------------------------------------------
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


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)], ids=str)
def test_flip(axis, rng):
    x, v = _input((2, 3, 4), "uint8", rng)
    _run([x], [v], m.flip(x, axis), np.flip(v, axis))


@pytest.mark.parametrize("shift,axis", [
    (1, None), (-2, 0), (7, 1), ((1, 2), (0, 1)), ((1, -1), (1, 1)), (0, 0),
], ids=str)
def test_roll(shift, axis, rng):
    x, v = _input((3, 4), "float32", rng)
    _run([x], [v], m.roll(x, shift, axis), np.roll(v, shift, axis))


def test_roll_empty(rng):
    x, v = _input((0, 3), "float32", rng)
    _run([x], [v], [m.roll(x, 2, 0), m.roll(x, 1)], [np.roll(v, 2, 0), np.roll(v, 1)])


# --- tiling ---------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,reps", [
    ((2, 3), (2, 1)), ((3,), (2, 2)), ((2, 1, 2), 3), ((), (2, 0)), ((0, 2), 2),
], ids=str)
def test_tile(shape, reps, rng):
    x, v = _input(shape, "complex64", rng)
    _run([x], [v], m.tile(x, reps), np.tile(v, reps))


@pytest.mark.parametrize("shape,repeats,axis", [
    ((2, 3), 2, 1), ((2, 3), [1, 0, 3], -1), ((2, 3), 3, None), ((3,), [2], 0), ((2, 2), [0, 2, 1, 1], None),
    ((0, 2), 2, 0), ((), 3, None),
], ids=str)
def test_repeat(shape, repeats, axis, rng):
    x, v = _input(shape, "bool", rng)
    _run([x], [v], m.repeat(x, repeats, axis), np.repeat(v, repeats, axis))


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
    ("select", lambda x: hg.select([x > 0], [x], -1.0), lambda v: np.select([v > 0], [v], -1.0)),
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


@pytest.mark.parametrize("build,err,match", [
    (lambda x: m.split(x, 4, 1), ValueError, "array split does not result in an equal division"),
    (lambda x: m.split(x, 0), ValueError, "number of sections must be larger than 0"),
    (lambda x: m.split(x, 1.5), TypeError, "the number of sections must be an int"),
    (lambda x: m.tile(x, (-1,)), ValueError, "reps must be non-negative"),
    (lambda x: m.repeat(x, [1, 2], 1), ValueError, "2 repeats for an axis of size 3"),
    (lambda x: m.repeat(x, -1), ValueError, "repeats must be non-negative"),
    (lambda x: m.roll(x, (1, 2, 3), (0, 1)), ValueError, "'shift' and 'axis' must broadcast"),
])
def test_errors(build, err, match):
    x = hg.tensor("x", (2, 3), "float32")
    with pytest.raises(err, match=match):
        build(x)
