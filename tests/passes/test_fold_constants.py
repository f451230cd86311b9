"""hlograph-fold-constants computes what XLA computes at run time, bit for bit.

Each case is a one-op module ``@main(args) -> op(args)``. It runs with PJRT
(XLA's generated code) and StableHLO's reference interpreter on random inputs
(NaN, infinities and signed zeros included); the same module with the inputs
turned into constants goes through the pass, and the folded constant must
have the same bits (any NaN matching any NaN).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from hlograph.xla.mlir import ir, make_context
from hlograph.passes import run
from hlograph.passes.patterns import constant_array, make_constant
from hlograph.testing.validation import assert_same_bits, main_function, random_array, run_interpreter, run_pjrt

BF16 = np.dtype(ml_dtypes.bfloat16)
MLIR = {"bool": "i1", "int8": "i8", "uint8": "ui8", "int16": "i16", "uint16": "ui16", "int32": "i32", "uint32": "ui32",
        "int64": "i64", "uint64": "ui64", "float16": "f16", "bfloat16": "bf16", "float32": "f32",
        "float64": "f64", "complex64": "complex<f32>", "complex128": "complex<f64>"}
FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["int8", "uint8", "int32", "uint32", "int64", "uint64"]


def dtype_of(name: str) -> np.dtype:
    return BF16 if name == "bfloat16" else np.dtype(name)


def tt(dtype: str, shape=(8,)) -> str:
    dims = "x".join(str(d) for d in shape)
    return f"tensor<{dims + 'x' if dims else ''}{MLIR[dtype]}>"


def fold_and_compare(text: str, inputs: list[np.ndarray], *, expect_fold: bool = True,
                     interpreter: bool = True, pjrt: bool = True) -> None:
    """Runs ``text`` at run time and folded at compile time; compares."""
    before = run_pjrt(text, inputs) if pjrt else None
    with make_context():
        m = ir.Module.parse(text)
        main = main_function(m)
        block = main.regions[0].blocks[0]
        first = block.operations[0]
        for arg, value in zip(block.arguments, inputs):
            with ir.InsertionPoint(first), ir.Location.unknown():
                c = make_constant(np.asarray(value), arg.type)
            arg.replace_all_uses_with(c)
        run(m, "hlograph-fold-constants")
        ret = list(block.operations)[-1]
        folded = [constant_array(v) for v in ret.operands]
        if not expect_fold:
            assert any(f is None for f in folded), str(m)
            return
        assert all(f is not None for f in folded), f"not folded:\n{m}"
        assert not any(op.operation.name not in ("stablehlo.constant", "func.return")
                       for op in block.operations), str(m)
    if pjrt:
        assert_same_bits(before, [np.ascontiguousarray(f) for f in folded], what="folded vs XLA run time")
    if interpreter and not any(x.dtype.kind == "c" for x in list(inputs) + folded):
        with make_context():
            reference = run_interpreter(ir.Module.parse(text), inputs)
        assert_same_bits(reference, [np.ascontiguousarray(f) for f in folded], what="folded vs interpreter")


def binary_module(op: str, dtype: str, out: str | None = None) -> str:
    t = tt(dtype)
    return f"""func.func public @main(%a: {t}, %b: {t}) -> {tt(out or dtype)} {{
  %0 = stablehlo.{op} %a, %b : {t}
  return %0 : {tt(out or dtype)}
}}"""


def unary_module(op: str, dtype: str, out: str | None = None) -> str:
    t, o = tt(dtype), tt(out or dtype)
    sig = f"({t}) -> {o}" if out and out != dtype else t
    return f"""func.func public @main(%a: {t}) -> {o} {{
  %0 = stablehlo.{op} %a : {sig}
  return %0 : {o}
}}"""


BINARY = [
    ("add", FLOATS + INTS + ["bool", "complex64"]),
    ("subtract", FLOATS + INTS + ["complex128"]),
    ("multiply", FLOATS + INTS + ["bool"]),
    ("divide", FLOATS + INTS),
    ("remainder", FLOATS + INTS),
    ("maximum", FLOATS + INTS + ["bool"]),
    ("minimum", FLOATS + INTS),
    ("and", INTS + ["bool"]),
    ("or", INTS + ["bool"]),
    ("xor", INTS + ["bool"]),
    ("shift_left", INTS),
    ("shift_right_logical", INTS),
    ("shift_right_arithmetic", INTS),
]


@pytest.mark.parametrize("op, dtype", [(op, d) for op, ds in BINARY for d in ds], ids=str)
def test_fold_binary_matches_xla(op, dtype, rng):
    dt = dtype_of(dtype)
    a = random_array(rng, (8,), dt)
    b = random_array(rng, (8,), dt)
    if op in ("divide", "remainder") and dt.kind in "iu":
        b = np.where(b == 0, dt.type(3), b)  # division by zero is not folded
        if dt.kind == "i":
            b = np.where((a == np.iinfo(dt).min) & (b == -1), dt.type(2), b)
    if op.startswith("shift"):
        b = (rng.integers(0, dt.itemsize * 8 + 4, size=8)).astype(dt)  # in and out of range
    if op in ("maximum", "minimum") and (dt.kind == "f" or dt == BF16):
        b = np.where((a == 0) & (b == 0), dt.type(1), b)  # mixed signed zeros are not folded
    fold_and_compare(binary_module(op, dtype), [a, b])


UNARY = [
    ("negate", FLOATS + INTS + ["complex64"]),
    ("abs", FLOATS + ["int8", "int32", "int64"]),
    ("not", INTS + ["bool"]),
    ("sqrt", FLOATS),
    ("floor", FLOATS),
    ("ceil", FLOATS),
    ("round_nearest_even", FLOATS),
    ("round_nearest_afz", FLOATS),
    ("sign", FLOATS + ["int8", "int64"]),
    ("popcnt", INTS),
]


@pytest.mark.parametrize("op, dtype", [(op, d) for op, ds in UNARY for d in ds], ids=str)
def test_fold_unary_matches_xla(op, dtype, rng):
    dt = dtype_of(dtype)
    a = random_array(rng, (8,), dt)
    if op.startswith("round") and dt.kind == "f" or dt == BF16:
        a = (a * 2).astype(dt) / 4  # plenty of halves
        a = a.astype(dt)
    fold_and_compare(unary_module(op, dtype), [a])


@pytest.mark.parametrize("dtype", FLOATS)
def test_fold_is_finite_matches_xla(dtype, rng):
    a = random_array(rng, (8,), dtype_of(dtype))
    fold_and_compare(unary_module("is_finite", dtype, "bool"), [a])


CONVERSIONS = [
    ("float32", "int32"), ("float64", "uint8"), ("float16", "int64"), ("float32", "bool"),
    ("int32", "float32"), ("int64", "float64"), ("uint64", "float32"), ("int8", "bfloat16"),
    ("float64", "float32"), ("float32", "float16"), ("float32", "bfloat16"), ("float16", "bfloat16"),
    ("bfloat16", "float16"), ("float16", "float64"), ("int64", "int8"), ("uint32", "int16"),
    ("int8", "uint64"), ("bool", "float32"), ("int32", "bool"), ("float32", "complex64"),
    ("float64", "complex128"),
]


@pytest.mark.parametrize("src, dst", CONVERSIONS, ids=lambda x: x)
def test_fold_convert_matches_xla(src, dst, rng):
    sdt = dtype_of(src)
    a = random_array(rng, (8,), sdt)
    if dtype_of(dst).kind in "iu" and sdt.kind == "f" or (sdt == BF16 and dtype_of(dst).kind in "iu"):
        info = np.iinfo(dtype_of(dst))
        a = np.where(np.isfinite(a.astype(np.float64)), a, 0).astype(sdt)
        a = np.clip(a.astype(np.float64) * 7, info.min, info.max).astype(sdt)  # in range
        a = np.where(np.abs(a.astype(np.float64)) >= min(info.max, 2 ** 31), 0, a).astype(sdt)
    if sdt.kind in "iu" and sdt.itemsize >= 4 and dst == "bfloat16":
        a = np.where(np.abs(a.astype(np.float64)) > 2 ** 24, a % 1000, a).astype(sdt)
    fold_and_compare(unary_module("convert", src, dst), [a])


@pytest.mark.parametrize("src, dst, values", [
    ("float32", "int32", [1e10, 1.0]),  # out of range
    ("float64", "int8", [np.nan, 1.0]),  # NaN
    ("float64", "bfloat16", [1.0 + 2.0 ** -30, 3.0]),  # would round twice through float32
    ("int64", "bfloat16", [2 ** 40 + 1, 3]),  # likewise
], ids=["out_of_range", "nan", "f64_to_bf16", "i64_to_bf16"])
def test_fold_convert_declines_implementation_defined_values(src, dst, values):
    a = np.array(values * 4, dtype=src)
    fold_and_compare(unary_module("convert", src, dst), [a], expect_fold=False)


@pytest.mark.parametrize("src, dst", [("float32", "int32"), ("uint16", "int16"), ("float64", "uint64")],
                         ids=lambda x: x)
def test_fold_bitcast_convert_matches_xla(src, dst, rng):
    a = random_array(rng, (8,), dtype_of(src))
    fold_and_compare(unary_module("bitcast_convert", src, dst), [a])


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "uint8", "bool", "complex64"])
@pytest.mark.parametrize("direction", ["EQ", "NE", "LT", "LE", "GT", "GE"])
def test_fold_compare_matches_xla(direction, dtype, rng):
    if dtype.startswith("complex") and direction not in ("EQ", "NE"):
        return
    dt = dtype_of(dtype)
    a = random_array(rng, (8,), dt)
    b = np.where(rng.random(8) < 0.3, a, random_array(rng, (8,), dt))
    kind = "FLOAT" if dt.kind in "fc" or dt == BF16 else "UNSIGNED" if dt.kind in "ub" else "SIGNED"
    t = tt(dtype)
    text = f"""func.func public @main(%a: {t}, %b: {t}) -> {tt('bool')} {{
  %0 = stablehlo.compare {direction}, %a, %b, {kind} : ({t}, {t}) -> {tt('bool')}
  return %0 : {tt('bool')}
}}"""
    fold_and_compare(text, [a, b])


def test_fold_declines_a_comparison_type_that_contradicts_the_element_type(rng):
    # the spec ties UNSIGNED to unsigned integers; XLA rejects it on signed
    # ones and the reference interpreter ignores it
    a, b = random_array(rng, (8,), np.dtype("int32")), random_array(rng, (8,), np.dtype("int32"))
    t = tt("int32")
    text = f"""func.func public @main(%a: {t}, %b: {t}) -> {tt('bool')} {{
  %0 = stablehlo.compare LT, %a, %b, UNSIGNED : ({t}, {t}) -> {tt('bool')}
  return %0 : {tt('bool')}
}}"""
    fold_and_compare(text, [a, b], pjrt=False, expect_fold=False)


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_fold_select_and_clamp_match_xla(dtype, rng):
    dt = dtype_of(dtype)
    t, p = tt(dtype), tt("bool")
    text = f"""func.func public @main(%p: {p}, %a: {t}, %b: {t}, %lo: {tt(dtype, ())}, %hi: {tt(dtype, ())}) -> ({t}, {t}) {{
  %0 = stablehlo.select %p, %a, %b : {p}, {t}
  %1 = stablehlo.clamp %lo, %a, %hi : ({tt(dtype, ())}, {t}, {tt(dtype, ())}) -> {t}
  return %0, %1 : {t}, {t}
}}"""
    a = random_array(rng, (8,), dt, special=False)
    a = np.where(a == 0, dt.type(5), a)
    fold_and_compare(text, [rng.random(8) < 0.5, a, random_array(rng, (8,), dt),
                            np.asarray(-2, dt), np.asarray(3, dt)])


SHAPE_CASES = {
    "broadcast_in_dim": ("tensor<3x2xi32>", "tensor<2x4x3xi32>",
                         "stablehlo.broadcast_in_dim %a, dims = [2, 0] : (tensor<3x2xi32>) -> tensor<2x4x3xi32>"),
    "reshape": ("tensor<3x4xi32>", "tensor<2x6xi32>", "stablehlo.reshape %a : (tensor<3x4xi32>) -> tensor<2x6xi32>"),
    "transpose": ("tensor<2x3x4xi32>", "tensor<4x2x3xi32>",
                  "stablehlo.transpose %a, dims = [2, 0, 1] : (tensor<2x3x4xi32>) -> tensor<4x2x3xi32>"),
    "slice": ("tensor<7x5xi32>", "tensor<3x2xi32>", "stablehlo.slice %a [1:7:2, 0:4:3] : (tensor<7x5xi32>) -> tensor<3x2xi32>"),
    "reverse": ("tensor<3x4xi32>", "tensor<3x4xi32>", "stablehlo.reverse %a, dims = [0, 1] : tensor<3x4xi32>"),
    "concatenate": ("tensor<2x3xi32>", "tensor<2x6xi32>",
                    "stablehlo.concatenate %a, %a, dim = 1 : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x6xi32>"),
    "pad": ("tensor<3x4xi32>", "tensor<6x9xi32>",
            "stablehlo.pad %a, %c, low = [2, -1], high = [-1, 0], interior = [1, 2] : (tensor<3x4xi32>, tensor<i32>) -> tensor<6x9xi32>"),
}


@pytest.mark.parametrize("name", list(SHAPE_CASES))
def test_fold_shape_ops_match_xla(name, rng):
    tin, tout, body = SHAPE_CASES[name]
    text = f"""func.func public @main(%a: {tin}) -> {tout} {{
  %c = stablehlo.constant dense<-7> : tensor<i32>
  %0 = {body}
  return %0 : {tout}
}}"""
    shape = tuple(int(d) for d in tin[7:-5].split("x"))
    fold_and_compare(text, [random_array(rng, shape, np.dtype("int32"))])


@pytest.mark.parametrize("dtype", ["int32", "float32", "bfloat16", "float16"])
def test_fold_iota_matches_xla(dtype):
    t = tt(dtype, (3, 5))
    text = f"""func.func public @main() -> {t} {{
  %0 = stablehlo.iota dim = 1 : {t}
  return %0 : {t}
}}"""
    fold_and_compare(text, [])


REDUCERS = [("add", "int32"), ("multiply", "uint8"), ("maximum", "float32"), ("minimum", "bfloat16"),
            ("and", "int64"), ("or", "bool"), ("xor", "uint32"), ("maximum", "int8"), ("add", "bool")]


@pytest.mark.parametrize("reducer, dtype", REDUCERS, ids=str)
def test_fold_reduce_matches_xla(reducer, dtype, rng):
    dt = dtype_of(dtype)
    t, s, o = tt(dtype, (4, 6)), tt(dtype, ()), tt(dtype, (6,))
    text = f"""func.func public @main(%a: {t}, %init: {s}) -> {o} {{
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.{reducer} across dimensions = [0] : ({t}, {s}) -> {o}
  return %0 : {o}
}}"""
    a = random_array(rng, (4, 6), dt)
    if dt.kind == "f" or dt == BF16:
        a = np.where(a == 0, dt.type(2), a).astype(dt)  # no -0.0 (order-dependent)
    init = random_array(rng, (), dt, special=False)
    fold_and_compare(text, [a, np.asarray(init, dt)])


@pytest.mark.parametrize("body, dtype", [
    ("stablehlo.add", "float32"),  # a float sum depends on the order of the additions
    ("stablehlo.exponential", "float32"),  # transcendental
    ("stablehlo.divide", "int32"),  # division by zero
], ids=["float_sum", "exp", "int_divide_by_zero"])
def test_fold_declines_inexact_or_undefined(body, dtype, rng):
    dt = dtype_of(dtype)
    if body == "stablehlo.add":
        t, s = tt(dtype, (4,)), tt(dtype, ())
        text = f"""func.func public @main(%a: {t}, %init: {s}) -> {s} {{
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.add across dimensions = [0] : ({t}, {s}) -> {s}
  return %0 : {s}
}}"""
        inputs = [random_array(rng, (4,), dt), np.asarray(0, dt)]
    elif body == "stablehlo.exponential":
        text = unary_module("exponential", dtype)
        inputs = [random_array(rng, (8,), dt)]
    else:
        text = binary_module("divide", dtype)
        inputs = [random_array(rng, (8,), dt), np.zeros(8, dt)]
    fold_and_compare(text, inputs, expect_fold=False)


def test_fold_respects_the_size_limits():
    text = """func.func public @main() -> (tensor<64x64xi32>, tensor<4000xf32>, tensor<4000xf32>) {
  %c = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %0 = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<4xi32>) -> tensor<4x4xi32>
  %1 = stablehlo.pad %0, %c0, low = [0, 0], high = [60, 60], interior = [0, 0] : (tensor<4x4xi32>, tensor<i32>) -> tensor<64x64xi32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %s = stablehlo.constant dense<2.5> : tensor<4000xf32>
  %2 = stablehlo.multiply %s, %s : tensor<4000xf32>
  %3 = stablehlo.iota dim = 0 : tensor<4000xf32>
  return %1, %2, %3 : tensor<64x64xi32>, tensor<4000xf32>, tensor<4000xf32>
}""".replace("%1 = stablehlo.pad %0, %c0", "%c0 = stablehlo.constant dense<0> : tensor<i32>\n  %1 = stablehlo.pad %0, %c0", 1)
    text = text.replace("  %c0 = stablehlo.constant dense<0> : tensor<i32>\n  %s", "  %s", 1)
    with make_context():
        out = str(run(text, "hlograph-fold-constants"))
    assert "stablehlo.broadcast_in_dim" not in out  # 16 elements: folded
    assert "stablehlo.pad" in out  # 4096 elements from 16: too much growth
    assert "dense<6.250000e+00> : tensor<4000xf32>" in out  # splats stay splats, whatever their size
    assert "stablehlo.iota" in out
    with make_context():
        out = str(run(text, "hlograph-fold-constants{max-expanded-elements=5000}"))
    assert "stablehlo.pad" not in out and "stablehlo.iota" not in out
