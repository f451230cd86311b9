"""hlograph-simplify-power never changes a result: power by a constant exponent
rewritten as cheaper ops only where the bits stay the same, validated bit for bit
(PJRT and the reference interpreter) on inputs with NaN, infinities, signed zeros
and integer extremes."""

from __future__ import annotations

import pytest

from hlograph.passes import run
from hlograph.testing.validation import validate

from .test_simplify_algebra import KIND, MLIR, ModuleText

#: the exponents each kind of element type folds
FOLDED = {"f": ["1.0", "0.0", "2.0", "-1.0"], "i": ["1", "0", "2", "3"], "u": ["1", "0", "2", "3"]}
#: the exponents each kind keeps (not bit for bit the same as a cheaper form)
KEPT = {"f": ["3.0", "0.5", "-2.0", "1.5"], "i": ["-1", "4"], "u": ["4"]}


def power_module(dtype: str, exponents, abs_first: bool = False) -> str:
    m = ModuleText()
    t = f"tensor<16x{MLIR[dtype]}>"
    x = m.arg(t)
    if abs_first:
        x = m.op(f"stablehlo.abs {x} : {t}")
    for c in exponents:
        cst = m.op(f"stablehlo.constant dense<{c}> : {t}")
        m.result(m.op(f"stablehlo.power {x}, {cst} : {t}"), t)
    return m.text()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int8", "int32", "uint8",
                                   "int64"])
def test_power_by_constants_folds_exactly(dtype):
    text = power_module(dtype, FOLDED[KIND[dtype]])
    # (validation keeps integer powers away from the interpreter: a negative exponent traps there)
    result = validate(text, "hlograph-simplify-power", trials=3,
                      interpreter=True if KIND[dtype] == "f" else "auto")
    assert "stablehlo.power" not in result.optimized, result.optimized
    assert result.ops_after < result.ops_before
    # x**2 and x**3 are products; x**-1 a division
    assert "stablehlo.multiply %arg0, %arg0" in result.optimized
    assert ("stablehlo.divide" in result.optimized) == (KIND[dtype] == "f")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "complex64"])
def test_power_by_other_constants_stays(dtype):
    kept = KEPT.get(KIND[dtype], ["(1.0, 0.0)", "(0.0, 0.0)", "(2.0, 0.0)"])
    text = power_module(dtype, kept)
    result = validate(text, "hlograph-simplify-power", trials=2, interpreter=KIND[dtype] == "f")
    assert result.optimized.count("stablehlo.power") == len(kept), result.optimized


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_square_root_of_an_absolute_value(dtype):
    """pow(x, 0.5) and sqrt(x) differ at -0.0 and -inf only: never an abs."""
    text = power_module(dtype, ["0.5"], abs_first=True)
    result = validate(text, "hlograph-simplify-power", trials=3, interpreter=True)
    assert "stablehlo.sqrt" in result.optimized and "stablehlo.power" not in result.optimized


def test_square_root_needs_an_absolute_value_and_a_correctly_rounded_pow():
    # -0.0 ** 0.5 is +0.0 and -inf ** 0.5 is +inf, where sqrt gives -0.0 and NaN
    assert "stablehlo.power" in str(run(power_module("float32", ["0.5"]), "hlograph-simplify-power"))
    # float64 pow (the interpreter's) is not always correctly rounded
    assert "stablehlo.power" in str(run(power_module("float64", ["0.5"], abs_first=True),
                                        "hlograph-simplify-power"))


def test_o2_merges_a_power_with_a_square():
    """x**2 and x*x are one value after O2 (the power becomes a product, CSE merges them)."""
    text = """
func.func public @main(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c = stablehlo.constant dense<2.0> : tensor<8xf32>
  %p = stablehlo.power %x, %c : tensor<8xf32>
  %s = stablehlo.multiply %x, %x : tensor<8xf32>
  return %p, %s : tensor<8xf32>, tensor<8xf32>
}
"""
    result = validate(text, "O2", trials=2)
    assert result.optimized.count("stablehlo.multiply") == 1, result.optimized
