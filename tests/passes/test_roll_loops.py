"""hlograph-roll-loops: runs of repeated ops become while loops without changing
a bit of any result, on XLA:CPU's code too (values crossing the loop's boundary
must not be products XLA would have contracted into fused multiply-adds)."""

from __future__ import annotations

import numpy as np
import pytest

import hlograph as hg
import hlograph.passes
from hlograph.passes.pipeline import PIPELINES, expand
from hlograph.passes.registry import make_pass
from hlograph.passes.roll_loops import roll_loops
from hlograph.runtime import executables
from hlograph.testing import product_chain_text
from hlograph.testing.validation import validate
from hlograph.xla import mlir, pjrt


def _chain(n: int, t: str = "tensor<8xf32>") -> str:
    """bench/peers.py's W5 chain as hlograph lowers it: sin, cos, + x*c in turn."""
    lines = [f"func.func public @main(%x: {t}, %c: {t}) -> {t} {{",
             f"  %xc = stablehlo.multiply %x, %c : {t}"]
    v = "%x"
    for i in range(n):
        op = ("stablehlo.sine {v}", "stablehlo.cosine {v}", "stablehlo.add %xc, {v}")[i % 3]
        lines.append(f"  %v{i} = {op.format(v=v)} : {t}")
        v = f"%v{i}"
    lines += [f"  return {v} : {t}", "}"]
    return "\n".join(lines)


def _step_chain(n: int, seed: int, t: str = "tensor<6xf32>") -> str:
    """n repetitions of one random step of 2-6 ops on the state (two values),
    the arguments and their product: functions, products and sums (what XLA
    contracts), selects, maxima, a round trip through float64."""
    rng = np.random.default_rng(seed)
    menu = []
    for _ in range(int(rng.integers(2, 7))):
        menu.append((int(rng.integers(0, 9)), int(rng.integers(0, 4))))
    lines = [f"func.func public @main(%x: {t}, %y: {t}) -> ({t}, {t}) {{",
             f"  %m = stablehlo.multiply %x, %y : {t}"]
    a, b = "%x", "%y"
    count = 0
    for r in range(n):
        v = a
        for k, src in menu:
            other = (a, b, "%m", "%y")[src]
            out = f"%v{count}"
            count += 1
            if k == 0:
                lines.append(f"  {out} = stablehlo.sine {v} : {t}")
            elif k == 1:
                lines.append(f"  {out} = stablehlo.multiply {v}, {other} : {t}")
            elif k == 2:
                lines.append(f"  {out} = stablehlo.add {v}, {other} : {t}")
            elif k == 3:
                lines.append(f"  %p{count} = stablehlo.multiply {v}, {other} : {t}")
                lines.append(f"  {out} = stablehlo.subtract %p{count}, {b} : {t}")
            elif k == 4:
                lines.append(f"  %c{count} = stablehlo.compare LT, {v}, {other} : ({t}, {t}) -> tensor<6xi1>")
                lines.append(f"  {out} = stablehlo.select %c{count}, {v}, {other} : tensor<6xi1>, {t}")
            elif k == 5:
                lines.append(f"  {out} = stablehlo.maximum {v}, {other} : {t}")
            elif k == 6:
                lines.append(f"  %w{count} = stablehlo.convert {v} : ({t}) -> tensor<6xf64>")
                lines.append(f"  %q{count} = stablehlo.multiply %w{count}, %w{count} : tensor<6xf64>")
                lines.append(f"  {out} = stablehlo.convert %q{count} : (tensor<6xf64>) -> {t}")
            elif k == 7:
                lines.append(f"  {out} = stablehlo.tanh {v} : {t}")
            else:
                lines.append(f"  {out} = stablehlo.negate {v} : {t}")
            v = out
        # the state: the step's result and, second, a sum safe to carry
        lines.append(f"  %s{r} = stablehlo.add {v}, {a} : {t}")
        a, b = f"%s{r}", v
    lines += [f"  return {a}, {b} : {t}, {t}", "}"]
    return "\n".join(lines)


@pytest.mark.parametrize("n,body", [(30, 3), (31, 6), (32, 9), (200, 30), (200, 300)])
def test_w5_chain_keeps_every_bit(n, body):
    result = validate(_chain(n), f"hlograph-roll-loops{{min-ops=12 body-ops={body}}}", trials=3)
    assert "stablehlo.while" in result.optimized
    # the shared product goes through one cut; the loop takes it
    assert result.optimized.count("@dce_sink") == 1


def _product_chain(layers: int, m: int) -> str:
    return product_chain_text(m, layers, shared_weight=True)


@pytest.mark.parametrize("m", [32, 4])
def test_product_chains_keep_every_bit(m):
    # products of 32x32x32 work: one layer an iteration (the body's product and the
    # first layer's, before the loop); 4x4 ones: about body-ops ops an iteration
    # (5 layers in the body, the 4 the loop leaves after it)
    result = validate(_product_chain(40, m), "hlograph-roll-loops{min-ops=12 body-ops=10}", trials=3)
    assert "stablehlo.while" in result.optimized
    assert result.optimized.count("stablehlo.dot_general") == (2 if m == 32 else 10)


@pytest.mark.parametrize("seed", range(12))
def test_random_steps_keep_every_bit(seed, monkeypatch):
    # compared sums are rounded after rolling (``runtime.compile_plan``), where the
    # products of earlier iterations are out of a comparison's reach: the rolled module
    # rounds fewer, so the comparison here is of the modules as XLA computes them
    monkeypatch.setattr(executables, "_may_compare_sums", lambda bytecode: False)
    result = validate(_step_chain(9, seed), "hlograph-roll-loops{min-ops=8 body-ops=8}", trials=3)
    assert result.ops_after <= result.ops_before + 10


def test_most_random_steps_roll():
    rolled = 0
    for seed in range(12):
        module = hlograph.passes.run(_step_chain(9, seed), "O0")
        rolled += bool(roll_loops(module, 8, 8))
        module.operation.verify()
    assert rolled >= 8


def test_what_it_rolled():
    module = hlograph.passes.run(_chain(3000), "O0")
    (r,) = roll_loops(module, 500, 100)
    # repetitions of (sine, cosine, add) from the first sine (after the product),
    # 33 an iteration, the rest after the loop
    assert (r.function, r.start, r.period) == ("main", 1, 3)
    assert r.per_iteration == 33 and r.trips * 33 <= r.repetitions < (r.trips + 1) * 33 + 33
    size = pjrt.module_size(module)
    assert size.ops < 200 and size.depth <= 100


def test_short_runs_and_functions_left_alone():
    text = _chain(300)
    assert "stablehlo.while" not in str(hlograph.passes.run(text, "hlograph-roll-loops"))  # 300 < min-ops
    assert "stablehlo.while" in str(hlograph.passes.run(text, "hlograph-roll-loops{min-ops=200}"))


def test_bad_options_and_no_named_pipeline():
    with pytest.raises(ValueError, match="min-ops must be >= 2"):
        hlograph.passes.run(_chain(4), "hlograph-roll-loops{min-ops=1}")
    with pytest.raises(ValueError, match="valid options: min-ops, body-ops, max-period"):
        make_pass("hlograph-roll-loops", "body=3")
    assert all("hlograph-roll-loops" not in expand(name) for name in PIPELINES)


def test_rolled_w5_compiles_faster_to_the_same_bits():
    """The 5000-op chain as XLA's defaults compile it and rolled as compile_plan
    compiles it: same bits on special and ordinary inputs."""
    client = executables.get_client("cpu")
    device = client.local_devices()[0]
    with mlir.make_context() as ctx:
        module = mlir.ir.Module.parse(_chain(5000), ctx)
        original = mlir.module_to_bytecode(module)
    plan = executables.compile_plan(client, original, device)
    assert plan.loops == 1 and len(plan.bytecode) < len(original) // 10
    rng = np.random.default_rng(1)
    inputs = [np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 1e-30, -3.0, 1.5], np.float32)]
    inputs += [rng.uniform(-4, 4, 8).astype(np.float32) for _ in range(10)]
    c = np.full(8, 1.0000001, np.float32)
    outs = []
    for bytecode, options in ((original, pjrt.compile_options(device)), (plan.bytecode, plan.options)):
        loaded = pjrt.compile_and_load(client, bytecode, [device], options)
        put = pjrt.device_putter(np.dtype(np.float32), (8,), device)
        outs.append([np.asarray(pjrt.execute(loaded, [put(x), put(c)])[0]) for x in inputs])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))


def test_compiled_graph_matches_jax_bit_for_bit(monkeypatch):
    """bench/peers.py's W5 chain end to end: hg.compile rolls it (compile_plan),
    and its result is jax.jit's, bit for bit."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    monkeypatch.setenv("HLOGRAPH_CACHE_DIR", "off")

    def chain(lib, x, n):
        v = x
        for i in range(n):
            k = i % 3
            v = lib.sin(v) if k == 0 else lib.cos(v) if k == 1 else v + x * (1.0 + 1e-7)
        return v

    x = np.linspace(-1, 1, 8).astype(np.float32)
    xv = hg.tensor("x", (8,), "float32")
    fn = hg.compile(hg.Graph([xv], chain(hg, xv, 3000)))
    got = np.asarray(fn(x))
    expected = np.asarray(jax.jit(lambda v: chain(jnp, v, 3000))(x))
    np.testing.assert_array_equal(got.view(np.int32), expected.view(np.int32))
