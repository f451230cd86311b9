"""hlograph-round-compared-sums: the products a compared sum adds are rounded before
the add (XLA:CPU would contract them into fused multiply-adds), so that comparisons
decide as NumPy's do."""

from __future__ import annotations

import numpy as np
import pytest

import hlograph as hg
import hlograph.passes
from hlograph.passes.round_compared_sums import round_compared_sums
from hlograph.runtime import executables
from hlograph.testing.validation import assert_same_bits, run_interpreter, run_pjrt, validate
from hlograph.xla import mlir

#: a * b + c with a * b = 1 - 2**-60: 1.0 once rounded (NumPy: the sum is 0), -2**-60
#: when contracted into an FMA
A, B, C = 1 + 2.0**-30, 1 - 2.0**-30, -1.0

SUM = """
func.func public @main(%a: tensor<4xf64>, %b: tensor<4xf64>, %c: tensor<4xf64>) -> (tensor<4xi1>, tensor<4xf64>) {
  %0 = stablehlo.multiply %a, %b : tensor<4xf64>
  %1 = stablehlo.add %0, %c : tensor<4xf64>
  %z = stablehlo.constant dense<0.0> : tensor<4xf64>
  %2 = stablehlo.compare GE, %1, %z, FLOAT : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xi1>
  return %2, %1 : tensor<4xi1>, tensor<4xf64>
}
"""


def test_a_compared_sum_is_numpys():
    a, b, c = (np.full(4, v) for v in (A, B, C))
    assert (a * b + c == 0).all()
    f = hg.function(lambda a, b, c: (a * b + c >= 0, a * b + c))
    ge, s = f(a, b, c)
    np.testing.assert_array_equal(ge, [True] * 4)
    np.testing.assert_array_equal(s, [0.0] * 4)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_squared_distances_on_the_diagonal_are_zero(rng, dtype):
    """``s_i - 2 x_i . x_j + s_j`` is exactly 0 for i == j in NumPy: the clip gradient
    mask of a squared-distance kernel keeps the diagonal."""
    x = (rng.normal(size=(40, 1)) * 3).astype(dtype)

    def sqd(x):
        s = hg.sum(x * x, axis=1)
        return -2.0 * hg.matmul(x, hg.swapaxes(x, 0, 1)) + (hg.reshape(s, (-1, 1)) + hg.reshape(s, (1, -1)))

    d, mask = hg.function(lambda x: (sqd(x), sqd(x) >= 0))(x)
    s = np.sum(x * x, axis=1)
    want = -2.0 * (x @ x.T) + (s[:, None] + s[None, :])
    np.testing.assert_array_equal(np.diag(d), np.diag(want))
    np.testing.assert_array_equal(mask, want >= 0)


def test_translation_validation(rng):
    """The rounded module run by XLA computes, bit for bit, what StableHLO's reference
    interpreter (which contracts nothing) computes from the original module, on random
    inputs and on the case an FMA decides differently; and PJRT runs before and after
    agree."""
    validate(SUM, "hlograph-round-compared-sums", trials=3, interpreter=False)
    module = hlograph.passes.run(SUM, "O0")
    assert round_compared_sums(module) == 1
    cases = [[np.full(4, v) for v in (A, B, C)]] + [[rng.normal(size=4) for _ in range(3)] for _ in range(3)]
    for args in cases:
        assert_same_bits(run_interpreter(SUM, args), run_pjrt(module, args))


def test_only_products_added_into_compared_values_are_cut():
    module = hlograph.passes.run(SUM, "O0")
    assert round_compared_sums(module) == 1
    text = str(module)
    assert text.count("@dce_sink") == 1
    assert round_compared_sums(module) == 0  # a rounded product is not cut again
    untouched = hlograph.passes.run(SUM.replace("stablehlo.compare GE, %1", "stablehlo.compare GE, %0"), "O0")
    assert round_compared_sums(untouched) == 0


def test_modules_with_excess_precision_left_alone():
    text = SUM.replace("tensor<4xf64>", "tensor<4xbf16>")
    module = hlograph.passes.run(text, "O0")
    assert round_compared_sums(module) == 0 and "dce_sink" not in str(module)


def test_compile_plan_applies_it_on_the_cpu():
    from hlograph.runtime import devices

    module = hlograph.passes.run(SUM, "O0")
    bytecode = mlir.module_to_bytecode(module)
    plan = executables.compile_plan(devices.get_client("cpu"), bytecode, devices.devices("cpu")[0])
    assert plan.cuts == 1 and plan.changed and b"dce_sink" in plan.bytecode
    # a module that compares no sum compiles as it is
    plain = mlir.module_to_bytecode(hlograph.passes.run(SUM.replace("stablehlo.compare GE, %1", "stablehlo.compare GE, %0"), "O0"))
    plan = executables.compile_plan(devices.get_client("cpu"), plain, devices.devices("cpu")[0])
    assert plan.cuts == 0 and plan.bytecode == plain


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_scaled_squared_distances_keep_their_diagonal(rng, dtype):
    """A Gaussian process's kernel on inputs divided by a length scale (PyMC's ExpQuad:
    ``x / ls``, then squared distances): NumPy's quotient is correctly rounded and
    its diagonal cancels to 0 exactly, where XLA's ``x * (1 / ls)`` and a sum of one
    square (which XLA makes the square itself) would not; the clip gradient mask
    ``d >= 0`` is NumPy's, and so is the gradient."""
    x = (rng.normal(size=(40, 1)) * 3).astype(dtype)
    ls = np.asarray(0.7, dtype)

    def sqd(x, ls):
        xs = x / ls
        s = hg.sum(xs * xs, axis=1)
        return hg.reshape(s, (-1, 1)) - hg.matmul(x * 2.0 / ls, hg.swapaxes(xs, 0, 1)) + hg.reshape(s, (1, -1))

    def kernel_sum(x, ls):
        return hg.sum(hg.exp(-0.5 * hg.clip(sqd(x, ls), 0.0, np.inf)))

    d, mask = hg.function(lambda x, ls: (sqd(x, ls), sqd(x, ls) >= 0))(x, ls)
    xs = x / ls
    s = np.sum(xs * xs, axis=1)
    want = s[:, None] - (x * 2.0 / ls) @ xs.T + s[None, :]
    np.testing.assert_array_equal(np.diag(d), 0)
    np.testing.assert_array_equal(mask, want >= 0)
    # the gradient through the clip keeps the diagonal's terms: as finite differences
    x = x.astype(np.float64)
    xv, lv = hg.tensor("x", x.shape, "float64"), hg.tensor("ls", (), "float64")
    g = hg.compile(hg.Graph([xv, lv], hg.grad(kernel_sum(xv, lv), lv)))(x, 0.7)
    ref = [np.sum(np.exp(-0.5 * np.clip(
        ((x / h) ** 2).sum(1)[:, None] - (x * 2.0 / h) @ (x / h).T + ((x / h) ** 2).sum(1)[None, :], 0, np.inf)))
        for h in (0.7 + 1e-6, 0.7 - 1e-6)]
    np.testing.assert_allclose(g, (ref[0] - ref[1]) / 2e-6, rtol=1e-5)


DIVIDED = """
func.func public @main(%x: tensor<5x1xf64>, %l: tensor<f64>) -> (tensor<5x5xi1>, tensor<5x5xf64>) {
  %lb = stablehlo.broadcast_in_dim %l, dims = [] : (tensor<f64>) -> tensor<5x1xf64>
  %xs = stablehlo.divide %x, %lb : tensor<5x1xf64>
  %sq = stablehlo.multiply %xs, %xs : tensor<5x1xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<f64>
  %s = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<5x1xf64>, tensor<f64>) -> tensor<5xf64>
  %d = stablehlo.dot_general %xs, %xs, contracting_dims = [1] x [1] : (tensor<5x1xf64>, tensor<5x1xf64>) -> tensor<5x5xf64>
  %si = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<5xf64>) -> tensor<5x5xf64>
  %sj = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<5xf64>) -> tensor<5x5xf64>
  %two = stablehlo.constant dense<2.0> : tensor<5x5xf64>
  %t = stablehlo.multiply %two, %d : tensor<5x5xf64>
  %u = stablehlo.subtract %si, %t : tensor<5x5xf64>
  %v = stablehlo.add %u, %sj : tensor<5x5xf64>
  %z = stablehlo.constant dense<0.0> : tensor<5x5xf64>
  %c = stablehlo.compare GE, %v, %z, FLOAT : (tensor<5x5xf64>, tensor<5x5xf64>) -> tensor<5x5xi1>
  return %c, %v : tensor<5x5xi1>, tensor<5x5xf64>
}
"""


def test_summed_squares_and_divisions_in_compared_values_are_cut(rng):
    """The walk goes through a reduction that sums (its products are added) and into the
    factors of the products it meets, where a division by a broadcast gets its divisor
    cut; the cut module computes, bit for bit, what the reference interpreter computes
    from the original one, and its diagonal is 0."""
    module = hlograph.passes.run(DIVIDED, "O0")
    assert round_compared_sums(module) == 3  # the square, 2 * d, the divisor
    text = str(module)
    assert text.count("@dce_sink") == 3
    assert round_compared_sums(module) == 0
    for args in [[rng.normal(size=(5, 1)) * 3, np.float64(h)] for h in (0.7, 0.3, 1.9)]:
        want = run_interpreter(DIVIDED, args)
        got = run_pjrt(module, args)
        assert_same_bits(want, got)
        np.testing.assert_array_equal(np.diag(got[1]), 0)
