"""``bitcast`` and ``x.view(dtype)`` against NumPy's ``view``: every bit kept (NaN
payloads too), over dtypes of each width, 0-d and empty shapes; the width changes
of ``lax.bitcast_convert_type`` (a trailing dim added or consumed)."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops.bitcast import Bitcast
from hlograph.tests.helpers import compare_with_perform

WIDTHS = {1: ["int8", "uint8"], 2: ["int16", "uint16", "float16", "bfloat16"],
          4: ["int32", "uint32", "float32"], 8: ["int64", "uint64", "float64"]}
DTYPES = [d for ds in WIDTHS.values() for d in ds]
SHAPES = [(), (0,), (5,), (2, 0, 3), (3, 4)]


def random_bits(rng, shape, dtype):
    """Values of ``dtype`` with random bits (NaNs with payloads, infs, subnormals)."""
    dtype = hg.frontend.types.as_dtype(dtype)
    raw = rng.integers(0, 256, size=(*shape, dtype.itemsize), dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def numpy_bitcast(x, dtype):
    """lax.bitcast_convert_type's semantics, from NumPy's view (little-endian)."""
    dtype = hg.frontend.types.as_dtype(dtype)
    x = np.array(x, order="C")  # (ascontiguousarray makes 0-d arrays 1-d)
    if x.dtype.itemsize > dtype.itemsize:
        return x.reshape(*x.shape, 1).view(dtype)
    if x.dtype.itemsize < dtype.itemsize:
        return x.view(dtype).reshape(x.shape[:-1])
    return x.reshape(*x.shape, 1).view(dtype).reshape(x.shape)


def assert_bits(actual, expected):
    actual = np.asarray(actual)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (actual.dtype, actual.shape,
                                                                              expected.dtype, expected.shape)
    assert actual.tobytes() == expected.tobytes()


def check(rng, src, cases):
    """Bitcasts of ``src`` values, ``cases`` a list of (dst, shape), in one graph."""
    inputs = [hg.tensor(f"x{i}", shape, src) for i, (_, shape) in enumerate(cases)]
    g = hg.Graph(inputs, [hg.bitcast(x, dst) for x, (dst, _) in zip(inputs, cases)])
    values = [random_bits(rng, shape, src) for _, shape in cases]
    expected = [numpy_bitcast(v, dst) for v, (dst, _) in zip(values, cases)]
    for results in (hg.evaluate(g, *values), hg.compile(g)(*values)):
        for a, e in zip(results, expected):
            assert_bits(a, e)


@pytest.mark.parametrize("src", DTYPES)
def test_same_width(src, rng):
    width = hg.frontend.types.as_dtype(src).itemsize
    dsts = [d for d in WIDTHS[width] if d != src]
    check(rng, src, [(dst, shape) for dst in dsts for shape in SHAPES])


@pytest.mark.parametrize("src", DTYPES)
def test_other_widths(src, rng):
    a = hg.frontend.types.as_dtype(src).itemsize
    cases = []
    for b, dsts in WIDTHS.items():
        for dst in dsts if b != a else []:
            for shape in [(), (0,), (3,), (2, 3)]:
                # narrower -> wider consumes a trailing dim of b // a
                cases.append((dst, (*shape, b // a) if a < b else shape))
    check(rng, src, cases)


def test_width_changes_and_round_trips(rng):
    x = hg.tensor("x", (3, 2), "float32")
    wide = hg.bitcast(x, "uint8")
    assert wide.type == hg.TensorType("uint8", (3, 2, 4))
    back = hg.bitcast(wide, "float32")
    assert back.type == x.type
    pair = hg.bitcast(x, "float64")  # two float32 make one float64
    assert pair.type == hg.TensorType("float64", (3,))
    value = random_bits(rng, (3, 2), "float32")
    out = hg.compile(hg.Graph([x], [back, pair]))(value)
    assert_bits(out[0], value)
    assert_bits(out[1], value.view(np.float64).reshape(3))
    # the same dtype is the value itself
    assert hg.bitcast(x, "float32") is x


def test_bool(rng):
    b = hg.tensor("b", (4, 3), "bool")
    u = hg.tensor("u", (5,), "uint8")
    g = hg.Graph([b, u], [hg.bitcast(b, "uint8"), hg.bitcast(b, "int8"), hg.bitcast(u, "bool")])
    bv = rng.random((4, 3)) < 0.5
    uv = np.array([0, 1, 2, 255, 0], np.uint8)
    out = compare_with_perform(g, [bv, uv])[0]
    assert_bits(out[0], bv.view(np.uint8))
    assert_bits(out[1], bv.view(np.int8))
    np.testing.assert_array_equal(out[2], uv != 0)  # a nonzero byte reads as True
    with pytest.raises(TypeError, match="bool bitcasts only to and from 8-bit integers"):
        hg.bitcast(b, "int32")


def test_errors():
    x = hg.tensor("x", (3, 2), "uint16")
    with pytest.raises(ValueError, match="needs a trailing dim of 4"):
        hg.bitcast(x, "float64")
    with pytest.raises(ValueError, match="needs a trailing dim of 2"):
        hg.bitcast(hg.tensor("s", (), "uint16"), "uint32")
    with pytest.raises(TypeError, match="complex dtypes have no bitcast"):
        hg.bitcast(x, "complex64")
    with pytest.raises(TypeError, match="complex dtypes have no bitcast"):
        hg.bitcast(hg.tensor("c", (2,), "complex64"), "float64")


def test_zero_derivative(rng):
    x = hg.tensor("x", (3,), "float32")
    y = hg.bitcast(hg.bitcast(x, "int32") + 1, "float32")
    g = hg.Graph([x], hg.grad(hg.sum(y * 2 + x), x))
    np.testing.assert_array_equal(hg.compile(g)(rng.normal(size=3).astype(np.float32)), np.ones(3, np.float32))
    assert Bitcast("int32").pullback(None, [None]) == [None]


@pytest.mark.parametrize("src, dst", [("float32", "int32"), ("float64", "uint8"), ("uint8", "float32"),
                                      ("int16", "float64"), ("bool", "int16"), ("float32", "bool"),
                                      ("uint32", "float16")])
@pytest.mark.parametrize("shape", [(), (0,), (8,), (2, 4), (3, 0)])
def test_ndarray_view(src, dst, shape, rng):
    value = random_bits(rng, shape, src) if src != "bool" else rng.random(shape) < 0.5
    try:
        expected = value.view(dst)
    except ValueError:
        with pytest.raises(ValueError):
            hg.tensor("x", shape, src).view(dst)
        return
    x = hg.tensor("x", shape, src)
    g = hg.Graph([x], x.view(dst))
    out = hg.compile(g)(value)
    if dst == "bool":  # NumPy keeps the raw bytes; a graph's bool is 0 or 1
        np.testing.assert_array_equal(out, expected.view(np.uint8) != 0)
    else:
        assert_bits(out, expected)
    assert_bits(np.asarray(hg.evaluate(g, value)), np.asarray(out))
