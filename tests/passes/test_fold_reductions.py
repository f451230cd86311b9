"""hlograph-fold-reductions never changes a result: reductions of splats and of
broadcasts over their repeated dimensions, folded where every order of evaluation
gives the same bits, validated bit for bit (PJRT and the reference interpreter) on
inputs with NaN, infinities, signed zeros and integer extremes; the ones whose
value depends on the order stay."""

from __future__ import annotations

import numpy as np
import pytest

from hlograph.passes import run
from hlograph.passes.patterns.reduction import exact_float_sum
from hlograph.testing.validation import validate

from .test_simplify_algebra import KIND, MLIR, ModuleText

REDUCERS = ("add", "multiply", "maximum", "minimum", "and", "or", "xor")


def reduce_(m: ModuleText, v: str, init: str, name: str, dims: list[int], t_in: str, t_out: str,
            elem: str) -> str:
    return m.op(f"stablehlo.reduce({v} init: {init}) applies stablehlo.{name} across dimensions = "
                f"{dims} : ({t_in}, tensor<{elem}>) -> {t_out}")


def splat_module(dtype: str, cases) -> str:
    """One reduction over a broadcast splat per (reducer, c, init, shape, dims) case."""
    m = ModuleText()
    e = MLIR[dtype]
    m.arg(f"tensor<2x{e}>")  # (an argument, so that validation runs with inputs)
    for name, c, init, shape, dims in cases:
        cst = m.op(f"stablehlo.constant dense<{c}> : tensor<{e}>")
        i = m.op(f"stablehlo.constant dense<{init}> : tensor<{e}>")
        t_in = "tensor<" + "".join(f"{n}x" for n in shape) + f"{e}>"
        b = m.op(f"stablehlo.broadcast_in_dim {cst}, dims = [] : (tensor<{e}>) -> {t_in}")
        out_shape = [n for d, n in enumerate(shape) if d not in dims]
        t_out = "tensor<" + "".join(f"{n}x" for n in out_shape) + f"{e}>"
        m.result(reduce_(m, b, i, name, dims, t_in, t_out, e), t_out)
    return m.text()


FOLDED_SPLATS = {
    "f": [("add", "1.5", "0.0", (4, 3), [0, 1]), ("add", "0.375", "-0.0", (5, 7), [1]),
          ("add", "-0.0", "-0.0", (6,), [0]), ("add", "0.0", "0.0", (6,), [0]),
          ("add", "0x7C00", "0.0", (3, 2), [0]), ("add", "-3.0", "0.0", (0, 4), [0]),
          ("maximum", "2.5", "0xFC00", (4, 3), [0, 1]), ("minimum", "-0.0", "-0.0", (8,), [0]),
          ("minimum", "0x7E00", "0x7C00", (2, 3), [1]), ("maximum", "1.0", "3.0", (4,), [0]),
          ("add", "4.0", "0.0", (16, 8), [0, 1])],
    "i": [("add", "100", "3", (4, 3), [0, 1]), ("multiply", "3", "2", (5, 4), [0]),
          ("maximum", "-7", "-128", (4, 3), [1]), ("minimum", "5", "2", (4,), [0]),
          ("and", "6", "-1", (3, 3), [0]), ("or", "6", "1", (3, 3), [0, 1]),
          ("xor", "5", "3", (3,), [0]), ("xor", "5", "3", (4,), [0]), ("add", "7", "0", (0, 3), [0])],
    "u": [("add", "200", "3", (4, 3), [0, 1]), ("multiply", "3", "1", (7,), [0]),
          ("maximum", "9", "0", (4, 3), [1]), ("xor", "5", "0", (2, 2), [0, 1])],
    "b": [("add", "true", "false", (4, 3), [0]), ("multiply", "true", "true", (4,), [0]),
          ("and", "false", "true", (3,), [0]), ("xor", "true", "false", (3,), [0]),
          ("or", "false", "false", (2, 2), [0, 1]), ("minimum", "true", "true", (0, 2), [0])],
}


def _float_cases(dtype: str, cases):
    """The float cases with their hex literals (written for float16) in ``dtype``'s bits."""
    inf = {"float16": "0x7C00", "bfloat16": "0x7F80", "float32": "0x7F800000", "float64": "0x7FF0000000000000"}[dtype]
    ninf = {"float16": "0xFC00", "bfloat16": "0xFF80", "float32": "0xFF800000", "float64": "0xFFF0000000000000"}[dtype]
    nan = {"float16": "0x7E00", "bfloat16": "0x7FC0", "float32": "0x7FC00000", "float64": "0x7FF8000000000000"}[dtype]
    swap = {"0x7C00": inf, "0xFC00": ninf, "0x7E00": nan}
    return [(n, swap.get(c, c), swap.get(i, i), s, d) for n, c, i, s, d in cases]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int8", "int32", "uint8",
                                   "uint64", "bool"])
def test_reductions_of_splats_fold_exactly(dtype):
    k = KIND[dtype]
    cases = FOLDED_SPLATS[k]
    if k == "f":
        cases = _float_cases(dtype, cases)
    text = splat_module(dtype, cases)
    result = validate(text, "hlograph-fold-reductions", trials=1, interpreter=True)
    assert "stablehlo.reduce" not in result.optimized, result.optimized
    assert result.ops_after < result.ops_before


# float sums whose value depends on the order (rounding, overflow, subnormals, a nonzero
# init), float products, max/min of zeros of both signs: left alone
KEPT_SPLATS = [("add", "0.1", "0.0", (4, 3), [0, 1]), ("add", "1.0", "0.0", (4097, 4097), [0, 1]),
               ("add", "3.0e38", "0.0", (4,), [0]), ("add", "1.0e-40", "0.0", (4,), [0]),
               ("add", "1.5", "1.0", (4,), [0]), ("multiply", "1.5", "1.0", (4,), [0]),
               ("add", "-0.0", "0.0", (4,), [0]),
               ("maximum", "-0.0", "0.0", (4,), [0]), ("minimum", "0.0", "-0.0", (4,), [0])]


def test_order_dependent_float_reductions_of_splats_stay():
    text = splat_module("float32", KEPT_SPLATS)
    out = str(run(text, "hlograph-fold-reductions"))
    assert out.count("stablehlo.reduce") == len(KEPT_SPLATS), out


def test_exact_float_sum_matches_every_summation_order(rng):
    for dt in (np.float16, np.float32, np.float64):
        for c in rng.choice([0.75, -1.25, 3.0, 0.1, 1e-3, 6e4, -2.0 ** -10], size=6):
            c = dt(c)
            for k in (1, 2, 3, 17, 1000, 5000):
                exact = exact_float_sum(c, k, dt(0))
                copies = np.full(k, c, dtype=dt)
                with np.errstate(all="ignore"):
                    sequential = dt(0)
                    for v in copies:
                        sequential = dt(sequential + v)
                    pairwise = np.sum(copies, dtype=dt)  # (NumPy sums pairwise)
                if exact is not None:
                    assert exact == sequential == pairwise, (dt, c, k)
                    assert np.asarray(exact).dtype == np.dtype(dt)
    assert exact_float_sum(np.float32(0.1), 3, np.float32(0)) is None  # 0.1 + 0.1 + 0.1 rounds
    assert exact_float_sum(np.float32(1.5), 3, np.float32(1)) is None  # a nonzero init


def broadcast_module(dtype: str, cases, init_arg: bool = False) -> str:
    """One reduction of a broadcast argument per (reducer, x shape, dims, out shape,
    reduced dims, init) case; ``init=None`` takes the init from an argument."""
    m = ModuleText()
    e = MLIR[dtype]
    scalar = m.arg(f"tensor<{e}>")
    for name, xs, bdims, shape, dims, init in cases:
        x = m.arg("tensor<" + "".join(f"{n}x" for n in xs) + f"{e}>")
        tx = "tensor<" + "".join(f"{n}x" for n in xs) + f"{e}>"
        t_in = "tensor<" + "".join(f"{n}x" for n in shape) + f"{e}>"
        b = m.op(f"stablehlo.broadcast_in_dim {x}, dims = {bdims} : ({tx}) -> {t_in}")
        i = scalar if init is None else m.op(f"stablehlo.constant dense<{init}> : tensor<{e}>")
        out_shape = [n for d, n in enumerate(shape) if d not in dims]
        t_out = "tensor<" + "".join(f"{n}x" for n in out_shape) + f"{e}>"
        m.result(reduce_(m, b, i, name, dims, t_in, t_out, e), t_out)
    return m.text()


INT_BROADCASTS = [
    ("add", (3,), [1], (4, 3), [0], "0"), ("add", (3,), [1], (4, 3), [0], None),
    ("add", (3,), [2], (4, 5, 3), [0, 1], "0"), ("add", (1, 3), [0, 2], (4, 5, 3), [0, 1], "0"),
    ("add", (3, 2), [2, 0], (2, 5, 3), [1], "0"), ("add", (1, 3), [0, 1], (256, 3), [0], None),
    ("maximum", (3,), [1], (4, 3), [0], None), ("minimum", (3, 1), [1, 0], (1, 3, 6), [0, 2], None),
    ("and", (3,), [0], (3, 4), [1], None), ("or", (3,), [0], (3, 4), [1], "0"),
    ("xor", (3,), [0], (3, 4), [1], None), ("xor", (3,), [0], (3, 5), [1], "0"),
    ("add", (), [], (4, 3), [0, 1], None),
]
BOOL_BROADCASTS = [
    ("add", (3,), [1], (4, 3), [0], "false"), ("add", (3,), [1], (4, 3), [0], None),
    ("multiply", (3,), [1], (4, 3), [0], None), ("maximum", (3,), [0], (3, 2), [1], "false"),
    ("minimum", (3,), [0], (3, 2), [1], "true"), ("xor", (3,), [0], (3, 3), [1], None),
    ("xor", (3,), [0], (3, 2), [1], "false"),
]
FLOAT_BROADCASTS = [
    ("maximum", (3,), [1], (4, 3), [0], "-inf"), ("minimum", (3,), [1], (4, 3), [0], "inf"),
    ("maximum", (1, 3), [0, 2], (4, 5, 3), [0, 1], "-inf"), ("maximum", (2, 3), [2, 0], (3, 7, 2), [1], "-inf"),
]


def _float_literals(dtype: str, cases):
    bits = {"float16": ("0xFC00", "0x7C00"), "bfloat16": ("0xFF80", "0x7F80"),
            "float32": ("0xFF800000", "0x7F800000"), "float64": ("0xFFF0000000000000", "0x7FF0000000000000")}[dtype]
    lit = {"-inf": bits[0], "inf": bits[1]}
    return [(n, x, b, s, d, lit.get(i, i)) for n, x, b, s, d, i in cases]


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint32", "int64", "bool", "float16", "float32", "float64"])
def test_reductions_of_broadcasts_fold_exactly(dtype):
    k = KIND[dtype]
    cases = {"b": BOOL_BROADCASTS, "f": _float_literals(dtype, FLOAT_BROADCASTS) if k == "f" else None}.get(
        k, INT_BROADCASTS)
    text = broadcast_module(dtype, cases)
    result = validate(text, "hlograph-fold-reductions", trials=3, interpreter=True)
    assert "stablehlo.reduce" not in result.optimized, result.optimized
    assert result.ops_after < result.ops_before or k == "f"


# a reduction over a dimension that holds different elements of x; float sums and products
# of copies (they round); float max/min with an init that is not the identity (the sign of a
# zero result would depend on the order); integer products; variadic reductions
def test_reductions_of_broadcasts_that_do_not_only_repeat_stay():
    cases = [("add", (3,), [1], (4, 3), [1], "0.0"), ("add", (3,), [1], (4, 3), [0], "0.0"),
             ("multiply", (3,), [1], (4, 3), [0], "1.0"), ("maximum", (3,), [1], (4, 3), [0], "0.0"),
             ("maximum", (3,), [1], (4, 3), [0], None)]
    out = str(run(broadcast_module("float32", cases), "hlograph-fold-reductions"))
    assert out.count("stablehlo.reduce") == len(cases), out
    ints = [("multiply", (3,), [1], (4, 3), [0], "1"), ("add", (2, 3), [0, 1], (2, 3), [1], "0")]
    out = str(run(broadcast_module("int32", ints), "hlograph-fold-reductions"))
    assert out.count("stablehlo.reduce") == len(ints), out


def test_variadic_reduction_stays():
    text = """
func.func public @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %b = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
  %i = stablehlo.iota dim = 0 : tensor<4x3xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%b init: %ninf), (%i init: %z) across dimensions = [0] : (tensor<4x3xf32>, tensor<4x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
    reducer(%a: tensor<f32>, %c: tensor<f32>) (%ai: tensor<i32>, %ci: tensor<i32>) {
      %m = stablehlo.maximum %a, %c : tensor<f32>
      %mi = stablehlo.maximum %ai, %ci : tensor<i32>
      stablehlo.return %m, %mi : tensor<f32>, tensor<i32>
    }
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xi32>
}
"""
    result = validate(text, "hlograph-fold-reductions", trials=1)
    assert "stablehlo.reduce" in result.optimized


def test_o2_folds_the_sum_of_a_broadcast_seed():
    """The cotangent of a sum is a broadcast splat; summed again (a mean's count, a
    broadcast back and forth) it folds to a constant in O2."""
    text = """
func.func public @main(%x: tensor<8x4xi32>) -> (tensor<i32>, tensor<4xi32>) {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %b = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<i32>) -> tensor<8x4xi32>
  %n = stablehlo.reduce(%b init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x4xi32>, tensor<i32>) -> tensor<i32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x4xi32>, tensor<i32>) -> tensor<8xi32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<8xi32>) -> tensor<8x4xi32>
  %back = stablehlo.reduce(%sb init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x4xi32>, tensor<i32>) -> tensor<4xi32>
  return %n, %back : tensor<i32>, tensor<4xi32>
}
"""
    result = validate(text, "O2", trials=2)
    assert "dense<32>" in result.optimized
    assert result.optimized.count("stablehlo.reduce") == 2, result.optimized
