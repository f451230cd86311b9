"""Dynamic slices and their updates: compiled results against perform and against
jax.lax.dynamic_slice / dynamic_update_slice, starts clamped into range (StableHLO's
semantics: jax's ``allow_negative_indices=False``, negative starts are not counted
from the end)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops.indexing import DynamicSlice, DynamicUpdateSlice
from hlograph.tests.helpers import assert_same, compare_with_perform, random_array, special_values

ALL_DTYPES = ["bool", "int8", "uint32", "int64", "float16", "bfloat16", "float32", "float64",
              "complex64", "complex128"]

#: start pairs for a (4, 5) operand: in range, at the edges, negative, past the end
STARTS_2D = [(0, 0), (1, 2), (2, 2), (3, 4), (-1, -7), (9, 1), (-100, 100), (2, -1)]


def _jax(fn, *args):
    with jax.enable_x64(True):
        return np.asarray(fn(*(jnp.asarray(a) for a in args)))


def _slice_graph(shape, dtype, sizes, index_dtype="int32"):
    x = hg.tensor("x", shape, dtype)
    starts = [hg.tensor(f"s{d}", (), index_dtype) for d in range(len(shape))]
    return hg.Graph([x, *starts], hg.dynamic_slice(x, starts, sizes))


def _update_graph(shape, update_shape, dtype, index_dtype="int32"):
    x = hg.tensor("x", shape, dtype)
    u = hg.tensor("u", update_shape, dtype)
    starts = [hg.tensor(f"s{d}", (), index_dtype) for d in range(len(shape))]
    return hg.Graph([x, u, *starts], hg.dynamic_update_slice(x, u, starts))


def _check_slice(fn, x, starts, sizes, index_dtype):
    """compiled == perform == jax.lax.dynamic_slice."""
    s = [np.asarray(v, index_dtype) for v in starts]
    actual, reference = compare_with_perform(fn.graph, [x, *s], compiled=fn)
    expected = _jax(lambda x, *s: jax.lax.dynamic_slice(x, s, sizes, allow_negative_indices=False), x, *s)
    assert_same(reference, expected)
    assert_same(actual, expected)


def _check_update(fn, x, u, starts, index_dtype):
    """compiled == perform == jax.lax.dynamic_update_slice."""
    s = [np.asarray(v, index_dtype) for v in starts]
    actual, reference = compare_with_perform(fn.graph, [x, u, *s], compiled=fn)
    expected = _jax(lambda x, u, *s: jax.lax.dynamic_update_slice(x, u, s, allow_negative_indices=False), x, u, *s)
    assert_same(reference, expected)
    assert_same(actual, expected)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_dynamic_slice_over_dtypes_with_clamped_starts(dtype, rng):
    fn = hg.compile(_slice_graph((4, 5), dtype, (2, 3)))
    x = random_array(rng, (4, 5), dtype)
    for starts in STARTS_2D:
        _check_slice(fn, x, starts, (2, 3), "int32")


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_dynamic_update_slice_over_dtypes_with_clamped_starts(dtype, rng):
    fn = hg.compile(_update_graph((4, 5), (2, 3), dtype))
    x, u = random_array(rng, (4, 5), dtype), random_array(rng, (2, 3), dtype)
    for starts in STARTS_2D:
        _check_update(fn, x, u, starts, "int32")


def test_clamping_is_stablehlo_s():
    # a negative start clamps to 0 (jax.lax's default would count it from the end)
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    fn = hg.compile(_slice_graph((4, 5), "float32", (2, 3)))
    np.testing.assert_array_equal(fn(x, np.int32(-3), np.int32(10)), x[0:2, 2:5])
    np.testing.assert_array_equal(fn(x, np.int32(3), np.int32(-1)), x[2:4, 0:3])
    up = hg.compile(_update_graph((4, 5), (2, 3), "float32"))
    expected = x.copy()
    expected[2:4, 2:5] = -1
    np.testing.assert_array_equal(up(x, np.full((2, 3), -1, np.float32), np.int32(7), np.int32(7)), expected)


@pytest.mark.parametrize("index_dtype", ["int8", "int32", "int64", "uint8", "uint32", "uint64"])
def test_start_index_dtypes(index_dtype, rng):
    info = np.iinfo(index_dtype)
    starts = [(0, 0), (1, 3), (2, 2), (info.max, info.max), (info.min, 1), (info.max, info.min)]
    x = random_array(rng, (4, 5), "float64")
    u = random_array(rng, (3, 2), "float64")
    sl = hg.compile(_slice_graph((4, 5), "float64", (3, 2), index_dtype))
    up = hg.compile(_update_graph((4, 5), (3, 2), "float64", index_dtype))
    for s in starts:
        _check_slice(sl, x, s, (3, 2), index_dtype)
        _check_update(up, x, u, s, index_dtype)


@pytest.mark.parametrize("shape, sizes", [
    ((), ()), ((0,), (0,)), ((3, 0), (2, 0)), ((4, 5), (0, 3)), ((4, 5), (4, 5)), ((2, 3, 4), (1, 3, 2)),
    ((6,), (1,)),
])
def test_shapes(shape, sizes, rng):
    x = random_array(rng, shape, "float32")
    u = random_array(rng, sizes, "float32")
    sl = hg.compile(_slice_graph(shape, "float32", sizes))
    up = hg.compile(_update_graph(shape, sizes, "float32"))
    for starts in [(0,) * len(shape), (1,) * len(shape), (-2,) * len(shape), (5,) * len(shape)]:
        _check_slice(sl, x, starts, sizes, "int32")
        _check_update(up, x, u, starts, "int32")
    assert sl.graph.outputs[0].type == hg.TensorType("float32", sizes)


def test_special_values_pass_through(rng):
    x = special_values(rng, (6, 4), "float64")
    u = special_values(rng, (2, 4), "float64")
    sl = hg.compile(_slice_graph((6, 4), "float64", (3, 4)))
    up = hg.compile(_update_graph((6, 4), (2, 4), "float64"))
    for starts in [(0, 0), (2, 0), (5, 3)]:
        _check_slice(sl, x, starts, (3, 4), "int32")
        _check_update(up, x, u, starts, "int32")


def test_python_and_mixed_start_indices(rng):
    x = hg.tensor("x", (4, 5), "float32")
    i = hg.tensor("i", (), "int32")
    j = hg.tensor("j", (), "uint64")
    # Python ints take the dtype of the graph values
    y = hg.dynamic_slice(x, [i, 2], (2, 2))
    assert [s.dtype for s in y.owner.inputs[1:]] == [np.dtype("int32")] * 2
    # Python ints alone, and mixed dtypes, are int64 (uint64 beyond int64 clamps like its max)
    assert hg.dynamic_slice(x, (1, np.int8(2)), (2, 2)).owner.inputs[2].dtype == np.int8
    assert hg.dynamic_slice(x, (1, 2), (2, 2)).owner.inputs[1].dtype == np.int64
    z = hg.dynamic_update_slice(x, hg.dynamic_slice(x, [i, j], (2, 2)), [j, 2**70])
    assert {s.dtype for s in z.owner.inputs[2:]} == {np.dtype("int64")}
    graph = hg.Graph([x, i, j], [y, z])
    v = random_array(rng, (4, 5), "float32")
    for iv, jv in [(1, 1), (-5, 2**64 - 1), (3, 2**63)]:
        _, (ry, rz) = compare_with_perform(graph, [v, np.int32(iv), np.uint64(jv)])
        np.testing.assert_array_equal(ry, v[min(max(iv, 0), 2):][:2, 2:4])
        window = v[min(max(iv, 0), 2):][:2, min(jv, 3):][:, :2]
        expected = v.copy()
        expected[min(jv, 2):][:2, 3:5] = window
        np.testing.assert_array_equal(rz, expected)


def test_lowers_to_the_stablehlo_ops():
    x = hg.tensor("x", (4, 5), "float32")
    i = hg.tensor("i", (), "int64")
    y = hg.dynamic_slice(x, [i, 1], (2, 3))
    text = hg.compile(hg.Graph([x, i], hg.dynamic_update_slice(x, y * 2, [1, i])), pipeline="O0").lower().as_text()
    assert "stablehlo.dynamic_slice" in text and "stablehlo.dynamic_update_slice" in text
    assert "gather" not in text and "scatter" not in text


def test_ops_have_props_and_names():
    assert DynamicSlice((2, 3)) == DynamicSlice([2, 3]) and DynamicSlice((2, 3)) != DynamicSlice((3, 2))
    assert str(DynamicSlice((2, 3))) == "DynamicSlice{sizes=[2, 3]}"
    assert DynamicUpdateSlice() == DynamicUpdateSlice()


def test_errors():
    x = hg.tensor("x", (4, 5), "float32")
    i = hg.tensor("i", (), "int32")
    with pytest.raises(ValueError, match=r"size 6 is larger than dim 1"):
        hg.dynamic_slice(x, [0, 0], (2, 6))
    with pytest.raises(ValueError, match="3 sizes for input 'x' of rank 2"):
        hg.dynamic_slice(x, [0, 0], (1, 1, 1))
    with pytest.raises(ValueError, match="expected 2 start indices"):
        hg.dynamic_slice(x, [0], (1, 1))
    with pytest.raises(ValueError, match="expected 2 start indices"):
        DynamicSlice((1, 1))(x, i)
    with pytest.raises(ValueError, match="sizes must be non-negative ints"):
        DynamicSlice((1, -1))
    with pytest.raises(TypeError, match="start index 1 must be a 0-d integer, got float32"):
        hg.dynamic_slice(x, [i, hg.tensor("f", (), "float32")], (1, 1))
    with pytest.raises(TypeError, match="start index 0 must be an integer, got 1.5"):
        hg.dynamic_slice(x, [1.5, 0], (1, 1))
    with pytest.raises(TypeError, match="start index 0 must be a 0-d integer, got int32\\[2\\]"):
        hg.dynamic_slice(x, [hg.tensor("v", (2,), "int32"), 0], (1, 1))
    with pytest.raises(TypeError, match="must be a sequence"):
        hg.dynamic_slice(x, i, (1, 1))
    with pytest.raises(TypeError, match="start index 0 must have an integer dtype"):
        DynamicSlice((1, 1))(x, hg.tensor("f", (), "float32"), i)
    with pytest.raises(ValueError, match="start index 1 must be 0-d"):
        DynamicSlice((1, 1))(x, i, hg.tensor("v", (2,), "int32"))
    with pytest.raises(TypeError, match="the start indices must have one dtype, got int32, int64"):
        DynamicSlice((1, 1))(x, i, hg.tensor("j", (), "int64"))
    with pytest.raises(ValueError, match="'update' must have the rank of 'x'"):
        hg.dynamic_update_slice(x, hg.tensor("u", (2,), "float32"), [0, 0])
    with pytest.raises(TypeError, match=r"'update' must have the dtype of 'x' \(float32\), got float64"):
        hg.dynamic_update_slice(x, hg.tensor("u", (2, 2), "float64"), [0, 0])
    with pytest.raises(ValueError, match="is larger than 'x'"):
        hg.dynamic_update_slice(x, hg.tensor("u", (5, 2), "float32"), [0, 0])
    with pytest.raises(ValueError, match="expected 2 start indices"):
        hg.dynamic_update_slice(x, hg.tensor("u", (2, 2), "float32"), [0, 0, 0])


def test_unknown_dims_are_checked_by_perform():
    x = hg.tensor("x", (None, 3), "float32")
    y = hg.dynamic_slice(x, [1, 0], (2, 3))
    graph = hg.Graph([x], y)
    np.testing.assert_array_equal(hg.evaluate(graph, np.ones((4, 3), np.float32)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="the sizes do not fit"):
        hg.evaluate(graph, np.ones((1, 3), np.float32))
