"""matmul, dot, tensordot (one DotGeneral Op), einsum, outer, matrix_power, norm and
the decompositions: compiled results against perform, perform against NumPy/SciPy,
dtypes, shapes (0-d, 1-D, size 0, broadcast stacks), errors. Decompositions that are
unique only up to signs or phases are checked by reconstruction."""

import ml_dtypes
import numpy as np
import pytest
import scipy.linalg  # (a dependency of jax)

import hlograph as hg
from hlograph.frontend.ops.linalg import DotGeneral
from hlograph.tests.helpers import assert_same, compare_with_perform, random_array, results_everywhere

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


# --- einsum ----------------------------------------------------------------------------
EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ba,aB", [(2, 3), (3, 4)]),             # implicit output: ASCII order (B before b)
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iij->ji", [(3, 3, 2)]),
    ("iii->i", [(2, 2, 2)]),
    ("i,i", [(3,), (3,)]),
    ("i,i", [(1,), (3,)]),                   # size-1 dims broadcast
    ("i,j->ij", [(3,), (4,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,ij->", [(2, 3), (2, 3)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("a...,a->...", [(3, 2, 4), (3,)]),
    ("...,...->...", [(), (2, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ab,bc,ca->", [(2, 3), (3, 4), (4, 2)]),
    ("ijk,kj,i->k", [(2, 3, 4), (4, 3), (2,)]),  # a label shared by three operands
    ("ij,jk->ik", [(2, 0), (0, 3)]),
    ("ij,jk->ik", [(0, 2), (2, 3)]),
]


@pytest.mark.parametrize("case", EINSUM_CASES, ids=str)
def test_einsum_cases(case, rng):
    subscripts, shapes = case
    _einsum_check(subscripts, shapes, "float64", rng)


@pytest.mark.parametrize("dtype", ["float32", "complex64", "int32", "bool"])
@pytest.mark.parametrize("subscripts, shapes", [
    ("ij,jk->ki", [(2, 3), (3, 4)]),
    ("iij->j", [(3, 3, 2)]),
    ("ij,ij,j->i", [(2, 3), (2, 3), (3,)]),
], ids=str)
def test_einsum_dtypes(subscripts, shapes, dtype, rng):
    _einsum_check(subscripts, shapes, dtype, rng)


def _einsum_check(subscripts, shapes, dtype, rng):
    xs = [hg.tensor(f"x{i}", s, dtype) for i, s in enumerate(shapes)]
    values = _inputs(rng, shapes, dtype)
    g = hg.Graph(xs, hg.einsum(subscripts, *xs))
    _, ref = compare_with_perform(g, values, **TOL.get(dtype, {}))
    assert_same(ref, np.asarray(np.einsum(subscripts, *values)), **TOL.get(dtype, {}))


def test_einsum_promotes_operands(rng):
    a, b = hg.tensor("a", (2, 3), "int8"), hg.tensor("b", (3, 2), "float32")
    out = hg.einsum("ij,jk", a, b)
    assert out.dtype == np.einsum("ij,jk", np.ones((2, 3), np.int8), np.ones((3, 2), np.float32)).dtype


@pytest.mark.parametrize("subscripts, shapes, match", [
    ("ij,jk", [(2, 3)], r"einsum: 2 operand subscripts"),
    ("ij,jk", [(2, 3), (4, 5)], r"einsum: label 'j' has sizes 3 and 4"),
    ("ij->k", [(2, 3)], r"output subscript 'k' does not appear"),
    ("ij->ii", [(2, 3)], r"repeat a label"),
    ("i...->i", [(2, 3)], r"no '...'"),
    ("ijk", [(2, 3)], r"operand 0 .* has 2 dims but its subscripts 'ijk' name 3"),
    ("i1", [(2, 3)], r"invalid subscript '1'"),
], ids=str)
def test_einsum_rejects_bad_subscripts(subscripts, shapes, match):
    xs = [hg.tensor(f"x{i}", s, "float32") for i, s in enumerate(shapes)]
    with pytest.raises(ValueError, match=match):
        hg.einsum(subscripts, *xs)


# --- outer, matrix_power -----------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex128"])
@pytest.mark.parametrize("shapes", [((3,), (4,)), ((2, 3), (2,)), ((0,), (3,)), ((), (2,))], ids=str)
def test_outer(shapes, dtype, rng):
    a, b = _inputs(rng, shapes, dtype)
    _, ref = _compare(hg.outer, shapes, dtype, rng, values=[a, b])
    assert_same(ref, np.outer(a, b))


@pytest.mark.parametrize("dtype, n", [
    ("float64", 0), ("float64", 1), ("float64", 2), ("float64", 5), ("float32", 3),
    ("int32", 3), ("int32", 0), ("complex128", 4), ("float64", -1), ("float64", -3),
])
def test_matrix_power(dtype, n, rng):
    shape = (2, 3, 3)
    a = random_array(rng, shape, dtype, "small_int" if dtype == "int32" else "normal")
    if n < 0:
        a = a + 4 * np.eye(3, dtype=dtype)  # well conditioned
    x = hg.tensor("a", shape, dtype)
    g = hg.Graph([x], hg.matrix_power(x, n))
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    _, ref = compare_with_perform(g, [a], **({} if dtype == "int32" else tol))
    assert_same(ref, np.linalg.matrix_power(a, n), **({} if dtype == "int32" else tol))


@pytest.mark.parametrize("n", [3, -3])
def test_matrix_power_3_associates_as_numpy(n):
    # NumPy's matrix_power(a, 3) is (a @ a) @ a; with infinities a @ (a @ a) has other NaNs
    a = np.array([[[-3.0, -2.94, 0.13, -2.29], [-1.67, 0.43, 0.63, -1.75],
                   [-0.42, -np.inf, -2.32, 1.0], [0.67, np.inf, -0.0, 0.6]]], np.float32)
    x = hg.tensor("a", (1, 4, None), "float32")
    g = hg.Graph([x], hg.matrix_power(x, n))
    with np.errstate(all="ignore"):
        want = np.linalg.matrix_power(a if n > 0 else np.linalg.inv(a), abs(n))
    for got in (hg.evaluate(g, a), hg.compile(g, pipeline="O0")(a), hg.compile(g)(a)):
        assert_same(got, want, rtol=1e-4, atol=1e-4)


def test_matrix_power_rejects_bad_input():
    with pytest.raises(ValueError, match=r"matrix_power: input must be a stack of square matrices"):
        hg.matrix_power(hg.tensor("a", (2, 3)), 2)
    with pytest.raises(TypeError, match=r"matrix_power: the exponent must be an integer"):
        hg.matrix_power(hg.tensor("a", (3, 3)), 1.5)


# --- norm ---------------------------------------------------------------------------------
NORM_CASES = [
    ((5,), None, None),
    ((2, 3, 4), None, None),                 # Frobenius of the flattened input
    ((5,), 1, None), ((5,), np.inf, None), ((5,), -np.inf, None), ((5,), 0, None),
    ((5,), 3, None), ((5,), -1, None), ((5,), 2, None),
    ((3, 4), None, 1), ((3, 4), 1, -1), ((2, 3, 4), np.inf, 0),
    ((3, 4), "fro", None), ((3, 4), 1, None), ((3, 4), -1, None), ((3, 4), np.inf, None),
    ((3, 4), -np.inf, None), ((3, 4), 2, None), ((3, 4), -2, None), ((3, 4), "nuc", None),
    ((2, 3, 4), 1, (2, 0)), ((2, 3, 4), "fro", (-1, -2)), ((2, 3, 4), "nuc", (0, 2)),
    ((0,), None, None), ((0, 3), None, 0),
]


@pytest.mark.parametrize("case", NORM_CASES, ids=str)
def test_norm(case, rng):
    shape, ord, axis = case
    _norm_check(shape, ord, axis, "float64", rng)


@pytest.mark.parametrize("dtype", ["float32", "complex64", "int32"])
@pytest.mark.parametrize("case", [((4,), None, None), ((3, 4), 1, None), ((2, 3), "nuc", None),
                                  ((2, 3), 2, 1)], ids=str)
def test_norm_dtypes(case, dtype, rng):
    shape, ord, axis = case
    _norm_check(shape, ord, axis, dtype, rng)


@pytest.mark.parametrize("keepdims_case", [((2, 3), None, None), ((2, 3, 4), None, 1),
                                           ((2, 3, 4), 1, (0, 2))], ids=str)
def test_norm_keepdims(keepdims_case, rng):
    shape, ord, axis = keepdims_case
    _norm_check(shape, ord, axis, "float64", rng, keepdims=True)


def _norm_check(shape, ord, axis, dtype, rng, keepdims=False):
    x = hg.tensor("x", shape, dtype)
    a = random_array(rng, shape, dtype)
    if ord == 0 and a.size:
        a.flat[::2] = 0
    g = hg.Graph([x], hg.norm(x, ord, axis, keepdims))
    tol = dict(rtol=1e-4, atol=1e-5) if dtype in ("float32", "complex64") else dict(rtol=1e-10, atol=1e-12)
    _, ref = compare_with_perform(g, [a], **tol)
    assert_same(ref, np.asarray(np.linalg.norm(a, ord, axis, keepdims)), **tol)


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0)])
@pytest.mark.parametrize("ord", [2, "nuc", 1, np.inf])
def test_norm_of_empty_matrices_of_unknown_dims(shape, ord):
    # NumPy's max-based matrix norms of empty matrices are 0; an unknown dim may be empty
    x = hg.tensor("x", (shape[0], None), "float32")
    a = np.zeros(shape, np.float32)
    g = hg.Graph([x], hg.norm(x, ord, (-2, -1)))
    _, ref = compare_with_perform(g, [a])
    assert_same(ref, np.asarray(np.linalg.norm(a, ord, (-2, -1))))


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_inf_norm_of_empty_vectors_of_unknown_size(dtype):
    # NumPy's inf-norm of an empty vector is 0
    x = hg.tensor("x", (None,), dtype)
    g = hg.Graph([x], hg.norm(x, np.inf, -1))
    for a in (np.zeros(0, dtype), np.array([3, -5, 1], dtype)):
        _, ref = compare_with_perform(g, [a])
        assert_same(ref, np.asarray(np.linalg.norm(a, np.inf, -1)))


def test_norm_rejects_bad_orders():
    with pytest.raises(ValueError, match=r"norm: invalid norm order 'fro' for vectors"):
        hg.norm(hg.tensor("x", (3,)), "fro", 0)
    with pytest.raises(ValueError, match=r"norm: invalid norm order 3 for matrices"):
        hg.norm(hg.tensor("x", (3, 3)), 3)
    with pytest.raises(ValueError, match=r"norm: improper number of dimensions"):
        hg.norm(hg.tensor("x", (2, 3, 4)), 1)


# --- decompositions and solvers ---------------------------------------------------------
DTOL = {
    "float32": dict(rtol=2e-3, atol=2e-4),
    "complex64": dict(rtol=2e-3, atol=2e-4),
    "float64": dict(rtol=1e-9, atol=1e-10),
    "complex128": dict(rtol=1e-9, atol=1e-10),
}


def _wellcond(rng, shape, dtype):
    """Random matrices with a dominant diagonal (invertible, well conditioned)."""
    a = random_array(rng, shape, dtype)
    return (a + 3 * shape[-1] * np.eye(shape[-1], dtype=dtype)).astype(dtype) if shape[-1] else a


def _hpd(rng, shape, dtype):
    """Hermitian positive-definite matrices."""
    a = random_array(rng, shape, dtype)
    h = a @ np.conj(np.swapaxes(a, -1, -2))
    return (h + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _run(builder, values, dtype, names="abq"):
    xs = [hg.tensor(n, v.shape, dtype) for n, v in zip(names, values)]
    g = hg.Graph(xs, builder(*xs))
    return compare_with_perform(g, values, **DTOL[dtype])


def _close(actual, expected, dtype):
    np.testing.assert_allclose(actual, expected, **DTOL[dtype])


LIN_DTYPES = ["float32", "float64", "complex64", "complex128"]
LIN_SHAPES = [(3, 3), (2, 4, 4), (0, 0)]


@pytest.mark.parametrize("dtype", LIN_DTYPES)
@pytest.mark.parametrize("shape", LIN_SHAPES, ids=str)
def test_inv_det_slogdet(shape, dtype, rng):
    a = _wellcond(rng, shape, dtype)
    _, ref = _run(lambda x: [hg.inv(x), hg.det(x), *hg.slogdet(x)], [a], dtype)
    sign, logdet = np.linalg.slogdet(a)
    for r, e in zip(ref, [np.linalg.inv(a), np.linalg.det(a), sign, logdet]):
        assert_same(r, e, **DTOL[dtype])


@pytest.mark.parametrize("dtype", LIN_DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(upper, dtype, rng):
    a = _hpd(rng, (2, 3, 3), dtype)
    _, ref = _run(lambda x: hg.cholesky(x, upper=upper), [a], dtype)
    assert_same(ref, np.linalg.cholesky(a, upper=upper), **DTOL[dtype])


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_cholesky_reads_one_triangle(dtype, rng):
    a = _hpd(rng, (3, 3), dtype)
    lower, upper = a.copy(), a.copy()
    lower[0, 2] = 99.0  # the lower factor reads the lower triangle only
    upper[2, 0] = 99.0  # the upper factor the upper one
    _run(hg.cholesky, [lower], dtype)
    _, got = _run(lambda x: hg.cholesky(x, upper=True), [upper], dtype)
    assert_same(got, np.linalg.cholesky(upper, upper=True), **DTOL[dtype])


@pytest.mark.parametrize("dtype", LIN_DTYPES)
@pytest.mark.parametrize("shape, mode", [((4, 3), "reduced"), ((3, 4), "reduced"), ((4, 3), "complete"),
                                         ((2, 3, 3), "reduced"), ((4, 3), "r")], ids=str)
def test_qr(shape, mode, dtype, rng):
    a = random_array(rng, shape, dtype)
    x = hg.tensor("a", shape, dtype)
    out = hg.qr(x, mode)
    got = hg.compile(hg.Graph([x], out))(a)
    ref = np.linalg.qr(a, mode=mode)
    if mode == "r":
        assert got.shape == ref.shape and got.dtype == ref.dtype
        _close(np.abs(got), np.abs(ref), dtype)  # rows of r are unique up to a phase
        return
    q, r = got
    assert q.shape == ref[0].shape and r.shape == ref[1].shape and q.dtype == np.dtype(dtype)
    _close(q @ r, a, dtype)
    k = q.shape[-1]
    _close(np.conj(np.swapaxes(q, -1, -2)) @ q, np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)), dtype)
    np.testing.assert_array_equal(np.tril(r, -1), 0)
    _close(np.abs(r), np.abs(ref[1]), dtype)


@pytest.mark.parametrize("dtype", LIN_DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 4, 3), (0, 3), (3, 0), (2, 0, 0)], ids=str)
def test_qr_raw_is_lapacks_householder_form(shape, dtype, rng):
    """mode='raw': geqrf's reflectors and R as NumPy returns them (h transposed, tau),
    the same LAPACK routine: the same numbers, compiled and in perform."""
    a = random_array(rng, shape, dtype)
    got, _ = _run(lambda x: hg.qr(x, "raw"), [a], dtype)
    ref = np.linalg.qr(a, mode="raw")
    for g, w in zip(got, ref):
        assert g.shape == w.shape and g.dtype == w.dtype
        _close(g, w, dtype)


@pytest.mark.parametrize("dtype", LIN_DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (0, 3), (3, 0)], ids=str)
def test_pivoted_qr_raw_is_scipys(shape, dtype, rng):
    """pivoting=True, mode='raw': scipy's ((h, tau), r, p), h of a's shape (geqp3's)."""
    a = random_array(rng, shape, dtype)
    got, _ = _run(lambda x: hg.qr(x, "raw", pivoting=True), [a], dtype)
    (h, tau), r, p = scipy.linalg.qr(a, mode="raw", pivoting=True)
    for g, w in zip(got, (h, tau, r, p)):
        assert g.shape == w.shape and g.dtype == w.dtype
        _close(g, w, dtype)
    np.testing.assert_array_equal(got[-1], p)


def test_qr_raw_has_no_gradient():
    x = hg.tensor("a", (4, 3), "float64")
    h, tau = hg.qr(x, "raw")
    with pytest.raises(Exception, match="raw"):
        hg.grad(hg.sum(h) + hg.sum(tau), x)


@pytest.mark.parametrize("dtype", LIN_DTYPES)
@pytest.mark.parametrize("shape, full", [((4, 3), True), ((3, 4), False), ((2, 3, 3), True)], ids=str)
def test_svd(shape, full, dtype, rng):
    a = random_array(rng, shape, dtype)
    x = hg.tensor("a", shape, dtype)
    u, s, vh = hg.compile(hg.Graph([x], hg.svd(x, full_matrices=full)))(a)
    ru, rs, rvh = np.linalg.svd(a, full_matrices=full)
    assert (u.shape, s.shape, vh.shape) == (ru.shape, rs.shape, rvh.shape)
    assert s.dtype == rs.dtype and u.dtype == ru.dtype
    _close(s, rs, dtype)
    k = s.shape[-1]
    _close((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, dtype)
    # singular values alone (compute_uv=False, svdvals) against perform
    _, ref = _run(lambda y: [hg.svd(y, compute_uv=False), hg.svdvals(y)], [a], dtype)
    assert_same(ref[0], rs, **DTOL[dtype])


@pytest.mark.parametrize("dtype", LIN_DTYPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(uplo, dtype, rng):
    a = random_array(rng, (2, 4, 4), dtype)  # not Hermitian: only the UPLO triangle counts
    x = hg.tensor("a", a.shape, dtype)
    w, v = hg.compile(hg.Graph([x], hg.eigh(x, uplo)))(a)
    rw, _ = np.linalg.eigh(a, UPLO=uplo)
    assert w.dtype == rw.dtype and v.dtype == a.dtype
    _close(w, rw, dtype)
    h = np.tril(a) + np.conj(np.swapaxes(np.tril(a, -1), -1, -2)) if uplo == "L" else \
        np.triu(a) + np.conj(np.swapaxes(np.triu(a, 1), -1, -2))
    h = h.copy()
    idx = np.arange(4)
    h[..., idx, idx] = h[..., idx, idx].real
    _close(h @ v, v * w[..., None, :], dtype)
    _, ref = _run(lambda y: hg.eigvalsh(y, uplo), [a], dtype)
    assert_same(ref, np.linalg.eigvalsh(a, UPLO=uplo), **DTOL[dtype])


@pytest.mark.parametrize("dtype", LIN_DTYPES)
def test_eig(dtype, rng):
    a = random_array(rng, (2, 4, 4), dtype)
    x = hg.tensor("a", a.shape, dtype)
    w, v = hg.compile(hg.Graph([x], hg.eig(x)))(a)
    assert w.dtype == v.dtype == np.result_type(dtype, np.complex64)
    rw = np.linalg.eigvals(a)
    _close(np.sort_complex(w), np.sort_complex(rw.astype(w.dtype)), dtype)
    _close(a @ v, v * w[..., None, :], dtype)
    w2 = hg.compile(hg.Graph([x], hg.eigvals(x)))(a)
    _close(np.sort_complex(w2), np.sort_complex(w), dtype)


@pytest.mark.parametrize("dtype", LIN_DTYPES)
@pytest.mark.parametrize("a_shape, b_shape", [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (3, 2)),
                                              ((3, 3), (2, 3, 1)), ((2, 3, 3), (3,))], ids=str)
def test_solve(a_shape, b_shape, dtype, rng):
    a, b = _wellcond(rng, a_shape, dtype), random_array(rng, b_shape, dtype)
    _, ref = _run(hg.solve, [a, b], dtype)
    assert_same(ref, np.linalg.solve(a, b), **DTOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("lower, trans, unit", [(False, 0, False), (True, 0, False), (True, 1, True),
                                                (False, 2, False), (True, "C", False)], ids=str)
def test_solve_triangular(lower, trans, unit, dtype, rng):
    a, b = _wellcond(rng, (3, 3), dtype), random_array(rng, (3, 2), dtype)
    _, ref = _run(lambda x, y: hg.solve_triangular(x, y, trans, lower, unit), [a, b], dtype)
    expected = scipy.linalg.solve_triangular(a, b, trans, lower, unit)
    assert_same(ref, expected.astype(dtype), **DTOL[dtype])


@pytest.mark.parametrize("a_shape, b_shape", [((2, 3, 3), (3,)), ((3, 3), (2, 3, 2))], ids=str)
def test_solve_triangular_batched(a_shape, b_shape, rng):
    a, b = _wellcond(rng, a_shape, "float64"), random_array(rng, b_shape, "float64")
    _run(lambda x, y: hg.solve_triangular(x, y, lower=True), [a, b], "float64")


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("lower", [False, True])
def test_cho_solve(lower, dtype, rng):
    h = _hpd(rng, (3, 3), dtype)
    c = np.linalg.cholesky(h, upper=not lower)
    b = random_array(rng, (3, 2), dtype)
    _, ref = _run(lambda x, y: hg.cho_solve((x, lower), y), [c, b], dtype)
    _close(ref, np.linalg.solve(h, b), dtype)


@pytest.mark.parametrize("dtype", LIN_DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (4, 3)], ids=str)
def test_lu_factor_and_lu(shape, dtype, rng):
    a = random_array(rng, shape, dtype)
    (lu_, piv, p, l, u), ref = _run(lambda x: [*hg.lu_factor(x), *hg.lu(x)], [a], dtype)
    _close(p @ l @ u, a, dtype)
    if len(shape) == 2:
        rlu, rpiv = scipy.linalg.lu_factor(a)
        np.testing.assert_array_equal(piv, rpiv)
        _close(lu_, rlu, dtype)


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_expm(dtype, rng):
    a = (random_array(rng, (2, 3, 3), dtype) * 0.5).astype(dtype)
    _, ref = _run(hg.expm, [a], dtype)
    _close(ref[0], scipy.linalg.expm(a[0]), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_solve_sylvester(dtype, rng):
    a, b = _wellcond(rng, (3, 3), dtype), _wellcond(rng, (2, 2), dtype)
    q = random_array(rng, (3, 2), dtype)
    _, ref = _run(hg.solve_sylvester, [a, b, q], dtype)
    _close(a @ ref + ref @ b, q, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (3, 3)], ids=str)
def test_pinv(shape, dtype, rng):
    a = random_array(rng, shape, dtype)
    _, ref = _run(hg.pinv, [a], dtype)
    _close(ref, np.linalg.pinv(a), dtype)


def test_decompositions_convert_ints_and_reject_halves():
    assert hg.inv(hg.tensor("a", (3, 3), "int32")).dtype == np.float64
    with pytest.raises(TypeError, match=r"inv: array type float16 is unsupported in linalg"):
        hg.inv(hg.tensor("a", (3, 3), "float16"))
    with pytest.raises(ValueError, match=r"Inv.*input 'a' must be a stack of square matrices"):
        hg.inv(hg.tensor("a", (3, 4)))
    with pytest.raises(ValueError, match=r"Solve.*do not match in size"):
        hg.solve(hg.tensor("a", (3, 3)), hg.tensor("b", (4,)))
    with pytest.raises(ValueError, match=r"QR: mode must be"):
        hg.qr(hg.tensor("a", (3, 3)), "economic")
    with pytest.raises(ValueError, match=r"SolveSylvester.*'q' .* has 4 rows, expected 3"):
        hg.solve_sylvester(hg.tensor("a", (3, 3)), hg.tensor("b", (2, 2)), hg.tensor("q", (4, 2)))


def test_bridge_reuses_one_function_per_signature():
    a, b = hg.tensor("a", (3, 3), "float64"), hg.tensor("b", (3, 3), "float64")
    c = hg.tensor("c", (2, 2), "float64")
    g = hg.Graph([a, b, c], [hg.inv(a), hg.inv(b), hg.inv(c), hg.det(a)])
    text = hg.compile(g, pipeline="O0").lower().as_text()
    assert text.count("func.func private @jax_inv") == 2  # one per operand shape
    assert text.count("call @jax_inv") == 3
    assert text.count("func.func private @jax_det") == 1


def test_unknown_dims_infer_through_the_builders():
    a, b = hg.tensor("a", (None, 2, 3)), hg.tensor("b", (None, 3, 4))
    assert hg.einsum("bij,bjk->bik", a, b).type.shape == (None, 2, 4)
    assert hg.norm(a, axis=-1).type.shape == (None, 2)
    assert hg.matrix_power(hg.tensor("m", (None, 3, 3)), 3).type.shape == (None, 3, 3)
    assert hg.solve(hg.tensor("m", (None, 3, 3)), hg.tensor("v", (3,))).type.shape == (None, 3)
    u, s, vh = hg.svd(hg.tensor("m", (None, 5, 3), "float64"), full_matrices=False)
    assert (u.type.shape, s.type.shape, vh.type.shape) == ((None, 5, 3), (None, 3), (None, 3, 3))


def test_unknown_dims_specialize_at_call(rng):
    x = hg.tensor("x", (None, 3, 3), "float64")
    fn = hg.compile(hg.Graph([x], hg.inv(x)))
    for n in (1, 4):
        a = _wellcond(rng, (n, 3, 3), "float64")
        np.testing.assert_allclose(fn(a), np.linalg.inv(a), rtol=1e-10)


def test_inv_singular_nan_gives_nans_where_numpy_raises(rng):
    from hlograph.frontend.ops.linalg import Inv
    a = np.stack([random_array(rng, (3, 3), "float64"), np.ones((3, 3))])
    x = hg.tensor("x", (2, 3, 3), "float64")
    g = hg.Graph([x], Inv(singular="nan")(x))
    got = hg.evaluate(g, a)
    np.testing.assert_allclose(got[0], np.linalg.inv(a[0]), rtol=1e-12)
    assert np.isnan(got[1]).all()
    with pytest.raises(np.linalg.LinAlgError):
        hg.evaluate(hg.Graph([x], Inv()(x)), a)
    # compiled code does not check: the regular matrix is inverted the same way
    np.testing.assert_allclose(hg.compile(g)(a)[0], np.linalg.inv(a[0]), rtol=1e-10)
    with pytest.raises(ValueError, match="singular must be 'raise' or 'nan'"):
        Inv(singular="zero")


# --- NumPy's results on non-finite and empty inputs ---------------------------
def _on_every_path(graph, values):
    runs = [hg.evaluate(graph, *values)]
    runs += [hg.compile(graph, pipeline=p)(*values) for p in ("O0", "O2")]
    return [r if isinstance(r, (list, tuple)) else [r] for r in runs]


def test_einsum_sums_products_not_private_sums_first():
    # an empty private label makes the sum 0 (0 * sum(b) would be nan)
    a, b = np.zeros(0), np.array([np.nan])
    graph = hg.Graph([x := hg.tensor("a", (0,), "float64"), y := hg.tensor("b", (1,), "float64")],
                     [hg.einsum("a,b->", x, y), hg.einsum("ab,b->a", hg.reshape(x, (1, 0)), hg.reshape(x, (0,)))])
    for first, second in _on_every_path(graph, [a, b]):
        assert_same(first, np.einsum("a,b->", a, b))
        assert_same(second, np.zeros(1))
    # inf * 1 + inf * 0: the sum of the products is nan
    graph = hg.Graph([x := hg.tensor("a", (1, 1), "float64"), y := hg.tensor("c", (2, 1), "float64")],
                     hg.einsum("ab,ca->a", x, y))
    for (out,) in _on_every_path(graph, [np.array([[np.inf]]), np.array([[1.0], [0.0]])]):
        assert np.isnan(out).all() and out.shape == (1,)


def test_einsum_private_labels_still_match_numpy_on_finite_values(rng):
    a = rng.normal(size=(2, 3))
    b = rng.normal(size=(3, 4))
    for spec in ("ij,jk->i", "ij,jk->", "ij,kl->jl", "ij,jk->ik"):
        graph = hg.Graph([x := hg.tensor("a", a.shape, "float64"), y := hg.tensor("b", b.shape, "float64")],
                         hg.einsum(spec, x, y))
        for (out,) in _on_every_path(graph, [a, b]):
            assert_same(out, np.einsum(spec, a, b), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_slogdet_sign_of_nan_matrices_is_numpys(dtype):
    mats = [np.full((2, 2), np.nan), np.array([[np.nan, 1.0], [2.0, -3.0]]), np.zeros((3, 3)),
            np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([[np.inf, 1.0], [1.0, 1.0]])]
    for m in mats:
        m = m.astype(dtype)
        graph = hg.Graph([x := hg.tensor("x", m.shape, dtype)], list(hg.slogdet(x)))
        with np.errstate(invalid="ignore"):
            sign, logdet = np.linalg.slogdet(m)
        for s, l in _on_every_path(graph, [m]):
            assert_same(s, sign)
            assert_same(l, logdet)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_det_of_non_finite_matrices_is_numpys(dtype, rng):
    # NumPy's det is sign * exp(logdet) from slogdet's loop (complex: the sign times
    # exp(logdet) + 0j part by part), whose NaNs and infinities differ from a product
    # of the pivots: [[inf + 4.33j, ...]] gives nan + nan j, not inf + inf j
    from hlograph.testing.fuzz import compare, values_for

    mats = [np.array([[-0.28 - 3.47j, -0.64 - 0.98j], [np.inf + 4.33j, 1.42 - 2.48j]]),
            np.array([[-0.33, -2.77, -1.0], [4.97, np.inf, -2.09], [-0.54, -3.11, -0.76]]),
            np.array([[np.nan, 1.0], [2.0, -3.0]]), np.zeros((3, 3)), np.eye(2)]
    mats = [m.astype(dtype) for m in mats if np.dtype(dtype).kind == "c" or not np.iscomplexobj(m)]
    mats += [values_for(rng, (n, n), np.dtype(dtype)) for n in (1, 2, 3, 3, 3, 4)]
    for m in mats:
        graph = hg.Graph([x := hg.tensor("x", m.shape, dtype)], [hg.det(x), *hg.slogdet(x)])
        with np.errstate(all="ignore"):
            want = [np.linalg.det(m), *np.linalg.slogdet(m)]
        for where, got in zip(("evaluate", "O0", "O2"), _on_every_path(graph, [m])):
            for g, w in zip(got, want):
                msg = compare(np.asarray(g), np.asarray(w))
                assert msg is None, f"{where} {m!r}: {msg}"


def test_complex_matmul_with_non_finite_parts_depends_on_numpys_path():
    # NumPy's complex matmul sums the parts of the products in the order its BLAS call
    # for that shape takes (gemv for one row, gemm for two), so the same row of the same
    # values gives nan - inf j alone and nan + nan j beside another row (the definition,
    # the sum of the complex products, is inf - inf j); hlograph gives one of these
    # there, and NumPy's values on finite operands (README, "NumPy semantics: the
    # documented differences")
    a = np.array([[-np.inf - 1.79j, -1.1 + 0.11j]])
    b = np.array([[-2.72 + 2.16j], [0.14 + 0.82j]])

    def pattern(z):
        return (np.isnan(z.real), np.isnan(z.imag), np.isinf(z.real), np.isinf(z.imag))

    with np.errstate(all="ignore"):
        one_row = np.matmul(a, b)[0, 0]
        two_rows = np.matmul(np.vstack([a, a]), b)[0, 0]
        definition = a[0, 0] * b[0, 0] + a[0, 1] * b[1, 0]
    assert pattern(one_row) != pattern(two_rows)
    assert pattern(definition) not in (pattern(one_row), pattern(two_rows))
    for rows in (a, np.vstack([a, a])):
        graph = hg.Graph([x := hg.tensor("a", rows.shape, "complex128"),
                          y := hg.tensor("b", b.shape, "complex128")], [hg.matmul(x, y)])
        with np.errstate(all="ignore"):
            for (got,) in _on_every_path(graph, [rows, b]):
                assert pattern(got[0, 0]) in (pattern(one_row), pattern(two_rows), pattern(definition))
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4)), rng.normal(size=(4, 2)) - 2j
    graph = hg.Graph([x := hg.tensor("a", a.shape, "complex128"), y := hg.tensor("b", b.shape, "complex128")],
                     [hg.matmul(x, y)])
    for (got,) in _on_every_path(graph, [a, b]):
        np.testing.assert_allclose(got, a @ b, rtol=1e-12)


@pytest.mark.parametrize("shape", [(3, 4, 0), (3, 0, 4), (0, 0)])
@pytest.mark.parametrize("ord", [2, "nuc", 1, np.inf, -np.inf, -1, "fro"])
def test_matrix_norm_of_empty_matrices(shape, ord):
    v = np.zeros(shape)
    try:
        want = np.linalg.norm(v, ord=ord, axis=(-2, -1))
    except ValueError:
        with pytest.raises(ValueError):
            hg.linalg.norm(hg.tensor("x", shape, "float64"), ord=ord, axis=(-2, -1))
        return
    graph = hg.Graph([x := hg.tensor("x", shape, "float64")], hg.linalg.norm(x, ord=ord, axis=(-2, -1)))
    for (out,) in _on_every_path(graph, [v]):
        assert_same(out, want)


@pytest.mark.parametrize("fn", [hg.dot, hg.inner, lambda a, b: hg.tensordot(a, b, 1), hg.matmul])
def test_dot_of_nan_times_zero_over_a_dim_of_size_1_is_nan_as_matmul(fn):
    # README, documented differences: NumPy's dot/inner/tensordot go through OpenBLAS's
    # matrix-vector product here, which gives 0; its matmul, and hlograph, give NaN
    a, b = np.array([[np.nan], [np.nan]]), np.array([0.0])
    x, y = hg.tensor("a", a.shape, "float64"), hg.tensor("b", b.shape, "float64")
    g = hg.Graph([x, y], [fn(x, y)])
    with np.errstate(invalid="ignore"):
        expected = np.matmul(a, b)
    assert np.isnan(expected).all()
    for where, (out,) in results_everywhere(g, a, b):
        np.testing.assert_array_equal(out, expected, err_msg=where)
