"""Basic indexing: compiled results against perform and against NumPy's own x[idx]."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlograph as hg
from hlograph.frontend.ops.indexing import Subtensor
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
    ((3,), [0, 1], NotImplementedError, "advanced indexing, which is not supported yet"),
    ((3,), np.array([0, 1]), NotImplementedError, "advanced indexing"),
    ((3,), True, NotImplementedError, "boolean indices are advanced indexing"),
    ((3,), (np.array([True, False, True]),), NotImplementedError, "advanced indexing"),
])
def test_getitem_errors(shape, idx, err, match):
    x = hg.tensor("x", shape, "float32")
    with pytest.raises(err, match=match):
        x[idx]


def test_getitem_graph_index_not_supported():
    x = hg.tensor("x", (3,), "float32")
    with pytest.raises(NotImplementedError, match="indexing with a graph value is advanced indexing"):
        x[hg.scalar("i", "int64")]


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


@settings(max_examples=150, deadline=None, database=None, derandomize=True,
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
