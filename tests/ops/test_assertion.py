"""Run-time checks: check_and_raise / assert_ pass values through or raise CheckError,
in hg.evaluate (perform) and in compiled functions (a Numba host segment)."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops import assertion as asn
import hlograph.lowering.rules.assertion  # noqa: F401
from hlograph.compiler.partition import partition
from hlograph.tests.helpers import compare_with_perform, random_array

PATHS = ["compiled", "perform"]


def run(path, graph, *values):
    return hg.compile(graph)(*values) if path == "compiled" else hg.evaluate(graph, *values)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16", "bfloat16", "complex128"])
@pytest.mark.parametrize("shape", [(), (0,), (3, 4)], ids=str)
def test_check_and_raise_passes_value_through(dtype, shape, rng):
    x = hg.tensor("x", shape, dtype)
    y = asn.check_and_raise(x, hg.constant(True), "never")
    compare_with_perform(hg.Graph([x], y), [random_array(rng, shape, dtype)])


@pytest.mark.parametrize("path", PATHS)
def test_check_and_raise_raises_with_message(path):
    x = hg.tensor("x", (3,), "float32")
    y = hg.exp(asn.check_and_raise(x, hg.all(x > 0), "x must be positive")) * 2
    g = hg.Graph([x], y)
    ok = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_allclose(run(path, g, ok), np.exp(ok) * 2, rtol=1e-6)
    with pytest.raises(asn.CheckError, match="^x must be positive$"):
        run(path, g, np.array([1.0, -2.0, 3.0], np.float32))


@pytest.mark.parametrize("path", PATHS)
def test_check_and_raise_array_and_several_conditions(path):
    x = hg.tensor("x", (4,), "int32")
    y = asn.check_and_raise(x, x >= 0, "negative entry", x < 10)
    g = hg.Graph([x], y + 1)
    np.testing.assert_array_equal(run(path, g, np.arange(4, dtype=np.int32)), np.arange(1, 5))
    for bad in ([0, 1, -1, 2], [0, 1, 2, 10]):
        with pytest.raises(asn.CheckError, match="negative entry"):
            run(path, g, np.array(bad, np.int32))


@pytest.mark.parametrize("path", PATHS)
def test_assert_returns_condition(path):
    c = hg.tensor("c", (2,), "bool")
    g = hg.Graph([c], asn.assert_(c, "c must hold"))
    np.testing.assert_array_equal(run(path, g, np.array([True, True])), [True, True])
    with pytest.raises(ValueError, match="c must hold"):
        run(path, g, np.array([True, False]))


@pytest.mark.parametrize("path", PATHS)
def test_check_with_float_condition_counts_nonzero_as_true(path):
    x = hg.tensor("x", (), "float64")
    g = hg.Graph([x], asn.check_and_raise(x, x, "x is zero"))
    assert run(path, g, np.float64(2.5)) == 2.5
    with pytest.raises(asn.CheckError, match="x is zero"):
        run(path, g, np.float64(0.0))


def test_check_runs_in_a_host_segment_that_sees_only_conditions():
    x = hg.tensor("x", (3,), "float32")
    g = hg.Graph([x], hg.exp(asn.check_and_raise(hg.sin(x), hg.all(x < 5), "big")))
    segments = partition(g)
    assert [s.kind for s in segments] == ["device", "host", "device"]
    assert [v.type for v in segments[1].inputs] == [hg.TensorType("bool", ())]


@pytest.mark.parametrize("path", PATHS)
def test_check_on_half_precision_values(path):
    x = hg.tensor("x", (3,), "bfloat16")
    g = hg.Graph([x], asn.check_and_raise(x * 2, x, "zero entry"))
    ok = np.array([1, 2, 3], x.dtype)
    np.testing.assert_array_equal(run(path, g, ok), ok * 2)
    with pytest.raises(asn.CheckError, match="zero entry"):
        run(path, g, np.array([1, 0, 3], x.dtype))


def test_check_and_raise_errors():
    x = hg.tensor("x", (3,), "float32")
    with pytest.raises(TypeError, match="msg must be a str"):
        asn.check_and_raise(x, True, 3)
    with pytest.raises(TypeError, match="condition 0 must be bool or real-valued, got complex64"):
        asn.check_and_raise(x, hg.tensor("c", (), "complex64"), "m")
    with pytest.raises(TypeError, match="needs at least one condition"):
        asn.Check("m")()
    with pytest.raises(TypeError, match=r"Check\{msg='m'\}: condition 0 must be bool, got float32\[3\]"):
        asn.Check("m")(x)
