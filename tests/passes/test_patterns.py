"""Pattern helpers: the rewrite_pattern convention, apply_patterns, constant
readers and builders."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from hlograph.xla.mlir import func, hlo, ir, make_context
from hlograph.passes import PassError
from hlograph.passes.patterns import (
    apply_patterns, building, constant_array, ints, make_constant, rewrite_pattern, splat_value,
)
from hlograph.passes.patterns.values import numpy_dtype

NEG_NEG = """
func.func @f(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = stablehlo.negate %x : tensor<3xf32>
  %1 = stablehlo.negate %0 : tensor<3xf32>
  %2 = stablehlo.abs %x : tensor<3xf32>
  return %1, %2 : tensor<3xf32>, tensor<3xf32>
}
"""


@rewrite_pattern(hlo.NegOp)
def fold_double_negate(op, rewriter) -> bool:
    inner = op.operand.owner
    if not isinstance(inner, hlo.NegOp):
        return False
    rewriter.replace_op(op, [inner.operand])
    return True


def test_rewrite_pattern_true_means_rewritten():
    with make_context():
        m = ir.Module.parse(NEG_NEG)
        apply_patterns(m, [fold_double_negate])
        text = str(m)
    assert "stablehlo.negate" not in text
    assert "return %arg0, %" in text


def test_rewrite_pattern_false_leaves_the_op():
    seen = []

    @rewrite_pattern(hlo.AbsOp)
    def look_only(op, rewriter) -> bool:
        seen.append(op.operation.name)
        return False

    with make_context():
        m = ir.Module.parse(NEG_NEG)
        apply_patterns(m, [look_only])
        assert str(m).count("stablehlo.abs") == 1
    assert seen and set(seen) == {"stablehlo.abs"}


def test_patterns_build_replacements_before_the_matched_op():
    @rewrite_pattern(hlo.AbsOp)
    def abs_to_max_of_negation(op, rewriter) -> bool:
        with building(rewriter, op):
            neg = hlo.NegOp(op.operand).result
            new = hlo.MaxOp(op.operand, neg).result
        rewriter.replace_op(op, [new])
        return True

    with make_context():
        m = ir.Module.parse(NEG_NEG)
        apply_patterns(m, [abs_to_max_of_negation])
        text = str(m)
    assert "stablehlo.abs" not in text
    assert "stablehlo.maximum %arg0, %" in text


def test_a_raising_pattern_is_a_pass_error_naming_it():
    @rewrite_pattern(hlo.AbsOp)
    def broken_pattern(op, rewriter) -> bool:
        raise IndexError("no such operand")

    with make_context():
        m = ir.Module.parse(NEG_NEG)
        with pytest.raises(PassError, match="pattern broken_pattern failed on stablehlo.abs at .*IndexError: no such operand"):
            apply_patterns(m, [broken_pattern])


def test_rewrite_pattern_needs_an_op_class():
    with pytest.raises(TypeError, match="takes an op class"):
        rewrite_pattern("stablehlo.abs")


ADDS = """
func.func @f(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %c = stablehlo.constant dense<2.0> : tensor<3xf32>
  %d = stablehlo.constant dense<3.0> : tensor<3xf32>
  %0 = stablehlo.add %x, %x : tensor<3xf32>
  %1 = stablehlo.add %x, %c : tensor<3xf32>
  %2 = stablehlo.add %c, %d : tensor<3xf32>
  %3 = stablehlo.sine %x : tensor<3xf32>
  %4 = stablehlo.add %3, %x : tensor<3xf32>
  return %0, %1, %2, %4 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
"""


def test_patterns_requiring_constant_operands_see_only_ops_that_have_them():
    seen = {"any": [], "all": [], "none": []}

    def looking(kind, requires):
        @rewrite_pattern(hlo.AddOp, requires=requires)
        def look(op, rewriter) -> bool:
            seen[kind].append(sum(type(v.owner) is hlo.ConstantOp for v in op.operation.operands))
            return False
        return look

    patterns = [looking("any", "a constant operand"), looking("all", "constant operands"), looking("none", None)]
    with make_context():
        m = ir.Module.parse(ADDS)
        apply_patterns(m, patterns, fold=False)
        assert str(m) == str(ir.Module.parse(ADDS))
    assert sorted(seen["none"]) == [0, 0, 1, 2]  # every add
    assert sorted(seen["any"]) == [1, 2]
    assert seen["all"] == [2]
    with pytest.raises(ValueError, match="requires"):
        rewrite_pattern(hlo.AddOp, requires="a splat")


def test_pattern_sets_are_built_once_per_context_and_patterns():
    from hlograph.passes.patterns import core

    calls = []

    @rewrite_pattern(hlo.NegOp)
    def counting(op, rewriter) -> bool:
        calls.append(1)
        return fold_double_negate.fn(op, rewriter)

    for _ in range(2):  # a context of its own each time: its own set
        with make_context() as ctx:
            for _ in range(3):
                m = ir.Module.parse(NEG_NEG)
                apply_patterns(m, [counting])
                assert "stablehlo.negate" not in str(m)
            apply_patterns(ir.Module.parse(NEG_NEG), [counting, fold_double_negate])
            entries = [e for e in core._FROZEN if e[1] in ((counting,), (counting, fold_double_negate))]
            assert len(entries) == 2 and all(e[0] is ctx for e in entries)
    assert calls  # the cached sets call the patterns


def _element_type(dtype: np.dtype) -> ir.Type:
    from hlograph.xla.mlir import element_type

    return element_type(np.dtype(dtype))


def _constant_module(arr: np.ndarray, *, splat: bool) -> ir.Module:
    """A module returning a constant holding ``arr`` (built with make_constant)."""
    m = ir.Module.create()
    t = ir.RankedTensorType.get(list(arr.shape), _element_type(arr.dtype))
    with ir.InsertionPoint(m.body):
        f = func.FuncOp("f", ir.FunctionType.get([], [t]))
    with ir.InsertionPoint(f.add_entry_block()):
        c = make_constant(arr, t)
        func.ReturnOp([c])
    return m


DTYPES = ["bool", "int8", "uint8", "int16", "uint32", "int64", "uint64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128"]


def _values(dtype: str, n: int, rng: np.random.Generator) -> np.ndarray:
    dt = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(n) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)
    if dt.kind == "c":
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    vals = rng.standard_normal(n).astype(dt)
    vals[:3] = np.array([np.nan, -np.inf, -0.0]).astype(dt)
    return vals


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("n", [4, 300], ids=["short", "printed_as_hex"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_constants_round_trip_bit_exactly(dtype, n, rng):
    arr = _values(dtype, n, rng).reshape(-1, 2)
    with make_context(), ir.Location.unknown():
        m = _constant_module(arr, splat=False)
        assert m.operation.verify()
        # parse the printed module back, so the reader works on printed constants too
        m2 = ir.Module.parse(str(m))
        for module in (m, m2):
            ret = list(module.body.operations[0].regions[0].blocks[0].operations)[-1]
            got = constant_array(ret.operands[0])
            assert got is not None
            assert _same_bits(got, arr), (got, arr)
            flat = np.ascontiguousarray(arr).reshape(-1)
            uniform = flat.tobytes() == np.repeat(flat[:1], flat.size).tobytes()
            assert (splat_value(ret.operands[0]) is None) == (not uniform)


@pytest.mark.parametrize("dtype", DTYPES)
def test_splats_read_as_one_element(dtype, rng):
    one = _values(dtype, 4, rng)[3:4]
    arr = np.broadcast_to(one, (50, 3))
    with make_context(), ir.Location.unknown():
        m = _constant_module(arr, splat=True)
        text = str(m)
        assert "dense<[" not in text and 'dense<"' not in text, text  # stored as a splat
        ret = list(m.body.operations[0].regions[0].blocks[0].operations)[-1]
        s = splat_value(ret.operands[0])
        assert s is not None and _same_bits(np.asarray(s), one.reshape(()))
        got = constant_array(ret.operands[0])
        assert _same_bits(np.ascontiguousarray(got), np.ascontiguousarray(arr))


def test_readers_decline_what_they_do_not_handle():
    with make_context():
        m = ir.Module.parse("""
        func.func @f(%x: tensor<3xf32>, %y: tensor<?xf32>) -> (tensor<2xi4>, tensor<3xf32>) {
          %c = stablehlo.constant dense<[1, 2]> : tensor<2xi4>
          %0 = stablehlo.abs %x : tensor<3xf32>
          return %c, %0 : tensor<2xi4>, tensor<3xf32>
        }""")
        block = m.body.operations[0].regions[0].blocks[0]
        ret = list(block.operations)[-1]
        assert constant_array(ret.operands[0]) is None  # 4-bit integers
        assert constant_array(ret.operands[1]) is None  # not a constant
        assert splat_value(block.arguments[0]) is None  # a block argument
        assert numpy_dtype(ir.IndexType.get()) is None


def test_ints_reads_integer_array_attributes():
    with make_context():
        m = ir.Module.parse("""
        func.func @f(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
          %0 = stablehlo.transpose %x, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
          return %0 : tensor<4x2x3xf32>
        }""")
        op = m.body.operations[0].regions[0].blocks[0].operations[0]
        assert ints(op.permutation) == [2, 0, 1]
        assert ints(None) is None
