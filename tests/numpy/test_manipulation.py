"""Array manipulation (frontend/numpy/manipulation.py): compiled results against perform,
and perform against NumPy."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import manipulation as m
from hlograph.tests.helpers import check_against_numpy, check_graph_against_numpy, random_array


def _arrays(rng, specs, kind="normal"):
    return [random_array(rng, shape, dt, kind) for shape, dt in specs]


# --- rank padding and stacking ---------------------------------------------------------------
@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
@pytest.mark.parametrize("shapes", [[()], [(3,)], [(2, 3)], [(0, 2, 1, 2)], [(), (2,), (2, 3)]], ids=str)
def test_atleast(name, shapes, rng):
    vals = _arrays(rng, [(s, "float32") for s in shapes])
    check_against_numpy(getattr(m, name), vals, getattr(np, name))


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
    check_against_numpy(lambda *xs: getattr(m, name)(list(xs)), vals, lambda *vs: getattr(np, name)(list(vs)))


@pytest.mark.parametrize("name", ["vstack", "hstack"])
def test_stack_dtype(name, rng):
    vals = _arrays(rng, [((2, 2), "int32"), ((2, 2), "int8")])
    check_against_numpy(lambda *xs: getattr(m, name)(xs, dtype="float32"), vals,
                        lambda *vs: getattr(np, name)(vs, dtype="float32"))
    with pytest.raises(TypeError, match=name):
        getattr(m, name)([hg.tensor("x", (2,), "float32")], dtype="int32")


def test_stack_mixed_ranks(rng):
    a, b = random_array(rng, (2, 3), "float32"), random_array(rng, (3,), "float32")
    check_against_numpy(lambda x, y: m.vstack([x, y]), [a, b], lambda x, y: np.vstack([x, y]))
    check_against_numpy(lambda x, y: m.hstack([y, 1.5, x[0]]), [a, b], lambda x, y: np.hstack([y, 1.5, x[0]]))
    check_against_numpy(lambda x, y: m.column_stack([x.T, y]), [a, b], lambda x, y: np.column_stack([x.T, y]))


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
    check_against_numpy(lambda *xs: m.block(build(*xs)), [a, b, c, d], lambda *vs: np.block(build(*vs)))


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
    check_against_numpy(lambda x, y: m.concat([x, y], axis=-2), [a, b], lambda x, y: np.concat([x, y], axis=-2),
                        rtol=1e-6, atol=0)
    check_against_numpy(lambda x, y: m.row_stack([x, y]), [a, b], lambda x, y: np.vstack([x, y]), rtol=1e-6, atol=0)
    c = rng.normal(size=(2, 3, 5))
    check_against_numpy(m.matrix_transpose, [c], np.matrix_transpose)
    check_against_numpy(lambda x: m.unstack(x, axis=-1), [c], lambda x: np.unstack(x, axis=-1))
    check_against_numpy(lambda x: m.unstack(x), [np.zeros((3, 0))], np.unstack)
    with pytest.raises(ValueError, match="unstack: axis 0 .* unknown size"):
        m.unstack(hg.tensor("x", (None, 2), "float32"))


# --- splitting --------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,arg,axis", [
    ((6, 4), 3, 0), ((6, 4), [1, 3], 1), ((5,), [2, 2, 9], 0), ((2, 4), 2, -1), ((0, 3), 2, 0), ((4,), [], 0),
], ids=str)
def test_split(shape, arg, axis, rng):
    v = random_array(rng, shape, "float32")
    check_against_numpy(lambda x: m.split(x, arg, axis), [v], np.split(v, arg, axis))


@pytest.mark.parametrize("shape,arg,axis", [((7, 2), 3, 0), ((5,), 5, 0), ((3, 4), 8, 1), ((6,), [4, 1], 0)], ids=str)
def test_array_split(shape, arg, axis, rng):
    v = random_array(rng, shape, "int32")
    check_against_numpy(lambda x: m.array_split(x, arg, axis), [v], np.array_split(v, arg, axis))


@pytest.mark.parametrize("name,shape,arg", [
    ("hsplit", (4,), 2), ("hsplit", (2, 6, 1), [1, 4]), ("vsplit", (4, 3), 2), ("vsplit", (0, 2), [0]),
    ("dsplit", (2, 1, 6), 3),
], ids=str)
def test_hsplit_vsplit_dsplit(name, shape, arg, rng):
    v = random_array(rng, shape, "int32")
    check_against_numpy(lambda x: getattr(m, name)(x, arg), [v], lambda x: getattr(np, name)(x, arg))


@pytest.mark.parametrize("name,ndim", [("hsplit", 0), ("vsplit", 1), ("dsplit", 2)])
def test_split_rank_errors(name, ndim):
    with pytest.raises(ValueError, match=name):
        getattr(m, name)(hg.tensor("x", (2,) * ndim, "float32"), 1)


# --- axis moves, flips and rolls -------------------------------------------------------------
@pytest.mark.parametrize("src,dst", [(0, -1), (-1, 0), ((0, 1), (-1, -2)), ((2, 0), (0, 3)), ((), ())], ids=str)
def test_moveaxis(src, dst, rng):
    v = random_array(rng, (2, 3, 4, 1), "float32")
    check_against_numpy(lambda x: m.moveaxis(x, src, dst), [v], lambda x: np.moveaxis(x, src, dst))


@pytest.mark.parametrize("axis,start", [(2, 0), (0, 3), (-1, 1), (1, -2), (1, 1), (0, 1)], ids=str)
def test_rollaxis(axis, start, rng):
    v = random_array(rng, (2, 3, 4), "bool")
    check_against_numpy(lambda x: m.rollaxis(x, axis, start), [v], lambda x: np.rollaxis(x, axis, start))


@pytest.mark.parametrize("shape,a1,a2", [((2, 3), 0, 1), ((2, 3, 4), -1, 0), ((0, 3), 1, 1)], ids=str)
def test_swapaxes(shape, a1, a2, rng):
    v = random_array(rng, shape, "int32")
    check_against_numpy(lambda x: m.swapaxes(x, a1, a2), [v], lambda x: np.swapaxes(x, a1, a2))


@pytest.mark.parametrize("axes", [None, (1, 2, 0), (-1, 0, 1)], ids=str)
def test_permute_dims(axes, rng):
    v = random_array(rng, (2, 3, 4), "float64")
    check_against_numpy(lambda x: m.permute_dims(x, axes), [v], lambda x: np.permute_dims(x, axes))


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
    check_against_numpy(lambda x: m.ravel(x, order), [v], lambda x: np.ravel(x, order))


@pytest.mark.parametrize("shape,k,axes", [
    ((2, 3), 1, (0, 1)), ((2, 3), 2, (0, 1)), ((2, 3), -1, (0, 1)), ((2, 3), 4, (0, 1)),
    ((2, 3, 4), 1, (2, 0)), ((2, 3, 4), 3, (-1, 1)), ((0, 3), 1, (0, 1)),
], ids=str)
def test_rot90(shape, k, axes, rng):
    v = random_array(rng, shape, "float32")
    check_against_numpy(lambda x: m.rot90(x, k, axes), [v], lambda x: np.rot90(x, k, axes))


@pytest.mark.parametrize("name,shape", [("fliplr", (2, 3)), ("fliplr", (2, 3, 2)), ("flipud", (3,)),
                                        ("flipud", (3, 0))], ids=str)
def test_flips(name, shape, rng):
    v = random_array(rng, shape, "int32")
    check_against_numpy(getattr(m, name), [v], getattr(np, name))


def test_flip_errors():
    with pytest.raises(ValueError, match="fliplr"):
        m.fliplr(hg.tensor("x", (3,), "float32"))
    with pytest.raises(ValueError, match="flipud"):
        m.flipud(hg.tensor("x", (), "float32"))
    with pytest.raises(ValueError, match="rot90: axes must be different"):
        m.rot90(hg.tensor("x", (2, 2), "float32"), 1, (1, -1))


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)], ids=str)
def test_flip(axis, rng):
    v = random_array(rng, (2, 3, 4), "uint8")
    check_against_numpy(lambda x: m.flip(x, axis), [v], np.flip(v, axis))


@pytest.mark.parametrize("shift,axis", [
    (1, None), (-2, 0), (7, 1), ((1, 2), (0, 1)), ((1, -1), (1, 1)), (0, 0),
], ids=str)
def test_roll(shift, axis, rng):
    v = random_array(rng, (3, 4), "float32")
    check_against_numpy(lambda x: m.roll(x, shift, axis), [v], np.roll(v, shift, axis))


def test_roll_empty(rng):
    v = random_array(rng, (0, 3), "float32")
    check_against_numpy(lambda x: [m.roll(x, 2, 0), m.roll(x, 1)], [v], [np.roll(v, 2, 0), np.roll(v, 1)])


# --- tiling ---------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,reps", [
    ((2, 3), (2, 1)), ((3,), (2, 2)), ((2, 1, 2), 3), ((), (2, 0)), ((0, 2), 2),
], ids=str)
def test_tile(shape, reps, rng):
    v = random_array(rng, shape, "complex64")
    check_against_numpy(lambda x: m.tile(x, reps), [v], np.tile(v, reps))


@pytest.mark.parametrize("shape,repeats,axis", [
    ((2, 3), 2, 1), ((2, 3), [1, 0, 3], -1), ((2, 3), 3, None), ((3,), [2], 0), ((2, 2), [0, 2, 1, 1], None),
    ((0, 2), 2, 0), ((), 3, None),
], ids=str)
def test_repeat(shape, repeats, axis, rng):
    v = random_array(rng, shape, "bool")
    check_against_numpy(lambda x: m.repeat(x, repeats, axis), [v], np.repeat(v, repeats, axis))


@pytest.mark.parametrize("repeats,axis", [(2, 0), (0, -1), ([3], -1)], ids=str)
def test_repeat_of_0d_input_along_axis_0_or_minus_1(repeats, axis):
    # NumPy takes a 0-d input as 1-d when an axis is given (axis 1 is out of bounds)
    v = np.array(-2.5)
    check_against_numpy(lambda x: m.repeat(x, repeats, axis), [v], np.repeat(v, repeats, axis))
    with pytest.raises(ValueError, match="out of bounds"):
        m.repeat(hg.tensor("x", (), "float64"), 2, axis=1)


# --- append, insert, delete, resize ---------------------------------------------------------
@pytest.mark.parametrize("a_spec,v_spec,axis", [
    (((2, 3), "float32"), ((2,), "int32"), None),
    (((2, 3), "float32"), ((2, 1), "float32"), -1),
    (((), "int32"), ((), "int8"), None),
    (((0, 2), "bool"), ((3, 2), "bool"), 0),
], ids=str)
def test_append(a_spec, v_spec, axis, rng):
    vals = _arrays(rng, [a_spec, v_spec])
    check_against_numpy(lambda a, v: m.append(a, v, axis), vals, lambda a, v: np.append(a, v, axis))


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
    check_against_numpy(lambda x: m.insert(x, obj, values, axis), [v], lambda x: np.insert(x, obj, values, axis))


def test_insert_many_positions(rng):
    v = random_array(rng, (3, 20), "float32")
    obj = list(range(0, 20, 1)) + [20]
    check_against_numpy(lambda x: m.insert(x, obj, -1.0, axis=1), [v], lambda x: np.insert(x, obj, -1.0, axis=1))


def test_insert_variable_values(rng):
    vals = [random_array(rng, (3, 2), "float64"), random_array(rng, (2,), "int32")]
    check_against_numpy(lambda x, v: m.insert(x, [0, 2], v, axis=0), vals, lambda x, v: np.insert(x, [0, 2], v, axis=0))
    check_against_numpy(lambda x, v: m.insert(x, 1, v, axis=1), vals[:1] + [vals[1][:1]],
                        lambda x, v: np.insert(x, 1, v, axis=1))


@pytest.mark.parametrize("shape,obj,axis", [
    ((2, 4), 1, 1), ((2, 4), [0, 3], -1), ((2, 4), slice(1, None, 2), 1), ((2, 4), -1, None),
    ((5,), [True, False, True, True, False], 0), ((5,), [], 0), ((3, 2), slice(None), 0), ((6,), [1, 2, 3], 0),
    ((2, 40), slice(None, None, 2), 1),
], ids=str)
@pytest.mark.parametrize("dtype", ["float64", "bool"])
def test_delete(shape, obj, axis, dtype, rng):
    v = random_array(rng, shape, dtype)
    check_against_numpy(lambda x: m.delete(x, obj, axis), [v], lambda x: np.delete(x, obj, axis))


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
    check_against_numpy(lambda x: m.resize(x, new_shape), [v], lambda x: np.resize(x, new_shape))


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
    check_against_numpy(m.broadcast_arrays, vals, np.broadcast_arrays)
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
    check_graph_against_numpy(hg.Graph([x], out), [v], ref(v))


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


# --- concat's dtype and casting --------------------------------------------------------------
@pytest.mark.parametrize("dtype,casting", [("float64", "same_kind"), ("int16", "unsafe"), ("complex64", "same_kind"),
                                           (None, "safe"), ("float32", "same_kind")])
@pytest.mark.parametrize("axis", [0, -1, None])
@pytest.mark.parametrize("fn", ["concat", "concatenate"])
def test_concat_dtype_and_casting(fn, dtype, casting, axis, rng):
    a, b = random_array(rng, (2, 3), "float32"), random_array(rng, (2, 3), "int8")
    e = random_array(rng, (0, 3) if axis == 0 else (2, 0), "int8")
    ours = getattr(hg, fn)
    check_against_numpy(lambda x, y, z: ours([x, z, y], axis=axis, dtype=dtype, casting=casting), [a, b, e],
                        np.concat([a, e, b], axis=axis, dtype=dtype, casting=casting))
    check_against_numpy(lambda x: np.concatenate((x, [[1, 2, 3]] if axis == 0 else [[1], [2]]), axis,
                                                 dtype=dtype, casting=casting), [a],
                        np.concatenate((a, [[1, 2, 3]] if axis == 0 else [[1], [2]]), axis, dtype=dtype,
                                       casting=casting))


@pytest.mark.parametrize("dtype,casting", [("float64", "same_kind"), ("int8", "unsafe"), (None, "no")])
@pytest.mark.parametrize("axis", [0, -1])
def test_stack_dtype_and_casting(dtype, casting, axis, rng):
    for shape in [(2, 3), (0,), ()]:
        a, b = random_array(rng, shape, "float32"), random_array(rng, shape, "float32")
        check_against_numpy(lambda x, y: np.stack([x, y], axis, dtype=dtype, casting=casting), [a, b],
                            np.stack([a, b], axis, dtype=dtype, casting=casting))
    with pytest.raises(TypeError, match="cannot cast input 0 from float32 to int8 according to the rule 'safe'"):
        hg.stack([hg.tensor("x", (2,), "float32")], dtype="int8", casting="safe")


def test_concat_casting_errors():
    x, y = hg.tensor("x", (2,), "float64"), hg.tensor("y", (2,), "float32")
    with pytest.raises(TypeError, match="cannot cast input 0 from float64 to int32 according to the rule 'same_kind'"):
        m.concat([x, y], dtype="int32")
    with pytest.raises(TypeError, match="cannot cast input 1 from float32 to float64 according to the rule 'no'"):
        np.concat([x, y], casting="no")
    with pytest.raises(ValueError, match="casting must be one of"):
        m.concat([x, y], casting="bogus")


@pytest.mark.parametrize("shape,window,axis", [((10,), 3, None), ((4, 6), (2, 3), None), ((4, 6), 2, 1),
                                               ((4, 6), (2, 2), (0, 0)), ((3, 4, 5), (2, 1), (-1, 0)),
                                               ((5,), 5, None), ((5,), 0, None)], ids=str)
def test_sliding_window_view(shape, window, axis, rng):
    # numpy.lib.stride_tricks.sliding_window_view: a view in NumPy, a gather here
    from numpy.lib.stride_tricks import sliding_window_view
    x = random_array(rng, shape, "float32")
    check_against_numpy(lambda v: m.sliding_window_view(v, window, axis=axis), [x],
                        lambda v: sliding_window_view(v, window, axis=axis))
    g = hg.trace_numpy(lambda v: sliding_window_view(v, window, axis=axis).sum(axis=-1), x)
    np.testing.assert_allclose(hg.compile(g)(x), sliding_window_view(x, window, axis=axis).sum(axis=-1),
                               rtol=1e-5, atol=1e-6)


def test_sliding_window_view_errors():
    x = hg.tensor("x", (4, 5), "float32")
    with pytest.raises(ValueError, match="cannot be larger"):
        m.sliding_window_view(x, 6, axis=1)
    with pytest.raises(ValueError, match="window_shape for all dimensions"):
        m.sliding_window_view(x, 2)
    with pytest.raises(TypeError, match="writeable=True"):
        m.sliding_window_view(x, 2, axis=0, writeable=True)
