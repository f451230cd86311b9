"""Indexing and updates at indices: compiled results against perform and against NumPy's
own x[idx] / x[idx] = v / ufunc.at."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlograph as hg
from hlograph.frontend.ops import indexing
from hlograph.frontend.ops.indexing import AdvancedIncSubtensor, AdvancedSubtensor, Subtensor
from hlograph.frontend.types import TensorType
from hlograph.tests.helpers import assert_same, compare_with_perform, random_array

ALL_DTYPES = ["bool", "int8", "uint32", "int64", "float16", "bfloat16", "float32", "float64",
              "complex64", "complex128"]


def _check(shape, dtype, idx, rng):
    """x[idx] compiled == perform == NumPy's x[idx] (dtype, shape and values)."""
    x = hg.tensor("x", shape, dtype)
    y = x[idx]
    v = random_array(rng, shape, dtype)
    expected = np.asarray(v[idx])
    assert y.shape == expected.shape and y.dtype == expected.dtype
    actual, reference = compare_with_perform(hg.Graph([x], y), [v])
    assert_same(reference, expected)
    np.testing.assert_array_equal(actual, expected)


INDICES = [
    1, -1, slice(1, 3), slice(None, None, -1), (slice(None, None, 2), 1), None, (Ellipsis, 0),
    (1, Ellipsis, None, slice(None, None, -2)), slice(-10, 10), slice(5, 1), slice(3, 1, -1),
    (slice(None), slice(None), -1), (), Ellipsis, np.int64(2), (np.newaxis, slice(None), None),
    (slice(-1, None, -3), slice(4, -6, -1), slice(None, None, 5)), (-4, -5, -3), (None, None, 0, None),
    (slice(2, None), Ellipsis), (slice(10, 20),), (slice(None, -10, -1),), np.array(3),
]


@pytest.mark.parametrize("idx", INDICES, ids=repr)
def test_getitem_indices(idx, rng):
    _check((4, 5, 3), "float32", idx, rng)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_getitem_dtypes(dtype, rng):
    x = hg.tensor("x", (4, 5), dtype)
    indices = [1, (slice(None, None, -1), slice(1, 4)), (None, -1, slice(None, None, 2)), (Ellipsis, 3),
               (slice(2, 0, -1), None)]
    v = random_array(rng, (4, 5), dtype)
    _, ref = compare_with_perform(hg.Graph([x], [x[idx] for idx in indices]), [v])
    for r, idx in zip(ref, indices):
        assert_same(r, v[idx])


@pytest.mark.parametrize("idx", [(), Ellipsis, None, (None, Ellipsis, None), (Ellipsis, None)], ids=repr)
def test_getitem_0d(idx, rng):
    _check((), "int32", idx, rng)


@pytest.mark.parametrize("shape,idx", [
    ((0,), slice(None)), ((0,), slice(None, None, -1)), ((0, 3), (slice(None), 1)), ((3, 0), 2),
    ((3, 0), (slice(1, None), None)), ((2, 3), (slice(2, None), slice(3, 0))), ((5,), slice(3, 3)),
], ids=str)
def test_getitem_empty_results(shape, idx, rng):
    _check(shape, "float64", idx, rng)


def test_getitem_unknown_dims(rng):
    x = hg.tensor("x", (None, 4), "float32")
    y, z, w = x[1:], x[::-1, 2], x[0, None]
    assert y.shape == (None, 4) and z.shape == (None,) and w.shape == (1, 4)
    g = hg.Graph([x], [y, z, w])
    fn = hg.compile(g, pipeline="O0")
    for n in (1, 6):
        v = random_array(rng, (n, 4), "float32")
        for a, e in zip(fn(v), (v[1:], v[::-1, 2], v[0, None])):
            assert_same(a, e)
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 0 with size 0"):
        g.clone([TensorType("float32", (0, 4))])


def test_getitem_normalizes_to_equal_ops():
    x = hg.tensor("x", (3, 4, 5), "float32")
    assert x[0].owner.op == x[0, ...].owner.op == x[0, :, :].owner.op == x[(0,)].owner.op
    assert x[0].owner.op != x[-3].owner.op
    assert str(x[1, ::-1, None].owner.op) == "Subtensor{idx=[1, ::-1, None, :]}"
    assert hash(x[1:2].owner.op) == hash(x[1:2].owner.op)


@pytest.mark.parametrize("shape,idx,err,match", [
    ((3,), 3, IndexError, "index 3 is out of bounds for axis 0 with size 3"),
    ((3, 4), (0, -5), IndexError, "index -5 is out of bounds for axis 1 with size 4"),
    ((3,), (0, 0), IndexError, "too many indices for array: array is 1-dimensional, but 2 were indexed"),
    ((), 0, IndexError, "too many indices"),
    ((3,), (Ellipsis, Ellipsis), IndexError, "an index can only have a single ellipsis"),
    ((3,), slice(None, None, 0), ValueError, "slice step cannot be zero"),
    ((3,), 1.0, IndexError, "only integers, slices"),
    ((3,), "a", IndexError, "only integers, slices"),
    ((3,), slice(0.5, 2), TypeError, "slice indices must be integers or None"),
    ((3,), True, NotImplementedError, "boolean indices give value-dependent shapes"),
    ((3,), (np.array([True, False, True]),), NotImplementedError, "boolean .mask. indices"),
    ((3,), np.array([0.0, 1.0]), IndexError, "arrays used as indices must be of integer type"),
    ((3,), [0, 3], IndexError, "index 3 is out of bounds for axis 0 with size 3"),
    ((3, 4), (slice(None), [-5]), IndexError, "index -5 is out of bounds for axis 1 with size 4"),
    ((3, 4), ([0, 1], [0, 1, 2]), IndexError, r"shape mismatch: .* \(2,\) \(3,\)"),
    ((3,), ([0], [0]), IndexError, "too many indices"),
])
def test_getitem_errors(shape, idx, err, match):
    x = hg.tensor("x", shape, "float32")
    with pytest.raises(err, match=match):
        x[idx]


def test_getitem_bool_mask_selects_on_the_host():
    x = hg.tensor("x", (3, 2), "float32")
    y = x[hg.tensor("m", (3,), "bool")]
    assert type(y.owner.op).__name__ == "BooleanMask" and y.shape == (None, 2)
    with pytest.raises(NotImplementedError, match="boolean .mask. indices"):
        x[hg.tensor("m", (3,), "bool"), 0]


def test_subtensor_rank_mismatch():
    with pytest.raises(ValueError, match="the index has 1 entries for input 'x' of rank 2"):
        Subtensor((0,))(hg.tensor("x", (2, 3), "float32"))


# --- random indices against NumPy ------------------------------------------------------------
@st.composite
def shapes_and_indices(draw):
    """A shape of rank 0..3 (sizes 0..5) and a basic index for it: ints in range and slices
    (random bounds and steps, None included) on leading dims, optionally an Ellipsis and
    entries for trailing dims, and new axes anywhere."""
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=3)))
    ndim = len(shape)
    bound = st.one_of(st.none(), st.integers(-7, 7))

    def entry(size):
        if size > 0 and draw(st.booleans()):
            return draw(st.integers(-size, size - 1))
        step = draw(st.one_of(st.none(), st.integers(-4, 4).filter(bool)))
        return slice(draw(bound), draw(bound), step)

    use_ellipsis = draw(st.booleans())
    n_lead = draw(st.integers(0, ndim))
    n_trail = draw(st.integers(0, ndim - n_lead)) if use_ellipsis else 0
    items = [entry(shape[i]) for i in range(n_lead)]
    items += [Ellipsis] if use_ellipsis else []
    items += [entry(shape[ndim - n_trail + j]) for j in range(n_trail)]
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    idx = items[0] if len(items) == 1 and draw(st.booleans()) else tuple(items)
    return shape, idx


@settings(max_examples=60, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(shapes_and_indices())
def test_getitem_random_indices_match_numpy(case):
    shape, idx = case
    x = hg.tensor("x", shape, "float32")
    y = x[idx]
    v = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) - 3.5
    expected = np.asarray(v[idx])
    assert y.shape == expected.shape
    actual, reference = compare_with_perform(hg.Graph([x], y), [v])
    assert_same(reference, expected)
    assert_same(actual, expected)


# --- advanced indexing ---------------------------------------------------------------------
ADVANCED = [
    [0, 2, -1, 2], np.array([[1, 0], [3, -4]]), ([0, 1], [1, 2]), ([[0], [3]], [0, 1, -1]),
    (slice(None), [4, 0, 0]), (Ellipsis, [1, 2]), (1, slice(None), [0, 2]), ([1], slice(1, 4), 2),
    ([0, 1], None, [2, 2]), (slice(None), [0, 1], None, [2, 2]), (None, [3, 0], slice(None, None, -1), 1),
    (slice(None, None, -2), [[2]], np.int64(-1)), ([], slice(None)), (np.array([2], np.uint8),),
    (slice(2, 0, -1), None, [1, 0], [1, 1]), (slice(1, None, 2), [0], None), np.array(1), ([[[1]]], 0, 0),
]


def _check_advanced(shape, dtype, idx, rng):
    x = hg.tensor("x", shape, dtype)
    y = x[idx]
    v = random_array(rng, shape, dtype)
    expected = np.asarray(v[idx])
    assert y.shape == expected.shape and y.dtype == expected.dtype
    actual, reference = compare_with_perform(hg.Graph([x], y), [v])
    assert_same(reference, expected)
    assert_same(actual, expected)


@pytest.mark.parametrize("idx", ADVANCED, ids=repr)
def test_getitem_advanced(idx, rng):
    _check_advanced((4, 5, 3), "float32", idx, rng)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "bfloat16", "float64", "complex64"])
def test_getitem_advanced_dtypes(dtype, rng):
    _check_advanced((4, 5), dtype, (slice(None), [[4, 0], [-1, 2]]), rng)


@pytest.mark.parametrize("shape,idx", [
    ((0, 3), ([], slice(None))), ((3, 0), ([1, 2], slice(None))), ((3, 4), ([[]], 0)),
    ((3, 0, 2), ([0], slice(None), [1])), ((2,), (None, [0, 0], None)),
], ids=str)
def test_getitem_advanced_empty_and_0d(shape, idx, rng):
    _check_advanced(shape, "float32", idx, rng)


@pytest.mark.parametrize("index_dtype", ["int8", "int32", "uint16", "int64"])
def test_getitem_graph_indices(index_dtype, rng):
    """Index arrays that are graph inputs, broadcast together, negative ones wrapped."""
    x = hg.tensor("x", (5, 4, 3), "float64")
    i = hg.tensor("i", (2, 1), index_dtype)
    j = hg.tensor("j", (3,), index_dtype)
    k = hg.scalar("k", index_dtype)
    outs = [x[i, :, j], x[:, i, j], x[k], x[i], x[..., k]]
    xv = random_array(rng, (5, 4, 3), "float64")
    lo = 0 if index_dtype.startswith("u") else -3
    iv = rng.integers(lo, 3, size=(2, 1)).astype(index_dtype)
    jv = rng.integers(lo, 3, size=(3,)).astype(index_dtype)
    kv = np.asarray(-2 if lo else 2, index_dtype)
    _, ref = compare_with_perform(hg.Graph([x, i, j, k], outs), [xv, iv, jv, kv])
    for r, e in zip(ref, (xv[iv, :, jv], xv[:, iv, jv], xv[kv], xv[iv], xv[..., kv])):
        assert_same(r, e)


def test_getitem_advanced_out_of_range_clamps_on_device(rng):
    x = hg.tensor("x", (4,), "float32")
    i = hg.tensor("i", (3,), "int32")
    g = hg.Graph([x, i], x[i])
    xv = random_array(rng, (4,), "float32")
    iv = np.array([7, -9, 1], np.int32)
    with pytest.raises(IndexError):
        hg.evaluate(g, xv, iv)
    assert_same(hg.compile(g)(xv, iv), xv[[3, 0, 1]])


def test_getitem_advanced_unknown_dims(rng):
    x = hg.tensor("x", (None, 4), "float32")
    i = hg.tensor("i", (None,), "int64")
    y = x[i, 1:]
    assert y.shape == (None, 3)
    fn = hg.compile(hg.Graph([x, i], y), pipeline="O0")
    for n in (2, 5):
        xv = random_array(rng, (n, 4), "float32")
        iv = rng.integers(-n, n, size=(n + 1,))
        assert_same(fn(xv, iv), xv[iv, 1:])


def test_advanced_subtensor_ops():
    x = hg.tensor("x", (3, 4), "float32")
    assert str(x[[0], 1:].owner.op) == "AdvancedSubtensor{idx=[array, 1:]}"
    assert x[[0], 1:].owner.op == x[[2, 1], 1:].owner.op
    assert x[0, [1]].owner.op == x[[0], [1]].owner.op != x[[0], :].owner.op
    with pytest.raises(TypeError, match="index array 0 .for axis 1. must have an integer dtype"):
        AdvancedSubtensor((indexing._FULL, indexing.ARRAY))(x, hg.tensor("f", (2,), "float32"))
    with pytest.raises(ValueError, match="expected 1 index arrays, got 0"):
        AdvancedSubtensor((indexing._FULL, indexing.ARRAY))(x)


@settings(max_examples=40, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_getitem_random_advanced_indices_match_numpy(data):
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    ndim = len(shape)
    index_shape = tuple(data.draw(st.lists(st.integers(0, 3), min_size=0, max_size=2)))
    items: list = []
    for d in shape:
        kind = data.draw(st.sampled_from(["array", "slice", "int"]))
        if kind == "array" or (d == shape[-1] and not any(isinstance(i, np.ndarray) for i in items)):
            sub = index_shape[data.draw(st.integers(0, len(index_shape))):]
            items.append(np.asarray(data.draw(st.lists(st.integers(-d, d - 1), min_size=int(np.prod(sub)),
                                                       max_size=int(np.prod(sub))))).reshape(sub).astype(np.int64))
        elif kind == "int":
            items.append(data.draw(st.integers(-d, d - 1)))
        else:
            items.append(slice(data.draw(st.integers(-5, 5)), None, data.draw(st.sampled_from([1, 2, -1]))))
    for _ in range(data.draw(st.integers(0, 2))):
        items.insert(data.draw(st.integers(0, len(items))), None)
    idx = tuple(items)
    x = hg.tensor("x", shape, "float32")
    y = x[idx]
    v = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) - 3.5
    expected = np.asarray(v[idx])
    assert y.shape == expected.shape
    actual, reference = compare_with_perform(hg.Graph([x], y), [v])
    assert_same(reference, expected)
    assert_same(actual, expected)
    assert ndim == x.ndim


# --- updates at indices --------------------------------------------------------------------
UFUNCS = {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}


def _expected_update(xv, idx, vv, mode):
    out = xv.copy()
    if mode == "set":
        out[idx] = vv
    else:
        with np.errstate(invalid="ignore"):
            UFUNCS[mode].at(out, idx, np.broadcast_to(vv, out[idx].shape))
    return out


def _check_update(shape, dtype, idx, mode, rng, v_shape=None):
    x = hg.tensor("x", shape, dtype)
    xv = random_array(rng, shape, dtype)
    target = np.asarray(xv[idx]).shape
    v_shape = target if v_shape is None else v_shape
    v = hg.tensor("v", v_shape, dtype)
    vv = random_array(rng, v_shape, dtype)
    y = getattr(hg.at(x)[idx], mode)(v)
    assert y.type == x.type
    actual, reference = compare_with_perform(hg.Graph([x, v], y), [xv, vv])
    assert_same(reference, _expected_update(xv, idx, vv, mode))


UPDATE_INDICES = [
    1, (slice(None), [0, 2, 2, 2]), ([0, 0, 3, -4], slice(1, None, 2)), (slice(None, None, -1), None, [[1], [4]]),
    ([1, 2], Ellipsis, [0, -1]), (2, slice(None), [0, 0]), (Ellipsis,), (slice(3, 0, -2), slice(1, 4)),
    ([[0, 1]], [2], 1), (),
]


@pytest.mark.parametrize("idx", UPDATE_INDICES, ids=repr)
@pytest.mark.parametrize("mode", ["add", "max"])
def test_update_modes_indices(idx, mode, rng):
    _check_update((4, 5, 3), "float32", idx, mode, rng)


@pytest.mark.parametrize("idx", [(slice(None), [0, 2, 4]), ([3, -1, 0], 1), (slice(1, None, 2),)], ids=repr)
@pytest.mark.parametrize("mode", ["set", "multiply", "min"])
def test_update_modes_unique_indices(idx, mode, rng):
    _check_update((4, 5), "float64", idx, mode, rng)


@pytest.mark.parametrize("dtype,mode", [
    ("bool", "add"), ("bool", "multiply"), ("bool", "set"), ("int8", "add"), ("uint32", "max"),
    ("int64", "min"), ("float16", "add"), ("bfloat16", "set"), ("complex64", "add"), ("complex128", "multiply"),
])
def test_update_dtypes(dtype, mode, rng):
    _check_update((4, 3), dtype, ([1, 1, 0], slice(None)), mode, rng)


@pytest.mark.parametrize("mode", ["add", "set"])
def test_update_broadcasts_value(mode, rng):
    _check_update((4, 5), "float32", (slice(None), [1, 1, 3]), mode, rng, v_shape=(3,))
    _check_update((4, 5), "float32", ([0, 2],), mode, rng, v_shape=())


def test_update_nan_and_python_scalars(rng):
    x = hg.tensor("x", (5,), "float32")
    xv = np.array([1.0, np.nan, 3.0, -np.inf, 5.0], np.float32)
    outs = [hg.at(x)[[0, 1, 3]].max(2.0), hg.at(x)[[1, 2, 2]].add(np.inf), hg.at(x)[1:4].min(np.nan),
            hg.at(x)[-1].set(7)]
    _, ref = compare_with_perform(hg.Graph([x], outs), [xv])
    assert all(r.dtype == np.float32 for r in ref)
    assert_same(ref[0], _expected_update(xv, [0, 1, 3], np.float32(2), "max"))
    assert_same(ref[3], _expected_update(xv, -1, np.float32(7), "set"))


@pytest.mark.parametrize("shape,idx", [((0, 3), (slice(None), [0, 1])), ((3, 4), ([], slice(None))),
                                       ((), ()), ((), None), ((3, 0), [2, 0])], ids=str)
def test_update_empty_and_0d(shape, idx, rng):
    _check_update(shape, "float32", idx, "add", rng)


def test_update_graph_indices_and_out_of_range(rng):
    x = hg.tensor("x", (5, 2), "float32")
    i = hg.tensor("i", (4,), "int32")
    v = hg.tensor("v", (4, 2), "float32")
    g = hg.Graph([x, i, v], hg.at(x)[i].add(v))
    xv, vv = random_array(rng, (5, 2), "float32"), random_array(rng, (4, 2), "float32")
    iv = np.array([-1, 4, 0, -5], np.int32)
    compare_with_perform(g, [xv, iv, vv])
    bad = np.array([5, 1, -6, 2], np.int32)
    with pytest.raises(IndexError):
        hg.evaluate(g, xv, bad, vv)
    # on a device the updates out of range are dropped
    assert_same(hg.compile(g)(xv, bad, vv), _expected_update(xv, [1, 2], vv[[1, 3]], "add"))


def test_set_and_inc_subtensor(rng):
    x = hg.tensor("x", (4, 5), "float32")
    v = hg.tensor("v", (2,), "float32")
    xv, vv = random_array(rng, (4, 5), "float32"), random_array(rng, (2,), "float32")
    outs = [hg.set_subtensor(x[1, 1:4:2], v), hg.inc_subtensor(x[[0, 0], -1], v),
            hg.set_subtensor(x[None, 2, ::-3], v)]
    assert outs[0].owner.op == AdvancedIncSubtensor((indexing.ARRAY, (1, 4, 2)), "set")
    _, ref = compare_with_perform(hg.Graph([x, v], outs), [xv, vv])
    assert_same(ref[0], _expected_update(xv, (1, slice(1, 4, 2)), vv, "set"))
    assert_same(ref[1], _expected_update(xv, ([0, 0], -1), vv, "add"))
    assert_same(ref[2], _expected_update(xv, (None, 2, slice(None, None, -3)), vv, "set"))


@pytest.mark.parametrize("build,err,match", [
    (lambda x: hg.set_subtensor(x, 1.0), TypeError, "must be an indexing result x.idx."),
    (lambda x: hg.at(x)[[0, 1]].set(np.zeros(3, np.float32)), ValueError, r"shape \(3,\) does not broadcast"),
    (lambda x: hg.at(x)[[0, 9]].add(1.0), IndexError, "index 9 is out of bounds"),
    (lambda x: hg.at(hg.astype(x, "complex64"))[0].max(1.0), TypeError, "complex inputs have no maximum"),
    (lambda x: AdvancedIncSubtensor((0,), "sub"), ValueError, "mode must be one of"),
    (lambda x: AdvancedIncSubtensor((indexing.ARRAY, indexing._FULL))(x, hg.constant(1.0), hg.constant(0)),
     TypeError, "input 'v' must have the dtype of 'x'"),
])
def test_update_errors(build, err, match):
    x = hg.tensor("x", (3, 4), "float32")
    with pytest.raises(err, match=match):
        build(x)


# --- take, take_along_axis, put_along_axis, one_hot, unravel/ravel, searchsorted -----------
@pytest.mark.parametrize("shape,indices,axis,mode", [
    ((4, 5), [[0, -1], [3, 3]], 1, None), ((4, 5), [7, -9, 2], None, "wrap"), ((4, 5), [6, -1], 0, "clip"),
    ((3,), 2, 0, None), ((2, 0), [], -1, None), ((4, 5, 2), np.array([1, 0], np.uint8), -2, "raise"),
], ids=str)
def test_take(shape, indices, axis, mode, rng):
    x = hg.tensor("x", shape, "float32")
    xv = random_array(rng, shape, "float32")
    _, ref = compare_with_perform(hg.Graph([x], hg.take(x, indices, axis=axis, mode=mode)), [xv])
    assert_same(ref, np.take(xv, indices, axis=axis, mode=mode or "raise"))


@pytest.mark.parametrize("indices,axis,mode", [(-1, -1, None), ([0, 0], 0, None), ([3, -2], 0, "wrap"),
                                               ([5], -1, "clip")], ids=str)
def test_take_of_0d_input_along_axis_0_or_minus_1(indices, axis, mode):
    # NumPy takes a 0-d input as 1-d when an axis is given (axis 1 is out of bounds)
    x = hg.tensor("x", (), "int64")
    xv = np.array(-7, np.int64)
    _, ref = compare_with_perform(hg.Graph([x], hg.take(x, indices, axis=axis, mode=mode)), [xv])
    assert_same(ref, np.take(xv, indices, axis=axis, mode=mode or "raise"))
    with pytest.raises(ValueError, match="out of bounds"):
        hg.take(x, [0], axis=1)


@pytest.mark.parametrize("shape,ishape,axis", [
    ((3, 4), (3, 2), 1), ((3, 4), (5, 4), 0), ((3, 1, 2), (3, 4, 2), 1), ((6,), (3,), None), ((2, 3), (2, 3), -1),
    ((0, 3), (0, 2), 1),
], ids=str)
def test_take_and_put_along_axis(shape, ishape, axis, rng):
    arr = hg.tensor("arr", shape, "float64")
    ind = hg.tensor("ind", ishape, "int32")
    size = shape[axis] if axis is not None else int(np.prod(shape))
    av = random_array(rng, shape, "float64")
    iv = rng.integers(-size, size, size=ishape).astype(np.int32) if size else np.zeros(ishape, np.int32)
    taken = hg.take_along_axis(arr, ind, axis)
    outs = [taken]
    expected = [np.take_along_axis(av, iv, axis)]
    if axis is not None:
        # put with unique indices (the written element is unspecified for duplicates)
        uiv = np.argsort(rng.random(shape), axis=axis)[tuple(slice(0, n) for n in ishape)].astype(np.int32)
        uind = hg.constant(uiv)
        values = random_array(rng, np.take_along_axis(av, uiv, axis).shape, "float64")
        outs.append(hg.put_along_axis(arr, uind, values, axis))
        e = av.copy()
        np.put_along_axis(e, uiv, values, axis)
        expected.append(e)
    _, ref = compare_with_perform(hg.Graph([arr, ind], outs), [av, iv])
    for r, e in zip(ref, expected):
        assert_same(r, e)


def test_put_along_axis_flat_and_broadcast_values(rng):
    arr = hg.tensor("arr", (3, 4), "int16")
    av = random_array(rng, (3, 4), "int16")
    outs = [hg.put_along_axis(arr, [1, 7, -1], 9, None), hg.put_along_axis(arr, [[0], [2], [1]], [5], 1)]
    _, ref = compare_with_perform(hg.Graph([arr], outs), [av])
    e0, e1 = av.copy(), av.copy()
    np.put_along_axis(e0, np.array([1, 7, -1]), 9, None)
    np.put_along_axis(e1, np.array([[0], [2], [1]]), np.array([5]), 1)
    assert_same(ref[0], e0)
    assert_same(ref[1], e1)


@pytest.mark.parametrize("dtype,axis", [("float64", -1), ("int8", 0), ("bool", 1)])
def test_one_hot(dtype, axis, rng):
    i = hg.tensor("i", (2, 3), "int32")
    iv = np.array([[0, 3, -1], [4, 2, 3]], np.int32)
    _, ref = compare_with_perform(hg.Graph([i], hg.one_hot(i, 4, dtype, axis=axis)), [iv])
    expected = np.moveaxis((iv[..., None] == np.arange(4)).astype(dtype), -1, axis)
    assert_same(ref, expected)


def test_unravel_and_ravel_multi_index(rng):
    i = hg.tensor("i", (5,), "int32")
    iv = rng.integers(0, 24, size=5).astype(np.int32)
    coords = hg.unravel_index(i, (2, 3, 4))
    flat = hg.ravel_multi_index(coords, (2, 3, 4))
    wrapped = hg.ravel_multi_index((i, i), (4, 5), mode="wrap")
    clipped = hg.ravel_multi_index((i, [0, 1, 2, 9, -3]), (4, 5), mode="clip")
    _, ref = compare_with_perform(hg.Graph([i], [*coords, flat, wrapped, clipped]), [iv])
    for r, e in zip(ref[:3], np.unravel_index(iv, (2, 3, 4))):
        assert_same(r, e.astype(np.int64))
    assert_same(ref[3], iv.astype(np.int64))
    assert_same(ref[4], np.ravel_multi_index((iv, iv), (4, 5), mode="wrap").astype(np.int64))
    assert_same(ref[5], np.ravel_multi_index((iv, np.array([0, 1, 2, 9, -3])), (4, 5), mode="clip").astype(np.int64))


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "bool", "float16"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(dtype, side, rng):
    av = np.sort(random_array(rng, (7,), dtype, "small_int" if dtype[0] in "iu" else "normal"))
    vv = random_array(rng, (2, 3), dtype, "small_int" if dtype[0] in "iu" else "normal")
    if dtype.startswith("float"):
        av = np.concatenate([av[:5], [np.inf, np.nan]]).astype(dtype)
        av[1] = av[2]
        vv[0, :2] = [np.nan, av[2]]
        vv[1, 0] = -np.inf
    a, v = hg.tensor("a", (7,), dtype), hg.tensor("v", (2, 3), dtype)
    _, ref = compare_with_perform(hg.Graph([a, v], hg.searchsorted(a, v, side)), [av, vv])
    assert_same(ref, np.searchsorted(av, vv, side).astype(np.int64))


def test_searchsorted_promotes_and_empty(rng):
    a = hg.tensor("a", (0,), "int32")
    v = hg.tensor("v", (3,), "float32")
    y = hg.searchsorted(a, v)
    assert y.dtype == np.int64 and y.owner.op == hg.SearchSorted("left")
    compare_with_perform(hg.Graph([a, v], [y, hg.searchsorted(hg.constant([1.0, 2.0]), 1.5)]),
                         [np.zeros(0, np.int32), random_array(rng, (3,), "float32")])


@pytest.mark.parametrize("shape,ashape,ishape,axis", [
    ((None, 2), (3, 2), (1, 2), 1), ((None, 4, None), (3, 4, 5), (3, 2, 5), 1),
    ((None, 4, None), (3, 4, 5), (1, 2, 5), 1), ((None, None), (0, 4), (0, 2), 1),
    ((2, None), (2, 6), (3, 6), 0)], ids=str)
def test_take_and_put_along_axis_with_unknown_dims(shape, ashape, ishape, axis, rng):
    # the positions along the other dims are a run-time arange when those dims are unknown
    arr = hg.tensor("arr", shape, "float64")
    ind = hg.tensor("ind", tuple(None if d is None else n for d, n in zip(shape, ishape)), "int64")
    av = random_array(rng, ashape, "float64")
    iv = rng.integers(0, ashape[axis], size=ishape) if ashape[axis] else np.zeros(ishape, np.int64)
    g = hg.Graph([arr, ind], [hg.take_along_axis(arr, ind, axis), hg.put_along_axis(arr, ind, -7.0, axis)])
    e = av.copy()
    np.put_along_axis(e, iv, -7.0, axis)
    for got in (hg.evaluate(g, av, iv), hg.compile(g, pipeline="O0")(av, iv), hg.compile(g)(av, iv)):
        assert_same(got[0], np.take_along_axis(av, iv, axis))
        assert_same(got[1], e)


@pytest.mark.parametrize("build,err,match", [
    (lambda x: hg.take(x, [0.5]), IndexError, "must be of integer type"),
    (lambda x: hg.take(x, [0], axis=0, mode="nope"), ValueError, "mode must be 'raise', 'wrap' or 'clip'"),
    (lambda x: hg.take_along_axis(x, [0], 0), ValueError, "must have the same number of dimensions"),
    (lambda x: hg.one_hot([0], -1), ValueError, "depth must be a non-negative int"),
    (lambda x: hg.unravel_index([24], (2, 3, 4)), ValueError, "index 24 is out of bounds"),
    (lambda x: hg.ravel_multi_index(([0], [5]), (2, 5)), ValueError, "index 5 is out of bounds"),
    (lambda x: hg.searchsorted(x, 1.0), ValueError, "input 'a' must be 1-d"),
    (lambda x: hg.searchsorted([1j], 1.0), TypeError, "complex inputs are not supported"),
    (lambda x: hg.SearchSorted("middle"), ValueError, "side must be 'left' or 'right'"),
])
def test_take_family_errors(build, err, match):
    x = hg.tensor("x", (3, 4), "float32")
    with pytest.raises(err, match=match):
        build(x)
