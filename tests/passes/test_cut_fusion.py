"""hlograph-cut-fusion: identity custom calls cut deep chains without changing a
bit of any result, on XLA:CPU's code too (it contracts multiplies and adds into
fused multiply-adds inside a kernel, so where a chain is cut matters)."""

from __future__ import annotations

import numpy as np
import pytest

import hlograph.passes
from hlograph.passes.cut_fusion import cut_fusion
from hlograph.passes.registry import make_pass
from hlograph.passes.pipeline import PIPELINES, expand
from hlograph.runtime import executables
from hlograph.testing.validation import validate
from hlograph.xla import mlir, pjrt


def _random_chain(n: int, seed: int, t: str = "tensor<8xf32>", wide: str = "tensor<8xf64>",
                  converts: bool = False) -> str:
    """A chain of n steps drawn at random: transcendental functions, products and
    sums with the arguments (products feeding sums: what XLA contracts), a
    product of the arguments shared by the whole chain, selects, maxima,
    products in float64 (with ``converts``), and now and then a value from a
    few steps back."""
    rng = np.random.default_rng(seed)
    lines = [f"func.func public @main(%x: {t}, %y: {t}) -> {t} {{",
             f"  %m = stablehlo.multiply %x, %y : {t}"]
    values = ["%x"]
    for i in range(n):
        v = values[-1]
        old = values[max(0, len(values) - 1 - int(rng.integers(1, 6)))]
        k = int(rng.integers(0, 11))
        out = f"%v{i}"
        if k == 0:
            lines.append(f"  {out} = stablehlo.sine {v} : {t}")
        elif k == 1:
            lines.append(f"  {out} = stablehlo.tanh {v} : {t}")
        elif k == 2:
            lines.append(f"  {out} = stablehlo.multiply {v}, %y : {t}")
        elif k == 3:
            lines.append(f"  {out} = stablehlo.add {v}, %m : {t}")
        elif k == 4:
            lines.append(f"  %p{i} = stablehlo.multiply {v}, {old} : {t}")
            lines.append(f"  {out} = stablehlo.add %p{i}, %y : {t}")
        elif k == 5:
            lines.append(f"  {out} = stablehlo.subtract {old}, {v} : {t}")
        elif k == 6:
            lines.append(f"  %c{i} = stablehlo.compare GT, {v}, %y : ({t}, {t}) -> tensor<8xi1>")
            lines.append(f"  {out} = stablehlo.select %c{i}, {v}, %m : tensor<8xi1>, {t}")
        elif k == 7:
            lines.append(f"  {out} = stablehlo.maximum {v}, {old} : {t}")
        elif k == 8 and converts:
            lines.append(f"  %w{i} = stablehlo.convert {v} : ({t}) -> {wide}")
            lines.append(f"  %q{i} = stablehlo.multiply %w{i}, %w{i} : {wide}")
            lines.append(f"  {out} = stablehlo.convert %q{i} : ({wide}) -> {t}")
        elif k in (8, 9):
            lines.append(f"  {out} = stablehlo.negate {v} : {t}")
        else:
            lines.append(f"  {out} = stablehlo.cosine {v} : {t}")
        values.append(out)
    lines += [f"  return {values[-1]} : {t}", "}"]
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("depth", [3, 8, 25])
def test_random_chains_keep_every_bit(seed, depth):
    text = _random_chain(90, seed)
    result = validate(text, f"hlograph-cut-fusion{{max-depth={depth}}}", trials=3)
    assert "@dce_sink" in result.optimized


def test_modules_with_excess_precision_left_alone():
    """XLA computes what follows a convert to a narrower float in the wider type
    inside a kernel: where a kernel ends decides the bits there."""
    for text in (_random_chain(90, 1, converts=True),
                 _random_chain(90, 1, "tensor<8xbf16>", "tensor<8xf32>")):
        assert "stablehlo.convert" in text or "bf16" in text
        module = hlograph.passes.run(text, "O0")
        depth = pjrt.module_size(module).depth
        assert cut_fusion(module, 3) == (0, depth)
        assert "dce_sink" not in str(module)


def test_cuts_bound_the_depth_module_size_counts():
    text = _random_chain(400, 11)
    module = hlograph.passes.run(text, "O0")
    before = pjrt.module_size(module)
    result = cut_fusion(module, 50)
    after = pjrt.module_size(module)
    assert before.depth > 400 and result.cuts > 5
    # the depth reported is the one module_size sees (cut values count 0 again)
    assert after.depth <= result.depth <= 50 + 20  # (on to the next safe value)
    assert after.ops == before.ops + result.cuts
    assert str(module).count("@dce_sink") == result.cuts


def test_a_cut_module_is_cut_no_further():
    module = hlograph.passes.run(_random_chain(200, 3), "O0")
    first = cut_fusion(module, 20)
    text = str(module)
    second = cut_fusion(module, 20)
    assert first.cuts > 0 and second.cuts == 0 and str(module) == text


def test_values_inside_regions_and_calls():
    text = """
    func.func private @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %0 = stablehlo.sine %a : tensor<4xf32>
      %1 = stablehlo.add %0, %a : tensor<4xf32>
      %2 = stablehlo.cosine %1 : tensor<4xf32>
      %3 = stablehlo.add %2, %a : tensor<4xf32>
      return %3 : tensor<4xf32>
    }
    func.func public @main(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
      %0 = stablehlo.add %x, %x : tensor<4xf32>
      %1 = stablehlo.sine %0 : tensor<4xf32>
      %2 = stablehlo.add %1, %x : tensor<4xf32>
      %3 = "stablehlo.if"(%p) ({
        %4 = stablehlo.add %2, %0 : tensor<4xf32>
        %5 = stablehlo.tanh %4 : tensor<4xf32>
        %6 = stablehlo.add %5, %2 : tensor<4xf32>
        %7 = stablehlo.sine %6 : tensor<4xf32>
        stablehlo.return %7 : tensor<4xf32>
      }, {
        stablehlo.return %2 : tensor<4xf32>
      }) : (tensor<i1>) -> tensor<4xf32>
      %8 = func.call @f(%3) : (tensor<4xf32>) -> tensor<4xf32>
      %9 = func.call @f(%8) : (tensor<4xf32>) -> tensor<4xf32>
      return %9 : tensor<4xf32>
    }"""
    result = validate(text, "hlograph-cut-fusion{max-depth=2}", trials=3)
    # in the callee, before the if and in its branch; a call's result is not
    # known to be safe (the callee's may be a product): not cut
    assert result.optimized.count("@dce_sink") == 3
    module = hlograph.passes.run(text, "hlograph-cut-fusion{max-depth=2}")
    assert pjrt.module_size(module).depth < pjrt.module_size(hlograph.passes.run(text, "O0")).depth


def test_deep_chain_compiles_without_fusion_emitters_and_keeps_its_bits():
    """A chain far deeper than the elemental IR emitter could take (it crashes XLA
    at ~7500), cut, compiles without XLA's fusion emitters to the same bits as
    the uncut chain with them."""
    n = 8000
    text = _random_chain(n, 5)
    client = executables.get_client("cpu")
    device = client.local_devices()[0]
    with mlir.make_context() as ctx:
        module = mlir.ir.Module.parse(text, ctx)
        original = mlir.module_to_bytecode(module)
        result = cut_fusion(module, pjrt.FUSION_CUT_DEPTH)
        cut = mlir.module_to_bytecode(module)
    assert result.depth <= pjrt.FUSION_EMITTERS_MAX_DEPTH
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, 8).astype(np.float32)
    y = rng.uniform(-1, 1, 8).astype(np.float32)
    x[:4] = [np.nan, np.inf, -0.0, 1e-3]
    outs = []
    for bytecode, emitters in ((original, True), (cut, False)):
        loaded = pjrt.compile_and_load(client, bytecode, [device],
                                       pjrt.compile_options(device, fusion_emitters=emitters))
        bufs = [pjrt.device_putter(a.dtype, a.shape, device)(a) for a in (x, y)]
        outs.append(np.asarray(pjrt.execute(loaded, bufs)[0]))
    np.testing.assert_array_equal(outs[0].view(np.int32), outs[1].view(np.int32))


def test_bad_options_and_no_named_pipeline():
    with pytest.raises(ValueError, match="max-depth must be >= 1"):
        hlograph.passes.run(_random_chain(4, 0), "hlograph-cut-fusion{max-depth=0}")
    with pytest.raises(ValueError, match="valid options: max-depth"):
        make_pass("hlograph-cut-fusion", "depth=3")
    # the custom call exists on XLA:CPU only: compile_plan applies the pass there
    assert all("hlograph-cut-fusion" not in expand(name) for name in PIPELINES)
