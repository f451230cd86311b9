"""conv_general_dilated, conv_transpose and convolve: compiled results against
perform, perform against jax.lax.conv_general_dilated / jax.lax.conv_transpose
(float32) and numpy.convolve, dtypes, layouts, strides, padding, dilations,
feature and batch groups, size-0 dims, errors."""

import jax
import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops import conv
import hlograph.lowering.rules.conv  # noqa: F401  (registers the rule)
from hlograph.tests.helpers import assert_same, compare_with_perform, random_array

TOL = {
    "float32": dict(rtol=1e-4, atol=1e-4),
    "float64": dict(rtol=1e-10, atol=1e-10),
    "complex64": dict(rtol=1e-4, atol=1e-4),
    "float16": dict(rtol=1e-2, atol=1e-2),
}

# (lhs shape, rhs shape, kwargs)
CASES = [
    ((2, 3, 7), (4, 3, 3), dict()),
    ((1, 2, 6, 5), (3, 2, 3, 2), dict(window_strides=(2, 1), padding="SAME")),
    ((1, 2, 6, 5), (3, 2, 3, 2), dict(padding="SAME_LOWER", rhs_dilation=(2, 1))),
    ((1, 2, 5, 5), (2, 2, 2, 2), dict(padding=((1, 2), (0, -1)), lhs_dilation=(2, 1))),
    ((2, 5, 6, 4), (3, 2, 4, 3), dict(dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    ((2, 6, 5, 4), (6, 4, 3, 3), dict(dimension_numbers=("NHWC", "OIHW", "NCHW"), padding="SAME")),
    ((1, 4, 7), (6, 2, 3), dict(feature_group_count=2, window_strides=(3,))),
    ((1, 4, 7), (4, 1, 3), dict(feature_group_count=4, padding="SAME")),   # depthwise
    ((1, 1, 4, 4, 3), (2, 1, 2, 2, 2), dict(padding="SAME")),              # 3 spatial dims
    ((0, 2, 5), (3, 2, 2), dict()),                                         # empty batch
    ((6, 3, 5), (4, 3, 2), dict(batch_group_count=2)),
    ((4, 2, 5, 5), (6, 2, 2, 3), dict(batch_group_count=2, padding="SAME", window_strides=(2, 1))),
    ((3, 5, 6, 2), (2, 3, 2, 6), dict(batch_group_count=3, rhs_dilation=(2, 1),
                                      dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    ((0, 2, 5), (4, 2, 2), dict(batch_group_count=2)),                      # empty batch, 2 groups
    ((1, 2, 2), (3, 2, 4), dict()),                                         # window > input
]


def _lax_reference(a, b, kw):
    kw = dict(kw)
    kw.setdefault("padding", "VALID")
    kw.setdefault("window_strides", (1,) * (a.ndim - 2))
    return np.asarray(jax.lax.conv_general_dilated(a, b, precision="highest", **kw))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_conv_general_dilated(case, rng):
    sa, sb, kw = case
    a, b = random_array(rng, sa, "float32"), random_array(rng, sb, "float32")
    x, w = hg.tensor("x", sa, "float32"), hg.tensor("w", sb, "float32")
    g = hg.Graph([x, w], conv.conv_general_dilated(x, w, **kw))
    _, ref = compare_with_perform(g, [a, b], **TOL["float32"])
    assert_same(ref, _lax_reference(a, b, kw), **TOL["float32"])


# (lhs shape, rhs shape, kwargs) for conv_transpose, default layouts NHC / NHWC
TRANSPOSE_CASES = [
    ((2, 5, 3), (3, 3, 4), dict(strides=(2,), padding="SAME")),
    ((2, 5, 3), (3, 3, 4), dict(strides=(2,), padding="VALID")),
    ((2, 5, 3), (2, 3, 4), dict(strides=(3,), padding="VALID")),            # stride > kernel
    ((1, 4, 5, 2), (3, 2, 2, 3), dict(strides=(2, 3), padding=((1, 0), (2, 2)), rhs_dilation=(1, 2))),
    ((1, 4, 5, 2), (3, 2, 3, 2), dict(strides=(2, 1), padding="SAME", transpose_kernel=True)),
    ((1, 2, 4, 5), (3, 2, 2, 2), dict(strides=(1, 2), padding="VALID",
                                      dimension_numbers=("NCHW", "OIHW", "NCHW"))),
    ((2, 3, 5), (4, 3, 2), dict(strides=(2,), padding="SAME", rhs_dilation=(2,), transpose_kernel=True,
                                dimension_numbers=("NCH", "IOH", "NCH"))),
    ((3, 4), (4, 2), dict(strides=(), padding=())),                         # no spatial dims
    ((0, 3, 2), (2, 2, 3), dict(strides=(2,), padding="SAME")),             # empty batch
]


@pytest.mark.parametrize("case", TRANSPOSE_CASES, ids=str)
def test_conv_transpose(case, rng):
    sa, sb, kw = case
    a, b = random_array(rng, sa, "float32"), random_array(rng, sb, "float32")
    x, w = hg.tensor("x", sa, "float32"), hg.tensor("w", sb, "float32")
    g = hg.Graph([x, w], conv.conv_transpose(x, w, **kw))
    _, ref = compare_with_perform(g, [a, b], **TOL["float32"])
    assert_same(ref, np.asarray(jax.lax.conv_transpose(a, b, precision="highest", **kw)), **TOL["float32"])


def test_conv_transpose_dtypes_and_promotion(rng):
    a = random_array(rng, (2, 4, 3), "int32", "small_int")
    b = random_array(rng, (3, 3, 2), "int64", "small_int")
    x, w = hg.tensor("x", (2, 4, 3), "int32"), hg.tensor("w", (3, 3, 2), "int64")
    out = conv.conv_transpose(x, w, (2,), "SAME")
    assert out.dtype == np.int64 and out.type.shape == (2, 8, 2)
    _, ref = compare_with_perform(hg.Graph([x, w], out), [a, b])
    want = jax.lax.conv_transpose(a.astype(np.float32), b.astype(np.float32), (2,), "SAME")
    np.testing.assert_array_equal(ref, np.asarray(want).astype(np.int64))


@pytest.mark.parametrize("dtype", ["float64", "complex64", "int32", "float16"])
def test_conv_dtypes(dtype, rng):
    sa, sb = (2, 3, 6, 5), (4, 3, 2, 3)
    kind = "small_int" if dtype == "int32" else "normal"
    a, b = random_array(rng, sa, dtype, kind), random_array(rng, sb, dtype, kind)
    x, w = hg.tensor("x", sa, dtype), hg.tensor("w", sb, dtype)
    g = hg.Graph([x, w], conv.conv_general_dilated(x, w, (1, 2), "SAME", rhs_dilation=(2, 1)))
    compare_with_perform(g, [a, b], **TOL.get(dtype, {}))


def test_conv_unknown_dims_and_promotion():
    x, w = hg.tensor("x", (None, 3, 8), "float32"), hg.tensor("w", (4, 3, 3), "float64")
    out = conv.conv_general_dilated(x, w, (2,), ((1, 1),))
    assert out.dtype == np.float64 and out.type.shape == (None, 4, 4)
    out = conv.conv_general_dilated(x, w, batch_group_count=2)
    assert out.type.shape == (None, 4, 6)
    out = conv.conv_general_dilated(hg.tensor("y", (6, 3, 8)), hg.tensor("v", (None, 3, 3)), batch_group_count=3)
    assert out.type.shape == (2, None, 6)


def test_conv_batch_groups_specialize_unknown_batch(rng):
    x, w = hg.tensor("x", (None, 2, 6), "float32"), hg.tensor("w", (4, 2, 3), "float32")
    g = hg.Graph([x, w], conv.conv_general_dilated(x, w, batch_group_count=2))
    a, b = random_array(rng, (4, 2, 6), "float32"), random_array(rng, (4, 2, 3), "float32")
    actual, ref = compare_with_perform(g, [a, b], **TOL["float32"])
    assert actual.shape == (2, 4, 4)
    assert_same(ref, _lax_reference(a, b, dict(batch_group_count=2)), **TOL["float32"])


@pytest.mark.parametrize("kwargs, shapes, err, match", [
    (dict(), ((1, 4, 5), (2, 3, 2)), ValueError, r"'lhs' .* has 4 features but 'rhs' .* expects 3"),
    (dict(feature_group_count=2), ((1, 4, 5), (3, 2, 2)), ValueError, r"do not split into 2 groups"),
    (dict(padding="FULL"), ((1, 3, 5), (2, 3, 2)), ValueError, r"padding must be"),
    (dict(window_strides=(0,)), ((1, 3, 5), (2, 3, 2)), ValueError, r"window_strides must be 1 ints >= 1"),
    (dict(dimension_numbers=("NCH", "OIW", "NCH")), ((1, 3, 5), (2, 3, 2)), ValueError,
     r"must name the same spatial dims"),
    (dict(), ((1, 3, 5), (2, 3)), ValueError, r"input 'rhs' must have 3 dims"),
    (dict(batch_group_count=2), ((3, 3, 5), (2, 3, 2)), ValueError,
     r"batch of 'lhs' .* \(3\) does not split into 2 batch groups"),
    (dict(batch_group_count=2), ((4, 3, 5), (3, 3, 2)), ValueError, r"do not split into 2 batch groups"),
    (dict(batch_group_count=2, feature_group_count=3), ((4, 3, 5), (6, 1, 2)), ValueError,
     r"at most one of feature_group_count and batch_group_count may be > 1, got 3 and 2"),
    (dict(batch_group_count=0), ((4, 3, 5), (2, 3, 2)), ValueError, r"batch_group_count must be >= 1, got 0"),
], ids=str)
def test_conv_rejects_bad_arguments(kwargs, shapes, err, match):
    x, w = hg.tensor("x", shapes[0]), hg.tensor("w", shapes[1])
    with pytest.raises(err, match=match):
        conv.conv_general_dilated(x, w, **kwargs)


@pytest.mark.parametrize("args, kwargs, shapes, match", [
    (((2,), "FULL"), {}, ((1, 5, 3), (2, 3, 4)), r"conv_transpose: padding must be 'SAME', 'VALID'"),
    (((2,), "SAME"), {}, ((1, 5, 3), (2, 3)), r"conv_transpose: lhs and rhs must have the same rank"),
    (((2, 2), "SAME"), {}, ((1, 5, 3), (2, 3, 4)), r"strides must be 1 ints >= 1"),
    (((2,), "VALID"), {}, ((1, 5, 3), (2, 4, 4)), r"'lhs' .* has 3 features but 'rhs' .* expects 4"),
    (((1,) * 4, "SAME"), {}, ((1,) * 6, (1,) * 6), r"no default dimension_numbers for rank 6"),
], ids=str)
def test_conv_transpose_rejects_bad_arguments(args, kwargs, shapes, match):
    x, w = hg.tensor("x", shapes[0]), hg.tensor("w", shapes[1])
    with pytest.raises(ValueError, match=match):
        conv.conv_transpose(x, w, *args, **kwargs)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("n, m", [(7, 3), (6, 4), (3, 5), (1, 1), (4, 4)], ids=str)
def test_convolve(n, m, mode, rng):
    a, v = random_array(rng, (n,), "float64"), random_array(rng, (m,), "float64")
    x, y = hg.tensor("a", (n,), "float64"), hg.tensor("v", (m,), "float64")
    _, ref = compare_with_perform(hg.Graph([x, y], conv.convolve(x, y, mode)), [a, v], **TOL["float64"])
    assert_same(ref, np.convolve(a, v, mode), **TOL["float64"])


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64"])
def test_convolve_dtypes(dtype, rng):
    kind = "small_int" if dtype == "int64" else "normal"
    a, v = random_array(rng, (6,), dtype, kind), random_array(rng, (3,), dtype, kind)
    x, y = hg.tensor("a", (6,), dtype), hg.tensor("v", (3,), dtype)
    _, ref = compare_with_perform(hg.Graph([x, y], conv.convolve(x, y, "same")), [a, v], **TOL.get(dtype, {}))
    assert_same(ref, np.convolve(a, v, "same"), **TOL.get(dtype, {}))


def test_convolve_rejects_bad_input():
    with pytest.raises(ValueError, match=r"convolve: inputs cannot be empty"):
        conv.convolve(hg.tensor("a", (0,)), hg.tensor("v", (3,)))
    with pytest.raises(ValueError, match=r"convolve: mode must be"):
        conv.convolve(hg.tensor("a", (4,)), hg.tensor("v", (3,)), "circular")
    with pytest.raises(ValueError, match=r"convolve: inputs must be 1-D"):
        conv.convolve(hg.tensor("a", (2, 4)), hg.tensor("v", (3,)))
