"""Shape and construction ops: compiled results against perform (NumPy), shape
inference with unknown dims, and NumPy's errors."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.types import as_dtype
from hlograph.tests.helpers import compare_with_perform, random_array

ALL_DTYPES = ["bool", "int8", "uint16", "int32", "int64", "uint64", "float16", "bfloat16",
              "float32", "float64", "complex64", "complex128"]
SOME_DTYPES = ["bool", "int32", "uint8", "bfloat16", "float32", "complex128"]


def _run(inputs, outputs, values):
    """Compares the compiled graph with perform; returns (compiled, reference)."""
    return compare_with_perform(hg.Graph(inputs, outputs), values)


def _assert_exact(actual, expected):
    """Bit-for-bit equality (values, NaN, signed zeros) on top of compare_with_perform."""
    np.testing.assert_array_equal(actual, expected)
    if np.asarray(expected).dtype.kind in "fc" or expected.dtype == as_dtype("bfloat16"):
        np.testing.assert_array_equal(np.signbit(np.real(actual).astype(np.float64)),
                                      np.signbit(np.real(expected).astype(np.float64)))


# --- reshape ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape,new", [((), (1, 1)), ((6,), (2, 3)), ((2, 3, 4), (4, -1)),
                                       ((0, 3), (3, 0)), ((0, 3), (-1, 3)), ((1, 1), ()),
                                       ((2, 3), (-1,))], ids=str)
def test_reshape_matches_perform(dtype, shape, new, rng):
    x = hg.tensor("x", shape, dtype)
    y = hg.reshape(x, new)
    assert y.shape == np.empty(shape).reshape(new).shape
    _run([x], y, [random_array(rng, shape, dtype)])


def test_reshape_method_and_int_shape(rng):
    x = hg.tensor("x", (2, 6), "float32")
    outs = [x.reshape(3, 4), x.reshape((4, 3)), x.reshape([-1]), hg.reshape(x, 12), x.reshape(2, -1, 2)]
    assert [o.shape for o in outs] == [(3, 4), (4, 3), (12,), (12,), (2, 3, 2)]
    _run([x], outs, [random_array(rng, (2, 6), "float32")])


def test_reshape_unknown_dims_specialize(rng):
    x = hg.tensor("x", (None, 4), "int32")
    y, z = x.reshape(-1), x.reshape(-1, 2, 2)
    assert y.shape == (None,) and z.shape == (None, 2, 2)
    assert x.reshape(2, 2, 2).shape == (2, 2, 2)
    fn = hg.compile(hg.Graph([x], [y, z]), pipeline="O0")
    for n in (0, 3):
        v = random_array(rng, (n, 4), "int32")
        a, b = fn(v)
        np.testing.assert_array_equal(a, v.reshape(-1))
        np.testing.assert_array_equal(b, v.reshape(-1, 2, 2))
    _run([x], [y, z], [random_array(rng, (5, 4), "int32")])


@pytest.mark.parametrize("shape,new,match", [
    ((6,), (4,), r"cannot reshape input 'x' of shape \(6,\) into shape \(4,\)"),
    ((6,), (4, -1), "cannot reshape"),
    ((0, 3), (-1, 0), "cannot reshape"),
    ((6,), (-1, -1), "only specify one unknown dimension"),
    ((6,), (-2, 3), "negative dimensions are not allowed"),
    ((None, 4), (3,), "cannot reshape"),
])
def test_reshape_errors(shape, new, match):
    x = hg.tensor("x", shape, "float32")
    with pytest.raises(ValueError, match=match):
        hg.reshape(x, new)


def test_reshape_shape_type_errors():
    x = hg.tensor("x", (6,), "float32")
    with pytest.raises(TypeError, match="shape entries must be ints"):
        hg.reshape(x, (2.0, 3))
    with pytest.raises(TypeError, match="must be static"):
        hg.reshape(x, hg.tensor("s", (2,), "int64"))


def test_reshape_specialization_rechecks_sizes():
    x = hg.tensor("x", (None, 4), "float32")
    g = hg.Graph([x], x.reshape(2, 4))
    with pytest.raises(ValueError, match=r"cannot reshape input 'x' of shape \(3, 4\)"):
        g.clone([hg.frontend.types.TensorType("float32", (3, 4))])


# --- transpose --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_transpose_matches_perform(dtype, rng):
    x = hg.tensor("x", (2, 3, 4), dtype)
    outs = [hg.transpose(x), hg.transpose(x, (1, -1, 0)), x.T, x.transpose(0, 2, 1), x.transpose((2, 0, 1))]
    assert [o.shape for o in outs] == [(4, 3, 2), (3, 4, 2), (4, 3, 2), (2, 4, 3), (4, 2, 3)]
    _run([x], outs, [random_array(rng, (2, 3, 4), dtype)])


@pytest.mark.parametrize("shape", [(), (5,), (0, 3), (3, 1, 0)], ids=str)
def test_transpose_edge_shapes(shape, rng):
    x = hg.tensor("x", shape, "float64")
    _run([x], [x.T, hg.transpose(x, tuple(range(len(shape)))[::-1])], [random_array(rng, shape, "float64")])


def test_transpose_unknown_dims():
    x = hg.tensor("x", (None, 3, 2), "float32")
    assert hg.transpose(x, (2, 0, 1)).shape == (2, None, 3)


@pytest.mark.parametrize("axes,err,match", [
    ((0,), ValueError, r"axes \(0,\) don't match input of rank 2"),
    ((0, 0), ValueError, "repeated axis"),
    ((0, 2), ValueError, "axis 2 is out of bounds"),
    ((0, 1.0), TypeError, "axis must be an int"),
])
def test_transpose_errors(axes, err, match):
    with pytest.raises(err, match=match):
        hg.transpose(hg.tensor("x", (2, 3), "float32"), axes)


# --- broadcast_to -----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", SOME_DTYPES)
@pytest.mark.parametrize("shape,target", [((), (2, 3)), ((3,), (2, 3)), ((1, 3), (4, 3)), ((2, 1), (2, 5)),
                                          ((0, 1), (2, 0, 4)), ((3,), (3,))], ids=str)
def test_broadcast_to_matches_perform(dtype, shape, target, rng):
    x = hg.tensor("x", shape, dtype)
    y = hg.broadcast_to(x, target)
    assert y.shape == target
    _run([x], y, [random_array(rng, shape, dtype)])


@pytest.mark.parametrize("shape,target", [((3,), (4,)), ((2, 3), (3,)), ((2,), (2, 3)), ((None, 2), (4, 3))],
                         ids=str)
def test_broadcast_to_errors(shape, target):
    with pytest.raises(ValueError, match="cannot be broadcast to"):
        hg.broadcast_to(hg.tensor("x", shape, "float32"), target)


def test_broadcast_to_unknown_dim_checked_on_specialization(rng):
    x = hg.tensor("x", (None, 1), "float32")
    y = hg.broadcast_to(x, (3, 4))
    fn = hg.compile(hg.Graph([x], y), pipeline="O0")
    v = random_array(rng, (3, 1), "float32")
    np.testing.assert_array_equal(fn(v), np.broadcast_to(v, (3, 4)))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        fn(random_array(rng, (2, 1), "float32"))


# --- expand_dims / squeeze --------------------------------------------------------------
@pytest.mark.parametrize("dtype", SOME_DTYPES)
@pytest.mark.parametrize("shape,axis", [((), 0), ((), (0, -1)), ((3,), -1), ((2, 3), 1), ((2, 0), (0, 2, -1)),
                                        ((2, 3), (-1, -4))], ids=str)
def test_expand_dims_matches_perform(dtype, shape, axis, rng):
    x = hg.tensor("x", shape, dtype)
    y = hg.expand_dims(x, axis)
    assert y.shape == np.expand_dims(np.empty(shape), axis).shape
    _run([x], y, [random_array(rng, shape, dtype)])


@pytest.mark.parametrize("dtype", SOME_DTYPES)
@pytest.mark.parametrize("shape,axis", [((1,), None), ((1, 3, 1), None), ((1, 3, 1), -1), ((1, 0, 1), (0, 2)),
                                        ((2, 3), None), ((1, 1), (-2,))], ids=str)
def test_squeeze_matches_perform(dtype, shape, axis, rng):
    x = hg.tensor("x", shape, dtype)
    y = hg.squeeze(x, axis)
    assert y.shape == np.squeeze(np.empty(shape), axis).shape
    _run([x], y, [random_array(rng, shape, dtype)])


def test_expand_dims_and_squeeze_unknown_dims(rng):
    x = hg.tensor("x", (None, 1, None), "float32")
    assert hg.expand_dims(x, (0, 2)).shape == (1, None, 1, 1, None)
    y = hg.squeeze(x, 1)
    assert y.shape == (None, None)
    z = hg.squeeze(hg.tensor("u", (None, 3), "float32"), 0)
    assert z.shape == (3,)
    v = random_array(rng, (2, 1, 4), "float32")
    _run([x], [y, hg.expand_dims(x, -1)], [v])


@pytest.mark.parametrize("fn,shape,axis,match", [
    (hg.expand_dims, (2, 3), (0, 0), "repeated axis"),
    (hg.expand_dims, (2, 3), 3, "axis 3 is out of bounds for an array of dimension 3"),
    (hg.squeeze, (2, 3), 0, r"cannot squeeze axis 0 of input 'x' of shape \(2, 3\): its size is 2"),
    (hg.squeeze, (1, 3), 2, "axis 2 is out of bounds"),
    (hg.squeeze, (None, 1), None, "axis=None needs known dims"),
])
def test_expand_dims_squeeze_errors(fn, shape, axis, match):
    with pytest.raises(ValueError, match=match):
        fn(hg.tensor("x", shape, "float32"), axis)


def test_squeeze_unknown_dim_checked_on_specialization(rng):
    x = hg.tensor("x", (None, 3), "float32")
    fn = hg.compile(hg.Graph([x], hg.squeeze(x, 0)), pipeline="O0")
    v = random_array(rng, (1, 3), "float32")
    np.testing.assert_array_equal(fn(v), v[0])
    with pytest.raises(ValueError, match="cannot squeeze axis 0"):
        fn(random_array(rng, (2, 3), "float32"))


# --- concatenate / stack ----------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_concatenate_matches_perform(dtype, rng):
    a, b, c = (hg.tensor(n, s, dtype) for n, s in (("a", (2, 3)), ("b", (2, 1)), ("c", (2, 0))))
    outs = [hg.concatenate([a, b, c], axis=1), hg.concatenate([a, b], axis=-1),
            hg.concatenate([a, a], axis=0), hg.concatenate([a, b], axis=None), hg.concatenate((a,))]
    assert [o.shape for o in outs] == [(2, 4), (2, 4), (4, 3), (8,), (2, 3)]
    _run([a, b, c], outs, [random_array(rng, s, dtype) for s in ((2, 3), (2, 1), (2, 0))])


@pytest.mark.parametrize("dtypes,expected", [
    (("int8", "float32"), "float32"), (("uint8", "int8"), "int16"), (("bool", "int32"), "int32"),
    (("float16", "bfloat16"), "float32"), (("int64", "complex64"), "complex128"),
], ids=str)
def test_concatenate_promotes(dtypes, expected, rng):
    xs = [hg.tensor(f"x{i}", (3,), d) for i, d in enumerate(dtypes)]
    y = hg.concatenate(xs)
    assert y.dtype == as_dtype(expected)
    _run(xs, y, [random_array(rng, (3,), d) for d in dtypes])


def test_concatenate_constants_and_python_values(rng):
    x = hg.tensor("x", (2,), "int8")
    y = hg.concatenate([x, [1, 2]])  # a list is an int64 array, as in NumPy
    assert y.dtype == np.int64 and y.shape == (4,)
    z = hg.concatenate([x, 5], axis=None)
    assert z.dtype == np.int64 and z.shape == (3,)
    _run([x], [y, z], [random_array(rng, (2,), "int8")])


def test_concatenate_unknown_dims():
    a = hg.tensor("a", (None, 3), "float32")
    b = hg.tensor("b", (2, None), "float32")
    assert hg.concatenate([a, b]).shape == (None, 3)
    assert hg.concatenate([b, b]).shape == (4, None)
    assert hg.concatenate([a, b], axis=1).shape == (2, None)


@pytest.mark.parametrize("shapes,axis,err,match", [
    ([(2,), ()], 0, ValueError, "all inputs must have the same rank"),
    ([(), ()], 0, ValueError, "zero-dimensional arrays cannot be concatenated"),
    ([(2, 3), (3, 3)], 1, ValueError, "along dim 0 input 0 has size 2 and input 1 has size 3"),
    ([(2, 3)], 2, ValueError, "axis 2 is out of bounds"),
    ([], 0, ValueError, "need at least one array"),
])
def test_concatenate_errors(shapes, axis, err, match):
    xs = [hg.tensor(f"x{i}", s, "float32") for i, s in enumerate(shapes)]
    with pytest.raises(err, match=match):
        hg.concatenate(xs, axis)


def test_concatenate_needs_a_sequence():
    with pytest.raises(TypeError, match="expected a list or tuple of arrays"):
        hg.concatenate(hg.tensor("x", (2, 3), "float32"))


@pytest.mark.parametrize("dtype", SOME_DTYPES)
@pytest.mark.parametrize("shape,axis", [((), 0), ((3,), 0), ((3,), -1), ((2, 0), 1), ((2, 3), -2)], ids=str)
def test_stack_matches_perform(dtype, shape, axis, rng):
    xs = [hg.tensor(f"x{i}", shape, dtype) for i in range(3)]
    y = hg.stack(xs, axis)
    assert y.shape == np.stack([np.empty(shape)] * 3, axis).shape
    _run(xs, y, [random_array(rng, shape, dtype) for _ in xs])


def test_stack_promotes_and_errors(rng):
    a, b = hg.tensor("a", (2,), "int16"), hg.tensor("b", (2,), "uint16")
    y = hg.stack([a, b], axis=1)
    assert y.dtype == np.int32 and y.shape == (2, 2)
    _run([a, b], y, [random_array(rng, (2,), "int16"), random_array(rng, (2,), "uint16")])
    with pytest.raises(ValueError, match=r"same shape, but input 0 has shape \(2,\) and input 1 has \(3,\)"):
        hg.stack([a, hg.tensor("c", (3,), "int16")])
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        hg.stack([a, b], axis=2)
    with pytest.raises(ValueError, match="need at least one array"):
        hg.stack([])


# --- zeros / ones / full ----------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_zeros_ones_full_dtypes(dtype):
    outs = [hg.zeros((2, 3), dtype), hg.ones(4, dtype), hg.full((3,), 1, dtype), hg.zeros((), dtype),
            hg.ones((0, 2), dtype)]
    _, ref = _run([], outs, [])
    assert ref[0].dtype == as_dtype(dtype)


def test_zeros_ones_default_float64():
    assert hg.zeros(3).dtype == np.float64 and hg.ones((2, 2)).dtype == np.float64


@pytest.mark.parametrize("value", [3, 3.5, True, 1 + 2j, np.float32(1.5), np.int8(-3), np.array(7, np.uint16),
                                   float("nan"), -float("inf"), -0.0], ids=repr)
def test_full_default_dtype_is_numpys(value):
    y = hg.full((2, 3), value)
    assert y.dtype == np.full((2, 3), value).dtype
    actual, expected = _run([], y, [])
    _assert_exact(actual, expected)
    _assert_exact(expected, np.full((2, 3), value))


@pytest.mark.parametrize("value,dtype", [(2.7, "int32"), (-1.5, "float16"), (300, "float16"), (0.1, "bfloat16"),
                                         (1j, "complex64"), (2, "bool")], ids=str)
def test_full_casts_value_as_numpy(value, dtype):
    actual, expected = _run([], hg.full(4, value, dtype), [])
    _assert_exact(expected, np.full(4, value, as_dtype(dtype)))
    _assert_exact(actual, expected)


def test_full_array_and_graph_fill_values(rng):
    s = hg.scalar("s", "float32")
    row = hg.tensor("row", (3,), "int16")
    outs = [hg.full((2, 3), s), hg.full((2, 3), s, "float64"), hg.full((2, 3), row),
            hg.full((2, 3), [1, 2, 3]), hg.full((2, 2), [[1.5], [2.5]], "float32")]
    assert [o.dtype for o in outs] == [np.float32, np.float64, np.int16, np.int64, np.float32]
    _run([s, row], outs, [np.float32(-2.5), random_array(rng, (3,), "int16")])


def test_full_errors():
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        hg.full(3, -1, "uint8")
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        hg.zeros((2, -1))
    with pytest.raises(TypeError, match="unsupported dtype"):
        hg.full(3, "a")
    with pytest.raises(ValueError, match="cannot be broadcast"):
        hg.full((2, 3), [1, 2])


@pytest.mark.parametrize("dtype", SOME_DTYPES)
def test_like_builders_match_perform(dtype, rng):
    x = hg.tensor("x", (2, 3), dtype)
    s = hg.scalar("s", "float64")
    outs = [hg.zeros_like(x), hg.ones_like(x), hg.full_like(x, 2), hg.full_like(x, [1, 0, 1]),
            hg.full_like(x, s), hg.zeros_like(x, "float16")]
    assert all(o.dtype == as_dtype(dtype) and o.shape == (2, 3) for o in outs[:-1])
    assert outs[-1].dtype == np.float16
    _run([x, s], outs, [random_array(rng, (2, 3), dtype), np.float64(1.25)])


def test_like_builders_numpy_casts(rng):
    x = hg.tensor("x", (3,), "int8")
    s = hg.scalar("s", "float64")
    outs = [hg.full_like(x, 2.7), hg.full_like(x, -1.5, "float32"), hg.ones_like(x, "bool"),
            hg.full_like(x, s), hg.zeros_like([1.0, 2.0]), hg.full_like(x, [1, 2, 3])]
    assert [o.dtype for o in outs] == [np.int8, np.float32, np.bool_, np.int8, np.float64, np.int8]
    _, ref = _run([x, s], outs, [random_array(rng, (3,), "int8"), np.float64(-3.7)])
    np.testing.assert_array_equal(ref[0], np.full_like(np.zeros(3, np.int8), 2.7))
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        hg.full_like(hg.tensor("u", (2,), "uint8"), -1)


def test_like_builders_unknown_dims(rng):
    x = hg.tensor("x", (None, 3), "float32")
    s = hg.scalar("s", "int32")
    outs = [hg.zeros_like(x), hg.ones_like(x, "int8"), hg.full_like(x, np.nan), hg.full_like(x, s),
            hg.full_like(x, [1.0, 2.0, 3.0])]
    assert all(o.shape == (None, 3) for o in outs)
    for n in (0, 4):
        _run([x, s], outs, [random_array(rng, (n, 3), "float32"), np.int32(5)])


# --- arange -----------------------------------------------------------------------------
ARANGE_CASES = [
    (5,), (0,), (-3,), (1,), (2,), (3, 9), (9, 3), (0, 10, 3), (10, 0, -3), (5.0,), (0.5, 3), (0, 1, 0.1),
    (1, 0, -0.1), (-2.5, 2.5, 0.7), (0.1, 1e4, 0.1), (1e3, -1e3, -1.3), (0, 5, np.float32(0.5)),
    (np.float32(0.5), 4), (True, 5), (2 ** 62, 2 ** 62 + 3), (0, 5, float("inf")), (-0.0, 3.0, 0.5),
    (0, 1e-300, 1e-301), (1 + 2j, 10, 0.5 - 0.25j), (0, 5 + 1j), (1j,),
]


@pytest.mark.parametrize("args", ARANGE_CASES, ids=repr)
def test_arange_default_dtype_matches_numpy(args):
    y = hg.arange(*args)
    ref = np.arange(*args)
    assert y.dtype == ref.dtype and y.shape == ref.shape
    actual, expected = _run([], y, [])
    _assert_exact(actual, expected)
    _assert_exact(expected, ref)


ARANGE_DTYPE_CASES = [
    ((0, 300), "int8"), ((5, 0, -1), "uint8"), ((0, 70000, 3), "uint16"), ((-5, 5, 2), "int16"),
    ((3, -10, -4), "int64"), ((0, 2 ** 40, 2 ** 33), "uint64"),
    ((0.1, 2.0, 0.3), "float32"), ((0.1, 1e4, 0.1), "float32"), ((-3.3, 1e4, 0.7), "float32"),
    ((1e6, 1e6 + 3e4, 1.1), "float32"), ((2.0 ** 24 - 5, 2.0 ** 24 + 40, 3), "float32"),
    ((1e-45, 1e-42, 7e-45), "float32"), ((0, 3.4e38, 1.1e38), "float32"), ((0, 5e38, 2e38), "float32"),
    ((0.1, 1e4, 0.1), "float64"), ((1e300, 1e308, 1e306), "float64"), ((-7.0, 7.0, 1 / 3), "float64"),
    ((-3, 1e4, 0.7), "float16"), ((0, 65504, 1), "float16"), ((1000, 1001, 0.1), "float16"),
    ((0, 3000, 0.7), "bfloat16"), ((-1, 1, 0.01), "bfloat16"),
    ((0, 1000, 0.3), "complex64"), ((1 + 1j, 50 + 30j, 0.1 + 0.05j), "complex64"), ((0.5, 7.5, 0.3), "complex128"),
    ((0, 2), "bool"), ((1,), "bool"), ((0, 5, 2), "float64"),
    # element 0 or 1 differs from the fill formula and is patched in
    ((-0.0, -3.0, -0.3), "float32"), ((0.0, -3.0, -0.3), "float64"), ((-0.0, -3.0, -0.3), "bfloat16"),
    ((-0.0, 3 + 2j, 0.3 + 0.1j), "complex64"), ((1.0, -2.5, 2 ** -30 - 1.0), "float32"),
]


@pytest.mark.parametrize("args,dtype", ARANGE_DTYPE_CASES, ids=repr)
def test_arange_values_are_numpys(args, dtype):
    """Bit-for-bit np.arange: element i >= 2 is x0 + i * (x1 - x0) rounded as NumPy rounds it."""
    y = hg.arange(*args, dtype=dtype)
    with np.errstate(all="ignore"):
        ref = np.arange(*args, dtype=as_dtype(dtype))
    assert y.shape == ref.shape
    with np.errstate(all="ignore"):
        actual, expected = _run([], y, [])
    _assert_exact(actual, expected)


def test_arange_negative_zero_start():
    """x[0] is -0.0, stored as NumPy stores it (the fill formula would give +0.0).

    Compared unoptimized: XLA's simplifier replaces a constant that compares equal to an
    iota, as [-0.0, 1.0, 2.0] does, with an iota, so a constant-folded form loses the sign.
    """
    g = hg.Graph([], hg.arange(-0.0, 3.0))
    actual, expected = compare_with_perform(g, [], pipeline="O0")
    _assert_exact(actual, expected)
    _assert_exact(expected, np.arange(-0.0, 3.0))


def test_arange_long_float64_inexact_step():
    """A long float64 range whose step needs all 53 bits: the exact-product path."""
    actual, expected = _run([], hg.arange(-1.0, 1e5 - 1, 1 + 2 ** -52 * 3), [])
    _assert_exact(actual, expected)


@pytest.mark.parametrize("args,kwargs,err,match", [
    ((0, 5, 0), {}, ValueError, "step must not be zero"),
    ((0, float("nan")), {}, ValueError, "cannot compute length"),
    ((float("inf"),), {}, ValueError, "maximum allowed size exceeded"),
    ((3,), {"dtype": "bool"}, TypeError, "booleans are only supported when the result has at most length 2"),
    ((127, 130), {"dtype": "int8"}, OverflowError, "out of bounds for int8"),
    ((np.array([1, 2]),), {}, TypeError, "must be a scalar"),
    (("5",), {}, TypeError, "must be a number"),
])
def test_arange_errors(args, kwargs, err, match):
    with pytest.raises(err, match=match):
        hg.arange(*args, **kwargs)


def test_arange_with_graph_bounds_runs_on_the_host():
    y = hg.arange(0, hg.scalar("n", "int64"))
    assert type(y.owner.op).__name__ == "DynamicArange" and y.shape == (None,)
    with pytest.raises(TypeError, match="arange: stop must be a number, got str"):
        hg.arange(0, "ten")


# --- eye --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_eye_dtypes(dtype):
    outs = [hg.eye(3, dtype=dtype), hg.eye(2, 4, 1, dtype), hg.eye(4, 2, -1, dtype)]
    _, ref = _run([], outs, [])
    _assert_exact(ref[1], np.eye(2, 4, 1, dtype=as_dtype(dtype)))


@pytest.mark.parametrize("args", [(0,), (1,), (3, 5, 2), (5, 3, -2), (3, 3, 3), (3, 3, -3), (2, 0), (0, 3, 1),
                                  (4, None, -3), (3, 4, 2 ** 62)], ids=repr)
def test_eye_shapes_and_diagonals(args):
    y = hg.eye(*args)
    ref = np.eye(*args)
    assert y.shape == ref.shape and y.dtype == ref.dtype
    actual, expected = _run([], y, [])
    _assert_exact(actual, ref)


def test_eye_errors():
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        hg.eye(-1)
    with pytest.raises(TypeError):
        hg.eye(3, k=1.5)


def test_empty_and_alloc():
    x = hg.tensor("x", (3,), "float32")
    outs = [hg.empty((2, 3), "int32"), hg.empty_like(x), hg.alloc(x, 2, 3), hg.alloc(1.5, 4)]
    assert [o.type for o in outs[:2]] == [hg.TensorType("int32", (2, 3)), x.type]
    g = hg.Graph([x], outs)
    v = np.array([1, 2, 3], np.float32)
    got = hg.compile(g)(v)
    for a, b in zip(got, hg.evaluate(g, v)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(got[2], np.broadcast_to(v, (2, 3)))
    np.testing.assert_array_equal(got[3], np.full(4, 1.5))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        hg.alloc(x, 2, 4)
