"""Sorting and selection: compiled results against perform (NumPy's order, NaNs last)."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops import sort as so
import hlograph.lowering.rules.sort  # noqa: F401
from hlograph.tests.helpers import compare_with_perform, random_array

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int64", "uint16", "bool", "complex64"]
CASES = [((7,), -1), ((3, 5), 0), ((3, 5), -1), ((2, 3, 4), 1), ((2, 0, 3), -1), ((4, 1), 1),
         ((3, 4), None), ((), None)]


def _data(rng, shape, dtype):
    x = random_array(rng, shape, dtype, kind="small_int" if dtype not in ("bool",) else "normal")
    if np.dtype(x.dtype).kind in "fc" or dtype == "bfloat16":
        x = random_array(rng, shape, dtype)
        flat = x.reshape(-1)
        special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, 1.0]
        if dtype == "bfloat16":  # (the helper's mutation check cannot compare bfloat16 NaNs)
            special = special[1:]
        special = np.array(special).astype(x.dtype)
        n = min(flat.size, special.size)
        flat[rng.permutation(flat.size)[:n]] = special[:n]
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis", CASES, ids=str)
def test_sort_matches_perform(dtype, shape, axis, rng):
    x = hg.tensor("x", shape, dtype)
    g = hg.Graph([x], [so.sort(x, axis=axis), so.argsort(x, axis=axis)])
    compare_with_perform(g, [_data(rng, shape, dtype)])


@pytest.mark.parametrize("dtype", ["float32", "int32", "complex128", "bool"])
@pytest.mark.parametrize("shape,axis", [((9,), 0), ((3, 6), -1), ((4, 3), 0), ((2, 3), None)], ids=str)
def test_sort_descending_matches_perform(dtype, shape, axis, rng):
    x = hg.tensor("x", shape, dtype)
    g = hg.Graph([x], [so.sort(x, axis=axis, descending=True),
                       so.argsort(x, axis=axis, descending=True)])
    compare_with_perform(g, [_data(rng, shape, dtype)])


def test_sort_matches_numpy_order_with_nan_and_signed_zero():
    vals = np.array([3.0, np.nan, -0.0, -np.inf, 0.0, np.inf, -1.0, np.nan], np.float32)
    x = hg.tensor("x", vals.shape, "float32")
    out, idx = hg.compile(hg.Graph([x], [so.sort(x), so.argsort(x)]))(vals)
    np.testing.assert_array_equal(out, np.sort(vals))
    np.testing.assert_array_equal(idx, np.argsort(vals, kind="stable"))


def test_sort_bfloat16_with_nan_matches_float32_order():
    vals = np.array([np.nan, 1, np.inf, -0.0, -np.inf, 1, 0, np.nan, -2], np.float32)
    x = hg.tensor("x", vals.shape, "bfloat16")
    g = hg.Graph([x], [so.sort(x), so.argsort(x), *so.top_k(x, 4)])
    bf = vals.astype(x.dtype)
    expected = [np.sort(vals), np.argsort(vals, kind="stable")]
    top = (vals.size - 1 - np.argsort(vals[::-1], kind="stable"))[::-1][:4]  # NaNs first, ties in order
    expected += [vals[top], top]
    for results in (hg.compile(g)(bf), hg.evaluate(g, bf)):
        for r, e in zip(results, expected):
            np.testing.assert_array_equal(r.astype(e.dtype), e)


def test_sort_complex_nan_order_matches_numpy():
    vals = np.array([1 + np.nan * 1j, np.nan + 0j, 1 + 2j, 1 - 1j, np.nan * (1 + 1j), -2 + 5j], np.complex128)
    x = hg.tensor("x", vals.shape, "complex128")
    (out,) = hg.compile(hg.Graph([x], [so.sort(x)]))(vals)
    np.testing.assert_array_equal(out, np.sort(vals))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_sort_complex_nan_parts_go_last_in_numpys_order(dtype, rng):
    # R + Rj, then R + nanj (by the real part), nan + Rj (by the imaginary part), nan + nanj:
    # 2 + 0j comes before 1 + nanj, whatever the real parts
    parts = np.array([2.0, 1.0, -1.0, 0.0, -0.0, np.inf, -np.inf, np.nan])
    vals = np.empty((4, 9), dtype)
    vals.real, vals.imag = rng.choice(parts, size=(4, 9)), rng.choice(parts, size=(4, 9))
    pair = np.array([complex(1, np.nan), 2 + 0j], dtype)
    vals[0, :2] = pair
    np.testing.assert_array_equal(np.sort(pair), pair[::-1])
    x = hg.tensor("x", (None, None), dtype)
    g = hg.Graph([x], [hg.sort(x, axis=-1), hg.sort(x, axis=0), hg.argsort(x, axis=-1, stable=True),
                       hg.argsort(x, axis=None, stable=True)])
    want = [np.sort(vals, axis=-1), np.sort(vals, axis=0), np.argsort(vals, axis=-1, stable=True),
            np.argsort(vals, axis=None, stable=True)]
    for got in (hg.compile(g, pipeline="O0")(vals), hg.compile(g)(vals), hg.evaluate(g, vals)):
        for r, e in zip(got, want):
            np.testing.assert_array_equal(r, e)


def test_argsort_descending_keeps_ties_in_order(rng):
    vals = rng.integers(0, 3, size=20).astype(np.int32)
    x = hg.tensor("x", vals.shape, "int32")
    (idx,) = hg.compile(hg.Graph([x], [so.argsort(x, descending=True)]))(vals)
    assert idx.dtype == np.int64
    np.testing.assert_array_equal(vals[idx], np.sort(vals)[::-1])
    for v in range(3):
        pos = idx[vals[idx] == v]
        assert np.all(np.diff(pos) > 0)


def test_sort_unstable_gives_sorted_values(rng):
    vals = rng.normal(size=(4, 6)).astype(np.float32)
    x = hg.tensor("x", vals.shape, "float32")
    (out,) = hg.compile(hg.Graph([x], [so.sort(x, axis=0, stable=False)]))(vals)
    np.testing.assert_array_equal(out, np.sort(vals, axis=0))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "uint8"])
@pytest.mark.parametrize("shape,k", [((8,), 3), ((3, 5), 5), ((2, 3, 4), 1), ((4, 6), 0), ((0, 3), 2)],
                         ids=str)
def test_top_k_matches_perform(dtype, shape, k, rng):
    x = hg.tensor("x", shape, dtype)
    g = hg.Graph([x], list(so.top_k(x, k)))
    compare_with_perform(g, [_data(rng, shape, dtype)])


def test_top_k_values_are_the_largest(rng):
    vals = rng.normal(size=(3, 10))
    x = hg.tensor("x", vals.shape, "float64")
    values, idx = hg.compile(hg.Graph([x], list(so.top_k(x, 4))))(vals)
    np.testing.assert_array_equal(values, -np.sort(-vals, axis=-1)[:, :4])
    np.testing.assert_array_equal(np.take_along_axis(vals, idx, -1), values)


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("shape,kth,axis", [((9,), 4, -1), ((4, 6), (1, 3), 1), ((5, 3), -1, 0),
                                            ((2, 3), 2, None)], ids=str)
def test_partition_matches_perform_and_numpy(dtype, shape, kth, axis, rng):
    vals = _data(rng, shape, dtype)
    x = hg.tensor("x", shape, dtype)
    g = hg.Graph([x], [so.partition(x, kth, axis), so.argpartition(x, kth, axis)])
    (part, idx), _ = compare_with_perform(g, [vals])
    ref = np.partition(vals, kth, axis=axis)
    flat = vals.reshape(-1) if axis is None else vals
    ax = -1 if axis is None else axis
    kths = np.atleast_1d(kth)
    np.testing.assert_array_equal(np.take(part, kths, ax), np.take(ref, kths, ax))
    np.testing.assert_array_equal(np.take_along_axis(flat, idx, ax), part)


def test_sort_accepts_numpy_kind_and_stable():
    x = hg.tensor("x", (4,), "float32")
    assert so.sort(x, 0, "quicksort").owner.op.stable
    assert not so.sort(x, stable=False).owner.op.stable
    assert so.argsort(x, -1, "heapsort", stable=False).owner.op.stable


def test_sort_normalizes_negative_axis():
    x = hg.tensor("x", (2, 3), "float32")
    assert so.sort(x, axis=-1).owner.op == so.Sort(1)
    assert so.argsort(x, axis=-2).owner.op.axis == 0


def test_sort_with_unknown_dims_infers_shape():
    x = hg.tensor("x", (None, 3), "float32")
    assert so.sort(x, axis=None).type.shape == (None,)
    assert so.argsort(x).type == hg.TensorType("int64", (None, 3))
    values, idx = so.top_k(x, 2)
    assert values.type.shape == (None, 2) and idx.dtype == np.int64


def test_sort_errors():
    x = hg.tensor("x", (2, 3), "float32")
    with pytest.raises(ValueError, match=r"Sort\{axis=2.*out of bounds"):
        so.sort(x, axis=2)
    with pytest.raises(TypeError, match="axis must be None or an int"):
        so.sort(x, axis=(0, 1))
    with pytest.raises(ValueError, match="cannot sort a 0-d input"):
        so.sort(hg.tensor("s", (), "float32"))
    with pytest.raises(ValueError, match=r"TopK\{k=4\}: k=4 is larger than the last dimension \(3\)"):
        so.top_k(x, 4)
    with pytest.raises(TypeError, match="k must be a non-negative int"):
        so.top_k(x, -1)
    with pytest.raises(ValueError, match="kind must be one of None, 'quicksort'"):
        so.sort(x, kind="bogo")
    with pytest.raises(ValueError, match="kth 3 is out of bounds"):
        so.partition(x, 3)


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_argsort_of_0d_input_is_numpys(axis):
    # numpy.argsort flattens a 0-d input whatever the axis
    x = hg.tensor("x", (), "float32")
    graph = hg.Graph([x], hg.argsort(x, axis=axis, stable=True))
    for p in ("O0", "O2"):
        np.testing.assert_array_equal(hg.compile(graph, pipeline=p)(np.float32(2.5)),
                                      np.argsort(np.float32(2.5), axis=axis))
    np.testing.assert_array_equal(hg.evaluate(graph, np.float32(2.5)), [0])


def test_subnormals_flush_to_zero_when_sorted():
    # documented (README, "NumPy semantics: the documented differences"): compiled
    # sorts see subnormals as zero, so a stable argsort keeps their order
    tiny = np.finfo(np.float64).smallest_subnormal
    v = np.array([tiny, -tiny])
    x = hg.tensor("x", (2,), "float64")
    graph = hg.Graph([x], hg.argsort(x, stable=True))
    np.testing.assert_array_equal(hg.evaluate(graph, v), np.argsort(v, stable=True))
    np.testing.assert_array_equal(np.argsort(v, stable=True), [1, 0])
    for p in ("O0", "O2"):
        np.testing.assert_array_equal(hg.compile(graph, pipeline=p)(v), [0, 1])
