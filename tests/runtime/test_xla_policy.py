"""The compile options chosen per module: the matrix products of a module
(``mlir.dot_shapes``), whether XLA:CPU gets YNNPACK dot fusions
(``pjrt.ynn_fusion_wanted``), the options ``runtime.compile_bytecode`` uses and
their part in the executable cache key."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.runtime import cache, executables
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
    t = f"tensor<{m}x{m}x{et}>"
    params = ", ".join(f"%w{i}: {t}" for i in range(chain))
    lines = [f"func.func public @main(%x: {t}, {params}) -> {t} {{"]
    v = "%x"
    for i in range(chain):
        lines.append(f"  %d{i} = stablehlo.dot_general {v}, %w{i}, contracting_dims = [1] x [0] : ({t}, {t}) -> {t}")
        lines.append(f"  %t{i} = stablehlo.tanh %d{i} : {t}")
        v = f"%t{i}"
    lines += [f"  return {v} : {t}", "}"]
    return "\n".join(lines)


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
    assert pjrt.ynn_fusion_wanted([]) is True  # nothing to decide: XLA's default
    assert pjrt.ynn_fusion_wanted([big]) is True
    assert pjrt.ynn_fusion_wanted([small]) is False
    assert pjrt.ynn_fusion_wanted([small, big]) is True  # one large product keeps YNNPACK
    # chains of small products run faster per call with YNNPACK: its default stays
    assert pjrt.ynn_fusion_wanted([small] * (pjrt.YNN_FUSION_MAX_DOTS + 1)) is True
    # the threshold is on the whole work of the product, batch included
    edge = round(pjrt.YNN_FUSION_MAX_WORK ** (1 / 3))
    assert pjrt.ynn_fusion_wanted([DotShape(1, edge, edge, edge, "f32")]) is True
    assert pjrt.ynn_fusion_wanted([DotShape(1, edge // 2, edge // 2, edge // 2, "f32")]) is False
    assert pjrt.ynn_fusion_wanted([DotShape(64, edge // 2, edge // 2, edge // 2, "f32")]) is True
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
    assert _YNN in small.env_option_overrides
    assert _YNN not in big.env_option_overrides
    assert _YNN not in long_chain.env_option_overrides


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
