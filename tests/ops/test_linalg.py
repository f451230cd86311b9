"""matmul, dot, tensordot (one DotGeneral Op): compiled results against perform,
perform against NumPy, dtypes, shapes (0-d, 1-D, size 0, broadcast stacks), errors."""

import ml_dtypes
import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops.linalg import DotGeneral
from hlograph.tests.helpers import compare_with_perform, random_array

FLOATS = ["float16", "bfloat16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
ALL = ["bool"] + INTS + FLOATS + COMPLEX

#: float32 sums of k products carry ~k ulps of error on either side
TOL = {
    "float32": dict(rtol=1e-4, atol=1e-4),
    "complex64": dict(rtol=1e-4, atol=1e-4),
    "float64": dict(rtol=1e-10, atol=1e-10),
    "complex128": dict(rtol=1e-10, atol=1e-10),
}


def _inputs(rng, shapes, dtype):
    return [random_array(rng, s, dtype) for s in shapes]


def _compare(builder, shapes, dtype, rng, values=None):
    xs = [hg.tensor(n, s, dtype) for n, s in zip("ab", shapes)]
    g = hg.Graph(xs, builder(*xs))
    values = _inputs(rng, shapes, dtype) if values is None else values
    return compare_with_perform(g, values, **TOL.get(dtype, {}))


def _assert_matches_numpy(actual, expected):
    """perform against NumPy: same dtype and shape, values within the dtype's rounding."""
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    if actual.dtype.kind in "fcV":
        np.testing.assert_allclose(actual.astype(np.complex128), expected.astype(np.complex128),
                                   rtol=2e-2 if actual.dtype.itemsize <= 2 else 1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(actual, expected)


# --- matmul ----------------------------------------------------------------------
MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3, 4)),
    ((3,), (3, 4)),
    ((2, 3), (3,)),
    ((3,), (2, 3, 4)),
    ((2, 5, 3), (3,)),
    ((2, 2, 3), (2, 3, 4)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((1, 3, 4), (5, 4, 2)),
    ((4, 1, 2, 3), (1, 6, 3, 2)),
    ((0, 3), (3, 4)),
    ((2, 0), (0, 4)),
    ((2, 3, 0), (1, 0, 4)),
    ((0, 2, 3), (3, 1)),
]


@pytest.mark.parametrize("dtype", ALL)
def test_matmul_dtypes(dtype, rng):
    _compare(hg.matmul, [(2, 3, 4), (4, 5)], dtype, rng)


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_shapes(shapes, dtype, rng):
    _compare(hg.matmul, shapes, dtype, rng)


@pytest.mark.parametrize("dtype", ALL)
def test_matmul_perform_matches_numpy(dtype, rng):
    for shapes in [((2, 3), (3, 4)), ((3,), (2, 3, 4)), ((2, 1, 3, 4), (5, 4, 2)), ((2, 0), (0, 3))]:
        a, b = _inputs(rng, shapes, dtype)
        x, y = hg.tensor("a", shapes[0], dtype), hg.tensor("b", shapes[1], dtype)
        actual = hg.evaluate(hg.Graph([x, y], hg.matmul(x, y)), a, b)
        expected = np.matmul(a, b)
        if dtype == "bfloat16":  # ml_dtypes has no bfloat16 matmul loop and returns float32
            expected = expected.astype(ml_dtypes.bfloat16)
        _assert_matches_numpy(actual, expected)


@pytest.mark.parametrize(
    "dtypes",
    [("int8", "float32"), ("int8", "uint8"), ("bool", "int16"), ("float32", "complex64"),
     ("int64", "float32"), ("float16", "float32"), ("uint32", "int32")],
    ids=str,
)
def test_matmul_promotes_like_numpy(dtypes, rng):
    a, b = random_array(rng, (2, 3), dtypes[0]), random_array(rng, (3, 2), dtypes[1])
    x, y = hg.tensor("a", (2, 3), dtypes[0]), hg.tensor("b", (3, 2), dtypes[1])
    out = hg.matmul(x, y)
    assert out.dtype == np.matmul(a, b).dtype
    compare_with_perform(hg.Graph([x, y], out), [a, b], rtol=1e-4, atol=1e-4)
    _assert_matches_numpy(hg.evaluate(hg.Graph([x, y], out), a, b), np.matmul(a, b))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "uint64"])
def test_matmul_int_wraps(dtype, rng):
    a = random_array(rng, (3, 8), dtype, kind="full")
    b = random_array(rng, (8, 2), dtype, kind="full")
    _, expected = _compare(hg.matmul, [(3, 8), (8, 2)], dtype, rng, values=[a, b])
    np.testing.assert_array_equal(expected, np.matmul(a, b))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_matmul_nan_inf(dtype, rng):
    a = random_array(rng, (3, 4), dtype)
    b = random_array(rng, (4, 3), dtype)
    a[0, 1], a[1, 2], b[3, 2] = np.nan, np.inf, -np.inf
    _compare(hg.matmul, [(3, 4), (4, 3)], dtype, rng, values=[a, b])


def test_matmul_complex_nan(rng):
    # complex infinities are left out: BLAS and XLA disagree on inf * 0 inside complex products
    a = random_array(rng, (3, 4), "complex64")
    b = random_array(rng, (4, 3), "complex64")
    a[0, 1], b[3, 2] = complex(np.nan, 0), complex(1, np.nan)
    _compare(hg.matmul, [(3, 4), (4, 3)], "complex64", rng, values=[a, b])


def test_matmul_operator_and_python_lists(rng):
    x = hg.tensor("x", (2, 3), "float32")
    g = hg.Graph([x], x @ [[1.0], [2.0], [3.0]])
    assert g.outputs[0].dtype == np.float64  # lists are arrays of NumPy's default dtype
    compare_with_perform(g, [random_array(rng, (2, 3), "float32")])


def test_matmul_unknown_dims_specialize(rng):
    a, b = hg.tensor("a", (None, 3, None), "float32"), hg.tensor("b", (None, 4), "float32")
    out = hg.matmul(a, b)
    assert out.shape == (None, 3, 4)
    g = hg.Graph([a, b], out)
    for n, k in [(2, 5), (1, 0)]:
        compare_with_perform(g, [random_array(rng, (n, 3, k), "float32"),
                                 random_array(rng, (k, 4), "float32")], rtol=1e-4, atol=1e-4)


def test_matmul_unknown_dims_mismatch_raises_when_specialized(rng):
    a, b = hg.tensor("a", (2, None), "float32"), hg.tensor("b", (None, 4), "float32")
    fn = hg.compile(hg.Graph([a, b], hg.matmul(a, b)))
    with pytest.raises(ValueError, match=r"contracting axis 1 of 'a' float32\[2,3\] has size 3"):
        fn(np.ones((2, 3), np.float32), np.ones((5, 4), np.float32))


def test_matmul_rejects_0d():
    x = hg.tensor("x", (3,), "float32")
    with pytest.raises(ValueError, match=r"matmul: input operand 1 does not have enough dimensions"):
        hg.matmul(x, hg.scalar("s"))
    with pytest.raises(ValueError, match=r"matmul: input operand 0 does not have enough dimensions"):
        hg.matmul(2.0, x)


def test_matmul_rejects_mismatched_inner_dims():
    with pytest.raises(ValueError, match=r"matmul: size 3 of axis 1 of 'a' float32\[2,3\] does not "
                                         r"match size 2 of axis 0 of 'b'"):
        hg.matmul(hg.tensor("a", (2, 3)), hg.tensor("b", (2, 3)))


def test_matmul_rejects_unbroadcastable_stacks():
    with pytest.raises(ValueError, match=r"matmul: stacked matrices .* do not broadcast"):
        hg.matmul(hg.tensor("a", (2, 2, 3)), hg.tensor("b", (3, 3, 4)))


# --- dot ---------------------------------------------------------------------------
DOT_SHAPES = [
    ((), ()),
    ((), (3,)),
    ((2, 3), ()),
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((2, 3), (4, 3, 5)),
    ((2, 2, 3), (3,)),
    ((0,), (0,)),
    ((2, 0), (0, 3)),
    ((2, 3), (0, 3, 1)),
]


@pytest.mark.parametrize("dtype", ["float32", "int16", "bool", "complex128", "float16"])
@pytest.mark.parametrize("shapes", DOT_SHAPES, ids=str)
def test_dot_shapes(shapes, dtype, rng):
    _, expected = _compare(hg.dot, shapes, dtype, rng)
    a, b = _inputs(np.random.default_rng(0), shapes, dtype)
    x, y = hg.tensor("a", shapes[0], dtype), hg.tensor("b", shapes[1], dtype)
    _assert_matches_numpy(hg.evaluate(hg.Graph([x, y], hg.dot(x, y)), a, b), np.asarray(np.dot(a, b)))


@pytest.mark.parametrize("other", [2, 2.5, True, np.float32(2)], ids=repr)
def test_dot_python_scalars_are_arrays(other, rng):
    x = hg.tensor("x", (3,), "int8")
    a = random_array(rng, (3,), "int8")
    out = hg.dot(x, other)
    expected = np.dot(a, other)
    assert out.dtype == expected.dtype  # np.dot converts scalars to arrays: no NEP 50 weak scalars
    g = hg.Graph([x], out)
    _, ref = compare_with_perform(g, [a])
    np.testing.assert_allclose(ref, expected)


def test_dot_method(rng):
    x, y = hg.tensor("x", (2, 3)), hg.tensor("y", (3,))
    compare_with_perform(hg.Graph([x, y], x.dot(y)),
                         _inputs(rng, [(2, 3), (3,)], "float32"), rtol=1e-4, atol=1e-4)


def test_dot_rejects_mismatched_dims():
    with pytest.raises(ValueError, match=r"dot: size 3 of axis 1 of 'a' .* size 4 of axis 1 of 'b'"):
        hg.dot(hg.tensor("a", (2, 3)), hg.tensor("b", (5, 4, 2)))


# --- tensordot ---------------------------------------------------------------------
TENSORDOT_CASES = [
    ((2, 3, 4), (3, 4, 5), 2),
    ((2, 3), (3, 4), 1),
    ((2, 3), (4,), 0),
    ((), (3,), 0),
    ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])),
    ((2, 3), (3, 2), [1, 0]),
    ((2, 3, 4), (4, 2), ([-1], [-2])),
    ((3, 4), (4, 3), ([0, 1], [1, 0])),
    ((2, 0, 3), (0, 3, 2), 2),
    ((2, 3), (3, 2), ((), ())),
]


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64"])
@pytest.mark.parametrize("case", TENSORDOT_CASES, ids=str)
def test_tensordot(case, dtype, rng):
    sa, sb, axes = case
    a, b = _inputs(rng, [sa, sb], dtype)
    _, ref = _compare(lambda x, y: hg.tensordot(x, y, axes), [sa, sb], dtype, rng, values=[a, b])
    _assert_matches_numpy(ref, np.asarray(np.tensordot(a, b, axes)))


@pytest.mark.parametrize(
    "axes, err, match",
    [
        (3, ValueError, r"tensordot: axes=3 needs both operands to have at least 3 dims"),
        (-1, ValueError, r"tensordot: axes must be a non-negative int"),
        (([0], [0]), ValueError, r"tensordot: size 2 of axis 0 of 'a' .* size 3 of axis 0 of 'b'"),
        (([2], [0]), ValueError, r"tensordot \(axes of a\): axis 2 is out of bounds"),
        (([0, 0], [0, 1]), ValueError, r"tensordot \(axes of a\): repeated axis"),
        (([0, 1], [0]), ValueError, r"tensordot: axes must pair up"),
        ("ab", TypeError, r"tensordot: axes must be ints"),
        (1.5, TypeError, r"tensordot: axes must be an int or a pair"),
    ],
    ids=str,
)
def test_tensordot_rejects_bad_axes(axes, err, match):
    with pytest.raises(err, match=match):
        hg.tensordot(hg.tensor("a", (2, 3)), hg.tensor("b", (3, 2)), axes)


# --- DotGeneral --------------------------------------------------------------------
@pytest.mark.parametrize(
    "sa, sb, contracting, batch",
    [
        ((3, 2, 4), (4, 2, 5), ((2,), (0,)), ((1,), (1,))),   # batch dims not leading
        ((3, 1, 4), (4, 2, 5), ((2,), (0,)), ((1,), (1,))),   # size-1 batch dim on a
        ((2, 4, 3), (1, 3, 4), ((2,), (1,)), ((0, 1), (0, 2))),  # mixed true/own batch dims
        ((5, 3), (2, 5, 3, 4), ((1,), (2,)), ((0,), (0, 1))),   # b has more batch dims
    ],
    ids=str,
)
def test_dot_general_batch_layouts(sa, sb, contracting, batch, rng):
    op = DotGeneral(contracting, batch)
    _compare(op, [sa, sb], "float64", rng)


def test_dot_general_make_node_checks():
    a, b = hg.tensor("a", (2, 3)), hg.tensor("b", (3, 4), "float64")
    with pytest.raises(TypeError, match=r"DotGeneral.*inputs must share one dtype"):
        DotGeneral(((1,), (0,)))(a, b)
    with pytest.raises(ValueError, match=r"axis 2 is out of bounds for input 'a' of rank 2"):
        DotGeneral(((2,), (0,)))(a, hg.tensor("c", (3, 4)))
    with pytest.raises(ValueError, match=r"input 'a' lists an axis twice"):
        DotGeneral(((1,), (0,)), ((1,), (1,)))(a, hg.tensor("c", (3, 4)))
    with pytest.raises(ValueError, match=r"contracting axes must pair up"):
        DotGeneral(((1,), ()))


def test_dot_general_str_names_dims():
    assert str(DotGeneral(((1,), (0,)), ((0,), ()))) == \
        "DotGeneral{contracting=((1,), (0,)), batch=((0,), ())}"
