"""The compile options chosen per module: the matrix products of a module
(``mlir.dot_shapes``), whether XLA:CPU gets YNNPACK dot fusions
(``pjrt.ynn_fusion_wanted``), the options ``runtime.compile_bytecode`` uses and
their part in the executable cache key."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.runtime import cache, executables
from hlograph.testing import product_chain_text
from hlograph.xla import mlir, pjrt

DotShape = mlir.DotShape
_YNN = ("xla_cpu_experimental_ynn_fusion_type", "")


def _shapes(text: str) -> list:
    with mlir.make_context() as ctx:
        return mlir.dot_shapes(mlir.ir.Module.parse(text, ctx))


def _bytecode(text: str) -> bytes:
    with mlir.make_context() as ctx:
        return mlir.module_to_bytecode(mlir.ir.Module.parse(text, ctx))


def _chain(m: int, chain: int, et: str = "f32") -> str:
    return product_chain_text(m, chain, element=et)


# --- mlir.dot_shapes ------------------------------------------------------------------


def test_dot_general_with_batch_and_several_free_dims():
    text = """
    func.func public @main(%a: tensor<4x3x2x5xf32>, %b: tensor<4x5x7xf32>) -> tensor<4x3x2x7xf32> {
      %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [3] x [1]
             : (tensor<4x3x2x5xf32>, tensor<4x5x7xf32>) -> tensor<4x3x2x7xf32>
      return %0 : tensor<4x3x2x7xf32>
    }"""
    assert _shapes(text) == [DotShape(batch=4, m=6, n=7, k=5, dtype="f32")]


def test_dot_matrix_vector_and_f64():
    text = """
    func.func public @main(%a: tensor<3x5xf64>, %v: tensor<5xf64>) -> tensor<3xf64> {
      %0 = stablehlo.dot %a, %v : (tensor<3x5xf64>, tensor<5xf64>) -> tensor<3xf64>
      return %0 : tensor<3xf64>
    }"""
    assert _shapes(text) == [DotShape(1, 3, 1, 5, "f64")]


def test_convolution_counts_as_its_im2col_product():
    text = """
    func.func public @main(%x: tensor<2x8x8x3xf32>, %k: tensor<3x3x3x16xf32>) -> tensor<2x6x6x16xf32> {
      %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
             window = {stride = [1, 1], pad = [[0, 0], [0, 0]]}
             {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
             : (tensor<2x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<2x6x6x16xf32>
      return %0 : tensor<2x6x6x16xf32>
    }"""
    assert _shapes(text) == [DotShape(1, 2 * 6 * 6, 16, 3 * 3 * 3, "f32")]


def test_products_inside_regions_and_other_functions_in_program_order():
    text = """
    func.func private @f(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
      %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
      return %0 : tensor<2x2xf32>
    }
    func.func public @main(%a: tensor<8x8xf32>, %p: tensor<i1>) -> tensor<8x8xf32> {
      %0 = "stablehlo.if"(%p) ({
        %1 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
        stablehlo.return %1 : tensor<8x8xf32>
      }, {
        stablehlo.return %a : tensor<8x8xf32>
      }) : (tensor<i1>) -> tensor<8x8xf32>
      return %0 : tensor<8x8xf32>
    }"""
    assert _shapes(text) == [DotShape(1, 2, 2, 2, "f32"), DotShape(1, 8, 8, 8, "f32")]


def test_dynamic_products_and_modules_without_products():
    dynamic = """
    func.func public @main(%a: tensor<?x5xf32>, %b: tensor<5x7xf32>) -> tensor<?x7xf32> {
      %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<?x5xf32>, tensor<5x7xf32>) -> tensor<?x7xf32>
      return %0 : tensor<?x7xf32>
    }"""
    assert _shapes(dynamic) == []
    plain = """
    func.func public @main(%a: tensor<5xf32>) -> tensor<5xf32> {
      %0 = stablehlo.tanh %a : tensor<5xf32>
      return %0 : tensor<5xf32>
    }"""
    assert mlir.bytecode_dot_shapes(_bytecode(plain)) == []
    assert mlir.bytecode_dot_shapes(_bytecode(_chain(4, 3))) == [DotShape(1, 4, 4, 4, "f32")] * 3


# --- pjrt.ynn_fusion_wanted and the options -------------------------------------------


def test_policy_on_synthetic_products():
    small = DotShape(1, 16, 16, 16, "f32")
    big = DotShape(1, 1024, 1024, 1024, "f32")
    few, many = pjrt.YNN_FUSION_FEW_DOTS, pjrt.YNN_FUSION_FEW_DOTS + 1
    assert pjrt.ynn_fusion_wanted([]) is True  # nothing to decide: XLA's default
    assert pjrt.ynn_fusion_wanted([big]) is True
    # a few products of any size keep YNNPACK: its setup costs less than the
    # kernel generation of XLA's own dot path in a new process
    assert pjrt.ynn_fusion_wanted([small]) is True
    edge = round(pjrt.YNN_FUSION_MAX_WORK ** (1 / 3))
    mid = DotShape(1, edge, edge, edge, "f32")
    assert pjrt.ynn_fusion_wanted([mid] * few) is True
    # chains of small products run faster per call with YNNPACK: its default stays
    assert pjrt.ynn_fusion_wanted([small] * many) is True
    assert pjrt.ynn_fusion_wanted([small] * 300) is True
    # chains of mid-size products run as fast without it: off, however long
    assert pjrt.ynn_fusion_wanted([mid] * many) is False
    assert pjrt.ynn_fusion_wanted([mid] * 300) is False
    assert pjrt.ynn_fusion_wanted([mid] * 300 + [small]) is True  # a small one in the chain
    assert pjrt.ynn_fusion_wanted([mid] * 300 + [big]) is True  # a large one
    assert pjrt.ynn_fusion_wanted([mid] * 300 + [DotShape(1, edge, edge, edge, "f64")]) is True
    assert pjrt.ynn_fusion_wanted([mid] * few + [DotShape(1, edge, edge, edge + 1, "f32")]) is True
    low = round(pjrt.YNN_FUSION_MIN_CHAIN_WORK ** (1 / 3))
    assert pjrt.ynn_fusion_wanted([DotShape(1, low, low, low, "f32")] * many) is True
    assert pjrt.ynn_fusion_wanted([DotShape(1, low, low, low + 1, "f32")] * many) is False
    # the thresholds are on the whole work of the product, batch included
    half = DotShape(1, edge // 2, edge // 2, edge // 2 + 1, "f32")
    assert pjrt.ynn_fusion_wanted([half] * many) is False
    assert pjrt.ynn_fusion_wanted([half._replace(batch=64)] * many) is True
    # integer products are not YNNPACK's: they do not count
    assert pjrt.ynn_fusion_wanted([DotShape(1, 4, 4, 4, "i32")]) is True


def test_compile_options_override():
    assert _YNN not in pjrt.compile_options().env_option_overrides
    assert _YNN in pjrt.compile_options(ynn_fusion=False).env_option_overrides
    a, b = pjrt.compile_options(), pjrt.compile_options(ynn_fusion=False)
    assert pjrt.compile_options_fingerprint(a) != pjrt.compile_options_fingerprint(b)


def test_options_for_a_small_product_and_for_a_big_one():
    client = executables.get_client("cpu")
    device = client.local_devices()[0]
    small = executables.module_compile_options(client, _bytecode(_chain(16, 1)), device)
    big = executables.module_compile_options(client, _bytecode(_chain(512, 1)), device)
    long_chain = executables.module_compile_options(client, _bytecode(_chain(16, 10)), device)
    mid_chain = executables.module_compile_options(client, _bytecode(_chain(64, 10)), device)
    assert _YNN not in small.env_option_overrides
    assert _YNN not in big.env_option_overrides
    assert _YNN not in long_chain.env_option_overrides
    assert _YNN in mid_chain.env_option_overrides


def test_a_rolled_chain_of_products_counts_its_loop_body_once():
    # 300 layers of tanh(x @ w): rolled one layer an iteration, the executable holds
    # two products (the body's and the layer left after the loop), so YNNPACK stays
    client = executables.get_client("cpu")
    device = client.local_devices()[0]
    text = _chain(64, 1).replace("%w0: tensor<64x64xf32>", "%w: tensor<64x64xf32>")
    lines = text.splitlines()
    body = [f"  %d{i} = stablehlo.dot_general {'%x' if i == 0 else f'%t{i - 1}'}, %w, contracting_dims = [1] x [0]"
            f" : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>\n"
            f"  %t{i} = stablehlo.tanh %d{i} : tensor<64x64xf32>" for i in range(300)]
    text = "\n".join([lines[0], *body, "  return %t299 : tensor<64x64xf32>", "}"])
    plan = executables.compile_plan(client, _bytecode(text), device)
    assert plan.loops == 1
    assert len(mlir.bytecode_dot_shapes(plan.bytecode)) == 2
    assert _YNN not in plan.options.env_option_overrides
    # not rolled, the 300 mid-size products would have YNNPACK off
    assert pjrt.ynn_fusion_wanted(mlir.bytecode_dot_shapes(_bytecode(text))) is False


def test_cache_keys_differ_between_the_policies():
    client = executables.get_client("cpu")
    device = client.local_devices()[0]
    runtime = pjrt.runtime_fingerprint(client)
    program = b"the same program"
    on = cache.cache_key(program, [device], pjrt.compile_options(device), runtime)
    off = cache.cache_key(program, [device], pjrt.compile_options(device, ynn_fusion=False), runtime)
    assert on != off
    assert on == cache.cache_key(program, [device], pjrt.compile_options(device), runtime)


# --- results do not depend on the policy ----------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m,layers", [(4, 1), (16, 1), (16, 3), (160, 1)])
def test_results_match_numpy(dtype, m, layers):
    rng = np.random.default_rng(m * 10 + layers)
    x = hg.tensor("x", (m, m), dtype)
    ws = [hg.tensor(f"w{i}", (m, m), dtype) for i in range(layers)]
    h = x
    for w in ws:
        h = hg.tanh(h @ w)
    fn = hg.compile(hg.Graph([x, *ws], h))
    args = [rng.standard_normal((m, m)).astype(dtype) for _ in range(layers + 1)]
    args[1] = args[1].copy()
    args[1][0, 0] = np.nan  # NaN propagates through the product whatever the kernel
    expected = args[0]
    for w in args[1:]:
        expected = np.tanh(expected @ w)
    tol = 1e-4 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(np.asarray(fn(*args)), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("ynn", [True, False])
def test_both_settings_compute_the_same_product(ynn):
    client = executables.get_client("cpu")
    device = client.local_devices()[0]
    loaded = pjrt.compile_and_load(client, _bytecode(_chain(32, 2)), [device],
                                   pjrt.compile_options(device, ynn_fusion=ynn))
    rng = np.random.default_rng(1)
    args = [rng.uniform(-1, 1, (32, 32)).astype(np.float32) for _ in range(3)]
    bufs = [pjrt.device_putter(a.dtype, a.shape, device)(a) for a in args]
    out = np.asarray(pjrt.execute(loaded, bufs)[0])
    np.testing.assert_allclose(out, np.tanh(np.tanh(args[0] @ args[1]) @ args[2]), rtol=1e-5, atol=1e-5)


# --- pjrt.fusion_emitters_wanted: XLA:CPU's fusion emitters by module size -------------

_EMITTERS = ("xla_cpu_use_fusion_emitters", False)


def _elementwise_chain(n: int, shape: str = "8xf32") -> str:
    """A module of n + 2 ops (the function, n sine/cosine/add ops, the return)."""
    t = f"tensor<{shape}>"
    lines = [f"func.func public @main(%x: {t}, %y: {t}) -> {t} {{"]
    v = "%x"
    for i in range(n):
        op = ("stablehlo.sine {v}", "stablehlo.cosine {v}", "stablehlo.add {v}, %y")[i % 3]
        lines.append(f"  %v{i} = {op.format(v=v)} : {t}")
        v = f"%v{i}"
    lines += [f"  return {v} : {t}", "}"]
    return "\n".join(lines)


def test_module_size_counts_every_op_and_the_longest_fusible_chain():
    assert pjrt.module_size(_bytecode(_elementwise_chain(10))) == (12, 11, 8)  # func: no depth
    nested = """
    func.func public @main(%a: tensor<f32>, %p: tensor<i1>) -> tensor<f32> {
      %0 = "stablehlo.if"(%p) ({
        %1 = stablehlo.sine %a : tensor<f32>
        %2 = stablehlo.sine %1 : tensor<f32>
        stablehlo.return %2 : tensor<f32>
      }, {
        stablehlo.return %a : tensor<f32>
      }) : (tensor<i1>) -> tensor<f32>
      %3 = stablehlo.cosine %0 : tensor<f32>
      return %3 : tensor<f32>
    }"""
    # func, if, 2 sines, 2 branch returns, cosine, return; the branch's chain is the deepest
    assert pjrt.module_size(_bytecode(nested)) == (8, 3, 1)
    # products end chains: tanh(x @ w) layers are one deep however many there are
    assert pjrt.module_size(_bytecode(_chain(8, 50))) == (102, 2, 64)
    calls = """
    func.func private @f(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.sine %a : tensor<2xf32>
      %1 = stablehlo.sine %0 : tensor<2xf32>
      return %1 : tensor<2xf32>
    }
    func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = func.call @f(%a) : (tensor<2xf32>) -> tensor<2xf32>
      %1 = func.call @f(%0) : (tensor<2xf32>) -> tensor<2xf32>
      return %1 : tensor<2xf32>
    }"""
    # XLA inlines calls: each adds its callee's chain (2 sines and its return)
    assert pjrt.module_size(_bytecode(calls)) == (8, 9, 2)


def test_fusion_emitters_kept_for_small_modules_and_off_for_big_ones(monkeypatch):
    monkeypatch.delenv(pjrt.FUSION_EMITTERS_ENV, raising=False)
    limit = pjrt.FUSION_EMITTERS_MAX_OPS
    assert pjrt.fusion_emitters_wanted(_bytecode(_elementwise_chain(limit - 2))) is True  # limit ops
    assert pjrt.fusion_emitters_wanted(_bytecode(_elementwise_chain(limit - 1))) is False
    assert pjrt.fusion_emitters_wanted(_bytecode(_elementwise_chain(pjrt.FUSION_EMITTERS_MAX_DEPTH - 1))) is False
    assert pjrt.fusion_emitters_wanted(_bytecode(_elementwise_chain(1500, "2x4xf32"))) is False
    assert pjrt.fusion_emitters_wanted(_bytecode(_elementwise_chain(1500, "f32"))) is False
    # values of more elements keep them, however big the module (their kernels run faster)
    assert pjrt.fusion_emitters_wanted(_bytecode(_elementwise_chain(1500, "16xf32"))) is True
    assert pjrt.fusion_emitters_wanted(_bytecode(_elementwise_chain(1500, "?xf32"))) is True
    assert pjrt.fusion_emitters_wanted(_chain(64, 600).encode()) is True  # as text: 1202 ops
    assert pjrt.fusion_emitters_wanted(_chain(2, 600).encode()) is False  # 2x2 products
    # an argument's elements count too: a reduction of a big input to a scalar chain
    reduce = _elementwise_chain(1500, "f32").replace(
        "func.func public @main(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {",
        "func.func public @main(%big: tensor<64xf32>, %y: tensor<f32>) -> tensor<f32> {\n"
        "  %x = stablehlo.reduce(%big init: %y) applies stablehlo.add across dimensions = [0]"
        " : (tensor<64xf32>, tensor<f32>) -> tensor<f32>")
    assert pjrt.module_size(_bytecode(reduce)).elements == 64
    assert pjrt.fusion_emitters_wanted(_bytecode(reduce)) is True
    # and a big tensor in a small module keeps them
    assert pjrt.fusion_emitters_wanted(_bytecode(_elementwise_chain(10, "1024x1024xf32"))) is True


def test_fusion_emitters_kept_for_chains_too_deep_for_the_elemental_emitter(monkeypatch):
    monkeypatch.delenv(pjrt.FUSION_EMITTERS_ENV, raising=False)
    depth = pjrt.FUSION_EMITTERS_MAX_DEPTH
    assert pjrt.fusion_emitters_wanted(_bytecode(_elementwise_chain(depth))) is True  # depth + 1
    assert pjrt.fusion_emitters_wanted(_bytecode(_elementwise_chain(5 * depth))) is True


def test_short_bytecode_is_not_parsed(monkeypatch):
    monkeypatch.delenv(pjrt.FUSION_EMITTERS_ENV, raising=False)

    def no_parse(_):
        raise AssertionError("parsed a module whose size its bytecode tells")

    small = _bytecode(_elementwise_chain(20))
    monkeypatch.setattr(pjrt, "module_size", no_parse)
    assert pjrt.fusion_emitters_wanted(small) is True
    with pytest.raises(AssertionError, match="parsed"):
        pjrt.fusion_emitters_wanted(_bytecode(_elementwise_chain(2 * pjrt.FUSION_EMITTERS_MAX_OPS)))


def test_an_op_takes_at_least_the_assumed_bytes_of_bytecode():
    # the most compact ops there are: scalar adds without locations
    n = 3000
    lines = ["func.func public @main(%a: tensor<f32>) -> tensor<f32> {", "  %v0 = stablehlo.add %a, %a : tensor<f32>"]
    lines += [f"  %v{i} = stablehlo.add %v{i - 1}, %v{i - 1} : tensor<f32>" for i in range(1, n)]
    lines += [f"  return %v{n - 1} : tensor<f32>", "}"]
    bytecode = _bytecode("\n".join(lines))
    assert pjrt.module_size(bytecode).ops == n + 2
    assert len(bytecode) >= (n + 2) * pjrt._MIN_BYTES_PER_OP


@pytest.mark.parametrize("value,expected", [("on", True), ("1", True), ("ON ", True), ("off", False),
                                            ("0", False), ("auto", None), ("", None)])
def test_environment_overrides_the_choice(monkeypatch, value, expected):
    small, big = _bytecode(_elementwise_chain(10)), _bytecode(_elementwise_chain(1500))
    monkeypatch.setenv(pjrt.FUSION_EMITTERS_ENV, value)
    if expected is None:
        assert (pjrt.fusion_emitters_wanted(small), pjrt.fusion_emitters_wanted(big)) == (True, False)
    else:
        assert pjrt.fusion_emitters_wanted(small) is expected
        assert pjrt.fusion_emitters_wanted(big) is expected


def test_bad_environment_value_is_named(monkeypatch):
    monkeypatch.setenv(pjrt.FUSION_EMITTERS_ENV, "sometimes")
    with pytest.raises(ValueError, match="HLOGRAPH_XLA_FUSION_EMITTERS='sometimes'.*auto, on, off"):
        pjrt.fusion_emitters_wanted(_bytecode(_elementwise_chain(10)))


def test_fusion_emitters_option_and_its_cache_key():
    assert _EMITTERS not in pjrt.compile_options().env_option_overrides
    both = pjrt.compile_options(ynn_fusion=False, fusion_emitters=False).env_option_overrides
    assert _EMITTERS in both and _YNN in both
    assert pjrt.compile_options(fusion_emitters=False).env_option_overrides == [_EMITTERS]
    prints = {pjrt.compile_options_fingerprint(pjrt.compile_options(ynn_fusion=y, fusion_emitters=f))
              for y in (True, False) for f in (True, False)}
    assert len(prints) == 4


def _random_chain(n: int, shape: str = "8xf32", seed: int = 0) -> str:
    """A module of n + 2 ops: a chain of sine, cosine, tanh, add, subtract and
    multiply (by %y) drawn at random, so that no run of it repeats."""
    t = f"tensor<{shape}>"
    rng = np.random.default_rng(seed)
    lines = [f"func.func public @main(%x: {t}, %y: {t}) -> {t} {{"]
    v = "%x"
    ops = ("stablehlo.sine {v}", "stablehlo.cosine {v}", "stablehlo.tanh {v}", "stablehlo.add {v}, %y",
           "stablehlo.subtract {v}, %y", "stablehlo.multiply {v}, %y")
    for i in range(n):
        lines.append(f"  %v{i} = {ops[int(rng.integers(0, len(ops)))].format(v=v)} : {t}")
        v = f"%v{i}"
    lines += [f"  return {v} : {t}", "}"]
    return "\n".join(lines)


def test_module_options_for_a_small_module_and_for_a_big_one(monkeypatch):
    monkeypatch.delenv(pjrt.FUSION_EMITTERS_ENV, raising=False)
    client = executables.get_client("cpu")
    device = client.local_devices()[0]
    small = executables.module_compile_options(client, _bytecode(_elementwise_chain(30)), device)
    big = executables.module_compile_options(client, _bytecode(_random_chain(1500)), device)
    assert _EMITTERS not in small.env_option_overrides
    assert _EMITTERS in big.env_option_overrides
    # a small module's options are XLA's defaults: unchanged by the size policy
    assert pjrt.compile_options_fingerprint(small) == pjrt.compile_options_fingerprint(pjrt.compile_options(device))
    dots = executables.module_compile_options(client, _bytecode(_chain(2, 600)), device)
    assert _EMITTERS in dots.env_option_overrides and _YNN not in dots.env_option_overrides
    wide = executables.module_compile_options(client, _bytecode(_chain(64, 600)), device)
    assert _EMITTERS not in wide.env_option_overrides and _YNN in wide.env_option_overrides


def _mixed_graph():
    """Products, reductions, transposes, broadcasts, selects and elementwise math."""
    x = hg.tensor("x", (6, 5), "float32")
    w = hg.tensor("w", (5, 6), "float32")
    h = hg.tanh(x @ w)
    h = hg.where(h > 0, hg.sin(h) * 2.0, hg.exp(h)) + h.T
    s = hg.sum(h, axis=-1, keepdims=True)
    m = hg.max(h, axis=0)
    return hg.Graph([x, w], [h / (s + 1.0) - m, hg.cos(s).reshape((6,)), hg.log(hg.abs(h) + 1e-3)])


def test_both_emitters_compute_identical_results():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    w = rng.standard_normal((5, 6)).astype(np.float32)
    x[0, 0], x[1, 2], w[3, 3] = np.nan, np.inf, -np.inf
    g = _mixed_graph()
    expected = hg.evaluate(g, x, w)
    bytecode = mlir.module_to_bytecode(hg.compile(g).lower().module)
    client = executables.get_client("cpu")
    device = client.local_devices()[0]
    outs = []
    for emitters in (True, False):
        loaded = pjrt.compile_and_load(client, bytecode, [device],
                                       pjrt.compile_options(device, fusion_emitters=emitters))
        bufs = [pjrt.device_putter(a.dtype, a.shape, device)(a) for a in (x, w)]
        outs.append([np.asarray(o) for o in pjrt.execute(loaded, bufs)])
    for a, b, ref in zip(*outs, expected):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, ref, rtol=1e-5, atol=1e-5)


def _deep_chain(x, y, n: int, xp):
    """n steps of sin, *y, select, clip, cos, +y, tanh, float64 and back, taken in turn."""
    v = x
    for i in range(n):
        k = i % 8
        if k == 0:
            v = xp.sin(v)
        elif k == 1:
            v = v * y
        elif k == 2:
            v = xp.where(v > y, v, y * 0.5)
        elif k == 3:
            v = xp.clip(v, -2.0, 2.0)
        elif k == 4:
            v = xp.cos(v)
        elif k == 5:
            v = v + y
        elif k == 6:
            v = xp.tanh(v)
        else:
            v = (v.astype("float64") * 1.5).astype("float32")
    return v


def test_the_deepest_chain_allowed_compiles_without_fusion_emitters(monkeypatch):
    """Every kind of fused op up to the depth the policy hands the elemental IR
    emitter (which recurses once per op) compiles, and the results match NumPy."""
    monkeypatch.delenv(pjrt.FUSION_EMITTERS_ENV, raising=False)
    x = hg.tensor("x", (8,), "float32")
    y = hg.tensor("y", (8,), "float32")
    limit = pjrt.FUSION_EMITTERS_MAX_DEPTH
    n = limit
    for _ in range(5):  # the steps lower to fewer ops than they are: find n of depth ~limit
        fn = hg.compile(hg.Graph([x, y], _deep_chain(x, y, n, hg)))
        bytecode = mlir.module_to_bytecode(fn.lower().module)
        size = pjrt.module_size(bytecode)
        if limit - 20 < size.depth <= limit:
            break
        n = n * (limit - 10) // size.depth
    assert size.depth > pjrt.FUSION_EMITTERS_MAX_DEPTH - 20 and size.ops > pjrt.FUSION_EMITTERS_MAX_OPS
    assert pjrt.fusion_emitters_wanted(bytecode) is False
    rng = np.random.default_rng(3)
    a = rng.uniform(-2, 2, 8).astype(np.float32)
    b = rng.uniform(-1, 1, 8).astype(np.float32)
    a[0], b[1], b[2] = np.nan, np.inf, -np.inf
    with np.errstate(invalid="ignore", over="ignore"):
        expected = _deep_chain(a, b, n, np)
    np.testing.assert_allclose(np.asarray(fn(a, b)), expected, rtol=1e-4, atol=1e-5)


# --- runtime.compile_plan: loops rolled and chains cut before XLA:CPU compiles -------

_CUT = ('%c = stablehlo.custom_call @dce_sink({v}) {{api_version = 4 : i32, backend_config = {{}}, '
        'output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], '
        'operand_index = 0, operand_tuple_indices = []>]}} : ({t}) -> {t}')


def test_depth_starts_again_after_a_fusion_cut():
    """The identity custom call of hlograph-cut-fusion is a fusion boundary to the
    depth the policy reads, as XLA:CPU fuses nothing across it."""
    t = "tensor<8xf32>"
    lines = [f"func.func public @main(%x: {t}, %y: {t}) -> {t} {{"]
    v = "%x"
    for i in range(40):
        lines.append(f"  %v{i} = stablehlo.add {v}, %y : {t}")
        v = f"%v{i}"
        if i == 19:
            lines.append("  " + _CUT.format(v=v, t=t))
            v = "%c"
    lines += [f"  return {v} : {t}", "}"]
    assert pjrt.module_size(_bytecode(_elementwise_chain(40))).depth == 41
    assert pjrt.module_size(_bytecode("\n".join(lines))).depth == 21  # 20 after the cut and the return
    assert "stablehlo.custom_call" in pjrt.FUSION_BOUNDARIES


def test_module_size_of_a_module_and_of_its_bytecode():
    text = _chain(8, 5)
    with mlir.make_context() as ctx:
        module = mlir.ir.Module.parse(text, ctx)
        assert pjrt.module_size(module) == pjrt.module_size(_bytecode(text)) == (12, 2, 64)


def test_cuts_wanted_only_where_depth_alone_keeps_the_fusion_emitters():
    S = pjrt.ModuleSize
    deep, limit = pjrt.FUSION_EMITTERS_MAX_DEPTH + 1, pjrt.FUSION_EMITTERS_MAX_OPS
    assert pjrt.fusion_cuts_wanted(S(limit + 1, deep, 8))
    assert not pjrt.fusion_cuts_wanted(S(limit + 1, deep - 1, 8))  # the elemental emitter takes it
    assert not pjrt.fusion_cuts_wanted(S(limit, deep, 8))  # small: XLA's defaults
    assert not pjrt.fusion_cuts_wanted(S(limit + 1, deep, 16))  # big values: XLA's defaults
    assert pjrt.fusion_emitters_for(S(limit + 1, deep, 8)) and not pjrt.fusion_emitters_for(S(limit + 1, 1000, 8))


def _plan(text: str):
    client = executables.get_client("cpu")
    return executables.compile_plan(client, _bytecode(text), client.local_devices()[0])


def _run(bytecode: bytes, options, *args) -> np.ndarray:
    client = executables.get_client("cpu")
    device = client.local_devices()[0]
    loaded = pjrt.compile_and_load(client, bytecode, [device], options)
    bufs = [pjrt.device_putter(a.dtype, a.shape, device)(a) for a in args]
    return np.asarray(pjrt.execute(loaded, bufs)[0])


def _inputs(n: int = 8):
    rng = np.random.default_rng(2)
    x = rng.uniform(-2, 2, n).astype(np.float32)
    y = rng.uniform(-1, 1, n).astype(np.float32)
    x[:4] = [np.nan, -np.inf, -0.0, 1e-30]
    return x, y


def test_deep_chain_of_tiny_values_is_cut_for_the_elemental_emitter(monkeypatch):
    """A chain too deep for the elemental IR emitter kept XLA's fusion emitters;
    cut, it compiles without them, to the same bits as the uncut chain with them."""
    monkeypatch.delenv(pjrt.FUSION_EMITTERS_ENV, raising=False)
    text = _random_chain(2 * pjrt.FUSION_EMITTERS_MAX_DEPTH)
    assert pjrt.fusion_emitters_wanted(_bytecode(text)) is True  # as it is: too deep
    plan = _plan(text)
    assert plan.loops == 0 and plan.cuts >= 2 and plan.changed
    assert _EMITTERS in plan.options.env_option_overrides
    size = pjrt.module_size(plan.bytecode)
    assert size.depth <= pjrt.FUSION_EMITTERS_MAX_DEPTH and size.ops == 2 * pjrt.FUSION_EMITTERS_MAX_DEPTH + 2 + plan.cuts
    x, y = _inputs()
    expected = _run(_bytecode(text), pjrt.compile_options(), x, y)
    np.testing.assert_array_equal(_run(plan.bytecode, plan.options, x, y).view(np.int32), expected.view(np.int32))


def test_deep_chain_of_bigger_values_keeps_the_defaults(monkeypatch):
    monkeypatch.delenv(pjrt.FUSION_EMITTERS_ENV, raising=False)
    text = _random_chain(2 * pjrt.FUSION_EMITTERS_MAX_DEPTH, "16xf32")
    plan = _plan(text)
    assert not plan.changed and plan.bytecode == _bytecode(text)
    assert _EMITTERS not in plan.options.env_option_overrides


def test_repeated_ops_are_rolled_into_a_loop(monkeypatch):
    monkeypatch.delenv(pjrt.FUSION_EMITTERS_ENV, raising=False)
    text = _elementwise_chain(3000)
    plan = _plan(text)
    assert plan.loops == 1 and plan.cuts == 0
    size = pjrt.module_size(plan.bytecode)
    assert size.ops < 300  # one loop of about LOOP_ROLL_BODY_OPS ops and what is left
    # the emitters are chosen for the ops it runs: without the fusion emitters
    # for values this small, with them for bigger ones
    assert _EMITTERS in plan.options.env_option_overrides
    bigger = _plan(_elementwise_chain(3000, "16xf32"))
    assert bigger.loops == 1 and _EMITTERS not in bigger.options.env_option_overrides
    x, y = _inputs()
    expected = _run(_bytecode(text), pjrt.compile_options(), x, y)
    np.testing.assert_array_equal(_run(plan.bytecode, plan.options, x, y).view(np.int32), expected.view(np.int32))
    # repeated runs shorter than LOOP_ROLL_MIN_OPS are left as they are
    assert not _plan(_elementwise_chain(pjrt.LOOP_ROLL_MIN_OPS - 10)).changed


@pytest.mark.parametrize("value", ["on", "off"])
def test_a_forced_emitter_choice_compiles_the_module_as_it_is(monkeypatch, value):
    monkeypatch.setenv(pjrt.FUSION_EMITTERS_ENV, value)
    for text in (_elementwise_chain(3000), _random_chain(2500)):
        plan = _plan(text)
        assert not plan.changed and plan.bytecode == _bytecode(text)
        assert (_EMITTERS in plan.options.env_option_overrides) is (value == "off")


def test_a_changed_module_has_its_own_executable_key(monkeypatch):
    """compile_bytecode keys the executable of a rolled or cut module apart from
    the module's own fingerprint (the on-disk cache cannot mix them up)."""
    monkeypatch.delenv(pjrt.FUSION_EMITTERS_ENV, raising=False)
    seen = []

    def fake(client, bytecode, devices, options, fingerprint=None):
        seen.append((bytecode, fingerprint))
        return pjrt.compile_and_load(client, bytecode, devices, options)

    monkeypatch.setattr(executables, "compile_cached", fake)
    executables.clear_cache()
    for text in (_elementwise_chain(30), _elementwise_chain(3000)):
        bytecode = _bytecode(text)
        fingerprint = bytes(32) + text[-20:].encode()
        executables.compile_bytecode(bytecode, "cpu", fingerprint=fingerprint)
    (small_code, small_key), (big_code, big_key) = seen
    assert small_key == bytes(32) + _elementwise_chain(30)[-20:].encode() and small_code == _bytecode(_elementwise_chain(30))
    assert big_key != bytes(32) + _elementwise_chain(3000)[-20:].encode() and len(big_code) < len(_bytecode(_elementwise_chain(3000)))
    executables.clear_cache()


def test_contraction_and_excess_precision_rules():
    text = """
    func.func public @main(%a: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<4xf32> {
      %m = stablehlo.multiply %a, %a : tensor<4xf32>
      %n = stablehlo.negate %m : tensor<4xf32>
      %s = stablehlo.add %n, %a : tensor<4xf32>
      %r = stablehlo.reshape %s : (tensor<4xf32>) -> tensor<2x2xf32>
      %e = stablehlo.exponential %a : tensor<4xf32>
      %k = stablehlo.multiply %i, %i : tensor<4xi32>
      %w = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xf64>
      return %s : tensor<4xf32>
    }"""
    with mlir.make_context() as ctx:
        module = mlir.ir.Module.parse(text, ctx)
        f = next(iter(module.body.operations))
        block = f.regions[0].blocks[0]
        safe = {op.operation.name + ("" if i else ""): pjrt.contraction_safe(op.results[0])
                for i, op in enumerate(block.operations) if len(op.results)}
        assert pjrt.contraction_safe(block.arguments[0])
        got = [pjrt.contraction_safe(op.results[0]) for op in block.operations if len(op.results)]
        # multiply, negate of it, add, reshape of the add, exp, integer multiply, widening convert
        assert got == [False, False, True, True, False, True, True]
        assert not pjrt.excess_precision(module)  # widening only
    assert safe  # (names seen)
    narrow = text.replace("%w = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xf64>",
                          "%w = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xbf16>")
    with mlir.make_context() as ctx:
        assert pjrt.excess_precision(mlir.ir.Module.parse(narrow, ctx))
